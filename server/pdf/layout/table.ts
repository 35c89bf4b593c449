// Tables of the evidence reports: header rows repeated on every page, rows laid out before
// drawing (a header never sits alone at a page's bottom), every cell clipped to its row, status
// pills in cells. Drawn through a PdfCanvas.
import type { PdfCanvas } from './canvas.js';
import { COLOR, MARGIN, PILL_H, type CellSpec, type Column, type TableOptions } from './style.js';
import { pdfSafe } from '../format.js';

/** Draws a table at the writer's position, starting new pages as needed. */
export function drawTable<R>(
  writer: PdfCanvas,
  columns: ReadonlyArray<Column<R>>,
  rows: readonly R[],
  opts: TableOptions = {},
): void {
  const size = opts.fontSize ?? 8;
  const CELL_PAD_X = opts.compact ? 4 : 5;
  const CELL_PAD_Y = opts.compact ? 3 : 4;
  const totalWeight = columns.reduce((sum, c) => sum + c.width, 0);
  const widths = columns.map((c) => (c.width / totalWeight) * writer.width);
  const xs = widths.map((_, i) => writer.left + widths.slice(0, i).reduce((a, b) => a + b, 0));
  const headerHeight =
    Math.max(
      ...columns.map((c, i) =>
        writer.measure(c.header, 'bold', size - 0.5, widths[i]! - 2 * CELL_PAD_X, 0.5),
      ),
    ) +
    2 * CELL_PAD_Y;

  const drawHeader = (): void => {
    const y = writer.doc.y;
    writer.doc.rect(writer.left, y, writer.width, headerHeight).fill(COLOR.headerFill);
    columns.forEach((c, i) => {
      writer.font('bold', size - 0.5, COLOR.ink);
      writer.doc.text(pdfSafe(c.header), xs[i]! + CELL_PAD_X, y + CELL_PAD_Y, {
        width: widths[i]! - 2 * CELL_PAD_X,
        align: c.align ?? 'left',
        lineGap: 0.5,
      });
    });
    writer.doc
      .moveTo(writer.left, y + headerHeight)
      .lineTo(writer.left + writer.width, y + headerHeight)
      .lineWidth(0.8)
      .strokeColor(COLOR.rule)
      .stroke();
    writer.doc.y = y + headerHeight;
  };

  if (rows.length === 0) {
    writer.ensureSpace(headerHeight + 24);
    drawHeader();
    writer.font('italic', size, COLOR.muted);
    writer.doc.text(pdfSafe(opts.empty ?? 'None.'), writer.left + CELL_PAD_X, writer.doc.y + CELL_PAD_Y + 1, {
      width: writer.width - 2 * CELL_PAD_X,
    });
    writer.doc.x = writer.left;
    writer.doc.y += 10;
    return;
  }

  const maxRowHeight = writer.bottom - MARGIN.top - headerHeight - 4;
  const cellHeight = (cell: CellSpec, width: number): number => {
    const inner = width - 2 * CELL_PAD_X;
    let h = 0;
    if (cell.status)
      h = PILL_H + (cell.note ? 2 + writer.measure(cell.note, 'regular', size - 1, inner, 0.5) : 0);
    else
      h = writer.measure(
        cell.text || ' ',
        cell.font ?? 'regular',
        cell.font === 'mono' ? size - 0.5 : size,
        inner,
        1,
      );
    if (cell.sub) h += 1.5 + writer.measure(cell.sub, 'regular', size - 1, inner, 0.5);
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
  writer.ensureSpace(total <= 220 ? total : headerHeight + laidOut[0]!.rowHeight);
  drawHeader();
  laidOut.forEach(({ cells, nudge, rowHeight }, rowIndex) => {
    if (writer.doc.y + rowHeight > writer.bottom) {
      writer.newPage();
      drawHeader();
    }
    const y = writer.doc.y;
    if (opts.zebra !== false && rowIndex % 2 === 1)
      writer.doc.rect(writer.left, y, writer.width, rowHeight).fill(COLOR.zebra);
    cells.forEach((cell, i) => {
      const x = xs[i]! + CELL_PAD_X;
      const inner = widths[i]! - 2 * CELL_PAD_X;
      const clip = rowHeight - 2 * CELL_PAD_Y;
      let cy = y + CELL_PAD_Y + (cell.status ? 0 : nudge);
      const align = columns[i]!.align ?? 'left';
      if (cell.status) {
        const pw = writer.pillWidth(cell.status);
        const px = align === 'right' ? x + inner - pw : align === 'center' ? x + (inner - pw) / 2 : x;
        writer.pill(cell.status, px, cy);
        cy += PILL_H + 2;
        if (cell.note) {
          writer.font('regular', size - 1, COLOR.muted);
          writer.doc.text(pdfSafe(cell.note), x, cy, {
            width: inner,
            align,
            lineGap: 0.5,
            height: Math.max(1, y + CELL_PAD_Y + clip - cy),
            ellipsis: true,
          });
          cy = writer.doc.y;
        }
      } else {
        const fontName = cell.font ?? 'regular';
        writer.font(fontName, fontName === 'mono' ? size - 0.5 : size, cell.color ?? COLOR.ink);
        writer.doc.text(pdfSafe(cell.text || ' '), x, cy, {
          width: inner,
          align,
          lineGap: 1,
          height: Math.max(1, y + CELL_PAD_Y + clip - cy),
          ellipsis: true,
        });
        cy = writer.doc.y;
      }
      if (cell.sub && cy < y + CELL_PAD_Y + clip) {
        writer.font('regular', size - 1, COLOR.muted);
        writer.doc.text(pdfSafe(cell.sub), x, cy + 1.5, {
          width: inner,
          align,
          lineGap: 0.5,
          height: Math.max(1, y + CELL_PAD_Y + clip - cy - 1.5),
          ellipsis: true,
        });
      }
    });
    writer.doc
      .moveTo(writer.left, y + rowHeight)
      .lineTo(writer.left + writer.width, y + rowHeight)
      .lineWidth(0.4)
      .strokeColor(COLOR.hairline)
      .stroke();
    writer.doc.y = y + rowHeight;
  });
  writer.doc.x = writer.left;
  writer.doc.y += 10;
}
