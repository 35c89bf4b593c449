// When a RestoreTest runs (decision 0012). Everything here is a pure function of its arguments,
// time included, so the controller can be tested with a fake clock like Velero's schedule
// controller: an invalid cron is a decision ("invalid"), recorded in status, never an exception
// that would make the reconcile retry forever.
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { SCHEDULE_MACROS } from '../../../protocol/schedule-text.js';

// cron-parser accepts more than we want: 6-field (seconds) forms, missing fields (it pads them),
// @minutely/@secondly/@weekdays, and the random "H" character. Kubernetes CronJob users expect the
// classic 5 fields and these macros, so we accept exactly that and translate macros ourselves
// (cron-parser has no @midnight).
// The macros and their expansions are protocol/schedule-text.ts's (the dashboard phrases the same ones).
const MACROS = SCHEDULE_MACROS;

export const CRON_MACROS: readonly string[] = Object.keys(MACROS);

/** Default of decideSchedule: a run missed by less than this still starts (decision 0012). */
export const MISSED_RUN_WINDOW_SECONDS = 3600;

export type CronValidation = { ok: true; expression: string } | { ok: false; message: string };

/** Thrown by the helpers below for an invalid cron or time zone; decideSchedule never throws. */
export class ScheduleError extends Error {
  constructor(
    readonly reason: 'InvalidCron' | 'InvalidTimeZone',
    message: string,
  ) {
    super(message);
    this.name = 'ScheduleError';
  }
}

// "H" is hashed/random in cron-parser: the same spec would run at different minutes on different
// replicas or restarts. Only a stand-alone H token counts; "THU" is a day name, not a hash.
const HASH_TOKEN = /(^|[^A-Za-z])H([^A-Za-z]|$)/;

/**
 * Accepts a 5-field expression or one of CRON_MACROS (surrounding blanks ignored). On success,
 * `expression` is the 5-field form that the other functions evaluate.
 */
export function validateCron(cron: string): CronValidation {
  if (typeof cron !== 'string' || cron.trim() === '') return { ok: false, message: 'cron must not be empty' };
  const trimmed = cron.trim();
  if (trimmed.startsWith('@')) {
    const expansion = MACROS[trimmed];
    return expansion
      ? { ok: true, expression: expansion }
      : { ok: false, message: `unknown cron macro ${trimmed}; use one of ${CRON_MACROS.join(', ')}` };
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    return {
      ok: false,
      message: `cron must have 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`,
    };
  }
  if (fields.some((field) => HASH_TOKEN.test(field))) {
    return { ok: false, message: 'cron must not use H (hashed values are not deterministic)' };
  }
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', currentDate: new Date(0) });
  } catch (error) {
    return { ok: false, message: `invalid cron expression: ${(error as Error).message}` };
  }
  return { ok: true, expression: fields.join(' ') };
}

// Intl also accepts offsets ("+01:00") and folds case ("europe/berlin"); neither is an IANA name,
// and neither would be understood by other tools reading the spec, so we require the IANA shape.
const IANA_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** An IANA zone name the runtime knows (including links such as "US/Eastern" and "UTC"). */
export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || !IANA_SHAPE.test(timeZone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function compile(cron: string, timeZone: string, currentDate: Date): CronExpression {
  const validation = validateCron(cron);
  if (!validation.ok) throw new ScheduleError('InvalidCron', validation.message);
  if (!isValidTimeZone(timeZone)) throw new ScheduleError('InvalidTimeZone', `unknown time zone ${timeZone}`);
  return CronExpressionParser.parse(validation.expression, { tz: timeZone, currentDate });
}

// cron-parser throws when an expression never matches again (e.g. 30 February); for a schedule
// that simply means "no instant", which callers handle as a value.
function step(expression: CronExpression, direction: 'next' | 'prev'): Date | null {
  try {
    return direction === 'next' ? expression.next().toDate() : expression.prev().toDate();
  } catch {
    return null;
  }
}

/** The first cron instant strictly after `after`, or null if the expression never fires again. */
export function nextRunAfter(cron: string, timeZone: string, after: Date): Date | null {
  return step(compile(cron, timeZone, after), 'next');
}

/**
 * The latest cron instant t with afterExclusive < t <= atOrBefore, or null. Walks backwards from
 * the upper bound, so the cost does not grow with the length of the gap (a server down for a week
 * on an every-minute schedule is still one step).
 */
export function latestInstantBetween(
  cron: string,
  timeZone: string,
  afterExclusive: Date,
  atOrBefore: Date,
): Date | null {
  // cron-parser's prev() is strictly before its current date; one millisecond later makes the
  // upper bound inclusive (cron instants are whole minutes).
  const latest = step(compile(cron, timeZone, new Date(atOrBefore.getTime() + 1)), 'prev');
  return latest && latest.getTime() > afterExclusive.getTime() ? latest : null;
}

/**
 * Seconds between the next two instants after `now`: the expected gap between runs, used for the
 * RestoreTestNotRun alert (fires at 1.5x this). Null when the expression has fewer than two
 * future instants.
 */
export function scheduleIntervalSeconds(cron: string, timeZone: string, now: Date): number | null {
  const expression = compile(cron, timeZone, now);
  const first = step(expression, 'next');
  const second = first && step(expression, 'next');
  return first && second ? (second.getTime() - first.getTime()) / 1000 : null;
}

export interface ScheduleInput {
  cron: string;
  /** IANA zone; default (also for "") UTC. */
  timezone?: string;
  suspend?: boolean;
  /** The latest cron instant already acted on (status.lastScheduleTime). */
  lastScheduleTime?: Date | null;
  /** metadata.creationTimestamp: instants at or before it never run. */
  createdAt: Date;
  now: Date;
  runInProgress: boolean;
  /** A due instant later than this is skipped as missed; default 3600 (decision 0012). */
  missedRunWindowSeconds?: number;
}

/**
 * What the controller should do now. Every variant carries a Kubernetes-style `reason` (usable as
 * an Event reason) and a human `message`. `instant` is the cron instant acted on: the controller
 * stores it in status.lastScheduleTime whether it ran, overlapped or was missed, so one instant is
 * never acted on twice. `nextRunAt` is the first instant after `now` (for status and a requeue).
 */
export type ScheduleDecision =
  | { action: 'wait'; reason: 'NotDue'; message: string; nextRunAt: Date | null }
  | { action: 'run'; reason: 'ScheduleDue'; message: string; instant: Date; nextRunAt: Date | null }
  | {
      action: 'skip-overlap';
      reason: 'RunInProgress';
      message: string;
      instant: Date;
      nextRunAt: Date | null;
    }
  | {
      action: 'skip-missed';
      reason: 'MissedSchedule';
      message: string;
      instant: Date;
      nextRunAt: Date | null;
      lateSeconds: number;
    }
  | { action: 'suspended'; reason: 'Suspended'; message: string }
  | { action: 'invalid'; reason: 'InvalidCron' | 'InvalidTimeZone'; message: string };

/**
 * Decision 0012: the cron is evaluated in the test's zone; of the instants after lastScheduleTime
 * (or after createdAt when never scheduled) and at or before now, only the latest is acted on, so
 * recovery after downtime starts at most one run, never a burst. It runs if it is less than the
 * missed-run window late, else it is skipped as missed. A missed instant is reported as missed even
 * while a run is in progress (being too late is the stronger fact); otherwise a due instant during a
 * run is skipped as an overlap. Validity is checked before suspension so a suspended test with a
 * broken cron still surfaces the problem.
 */
export function decideSchedule(input: ScheduleInput): ScheduleDecision {
  // An empty zone (possible in a spec applied with kubectl) means the documented default, UTC.
  const timeZone = input.timezone || 'UTC';
  const validation = validateCron(input.cron);
  if (!validation.ok) return { action: 'invalid', reason: 'InvalidCron', message: validation.message };
  if (!isValidTimeZone(timeZone)) {
    return { action: 'invalid', reason: 'InvalidTimeZone', message: `unknown time zone ${timeZone}` };
  }
  if (input.suspend) return { action: 'suspended', reason: 'Suspended', message: 'schedule is suspended' };

  const window = input.missedRunWindowSeconds ?? MISSED_RUN_WINDOW_SECONDS;
  const since = input.lastScheduleTime ?? input.createdAt;
  const instant = latestInstantBetween(input.cron, timeZone, since, input.now);
  const nextRunAt = nextRunAfter(input.cron, timeZone, input.now);
  const next = nextRunAt ? `next run ${nextRunAt.toISOString()}` : 'no further run';

  if (!instant) {
    return { action: 'wait', reason: 'NotDue', message: `not due; ${next}`, nextRunAt };
  }
  const at = instant.toISOString();
  const lateMilliseconds = input.now.getTime() - instant.getTime();
  const lateSeconds = Math.floor(lateMilliseconds / 1000);
  if (lateMilliseconds >= window * 1000) {
    return {
      action: 'skip-missed',
      reason: 'MissedSchedule',
      message: `skipped the run due ${at}: ${lateSeconds}s late, beyond the ${window}s missed-run window; ${next}`,
      instant,
      nextRunAt,
      lateSeconds,
    };
  }
  if (input.runInProgress) {
    return {
      action: 'skip-overlap',
      reason: 'RunInProgress',
      message: `skipped the run due ${at}: the previous run is still in progress; ${next}`,
      instant,
      nextRunAt,
    };
  }
  return {
    action: 'run',
    reason: 'ScheduleDue',
    message: `run due ${at} starts; ${next}`,
    instant,
    nextRunAt,
  };
}
