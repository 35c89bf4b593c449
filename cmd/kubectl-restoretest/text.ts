// Cutting text for messages by code points, never UTF-16 units: a cut inside an emoji would print
// half of it (U+FFFD on most terminals). The same rule as server/domain/common/text.ts, duplicated in
// miniature because cmd/ does not import server/.

/** At most `max` code points of the text, ending with "…" when it was cut; lone surrogates become U+FFFD. */
export function truncateCodePoints(text: string, max: number): string {
  const clean = text.toWellFormed();
  if (clean.length <= max) return clean;
  const characters = Array.from(clean);
  return characters.length <= max ? clean : `${characters.slice(0, max - 1).join('')}…`;
}

/** The first line of a response body, cut to `max` code points (for error messages). */
export function firstLine(body: string, max = 200): string {
  return truncateCodePoints(body.trim().split('\n')[0]!, max);
}
