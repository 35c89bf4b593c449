// Text that goes into signed evidence must be well-formed Unicode: RFC 8785 canonicalisation (and
// UTF-8 itself) cannot carry a lone surrogate, so one half of an emoji left behind by a cut would
// make every signing attempt of that report fail. Cuts therefore count code points, never UTF-16
// code units, and every string of a report is made well-formed before it is signed.

/** The text with each lone surrogate replaced by U+FFFD (paired surrogates are kept). */
export function wellFormed(text: string): string {
  return text.toWellFormed();
}

/**
 * At most `max` code points of the (well-formed) text, ending with "…" when it was cut. Never
 * splits a surrogate pair; a cut may still separate combining marks from their base character,
 * which is harmless for a message.
 */
export function truncateText(text: string, max: number): string {
  const clean = text.toWellFormed();
  if (clean.length <= max) return clean; // no more code units than max: no more code points
  let codePoints = 0;
  let offset = 0; // code units read so far
  let keep = 0; // code units of the first max - 1 code points
  for (const character of clean) {
    codePoints += 1;
    if (codePoints > max) return `${clean.slice(0, keep)}…`;
    offset += character.length;
    if (codePoints === max - 1) keep = offset;
  }
  return clean; // exactly max code points (astral characters made it longer in code units)
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
