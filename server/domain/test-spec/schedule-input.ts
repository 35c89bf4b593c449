// When a test runs, as CreateTestInput says it (issue 32): `cron`, `onBackup` and
// `everyNthBackup`. Cron used to be required; now a test runs on a cron, after new backups of its
// source, or both, and needs at least one. The rules across the three fields are here, in one
// place, because JSON Schema cannot state them (CreateTestInput's description lists them).
import { EVERY_NTH_BACKUP_RANGE, TEST_INPUT_DEFAULTS } from '../../../protocol/test-input.js';
import { validateCron } from '../run/schedule.js';

// The syntax of a cron field as CreateTestInput's schema publishes it (its `pattern`, kept equal by
// test/unit/test-input-schema.test.ts): the classic 5 fields or a macro, blanks only around and
// between them. What the syntax admits is then checked by validateCron (ranges, names, steps).
export const CRON_SYNTAX =
  /^\x20*(\x40(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/-]+(\x20+[0-9A-Za-z*,/-]+){4})\x20*$/;
export const MAX_CRON_LENGTH = 128;

export interface ScheduleInput {
  /** Absent: the test runs on new backups only. */
  cron?: string;
  /** Present (everyNth 1 = each backup) when the test also runs on new backups. */
  onBackup?: { everyNth: number };
}

/**
 * `body` is the request body; `backupName` its validated backupName (undefined = latest). Fields
 * absent or null take their defaults (no cron, onBackup false, everyNthBackup 1).
 */
export function validateScheduleInput(
  body: Record<string, unknown>,
  backupName: string | undefined,
  fail: (field: string, message: string) => void,
): ScheduleInput {
  const present = (field: string): boolean => body[field] !== undefined && body[field] !== null;
  let onBackup = false;
  if (present('onBackup')) {
    if (typeof body.onBackup !== 'boolean') fail('onBackup', 'must be a boolean');
    else onBackup = body.onBackup;
  }

  let cron: string | undefined;
  if (present('cron')) {
    const value = body.cron;
    if (typeof value !== 'string') {
      fail('cron', 'must be a string');
    } else if (value.trim() === '') {
      fail('cron', onBackup ? 'must not be empty (leave it out to run on new backups only)' : 'is required');
    } else {
      const validation = validateCron(value);
      if (value.length > MAX_CRON_LENGTH) fail('cron', `must be at most ${MAX_CRON_LENGTH} characters`);
      else if (!CRON_SYNTAX.test(value)) fail('cron', validation.ok ? 'must separate its fields with spaces' : validation.message);
      else if (!validation.ok) fail('cron', validation.message);
      else cron = value.trim();
    }
  } else if (!onBackup && (!present('onBackup') || typeof body.onBackup === 'boolean')) {
    // (An onBackup that is not a boolean has its own error; "cron is required" would mislead.)
    fail('cron', 'is required unless onBackup is true');
  }

  let everyNth = 1;
  if (present('everyNthBackup')) {
    const value = body.everyNthBackup;
    if (typeof value !== 'number' || !Number.isInteger(value)) fail('everyNthBackup', 'must be an integer');
    else if (value < EVERY_NTH_BACKUP_RANGE.min || value > EVERY_NTH_BACKUP_RANGE.max) {
      fail('everyNthBackup', `must be between ${EVERY_NTH_BACKUP_RANGE.min} and ${EVERY_NTH_BACKUP_RANGE.max}`);
    } else if (!onBackup) fail('everyNthBackup', 'needs onBackup true');
    else everyNth = value;
  }
  // A run after each new backup restores that backup; a test pinned to one named backup has none.
  if (onBackup && backupName !== undefined && backupName !== TEST_INPUT_DEFAULTS.backupName) {
    fail('onBackup', 'needs backupName latest (a test of one named backup has no new backups)');
  }
  return { ...(cron !== undefined ? { cron } : {}), ...(onBackup ? { onBackup: { everyNth } } : {}) };
}
