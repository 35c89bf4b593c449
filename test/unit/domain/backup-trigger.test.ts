// The onBackup trigger (issue 32) as a table: one run per new backup, none for a backup already
// seen, everyNth counting, one catch-up run after downtime (never one per missed backup), nothing
// consumed while a run is going, backups passed over while suspended.
import { describe, expect, it } from '@jest/globals';
import { decideBackupTrigger, everyNthOf, testsWatchingBackups, type BackupTriggerInput } from '../../../server/domain/run/backup-trigger.js';
import { scheduleSummary } from '../../../server/domain/run/schedule-summary.js';

const CREATED = new Date('2026-03-01T00:00:00Z');
const backup = (name: string, completedAt: string) => ({ name, completedAt });
const OLD = backup('daily-20260228', '2026-02-28T01:00:00Z');
const B1 = backup('daily-20260301', '2026-03-01T01:00:00Z');
const B2 = backup('daily-20260302', '2026-03-02T01:00:00Z');
const B3 = backup('daily-20260303', '2026-03-03T01:00:00Z');

function input(overrides: Partial<BackupTriggerInput>): BackupTriggerInput {
  return { onBackup: {}, createdAt: CREATED, restorable: [], runInProgress: false, ...overrides };
}

describe('decideBackupTrigger', () => {
  it('is off without onBackup', () => {
    expect(decideBackupTrigger(input({ onBackup: undefined, restorable: [B1] }))).toEqual({ action: 'off' });
  });

  it('never runs a backup completed before the test was created', () => {
    expect(decideBackupTrigger(input({ restorable: [OLD] }))).toMatchObject({ action: 'wait', reason: 'NoNewBackup' });
  });

  it('runs once for a new backup, recording it as seen and run', () => {
    const decision = decideBackupTrigger(input({ restorable: [OLD, B1] }));
    expect(decision).toMatchObject({ action: 'run', reason: 'BackupCompleted', backup: B1 });
    expect(decision.action === 'run' && decision.ledger).toEqual({ lastSeen: B1, countSinceRun: 0, lastRunBackup: B1.name });
    expect(decision.action === 'run' && decision.message).toBe(`backup ${B1.name} completed`);
  });

  it('does nothing for the same backup seen twice (the ledger of the first run is stored)', () => {
    const first = decideBackupTrigger(input({ restorable: [B1] }));
    if (first.action !== 'run') throw new Error('expected a run');
    expect(decideBackupTrigger(input({ restorable: [B1], ledger: first.ledger }))).toMatchObject({ action: 'wait', reason: 'NoNewBackup' });
  });

  it('after downtime, starts exactly one run, of the newest of the missed backups', () => {
    const ledger = { lastSeen: B1, countSinceRun: 0, lastRunBackup: B1.name };
    const decision = decideBackupTrigger(input({ restorable: [B3, B1, B2], ledger }));
    expect(decision).toMatchObject({ action: 'run', backup: B3 });
    expect(decision.action === 'run' && decision.message).toContain('2 new backups since the last one seen; one run, of the newest');
    if (decision.action !== 'run') return;
    expect(decideBackupTrigger(input({ restorable: [B3, B1, B2], ledger: decision.ledger })).action).toBe('wait');
  });

  it.each([
    // everyNth, backups arriving one at a time → which of them run
    [1, [B1, B2, B3], [B1.name, B2.name, B3.name]],
    [2, [B1, B2, B3], [B2.name]],
    [3, [B1, B2, B3], [B3.name]],
  ])('everyNth %i: of the backups arriving one by one, runs %j', (everyNth, arriving, expected) => {
    let ledger: BackupTriggerInput['ledger'];
    const runs: string[] = [];
    const seen: typeof arriving = [];
    for (const next of arriving) {
      seen.push(next);
      const decision = decideBackupTrigger(input({ onBackup: { everyNth }, restorable: [...seen], ...(ledger ? { ledger } : {}) }));
      if (decision.action === 'run') runs.push(decision.backup.name);
      if (decision.action === 'run' || decision.action === 'count') ledger = decision.ledger;
    }
    expect(runs).toEqual(expected);
  });

  it('counts towards everyNth and says so', () => {
    const decision = decideBackupTrigger(input({ onBackup: { everyNth: 3 }, restorable: [B1] }));
    expect(decision).toMatchObject({ action: 'count', reason: 'BackupCounted', ledger: { lastSeen: B1, countSinceRun: 1 } });
    expect(decision.action === 'count' && decision.message).toBe(`backup ${B1.name} completed: 1 of every 3 backups, not run`);
  });

  it('counts the missed backups together: enough of them start one run', () => {
    const decision = decideBackupTrigger(input({ onBackup: { everyNth: 2 }, restorable: [B1, B2, B3], ledger: { lastSeen: OLD, countSinceRun: 0 } }));
    expect(decision).toMatchObject({ action: 'run', backup: B3, ledger: { countSinceRun: 0, lastRunBackup: B3.name } });
  });

  it('consumes nothing while the previous run is going: the backup waits for the slot', () => {
    const decision = decideBackupTrigger(input({ restorable: [B1], runInProgress: true }));
    expect(decision).toMatchObject({ action: 'wait', reason: 'RunInProgress' });
    expect('ledger' in decision).toBe(false);
  });

  it('passes over backups while suspended, so resuming waits for the next one', () => {
    const ledger = { lastSeen: B1, countSinceRun: 1, lastRunBackup: B1.name };
    const decision = decideBackupTrigger(input({ onBackup: { everyNth: 3 }, suspend: true, restorable: [B1, B2], ledger }));
    expect(decision).toMatchObject({ action: 'count', reason: 'Suspended', ledger: { lastSeen: B2, countSinceRun: 0, lastRunBackup: B1.name } });
  });

  it('leaves the ledger alone when the backups cannot be read', () => {
    expect(decideBackupTrigger(input({ restorable: undefined }))).toMatchObject({ action: 'unknown' });
  });

  it('orders by completion time, then name, and ignores backups without a completion time', () => {
    const sameSecond = backup('daily-20260302b', B2.completedAt);
    const decision = decideBackupTrigger(input({ restorable: [{ name: 'no-time' }, sameSecond, B2], ledger: { lastSeen: B1 } }));
    expect(decision).toMatchObject({ action: 'run', backup: sameSecond });
  });
});

describe('everyNthOf', () => {
  it.each([[undefined, 1], [1, 1], [3, 3], [0, 1], [2.5, 1]])('%p → %i', (value, expected) => {
    expect(everyNthOf(value === undefined ? {} : { everyNth: value })).toBe(expected);
  });
});

describe('testsWatchingBackups', () => {
  const spec = (provider: string, onBackup: boolean, providerNamespace?: string) => ({
    spec: { provider, schedule: onBackup ? { onBackup: {} } : {}, backupSource: providerNamespace ? { providerNamespace } : {} },
  });
  it('picks the onBackup tests of the tool and namespace', () => {
    const tests = [spec('velero', true), spec('velero', false), spec('kasten', true), spec('velero', true, 'other')];
    expect(testsWatchingBackups(tests, 'velero', 'velero', 'velero')).toEqual([tests[0]]);
    expect(testsWatchingBackups(tests, 'velero', 'other', 'velero')).toEqual([tests[3]]);
  });
});

describe('scheduleSummary', () => {
  it.each([
    [{ cron: '0 2 * * *' }, '0 2 * * *'],
    [{ onBackup: {} }, 'on each new backup'],
    [{ cron: '@daily', onBackup: { everyNth: 3 } }, '@daily and on every 3rd new backup'],
    [{ onBackup: { everyNth: 12 } }, 'on every 12th new backup'],
    [{ onBackup: { everyNth: 22 } }, 'on every 22nd new backup'],
  ])('%j → %s', (schedule, expected) => {
    expect(scheduleSummary(schedule)).toBe(expected);
  });
});
