// A small layout layer over pdfkit for the evidence reports: section headings with a table of
// contents and PDF bookmarks, paragraphs, key/value blocks, tables that paginate with repeated
// header rows, status pills, and running header/footer with "Page X of Y".
//
// Every string goes through pdfSafe (the built-in Helvetica only has WinAnsi glyphs), every text
// call has an explicit width, and every table cell is clipped to its row, so nothing runs past the
// margins. No clock and no randomness: the same calls give the same bytes.

import PDFDocument from 'pdfkit';
import { pdfSafe } from './format.js';

export const A4 = { width: 595.28, height: 841.89 };
export const MARGIN = { top: 64, bottom: 64, left: 54, right: 54 };

export const COLOR = {
  ink: '#1D2430',
  muted: '#5B6573',
  faint: '#8A94A3',
  rule: '#CDD3DB',
  hairline: '#E3E7EC',
  headerFill: '#EDF0F4',
  zebra: '#F8F9FB',
  accent: '#1F3A5F',
  accentSoft: '#E8EEF6',
  calloutFill: '#F4F6F9',
};

export type StatusKey =
  | 'satisfied'
  | 'at_risk'
  | 'not_tested'
  | 'pass'
  | 'partial'
  | 'fail'
  | 'error'
  | 'skip'
  | 'verified'
  | 'unverified'
  | 'unsigned'
  | 'remediated'
  | 'late'
  | 'pending'
  | 'unremediated';

/** Restrained colours; the word is always printed as well, so the report works in greyscale. */
export const STATUS_STYLE: Record<StatusKey, { label: string; fg: string; bg: string }> = {
  satisfied: { label: 'SATISFIED', fg: '#1B6B34', bg: '#E2F1E6' },
  at_risk: { label: 'AT RISK', fg: '#8A4B00', bg: '#FCEFD8' },
  not_tested: { label: 'NOT TESTED', fg: '#4F5866', bg: '#E9ECEF' },
  pass: { label: 'PASS', fg: '#1B6B34', bg: '#E2F1E6' },
  partial: { label: 'PARTIAL', fg: '#8A4B00', bg: '#FCEFD8' },
  fail: { label: 'FAIL', fg: '#9E2A24', bg: '#F8E3E1' },
  error: { label: 'ERROR', fg: '#9E2A24', bg: '#F8E3E1' },
  skip: { label: 'SKIP', fg: '#4F5866', bg: '#E9ECEF' },
  verified: { label: 'VERIFIED', fg: '#1B6B34', bg: '#E2F1E6' },
  unverified: { label: 'NOT VERIFIED', fg: '#9E2A24', bg: '#F8E3E1' },
  unsigned: { label: 'UNSIGNED', fg: '#4F5866', bg: '#E9ECEF' },
  remediated: { label: 'REMEDIATED', fg: '#1B6B34', bg: '#E2F1E6' },
  late: { label: 'LATE', fg: '#8A4B00', bg: '#FCEFD8' },
  pending: { label: 'PENDING', fg: '#8A4B00', bg: '#FCEFD8' },
  unremediated: { label: 'UNREMEDIATED', fg: '#9E2A24', bg: '#F8E3E1' },
};

type FontName = 'regular' | 'bold' | 'italic' | 'mono';
const FONTS: Record<FontName, string> = {
  regular: 'Helvetica',
  bold: 'Helvetica-Bold',
  italic: 'Helvetica-Oblique',
  mono: 'Courier',
};

export interface CellSpec {
  text: string;
  font?: FontName;
  color?: string;
  /** A second, smaller, muted line (e.g. a control's title under its id). */
  sub?: string;
  /** Draw as a status pill instead of text. */
  status?: StatusKey;
  /** Text after a status pill, on the next line (e.g. "2 remediated"). */
  note?: string;
}
export type Cell = string | CellSpec;

export interface Column<R> {
  header: string;
  /** Relative width; the columns share the content width in these proportions. */
  width: number;
  align?: 'left' | 'right' | 'center';
  cell: (row: R, index: number) => Cell;
}

export interface TableOptions {
  fontSize?: number;
  /** Tighter cell padding for long listings. */
  compact?: boolean;
  zebra?: boolean;
  /** Shown instead of an empty table. */
  empty?: string;
}

interface SectionEntry {
  title: string;
  page: number;
  destination: string;
}

export interface RunningText {
  /** Left part of the running header (pages after the cover). */
  headerLeft: string;
  headerRight: string;
  /** Left part of the footer, e.g. "Report RHR-...". */
  footerLeft: string;
  /** Second, smaller footer line. */
  footerNote: string;
}

const PILL_H = 11;

export class PdfWriter {
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

  // ---------------------------------------------------------------- tables

  table<R>(columns: ReadonlyArray<Column<R>>, rows: readonly R[], opts: TableOptions = {}): void {
    const size = opts.fontSize ?? 8;
    const CELL_PAD_X = opts.compact ? 4 : 5;
    const CELL_PAD_Y = opts.compact ? 3 : 4;
    const totalWeight = columns.reduce((sum, c) => sum + c.width, 0);
    const widths = columns.map((c) => (c.width / totalWeight) * this.width);
    const xs = widths.map((_, i) => this.left + widths.slice(0, i).reduce((a, b) => a + b, 0));
    const headerHeight =
      Math.max(
        ...columns.map((c, i) =>
          this.measure(c.header, 'bold', size - 0.5, widths[i]! - 2 * CELL_PAD_X, 0.5),
        ),
      ) +
      2 * CELL_PAD_Y;

    const drawHeader = (): void => {
      const y = this.doc.y;
      this.doc.rect(this.left, y, this.width, headerHeight).fill(COLOR.headerFill);
      columns.forEach((c, i) => {
        this.font('bold', size - 0.5, COLOR.ink);
        this.doc.text(pdfSafe(c.header), xs[i]! + CELL_PAD_X, y + CELL_PAD_Y, {
          width: widths[i]! - 2 * CELL_PAD_X,
          align: c.align ?? 'left',
          lineGap: 0.5,
        });
      });
      this.doc
        .moveTo(this.left, y + headerHeight)
        .lineTo(this.left + this.width, y + headerHeight)
        .lineWidth(0.8)
        .strokeColor(COLOR.rule)
        .stroke();
      this.doc.y = y + headerHeight;
    };

    if (rows.length === 0) {
      this.ensureSpace(headerHeight + 24);
      drawHeader();
      this.font('italic', size, COLOR.muted);
      this.doc.text(pdfSafe(opts.empty ?? 'None.'), this.left + CELL_PAD_X, this.doc.y + CELL_PAD_Y + 1, {
        width: this.width - 2 * CELL_PAD_X,
      });
      this.doc.x = this.left;
      this.doc.y += 10;
      return;
    }

    const maxRowHeight = this.bottom - MARGIN.top - headerHeight - 4;
    const cellHeight = (cell: CellSpec, width: number): number => {
      const inner = width - 2 * CELL_PAD_X;
      let h = 0;
      if (cell.status)
        h = PILL_H + (cell.note ? 2 + this.measure(cell.note, 'regular', size - 1, inner, 0.5) : 0);
      else
        h = this.measure(
          cell.text || ' ',
          cell.font ?? 'regular',
          cell.font === 'mono' ? size - 0.5 : size,
          inner,
          1,
        );
      if (cell.sub) h += 1.5 + this.measure(cell.sub, 'regular', size - 1, inner, 0.5);
      return h;
    };

    // Lay out every row first, so the header is never left alone at the bottom of a page.
    const laidOut = rows.map((row, rowIndex) => {
      const cells = columns.map((c): CellSpec => {
        const v = c.cell(row, rowIndex);
        return typeof v === 'string' ? { text: v } : v;
      });
      // Text beside a pill is nudged down to share the pill's centre line.
      const nudge = cells.some((c) => c.status) ? Math.max(0, (PILL_H - size) / 2 + 0.4) : 0;
      const contentHeight = Math.max(
        ...cells.map((cell, i) => cellHeight(cell, widths[i]!) + (cell.status ? 0 : nudge)),
      );
      return { cells, nudge, rowHeight: Math.min(contentHeight + 2 * CELL_PAD_Y, maxRowHeight) };
    });
    // Short tables stay on one page; long ones need room for the header and their first row.
    const total = headerHeight + laidOut.reduce((sum, r) => sum + r.rowHeight, 0);
    this.ensureSpace(total <= 220 ? total : headerHeight + laidOut[0]!.rowHeight);
    drawHeader();
    laidOut.forEach(({ cells, nudge, rowHeight }, rowIndex) => {
      if (this.doc.y + rowHeight > this.bottom) {
        this.newPage();
        drawHeader();
      }
      const y = this.doc.y;
      if (opts.zebra !== false && rowIndex % 2 === 1)
        this.doc.rect(this.left, y, this.width, rowHeight).fill(COLOR.zebra);
      cells.forEach((cell, i) => {
        const x = xs[i]! + CELL_PAD_X;
        const inner = widths[i]! - 2 * CELL_PAD_X;
        const clip = rowHeight - 2 * CELL_PAD_Y;
        let cy = y + CELL_PAD_Y + (cell.status ? 0 : nudge);
        const align = columns[i]!.align ?? 'left';
        if (cell.status) {
          const pw = this.pillWidth(cell.status);
          const px = align === 'right' ? x + inner - pw : align === 'center' ? x + (inner - pw) / 2 : x;
          this.pill(cell.status, px, cy);
          cy += PILL_H + 2;
          if (cell.note) {
            this.font('regular', size - 1, COLOR.muted);
            this.doc.text(pdfSafe(cell.note), x, cy, {
              width: inner,
              align,
              lineGap: 0.5,
              height: Math.max(1, y + CELL_PAD_Y + clip - cy),
              ellipsis: true,
            });
            cy = this.doc.y;
          }
        } else {
          const fontName = cell.font ?? 'regular';
          this.font(fontName, fontName === 'mono' ? size - 0.5 : size, cell.color ?? COLOR.ink);
          this.doc.text(pdfSafe(cell.text || ' '), x, cy, {
            width: inner,
            align,
            lineGap: 1,
            height: Math.max(1, y + CELL_PAD_Y + clip - cy),
            ellipsis: true,
          });
          cy = this.doc.y;
        }
        if (cell.sub && cy < y + CELL_PAD_Y + clip) {
          this.font('regular', size - 1, COLOR.muted);
          this.doc.text(pdfSafe(cell.sub), x, cy + 1.5, {
            width: inner,
            align,
            lineGap: 0.5,
            height: Math.max(1, y + CELL_PAD_Y + clip - cy - 1.5),
            ellipsis: true,
          });
        }
      });
      this.doc
        .moveTo(this.left, y + rowHeight)
        .lineTo(this.left + this.width, y + rowHeight)
        .lineWidth(0.4)
        .strokeColor(COLOR.hairline)
        .stroke();
      this.doc.y = y + rowHeight;
    });
    this.doc.x = this.left;
    this.doc.y += 10;
  }

  // ---------------------------------------------------------------- contents, header, footer

  /** Reserves the area where finish() prints the table of contents (on the current page). */
  reserveContents(height: number): void {
    this.tocArea = { x: this.left, y: this.doc.y, width: this.width, page: this.pageIndex };
    this.doc.y += height;
  }

  /** Writes contents, running headers and footers on every page. Call once, before end(). */
  finish(): void {
    const range = this.doc.bufferedPageRange();
    const total = range.count;
    if (this.tocArea) {
      const area = this.tocArea;
      this.doc.switchToPage(area.page);
      let y = area.y;
      for (const s of this.sections) {
        const pageText = String(s.page + 1);
        this.font('regular', 9.5, COLOR.ink);
        const titleWidth = this.doc.widthOfString(pdfSafe(s.title));
        this.doc.text(pdfSafe(s.title), area.x, y, {
          width: area.width - 40,
          lineBreak: false,
          goTo: s.destination,
        });
        const numberWidth = this.doc.widthOfString(pageText);
        const dotsStart = area.x + titleWidth + 6;
        const dotsEnd = area.x + area.width - numberWidth - 6;
        if (dotsEnd > dotsStart) {
          this.doc
            .moveTo(dotsStart, y + 8)
            .lineTo(dotsEnd, y + 8)
            .dash(0.6, { space: 2.4 })
            .lineWidth(0.6)
            .strokeColor(COLOR.faint)
            .stroke()
            .undash();
        }
        this.font('regular', 9.5, COLOR.ink);
        this.doc.text(pageText, area.x + area.width - 40, y, {
          width: 40,
          align: 'right',
          lineBreak: false,
          goTo: s.destination,
        });
        y += 15;
      }
    }
    for (let i = range.start; i < range.start + total; i += 1) {
      this.doc.switchToPage(i);
      const savedBottom = this.doc.page.margins.bottom;
      this.doc.page.margins.bottom = 0; // drawing inside the bottom margin must not add a page
      if (i > range.start) {
        this.font('regular', 7.5, COLOR.muted);
        this.doc.text(pdfSafe(this.running.headerLeft), this.left, 34, {
          width: this.width * 0.45,
          height: 9,
          ellipsis: true,
        });
        this.doc.text(pdfSafe(this.running.headerRight), this.left + this.width * 0.45, 34, {
          width: this.width * 0.55,
          align: 'right',
          height: 9,
          ellipsis: true,
        });
        this.doc
          .moveTo(this.left, 46)
          .lineTo(this.left + this.width, 46)
          .lineWidth(0.5)
          .strokeColor(COLOR.rule)
          .stroke();
      }
      const fy = A4.height - 44;
      this.doc
        .moveTo(this.left, fy - 6)
        .lineTo(this.left + this.width, fy - 6)
        .lineWidth(0.5)
        .strokeColor(COLOR.rule)
        .stroke();
      this.font('regular', 7.5, COLOR.muted);
      this.doc.text(pdfSafe(this.running.footerLeft), this.left, fy, {
        width: this.width * 0.75,
        height: 9,
        ellipsis: true,
      });
      this.font('regular', 6.8, COLOR.faint);
      this.doc.text(pdfSafe(this.running.footerNote), this.left, fy + 10, {
        width: this.width * 0.75,
        height: 9,
        ellipsis: true,
      });
      this.font('bold', 7.5, COLOR.ink);
      this.doc.text(`Page ${i - range.start + 1} of ${total}`, this.left + this.width * 0.75, fy, {
        width: this.width * 0.25,
        align: 'right',
        lineBreak: false,
      });
      this.doc.page.margins.bottom = savedBottom;
    }
  }

  /** Ends the document and resolves with its bytes. */
  end(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve(Buffer.concat(this.chunks)));
      this.doc.on('error', reject);
      this.doc.end();
    });
  }
}
