// The first line of an unexpected answer, for error messages: cut by code points, never UTF-16
// units (a cut inside an emoji would print half of it, U+FFFD on most terminals), by the rule the
// server cuts its messages with (protocol/text.ts).
import { truncateText } from '../../protocol/text.js';

/** The first line of a response body, cut to `max` code points (for error messages). */
export function firstLine(body: string, max = 200): string {
  return truncateText(body.trim().split('\n')[0]!, max);
}
