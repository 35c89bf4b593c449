// UTC day arithmetic for the aggregates (decision 0005: windows are UTC). Days are numbered from the
// Unix epoch so a bucket key is a plain integer and ranges are simple loops.

export const MILLISECONDS_PER_DAY = 86_400_000;
export const MILLISECONDS_PER_HOUR = 3_600_000;

/** The UTC day number (days since 1970-01-01) of an instant in milliseconds. */
export function dayNumber(epochMilliseconds: number): number {
  return Math.floor(epochMilliseconds / MILLISECONDS_PER_DAY);
}

/** YYYY-MM-DD of a UTC day number. */
export function dayLabel(day: number): string {
  return new Date(day * MILLISECONDS_PER_DAY).toISOString().slice(0, 10);
}

/** YYYY-MM-DD (UTC) of an instant. */
export function utcDate(instant: Date): string {
  return dayLabel(dayNumber(instant.getTime()));
}

/** Milliseconds since the epoch of an RFC 3339 string, or null when it does not parse. */
export function parseInstant(text: string | undefined): number | null {
  if (typeof text !== 'string' || text === '') return null;
  const value = Date.parse(text);
  return Number.isNaN(value) ? null : value;
}
