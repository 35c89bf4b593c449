// A plain table like kubectl's: upper-case headers, left-aligned columns padded to the widest
// cell plus 3 spaces (kubectl's tabwriter: minimum width 6, padding 3), no padding after the last
// column, no borders.
import { visibleLength } from './format.js';

const PADDING = 3;
const MIN_WIDTH = 6;

export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, column) =>
    Math.max(MIN_WIDTH, ...all.map((row) => visibleLength(row[column] ?? '') + PADDING)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - visibleLength(cell)),
        )
        .join('')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
