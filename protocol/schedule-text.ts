// How a RestoreTest's schedule reads to a person (issue 30): "daily at 02:00 Europe/Paris" beside
// "0 2 * * *", "every 3rd backup" for a test that runs on new backups. The dashboard shows it; the
// plugin may share it (this folder is what the two share, and the dashboard never imports server/).
// Only what can be said exactly is phrased: anything else (hour ranges, L/W/#, both day fields set,
// more than four times a day…) is given back as the cron itself, since a wrong sentence beside a
// cron is worse than none. Pure: no clock, no Intl.

// The macros the server accepts (validateCron, server/domain/run/schedule.ts, imports this list).
export const SCHEDULE_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The fields a schedule text needs; TestResponse (API, generated client) fits. */
export interface ScheduleFields {
  /** The cron; empty for a test that runs on new backups only. */
  schedule: string;
  /** IANA zone of the cron; absent = UTC (the server's default). */
  timezone?: string | undefined;
  onBackup?: boolean | undefined;
  everyNthBackup?: number | undefined;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sundays', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays'];
const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
/** At most this many times of day are listed ("at 00:00, 06:00, 12:00 and 18:00"). */
const MAX_TIMES = 4;
/** At most this many days of the month are listed. */
const MAX_MONTH_DAYS = 5;

interface FieldRange {
  min: number;
  max: number;
  /** Names accepted for the values, the first one standing for `nameBase`. */
  names?: readonly string[];
  nameBase?: number;
}

const MINUTE: FieldRange = { min: 0, max: 59 };
const HOUR: FieldRange = { min: 0, max: 23 };
const DAY_OF_MONTH: FieldRange = { min: 1, max: 31 };
const MONTH: FieldRange = { min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 };
const DAY_OF_WEEK: FieldRange = { min: 0, max: 7, names: DAY_NAMES, nameBase: 0 }; // 7 is Sunday too

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd… */
export function ordinal(n: number): string {
  const lastTwo = n % 100;
  const suffix = lastTwo >= 11 && lastTwo <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function twoDigits(n: number): string {
  return String(n).padStart(2, '0');
}

function valueOf(token: string, range: FieldRange): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  const index = range.names?.indexOf(token.toUpperCase()) ?? -1;
  return index >= 0 ? index + (range.nameBase ?? 0) : undefined;
}

/**
 * The values a field matches, sorted, or 'any' for "*" (and for a list that covers the range);
 * undefined for what this file does not phrase (L, W, #, ?, H, out-of-range values).
 */
function expandField(text: string, range: FieldRange): number[] | 'any' | undefined {
  if (text === '*') return 'any';
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^(\*|[A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?(?:\/(\d+))?$/.exec(part);
    if (!match) return undefined;
    const [, start = '', end, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    let low: number | undefined;
    let high: number | undefined;
    if (start === '*') {
      if (end !== undefined) return undefined;
      [low, high] = [range.min, range.max];
    } else {
      low = valueOf(start, range);
      // "5/15" is cron for "5-max/15".
      high = end !== undefined ? valueOf(end, range) : stepText !== undefined ? range.max : low;
    }
    if (
      low === undefined ||
      high === undefined ||
      step < 1 ||
      low < range.min ||
      high > range.max ||
      low > high
    )
      return undefined;
    for (let value = low; value <= high; value += step)
      values.add(range === DAY_OF_WEEK && value === 7 ? 0 : value);
  }
  const size = range === DAY_OF_WEEK ? 7 : range.max - range.min + 1;
  return values.size === size ? 'any' : [...values].sort((a, b) => a - b);
}

/** The step of values that repeat every `step` from `start < step` through a whole `period`. */
function evenStep(values: number[] | 'any', period: number): { step: number; start: number } | undefined {
  if (values === 'any' || values.length < 2) return undefined;
  const [start = 0, second = 0] = values;
  const step = second - start;
  if (period % step !== 0 || start >= step || values.length !== period / step) return undefined;
  return values.every((value, index) => value === start + index * step) ? { step, start } : undefined;
}

/** "daily", "weekdays", "on Sundays", "monthly on the 1st", "yearly on the 1st of January"… */
function daysText(
  dayOfMonth: number[] | 'any',
  month: number[] | 'any',
  dayOfWeek: number[] | 'any',
): string | undefined {
  const months = month === 'any' ? '' : listed(month.map((m) => MONTHS[m - 1] ?? String(m)));
  if (dayOfMonth !== 'any') {
    if (dayOfWeek !== 'any' || dayOfMonth.length > MAX_MONTH_DAYS) return undefined;
    const days = listed(dayOfMonth.map(ordinal));
    if (month === 'any') return `monthly on the ${days}`;
    return `${month.length === 1 && dayOfMonth.length === 1 ? 'yearly ' : ''}on the ${days} of ${months}`;
  }
  const inMonths = months ? ` in ${months}` : '';
  if (dayOfWeek === 'any') return `daily${inMonths}`;
  const key = dayOfWeek.join(',');
  if (key === '1,2,3,4,5') return `weekdays${inMonths}`;
  if (key === '0,6') return `weekends${inMonths}`;
  return `on ${listed(dayOfWeek.map((d) => DAYS[d] ?? String(d)))}${inMonths}`;
}

/**
 * A 5-field cron (or a macro the server accepts) in English, in the given IANA zone (default UTC):
 * "daily at 02:00 Europe/Paris", "every 30 minutes", "weekdays at 06:15 UTC", "on Sundays at 04:00
 * UTC", "monthly on the 1st at 03:00 UTC". What it cannot phrase exactly: the cron itself (trimmed).
 */
export function describeCron(cron: string, timeZone?: string): string {
  const trimmed = cron.trim();
  const expression = trimmed.startsWith('@') ? SCHEDULE_MACROS[trimmed] : trimmed;
  const fields = expression?.split(/\s+/) ?? [];
  if (fields.length !== 5) return trimmed;
  const [minuteText = '', hourText = '', dayOfMonthText = '', monthText = '', dayOfWeekText = ''] = fields;
  const minute = expandField(minuteText, MINUTE);
  const hour = expandField(hourText, HOUR);
  const dayOfMonth = expandField(dayOfMonthText, DAY_OF_MONTH);
  const month = expandField(monthText, MONTH);
  const dayOfWeek = expandField(dayOfWeekText, DAY_OF_WEEK);
  if (!minute || !hour || !dayOfMonth || !month || !dayOfWeek) return trimmed;
  // Both day fields restricted: cron runs when either matches, which no short sentence says well.
  if (dayOfMonthText !== '*' && dayOfWeekText !== '*') return trimmed;
  const zone = timeZone || 'UTC';
  const everyDay = dayOfMonth === 'any' && month === 'any' && dayOfWeek === 'any';

  // Several runs an hour or a day: intervals, said only for every day (their zone rarely matters).
  if (everyDay && hour === 'any') {
    if (minute === 'any') return 'every minute';
    if (minute.length === 1) return minute[0] === 0 ? 'hourly' : `hourly at :${twoDigits(minute[0] ?? 0)}`;
    const interval = evenStep(minute, 60);
    if (interval)
      return `every ${interval.step} minutes${interval.start ? ` from :${twoDigits(interval.start)}` : ''}`;
    return trimmed;
  }
  if (minute === 'any' || hour === 'any') return trimmed;
  // "0 */6 * * *" reads as an interval; "0 0,12 * * *" as the two times it lists.
  const hourly = evenStep(hour, 24);
  if (everyDay && minute.length === 1 && hourly && (hourText.includes('/') || hour.length > MAX_TIMES)) {
    return `every ${hourly.step} hours from ${twoDigits(hourly.start)}:${twoDigits(minute[0] ?? 0)} ${zone}`;
  }
  const times = hour.flatMap((h) => minute.map((m) => `${twoDigits(h)}:${twoDigits(m)}`));
  if (times.length > MAX_TIMES) return trimmed;
  const days = daysText(dayOfMonth, month, dayOfWeek);
  return days ? `${days} at ${listed(times)} ${zone}` : trimmed;
}

/** "on new backups", or "every 3rd backup" for a test that runs on every Nth new backup. */
export function backupText(everyNthBackup?: number): string {
  return !everyNthBackup || everyNthBackup <= 1
    ? 'on new backups'
    : `every ${ordinal(everyNthBackup)} backup`;
}

/**
 * The whole schedule in one line: "daily at 02:00 UTC", "every 3rd backup", "daily at 02:00 UTC;
 * also on new backups"; a cron it cannot phrase stays the cron. '' for a test with neither.
 */
export function describeSchedule(test: ScheduleFields): string {
  const cron = test.schedule.trim();
  const backups = test.onBackup ? backupText(test.everyNthBackup) : '';
  if (!cron) return backups;
  const timed = describeCron(cron, test.timezone);
  return backups ? `${timed}; also ${backups}` : timed;
}

/**
 * What is shown beside the cron itself: its English, or only its zone when the cron cannot be
 * phrased (the cron is already shown), then the backups it also runs on. '' when nothing to add.
 */
export function scheduleAside(test: ScheduleFields): string {
  const cron = test.schedule.trim();
  const backups = test.onBackup ? backupText(test.everyNthBackup) : '';
  if (!cron) return backups;
  const timed = describeCron(cron, test.timezone);
  const words = timed === cron ? test.timezone || 'UTC' : timed;
  return backups ? `${words}; also ${backups}` : words;
}
