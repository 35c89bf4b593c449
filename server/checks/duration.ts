// Durations in check results and messages. Check timeouts are parsed by domain/duration.ts (the
// API's `11m35s` rules: whole h, m, s), like every other duration of the API.
//
// CheckResult.duration is a *measurement*: seconds with exactly one decimal, e.g. "0.0s", "1.2s",
// "31.0s". One fixed format keeps reports easy to diff and sort, and a tenth of a second says more
// about a probe than whole seconds would. It is an output only, never read back as a timeout.

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
