// What the table and running-text drawers need of a page writer: the pdfkit document, the text
// block's geometry and a few drawing primitives. PdfWriter (layout.ts) is the one implementation;
// the drawers depend on this interface, not on the class, so layout.ts can use them without an
// import cycle.
import type { FontName, StatusKey } from './style.js';

export interface PdfCanvas {
  readonly doc: PDFKit.PDFDocument;
  /** Left edge, width and bottom of the text block, in points. */
  readonly left: number;
  readonly width: number;
  readonly bottom: number;
  font(name: FontName, size: number, color?: string): this;
  measure(text: string, font: FontName, size: number, width: number, lineGap?: number): number;
  newPage(): void;
  ensureSpace(height: number): void;
  pill(status: StatusKey, x: number, y: number, size?: number): number;
  pillWidth(status: StatusKey, size?: number): number;
}
