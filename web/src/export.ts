// A small YAML writer for JSON values (a YAML library would double the bundle for this one use).

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value);
  // Plain only when YAML cannot read it as anything but this string; else a JSON string, which
  // is a valid YAML double-quoted scalar.
  const plain = /^[A-Za-z_][\w./-]*$/.test(text) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(text);
  return plain ? text : JSON.stringify(text);
}

function isEmpty(value: unknown): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

export function toYaml(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}[]\n`;
    return value
      .map((item) => {
        if (typeof item === 'object' && item !== null && !isEmpty(item)) {
          const body = toYaml(item, `${indent}  `);
          return `${indent}- ${body.slice(indent.length + 2)}`;
        }
        return `${indent}- ${isEmpty(item) ? (Array.isArray(item) ? '[]' : '{}') : scalar(item)}\n`;
      })
      .join('');
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return `${indent}{}\n`;
    return entries
      .map(([key, v]) =>
        typeof v === 'object' && v !== null && !isEmpty(v)
          ? `${indent}${scalar(key)}:\n${toYaml(v, `${indent}  `)}`
          : `${indent}${scalar(key)}: ${isEmpty(v) ? (Array.isArray(v) ? '[]' : '{}') : scalar(v)}\n`,
      )
      .join('');
  }
  return `${indent}${scalar(value)}\n`;
}

export type CsvValue = string | number | boolean | null | undefined;

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): report names
// and check messages come from restored applications and their users, so such text cells get a
// leading apostrophe, which spreadsheets show as text and do not evaluate (OWASP's advice).
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field (RFC 4180): quoted when it holds a quote, comma, CR or LF; formulas neutralized. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /["\r\n,]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows as RFC 4180 CSV: CRLF after every record, the first row the header. */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
