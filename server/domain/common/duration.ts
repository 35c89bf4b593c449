// Duration strings of the API ("11m35s", "1h", "90s"): the API's conventions, decision 0003.
// Only h, m and s exist, in that order, with whole non-negative numbers. Days, fractions, signs and
// Go-style units (ms, us) are rejected on purpose: the same string must mean the same thing to the
// API, the CLI and an auditor reading a report, and "1d" or "1.5h" invite misreadings.

const DURATION_PATTERN = /^(?:(\d{1,9})h)?(?:(\d{1,9})m)?(?:(\d{1,9})s)?$/;

/** Seconds in a duration string, or null when the string is not a valid duration. */
export function parseDuration(text: string): number | null {
  if (typeof text !== 'string' || text.length === 0) return null;
  const match = DURATION_PATTERN.exec(text);
  if (!match) return null;
  const [, hours, minutes, seconds] = match;
  // The pattern matches the empty string too; the length check above excludes it.
  return Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + Number(seconds ?? 0);
}

export function isDuration(text: string): boolean {
  return parseDuration(text) !== null;
}

/**
 * Largest units first, zero parts left out ("1h5s", not "1h0m5s"). Fractions are rounded down to
 * whole seconds, the resolution the API promises; rounding up could print 14m59.6s as "15m" and
 * make a run look slower than it was measured. Negative or non-finite input formats as "0s".
 */
export function formatDuration(totalSeconds: number): string {
  const whole = Number.isFinite(totalSeconds) && totalSeconds > 0 ? Math.floor(totalSeconds) : 0;
  if (whole === 0) return '0s';
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = whole % 60;
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${seconds > 0 ? `${seconds}s` : ''}`;
}

// Check results: CheckResult.duration is a *measurement*: seconds with exactly one decimal, e.g.
// "0.0s", "1.2s", "31.0s". One fixed format keeps reports easy to diff and sort, and a tenth of a
// second says more about a probe than whole seconds would. It is an output only, never read back.

/** A measured duration as reported in CheckResult.duration: seconds, one decimal ("1.2s"). */
export function formatCheckDuration(milliseconds: number): string {
  const safe = Number.isFinite(milliseconds) && milliseconds > 0 ? milliseconds : 0;
  return `${(safe / 1000).toFixed(1)}s`;
}

/** A configured timeout for messages: "30s", "2m", "1m30s" (and "250ms" for sub-second test values). */
export function describeDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds}ms`;
  const seconds = Math.round(milliseconds / 1000);
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return minutes > 0 ? `${minutes}m${rest > 0 ? `${rest}s` : ''}` : `${rest}s`;
}
