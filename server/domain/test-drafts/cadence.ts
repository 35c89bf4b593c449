// When a drafted RestoreTest runs, derived from the backup schedule that backs its namespace up
// (issue 32). The rule, written down so a user can predict it:
//
// 1. Take the backup schedule's fire times (UTC, as Velero evaluates a Schedule and Kasten a
//    Policy's subFrequency; Trilio's crons are read as UTC too) over the next
//    eight weeks and add the delay (default 1h: a backup needs time to complete, and the test
//    restores `latest`).
// 2. The test runs once a day at most, at the earliest of those shifted times of day. A cron fires
//    at the same times on every day it fires, so for a daily or rarer backup this is "an hour after
//    each backup"; for a backup several times a day it is one of them, once a day.
// 3. On which days: every day if the shifted times fall on every day of the window; else on the
//    weekdays they fall on, if that set explains every day of the window (weekly, weekdays); else
//    on the days of the month they fall on, if that explains them (monthly); else every day, with
//    a note saying the backup's days could not be followed.
// 4. No schedule (only one-off Backups) or a cron that does not parse: every day at 04:00 UTC,
//    with a note.
//
// The result is a plain 5-field cron in UTC, so the user can read and change it.
import { formatDuration } from '../common/duration.js';
import { MILLISECONDS_PER_DAY } from '../common/utc-days.js';
import { nextRunAfter, validateCron } from '../run/schedule.js';

export const DEFAULT_DRAFT_DELAY_SECONDS = 3600;
/** When nothing says when the backups happen. */
export const FALLBACK_CRON = '0 4 * * *';

const WINDOW_DAYS = 56;
/** A backup firing more often than this over the window is sub-daily anyway: the rest adds nothing. */
const MAX_FIRES = 600;

export interface DraftedCadence {
  cron: string;
  /** Why this cron, in one sentence (the draft's notes carry it). */
  reason: string;
}

function dayOf(ms: number): number {
  return Math.floor(ms / MILLISECONDS_PER_DAY);
}

function list(values: Iterable<number>): string {
  return [...values].sort((a, b) => a - b).join(',');
}

/** The test's cron for a backup cron (undefined: no schedule backs the namespace up). */
export function draftCadence(
  backupCron: string | undefined,
  now: Date,
  delaySeconds: number = DEFAULT_DRAFT_DELAY_SECONDS,
): DraftedCadence {
  if (backupCron === undefined) {
    return { cron: FALLBACK_CRON, reason: 'no backup schedule covers the namespace (only one-off backups): daily at 04:00 UTC' };
  }
  const validation = validateCron(backupCron);
  if (!validation.ok) {
    return { cron: FALLBACK_CRON, reason: `the backup schedule's cron "${backupCron}" cannot be read (${validation.message}): daily at 04:00 UTC` };
  }
  const shifted: number[] = [];
  const end = now.getTime() + (WINDOW_DAYS + 1) * MILLISECONDS_PER_DAY;
  let cursor: Date | null = now;
  while (cursor && shifted.length < MAX_FIRES) {
    cursor = nextRunAfter(validation.expression, 'UTC', cursor);
    if (!cursor || cursor.getTime() > end) break;
    shifted.push(cursor.getTime() + delaySeconds * 1000);
  }
  if (shifted.length === 0) {
    return { cron: FALLBACK_CRON, reason: `the backup schedule "${backupCron}" does not fire in the next ${WINDOW_DAYS} days: daily at 04:00 UTC` };
  }
  const minuteOfDay = Math.min(...shifted.map((ms) => Math.floor((ms % MILLISECONDS_PER_DAY) / 60_000)));
  const time = `${minuteOfDay % 60} ${Math.floor(minuteOfDay / 60)}`;
  const at = `${String(Math.floor(minuteOfDay / 60)).padStart(2, '0')}:${String(minuteOfDay % 60).padStart(2, '0')} UTC`;
  const after = `${formatDuration(delaySeconds)} after the backup`;

  // The window: WINDOW_DAYS whole days from the first shifted fire's day (a sub-daily backup hits
  // MAX_FIRES before the end, so the window ends at the last fire's day then).
  const firstDay = dayOf(shifted[0]!);
  const lastDay = Math.min(firstDay + WINDOW_DAYS - 1, dayOf(shifted[shifted.length - 1]!));
  const days = new Set(shifted.map(dayOf).filter((day) => day <= lastDay));
  const window: number[] = [];
  for (let day = firstDay; day <= lastDay; day += 1) window.push(day);
  const explains = (predicate: (day: number) => boolean): boolean =>
    window.every((day) => predicate(day) === days.has(day));

  if (days.size === window.length) {
    return { cron: `${time} * * *`, reason: `daily at ${at}, ${after} (at most once a day)` };
  }
  const weekday = (day: number): number => new Date(day * MILLISECONDS_PER_DAY).getUTCDay();
  const weekdays = new Set([...days].map(weekday));
  if (explains((day) => weekdays.has(weekday(day)))) {
    return { cron: `${time} * * ${list(weekdays)}`, reason: `on the backup's days of the week at ${at}, ${after}` };
  }
  const dayOfMonth = (day: number): number => new Date(day * MILLISECONDS_PER_DAY).getUTCDate();
  const monthDays = new Set([...days].map(dayOfMonth));
  if (explains((day) => monthDays.has(dayOfMonth(day)))) {
    return { cron: `${time} ${list(monthDays)} * *`, reason: `on the backup's days of the month at ${at}, ${after}` };
  }
  return {
    cron: `${time} * * *`,
    reason: `the days of the backup schedule "${backupCron}" cannot be followed by one cron: daily at ${at}`,
  };
}
