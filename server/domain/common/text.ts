// Text that goes into signed evidence must be well-formed Unicode: RFC 8785 canonicalisation (and
// UTF-8 itself) cannot carry a lone surrogate, so one half of an emoji left behind by a cut would
// make every signing attempt of that report fail. Cuts therefore count code points, never UTF-16
// code units (truncateText, in protocol/text.ts: the plugin cuts by the same rule), and every
// string of a report is made well-formed before it is signed.

/** The text with each lone surrogate replaced by U+FFFD (paired surrogates are kept). */
export function wellFormed(text: string): string {
  return text.toWellFormed();
}

/**
 * At most `maxBytes` bytes of UTF-8, cut between code points (ending with "…" when cut): for
 * fields the apiserver limits in bytes, such as an Event's message (1,024).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const clean = text.toWellFormed();
  if (Buffer.byteLength(clean, 'utf8') <= maxBytes) return clean;
  const budget = maxBytes - 3; // "…" is three bytes
  let bytes = 0;
  let offset = 0;
  for (const character of clean) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > budget) break;
    bytes += size;
    offset += character.length;
  }
  return `${clean.slice(0, offset)}…`;
}

/** A copy of a JSON-like value with every string (keys too) well-formed. */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => wellFormedDeep(item)) as T;
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormedDeep(item)]),
    ) as T;
  }
  return value;
}
