// Cutting text by code points, never UTF-16 code units: a cut inside a surrogate pair leaves a lone
// surrogate, which a terminal prints as U+FFFD and which RFC 8785 (the canonical JSON of signed
// evidence) cannot carry, so one half of an emoji would make a report unsignable. The server cuts
// messages that go into reports and Events with it, the plugin the first line of an unexpected
// answer: one rule, here.

/**
 * At most `max` code points of the (well-formed) text, ending with "…" when it was cut. Never
 * splits a surrogate pair; a cut may still separate combining marks from their base character,
 * which is harmless for a message. Lone surrogates become U+FFFD.
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
