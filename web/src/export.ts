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
