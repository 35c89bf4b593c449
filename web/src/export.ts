// Export of reports as JSON or YAML files, made in the browser from what the API returned.
// A small YAML writer for JSON values (a YAML library would double the bundle for this one use).

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value);
  return /^[\w./@-][\w ./:@-]*$/.test(text) && !/^(true|false|null|yes|no|on|off|~|[\d.+-].*)$/i.test(text) && !/:\s|\s$/.test(text)
    ? text
    : JSON.stringify(text);
}

function isEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : typeof value === 'object' && value !== null && Object.keys(value).length === 0;
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

export function download(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
