// What a PdfWriter draws once every page exists: the table of contents in the area the cover
// reserved, and on every page the running header (after the cover) and the footer with
// "Page X of Y". Needs the document's pages buffered (pdfkit bufferPages).
import type { PdfCanvas } from './canvas.js';
import { A4, COLOR } from './style.js';
import { pdfSafe } from '../format.js';

export interface SectionEntry {
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

/** The contents: one line per section with dotted leaders and its page, each a link. */
export function drawContents(
  writer: PdfCanvas,
  area: { x: number; y: number; width: number; page: number },
  sections: readonly SectionEntry[],
): void {
  writer.doc.switchToPage(area.page);
  writer.doc.switchToPage(area.page);
  let y = area.y;
  for (const s of sections) {
    const pageText = String(s.page + 1);
    writer.font('regular', 9.5, COLOR.ink);
    const titleWidth = writer.doc.widthOfString(pdfSafe(s.title));
    writer.doc.text(pdfSafe(s.title), area.x, y, {
      width: area.width - 40,
      lineBreak: false,
      goTo: s.destination,
    });
    const numberWidth = writer.doc.widthOfString(pageText);
    const dotsStart = area.x + titleWidth + 6;
    const dotsEnd = area.x + area.width - numberWidth - 6;
    if (dotsEnd > dotsStart) {
      writer.doc
        .moveTo(dotsStart, y + 8)
        .lineTo(dotsEnd, y + 8)
        .dash(0.6, { space: 2.4 })
        .lineWidth(0.6)
        .strokeColor(COLOR.faint)
        .stroke()
        .undash();
    }
    writer.font('regular', 9.5, COLOR.ink);
    writer.doc.text(pageText, area.x + area.width - 40, y, {
      width: 40,
      align: 'right',
      lineBreak: false,
      goTo: s.destination,
    });
    y += 15;
  }
}

/** Running header and footer on every buffered page. */
export function drawRunningText(writer: PdfCanvas, running: RunningText): void {
  const range = writer.doc.bufferedPageRange();
  const total = range.count;
  for (let i = range.start; i < range.start + total; i += 1) {
    writer.doc.switchToPage(i);
    const savedBottom = writer.doc.page.margins.bottom;
    writer.doc.page.margins.bottom = 0; // drawing inside the bottom margin must not add a page
    if (i > range.start) {
      writer.font('regular', 7.5, COLOR.muted);
      writer.doc.text(pdfSafe(running.headerLeft), writer.left, 34, {
        width: writer.width * 0.45,
        height: 9,
        ellipsis: true,
      });
      writer.doc.text(pdfSafe(running.headerRight), writer.left + writer.width * 0.45, 34, {
        width: writer.width * 0.55,
        align: 'right',
        height: 9,
        ellipsis: true,
      });
      writer.doc
        .moveTo(writer.left, 46)
        .lineTo(writer.left + writer.width, 46)
        .lineWidth(0.5)
        .strokeColor(COLOR.rule)
        .stroke();
    }
    const fy = A4.height - 44;
    writer.doc
      .moveTo(writer.left, fy - 6)
      .lineTo(writer.left + writer.width, fy - 6)
      .lineWidth(0.5)
      .strokeColor(COLOR.rule)
      .stroke();
    writer.font('regular', 7.5, COLOR.muted);
    writer.doc.text(pdfSafe(running.footerLeft), writer.left, fy, {
      width: writer.width * 0.75,
      height: 9,
      ellipsis: true,
    });
    writer.font('regular', 6.8, COLOR.faint);
    writer.doc.text(pdfSafe(running.footerNote), writer.left, fy + 10, {
      width: writer.width * 0.75,
      height: 9,
      ellipsis: true,
    });
    writer.font('bold', 7.5, COLOR.ink);
    writer.doc.text(`Page ${i - range.start + 1} of ${total}`, writer.left + writer.width * 0.75, fy, {
      width: writer.width * 0.25,
      align: 'right',
      lineBreak: false,
    });
    writer.doc.page.margins.bottom = savedBottom;
  }
}
