// Checks of command-line values, done before anything is sent so that bad input fails fast with
// exit 2 and one clear line. They mirror the API's rules (decision 0003); the server still checks.
import { UsageError } from './errors.js';

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A Kubernetes name (RFC 1123 label, at most 63 characters). */
export function checkName(value: string, what: string): string {
  if (!RFC1123_LABEL.test(value) || value.length > 63) {
    throw new UsageError(
      `invalid ${what} "${value}": must be an RFC 1123 label (lower-case letters, digits and "-", at most 63 characters)`,
    );
  }
  return value;
}

const DURATION = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Seconds of an `11m35s`-style duration (h, m, s), or undefined when it is not one. */
export function parseDuration(value: string): number | undefined {
  const match = DURATION.exec(value.trim());
  if (!match || value.trim() === '') return undefined;
  const [, h, m, s] = match;
  return Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
}

export function checkDuration(value: string, flag: string, options: { allowZero?: boolean } = {}): string {
  const seconds = parseDuration(value);
  if (seconds === undefined || (!options.allowZero && seconds === 0)) {
    throw new UsageError(`invalid ${flag} "${value}": expected a duration such as 90s, 15m or 1h30m`);
  }
  return value.trim();
}

/** A whole number within [min, max] given to a flag (yargs hands over NaN for non-numbers). */
export function checkInteger(value: unknown, flag: string, min: number, max: number): number {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(`invalid ${flag} "${String(value)}": expected a whole number from ${min} to ${max}`);
  }
  return number;
}

const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const HASH_TOKEN = /(^|[^A-Za-z])H([^A-Za-z]|$)/;

/** A 5-field cron expression or a macro (the server's rule); cron-parser checks the fields. */
export async function checkCron(value: string): Promise<string> {
  const trimmed = value.trim();
  const fail = (why: string): never => {
    throw new UsageError(`invalid --cron "${value}": ${why}`);
  };
  if (trimmed === '') fail('must not be empty');
  if (trimmed.startsWith('@')) {
    if (!CRON_MACROS.includes(trimmed)) fail(`unknown macro; use one of ${CRON_MACROS.join(', ')}`);
    return trimmed;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    fail(`expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as @daily, got ${fields.length} field${fields.length === 1 ? '' : 's'}`);
  }
  if (fields.some((field) => HASH_TOKEN.test(field))) fail('H (hashed values) is not supported');
  const { CronExpressionParser } = await import('cron-parser');
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', currentDate: new Date(0) });
  } catch (error) {
    fail((error as Error).message);
  }
  return fields.join(' ');
}

const IANA_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export function checkTimeZone(value: string): string {
  let known = IANA_SHAPE.test(value);
  if (known) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
    } catch {
      known = false;
    }
  }
  if (!known) throw new UsageError(`invalid --timezone "${value}": expected an IANA time zone such as UTC or Europe/Berlin`);
  return value;
}
