// When a RestoreTest runs because its backup source completed a new backup (issue 32,
// `spec.schedule.onBackup`, decision 0012). Pure, like schedule.ts: the engine gathers the test's
// restorable backups (the same list "latest" chooses from) and the durable ledger in
// status.backupTrigger, and this decides. Exactly one run per new backup, and never a burst:
// - "new" = completed after the ledger's last seen backup (or, before the first one, after the
//   test was created, as cron instants at or before creation never run);
// - however many new backups there are (downtime, a leader change), they trigger at most one run,
//   of the newest; with everyNth they are counted, and the Nth starts the run;
// - while the test's previous run is still going nothing is consumed: the newest backup runs once
//   the slot is free (a backup is not an instant in time that passes, unlike a cron instant);
// - a suspended test consumes the backups without running, so resuming waits for the next one.
// The ledger is written in the same status write as the queued run, so a crash or a new leader
// either sees both or neither.
import type { BackupTriggerLedger } from '../resources/resources.js';

/** A restorable backup of the test's source, as the provider lists it. */
export interface BackupCandidate {
  name: string;
  /** RFC 3339; a backup without it cannot be ordered and is left out. */
  completedAt?: string;
}


export interface BackupTriggerInput {
  /** spec.schedule.onBackup; absent = the trigger is off. */
  onBackup?: { everyNth?: number };
  suspend?: boolean;
  ledger?: BackupTriggerLedger;
  /** metadata.creationTimestamp: backups completed at or before it never trigger. */
  createdAt: Date;
  /** The restorable backups, or undefined when the provider could not be read. */
  restorable: readonly BackupCandidate[] | undefined;
  runInProgress: boolean;
}

/**
 * `ledger` is what to store (absent = leave status.backupTrigger as it is); `backup` is the one
 * backup the queued run restores.
 */
export type BackupTriggerDecision =
  | { action: 'off' }
  | { action: 'unknown'; reason: 'BackupsUnreadable'; message: string }
  | { action: 'wait'; reason: 'NoNewBackup' | 'RunInProgress'; message: string }
  | { action: 'count'; reason: 'BackupCounted' | 'Suspended'; message: string; ledger: BackupTriggerLedger }
  | {
      action: 'run';
      reason: 'BackupCompleted';
      message: string;
      backup: { name: string; completedAt: string };
      ledger: BackupTriggerLedger;
    };

function timeOf(value: string): number {
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? -Infinity : parsed;
}

/** Newest first: completion time, then name (Velero names scheduled backups by time). */
function compareNewestFirst(left: { name: string; completedAt: string }, right: { name: string; completedAt: string }): number {
  return timeOf(right.completedAt) - timeOf(left.completedAt) || (right.name < left.name ? -1 : right.name > left.name ? 1 : 0);
}

/** everyNth as stored; anything that is not a whole number ≥ 1 counts as 1 (the CRD refuses it anyway). */
export function everyNthOf(onBackup: { everyNth?: number } | undefined): number {
  const value = onBackup?.everyNth;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1;
}

export function decideBackupTrigger(input: BackupTriggerInput): BackupTriggerDecision {
  if (!input.onBackup) return { action: 'off' };
  if (input.restorable === undefined) {
    return { action: 'unknown', reason: 'BackupsUnreadable', message: 'the backups of the source could not be read; looking again later' };
  }
  const ordered = input.restorable
    .filter((backup): backup is { name: string; completedAt: string } => typeof backup.completedAt === 'string' && timeOf(backup.completedAt) > -Infinity)
    .map((backup) => ({ name: backup.name, completedAt: backup.completedAt }))
    .sort(compareNewestFirst);
  const seen = input.ledger?.lastSeen;
  const fresh = seen
    ? ordered.filter((backup) => compareNewestFirst(backup, seen) < 0)
    : ordered.filter((backup) => timeOf(backup.completedAt) > input.createdAt.getTime());
  const newest = fresh[0];
  if (!newest) {
    return { action: 'wait', reason: 'NoNewBackup', message: seen ? `no backup newer than ${seen.name}` : 'no backup completed since the test was created' };
  }
  if (input.runInProgress) {
    return { action: 'wait', reason: 'RunInProgress', message: `backup ${newest.name} waits: the previous run is still in progress` };
  }
  const lastSeen = { name: newest.name, completedAt: newest.completedAt };
  const keep = input.ledger?.lastRunBackup ? { lastRunBackup: input.ledger.lastRunBackup } : {};
  if (input.suspend) {
    return {
      action: 'count',
      reason: 'Suspended',
      message: `backup ${newest.name} completed while the schedule is suspended: not run`,
      ledger: { ...keep, lastSeen, countSinceRun: 0 },
    };
  }
  const everyNth = everyNthOf(input.onBackup);
  const count = (input.ledger?.countSinceRun ?? 0) + fresh.length;
  const also = fresh.length > 1 ? ` (${fresh.length} new backups since the last one seen; one run, of the newest)` : '';
  if (count < everyNth) {
    return {
      action: 'count',
      reason: 'BackupCounted',
      message: `backup ${newest.name} completed: ${count} of every ${everyNth} backups, not run${also}`,
      ledger: { ...keep, lastSeen, countSinceRun: count },
    };
  }
  return {
    action: 'run',
    reason: 'BackupCompleted',
    message: `backup ${newest.name} completed${everyNth > 1 ? ` (backup ${count} of every ${everyNth})` : ''}${also}`,
    backup: lastSeen,
    ledger: { lastSeen, countSinceRun: 0, lastRunBackup: newest.name },
  };
}

/**
 * The tests a completed backup of `provider` in `providerNamespace` may concern: those with
 * onBackup on that tool and namespace (`defaultProviderNamespace` when the test names none).
 * Whether the backup covers their sources and is new to them, the decision above says.
 */
/** The tests restoring from `provider`'s backups in `providerNamespace` (a completed backup there may concern them). */
export function testsOfProviderNamespace<T extends { spec: { provider: string; backupSource: { providerNamespace?: string } } }>(
  tests: readonly T[],
  provider: string,
  providerNamespace: string,
  defaultProviderNamespace: string,
): T[] {
  return tests.filter(
    (test) => test.spec.provider === provider && (test.spec.backupSource.providerNamespace || defaultProviderNamespace) === providerNamespace,
  );
}

export function testsWatchingBackups<T extends { spec: { provider: string; schedule: { onBackup?: unknown }; backupSource: { providerNamespace?: string } } }>(
  tests: readonly T[],
  provider: string,
  providerNamespace: string,
  defaultProviderNamespace: string,
): T[] {
  return testsOfProviderNamespace(tests, provider, providerNamespace, defaultProviderNamespace).filter(
    (test) => test.spec.schedule.onBackup !== undefined,
  );
}
