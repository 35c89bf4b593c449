// A small layout layer over pdfkit for the evidence reports: section headings with a table of
// contents and PDF bookmarks, paragraphs, key/value blocks, tables that paginate with repeated
// header rows, status pills, and running header/footer with "Page X of Y".
//
// Every string goes through pdfSafe (the built-in Helvetica only has WinAnsi glyphs), every text
// call has an explicit width, and every table cell is clipped to its row, so nothing runs past the
// margins. No clock and no randomness: the same calls give the same bytes.

import PDFDocument from 'pdfkit';
import { joinSmallChunks } from '../chunks.js';
import { pdfSafe } from '../format.js';
import { drawContents, drawRunningText, type RunningText, type SectionEntry } from './running.js';
import {
  A4,
  COLOR,
  FONTS,
  MARGIN,
  PILL_H,
  STATUS_STYLE,
  type Column,
  type FontName,
  type StatusKey,
  type TableOptions,
} from './style.js';
import { drawTable } from './table.js';
import type { PdfCanvas } from './canvas.js';

export class PdfWriter implements PdfCanvas {
  readonly doc: PDFKit.PDFDocument;
  private readonly sections: SectionEntry[] = [];
  private tocArea?: { x: number; y: number; width: number; page: number };
  private sectionCounter = 0;
  private readonly chunks: Buffer[] = [];

  constructor(
    info: {
      title: string;
      author: string;
      subject: string;
      keywords: string;
      creator: string;
      producer: string;
      createdAt: Date;
    },
    private readonly running: RunningText,
  ) {
    this.doc = new PDFDocument({
      size: 'A4',
      margins: MARGIN,
      bufferPages: true,
      autoFirstPage: false,
      pdfVersion: '1.7',
      lang: 'en',
      displayTitle: true,
      info: {
        Title: pdfSafe(info.title),
        Author: pdfSafe(info.author),
        Subject: pdfSafe(info.subject),
        Keywords: pdfSafe(info.keywords),
        Creator: pdfSafe(info.creator),
        Producer: pdfSafe(info.producer),
        CreationDate: info.createdAt,
        ModDate: info.createdAt,
      },
    });
    this.doc.on('data', (c: Buffer) => this.chunks.push(c));
    this.doc.addPage();
  }

  get left(): number {
    return MARGIN.left;
  }
  get width(): number {
    return A4.width - MARGIN.left - MARGIN.right;
  }
  get bottom(): number {
    return A4.height - MARGIN.bottom;
  }
  get y(): number {
    return this.doc.y;
  }
  set y(value: number) {
    this.doc.y = value;
  }
  get pageIndex(): number {
    return this.doc.bufferedPageRange().start + this.doc.bufferedPageRange().count - 1;
  }

  font(name: FontName, size: number, color: string = COLOR.ink): this {
    this.doc.font(FONTS[name]).fontSize(size).fillColor(color);
    return this;
  }

  measure(text: string, font: FontName, size: number, width: number, lineGap = 1): number {
    this.doc.font(FONTS[font]).fontSize(size);
    return this.doc.heightOfString(pdfSafe(text), { width, lineGap });
  }

  textWidth(text: string, font: FontName, size: number): number {
    this.doc.font(FONTS[font]).fontSize(size);
    return this.doc.widthOfString(pdfSafe(text));
  }

  newPage(): void {
    this.doc.addPage();
    this.doc.x = this.left;
    this.doc.y = MARGIN.top;
  }

  /** Starts a new page unless `height` points still fit on this one. */
  ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom) this.newPage();
  }

  space(points: number): void {
    this.doc.y += points;
  }

  /** Draws text at the current y across the content width (or a given box) and advances y. */
  text(
    value: string,
    opts: {
      font?: FontName;
      size?: number;
      color?: string;
      x?: number;
      width?: number;
      align?: 'left' | 'right' | 'center' | 'justify';
      lineGap?: number;
      gapAfter?: number;
    } = {},
  ): void {
    const size = opts.size ?? 9.5;
    const font = opts.font ?? 'regular';
    const width = opts.width ?? this.width;
    const x = opts.x ?? this.left;
    const lineGap = opts.lineGap ?? 2;
    const height = this.measure(value, font, size, width, lineGap);
    if (height <= this.bottom - MARGIN.top) this.ensureSpace(height);
    this.font(font, size, opts.color ?? COLOR.ink);
    this.doc.text(pdfSafe(value), x, this.doc.y, { width, align: opts.align ?? 'left', lineGap });
    this.doc.x = this.left;
    this.doc.y += opts.gapAfter ?? 5;
  }

  paragraph(value: string, gapAfter = 7): void {
    this.text(value, { size: 9.5, lineGap: 2.5, gapAfter });
  }

  /** Bulleted list; each item may wrap, continuation lines are indented under the text. */
  bullets(items: readonly string[], opts: { size?: number; color?: string } = {}): void {
    const size = opts.size ?? 9.5;
    const indent = 12;
    for (const item of items) {
      const height = this.measure(item, 'regular', size, this.width - indent, 2);
      this.ensureSpace(height + 3);
      const y = this.doc.y;
      this.font('regular', size, COLOR.accent);
      this.doc.text('•', this.left + 2, y, { width: indent, lineBreak: false });
      this.font('regular', size, opts.color ?? COLOR.ink);
      this.doc.text(pdfSafe(item), this.left + indent, y, { width: this.width - indent, lineGap: 2 });
      this.doc.y += 3;
    }
    this.doc.x = this.left;
    this.doc.y += 4;
  }

  /** Numbered section heading: starts the section, adds a bookmark and a contents entry. */
  section(title: string, opts: { newPage?: boolean; minSpaceAfter?: number; label?: string } = {}): void {
    if (opts.newPage) this.newPage();
    else this.ensureSpace(28 + (opts.minSpaceAfter ?? 110));
    let numbered: string;
    if (opts.label) numbered = `${opts.label}. ${title}`;
    else {
      this.sectionCounter += 1;
      numbered = `${this.sectionCounter}. ${title}`;
    }
    const destination = `section-${this.sections.length + 1}`;
    this.doc.addNamedDestination(destination, 'XYZ', null, this.doc.y, null);
    this.doc.outline.addItem(numbered);
    this.sections.push({ title: numbered, page: this.pageIndex, destination });
    if (this.doc.y > MARGIN.top + 1) this.doc.y += 6;
    this.font('bold', 14, COLOR.accent);
    this.doc.text(pdfSafe(numbered), this.left, this.doc.y, { width: this.width });
    const ruleY = this.doc.y + 2;
    this.doc
      .moveTo(this.left, ruleY)
      .lineTo(this.left + this.width, ruleY)
      .lineWidth(0.8)
      .strokeColor(COLOR.accent)
      .stroke();
    this.doc.y = ruleY + 9;
    this.doc.x = this.left;
  }

  /** An unnumbered sub-heading within a section. */
  subheading(title: string, minSpaceAfter = 50): void {
    this.ensureSpace(18 + minSpaceAfter);
    this.doc.y += 3;
    this.font('bold', 10.5, COLOR.ink);
    this.doc.text(pdfSafe(title), this.left, this.doc.y, { width: this.width });
    this.doc.y += 4;
    this.doc.x = this.left;
  }

  /** Two-column label/value block (cover, definitions). */
  keyValues(
    rows: ReadonlyArray<[string, string, FontName?]>,
    opts: { labelWidth?: number; size?: number; x?: number; width?: number } = {},
  ): void {
    const size = opts.size ?? 9.5;
    const x = opts.x ?? this.left;
    const total = opts.width ?? this.width;
    const labelWidth = opts.labelWidth ?? 130;
    const valueWidth = total - labelWidth;
    for (const [label, value, font] of rows) {
      const valueFont = font ?? 'regular';
      const valueSize = valueFont === 'mono' ? size - 1.5 : size;
      const h = Math.max(
        this.measure(label, 'bold', size, labelWidth - 8, 1.5),
        this.measure(value || '-', valueFont, valueSize, valueWidth, 1.5),
      );
      this.ensureSpace(h + 5);
      const y = this.doc.y;
      this.font('bold', size, COLOR.muted);
      this.doc.text(pdfSafe(label), x, y, { width: labelWidth - 8, lineGap: 1.5 });
      this.font(valueFont, valueSize, COLOR.ink);
      this.doc.text(pdfSafe(value || '-'), x + labelWidth, y + (valueFont === 'mono' ? 1 : 0), {
        width: valueWidth,
        lineGap: 1.5,
      });
      this.doc.y = y + h + 4;
      this.doc
        .moveTo(x, this.doc.y - 2)
        .lineTo(x + total, this.doc.y - 2)
        .lineWidth(0.4)
        .strokeColor(COLOR.hairline)
        .stroke();
      this.doc.y += 1;
    }
    this.doc.x = this.left;
    this.doc.y += 6;
  }

  /** A monospaced block (commands), each line clipped to the width rather than wrapped. */
  code(lines: readonly string[], size = 7.5): void {
    const pad = 7;
    const lineHeight = size + 3;
    const height = lines.length * lineHeight + 2 * pad - 3;
    this.ensureSpace(height + 8);
    const y = this.doc.y;
    this.doc.rect(this.left, y, this.width, height).fill(COLOR.calloutFill);
    this.doc.rect(this.left, y, this.width, height).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
    this.font('mono', size, COLOR.ink);
    lines.forEach((line, i) => {
      this.doc.text(pdfSafe(line), this.left + pad, y + pad + i * lineHeight, {
        width: this.width - 2 * pad,
        lineBreak: false,
        height: lineHeight,
        ellipsis: true,
      });
    });
    this.doc.x = this.left;
    this.doc.y = y + height + 8;
  }

  /** A tinted box with an optional bold title. */
  callout(body: string, opts: { title?: string; fill?: string; bar?: string; size?: number } = {}): void {
    const size = opts.size ?? 9;
    const pad = 9;
    const innerWidth = this.width - 2 * pad - 3;
    const titleHeight = opts.title ? this.measure(opts.title, 'bold', size + 0.5, innerWidth) + 3 : 0;
    const bodyHeight = this.measure(body, 'regular', size, innerWidth, 2);
    const height = titleHeight + bodyHeight + 2 * pad;
    this.ensureSpace(height + 6);
    const y = this.doc.y;
    this.doc.rect(this.left, y, this.width, height).fill(opts.fill ?? COLOR.calloutFill);
    this.doc.rect(this.left, y, 3, height).fill(opts.bar ?? COLOR.accent);
    let ty = y + pad;
    if (opts.title) {
      this.font('bold', size + 0.5, COLOR.ink);
      this.doc.text(pdfSafe(opts.title), this.left + pad + 3, ty, { width: innerWidth });
      ty += titleHeight;
    }
    this.font('regular', size, COLOR.ink);
    this.doc.text(pdfSafe(body), this.left + pad + 3, ty, { width: innerWidth, lineGap: 2 });
    this.doc.x = this.left;
    this.doc.y = y + height + 10;
  }

  /** A row of KPI tiles (value large, label and note small; both may wrap). */
  tiles(items: ReadonlyArray<{ value: string; label: string; note?: string }>): void {
    const gap = 8;
    const pad = 8;
    const n = items.length;
    const w = (this.width - gap * (n - 1)) / n;
    const inner = w - 2 * pad;
    const labelHeights = items.map((i) => this.measure(i.label.toUpperCase(), 'bold', 7.2, inner, 0.5));
    const noteHeights = items.map((i) => (i.note ? this.measure(i.note, 'regular', 7.2, inner, 0.5) : 0));
    const labelBlock = Math.max(...labelHeights);
    const h = pad + 20 + 4 + labelBlock + 3 + Math.max(...noteHeights) + pad;
    this.ensureSpace(h + 10);
    const y = this.doc.y;
    items.forEach((item, i) => {
      const x = this.left + i * (w + gap);
      this.doc.rect(x, y, w, h).fill(COLOR.accentSoft);
      this.doc.rect(x, y, w, 2).fill(COLOR.accent);
      this.font('bold', 17, COLOR.accent);
      this.doc.text(pdfSafe(item.value), x + pad, y + pad + 1, { lineBreak: false });
      this.font('bold', 7.2, COLOR.ink);
      this.doc.text(pdfSafe(item.label.toUpperCase()), x + pad, y + pad + 24, { width: inner, lineGap: 0.5 });
      if (item.note) {
        this.font('regular', 7.2, COLOR.muted);
        this.doc.text(pdfSafe(item.note), x + pad, y + pad + 24 + labelBlock + 3, {
          width: inner,
          lineGap: 0.5,
        });
      }
    });
    this.doc.x = this.left;
    this.doc.y = y + h + 12;
  }

  /** Draws a status pill at (x, y); returns its width. */
  pill(status: StatusKey, x: number, y: number, size = 7): number {
    const style = STATUS_STYLE[status];
    const w = this.pillWidth(status, size);
    this.doc.roundedRect(x, y, w, PILL_H, 2.5).fill(style.bg);
    this.font('bold', size, style.fg);
    // No width: a fixed-size label must never wrap inside its pill.
    this.doc.text(style.label, x + 5, y + (PILL_H - size) / 2 + 0.7, {
      lineBreak: false,
      characterSpacing: 0.25,
    });
    return w;
  }

  pillWidth(status: StatusKey, size = 7): number {
    const label = STATUS_STYLE[status].label;
    return this.textWidth(label, 'bold', size) + 0.25 * label.length + 10;
  }

  /** Inline legend "SATISFIED  AT RISK  NOT TESTED" with explanations. */
  legend(items: ReadonlyArray<[StatusKey, string]>): void {
    for (const [status, explanation] of items) {
      const h = Math.max(PILL_H, this.measure(explanation, 'regular', 8.5, this.width - 80, 1.5));
      this.ensureSpace(h + 5);
      const y = this.doc.y;
      this.pill(status, this.left, y);
      this.font('regular', 8.5, COLOR.ink);
      this.doc.text(pdfSafe(explanation), this.left + 80, y + 1.2, { width: this.width - 80, lineGap: 1.5 });
      this.doc.y = y + h + 5;
    }
    this.doc.x = this.left;
    this.doc.y += 4;
  }

  /** A table with repeated header rows (table.ts). */
  table<R>(columns: ReadonlyArray<Column<R>>, rows: readonly R[], opts: TableOptions = {}): void {
    drawTable(this, columns, rows, opts);
  }

  /** Reserves the area where finish() prints the table of contents (on the current page). */
  reserveContents(height: number): void {
    this.tocArea = { x: this.left, y: this.doc.y, width: this.width, page: this.pageIndex };
    this.doc.y += height;
  }

  /** Writes contents, running headers and footers on every page. Call once, before end(). */
  finish(): void {
    if (this.tocArea) drawContents(this, this.tocArea, this.sections);
    drawRunningText(this, this.running);
  }

  /** Ends the document and resolves with its bytes in one buffer. */
  async end(): Promise<Buffer> {
    return Buffer.concat(await this.endChunks());
  }

  /**
   * Ends the document and resolves with its bytes without copying them into one buffer: pdfkit's
   * many small writes joined into pieces of 64 KiB, large ones (an embedded file) kept as they are.
   */
  endChunks(): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve(joinSmallChunks(this.chunks, 64 * 1024)));
      this.doc.on('error', reject);
      this.doc.end();
    });
  }
}
