// The schedule reconciler with a fake clock and in-memory actions: it queues due and triggered
// runs, refuses triggers during a run, never writes a status that did not change, and writes each
// field under its owner (the run ledger — consumed instant or trigger and the queued run — in one
// write, so a crash can neither lose a run nor start one twice).
import { describe, expect, it } from '@jest/globals';
import { ScheduleReconciler, type ScheduleActions } from '../../../server/engine/schedule.reconciler.js';
import type { EventType } from '../../../server/engine/events.js';
import type { RestoreTest, RestoreTestStatus } from '../../../server/domain/resources/resources.js';
import { ownedStatus, type StatusOwner } from '../../../server/kube/test-status.js';

const OWNERS: StatusOwner[] = ['schedule', 'run', 'evidence'];

class Recorder implements ScheduleActions {
  readonly writes: { owner: StatusOwner; status: RestoreTestStatus }[] = [];
  readonly events: string[] = [];
  /** What the apiserver would store: the owner's fields replaced, every other owner's kept. */
  async writeStatus(test: RestoreTest, owner: StatusOwner, status: RestoreTestStatus): Promise<RestoreTest> {
    const applied = ownedStatus(owner, status);
    this.writes.push({ owner, status: applied });
    const parts = OWNERS.map((other) => (other === owner ? applied : ownedStatus(other, test.status)));
    const conditions = parts.flatMap((part) => part.conditions ?? []);
    const stored: RestoreTestStatus = Object.assign({}, ...parts, conditions.length ? { conditions } : {});
    if (!conditions.length) delete stored.conditions;
    return { ...test, status: stored };
  }
  record(_test: RestoreTest, _type: EventType, reason: string): void {
    this.events.push(reason);
  }
  recordInterval(): void {}
  /** The source's restorable backups as the provider would list them now. */
  backups: { name: string; completedAt?: string }[] | undefined = [];
  restorableBackups(): Promise<{ name: string; completedAt?: string }[] | undefined> {
    return Promise.resolve(this.backups);
  }
}

const CREATED = '2026-03-01T00:00:00Z';

function test(status: RestoreTestStatus | undefined, annotations?: Record<string, string>): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { namespace: 'ns', name: 'shop', generation: 1, creationTimestamp: CREATED, ...(annotations ? { annotations } : {}) },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '0 2 * * *' } },
    ...(status ? { status } : {}),
  };
}

function reconciler(actions: ScheduleActions, now: string): ScheduleReconciler {
  return new ScheduleReconciler({ actions, now: () => new Date(now), missedRunWindowSeconds: 3600, newRunId: () => 'run1' });
}

/** Sorted keys, as the apiserver returns a status (Go sorts map keys when it encodes JSON). */
function sortedKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, entry: unknown) =>
    entry && typeof entry === 'object' && !Array.isArray(entry)
      ? Object.fromEntries(Object.entries(entry).sort(([a], [b]) => a.localeCompare(b)))
      : entry)) as T;
}

describe('ScheduleReconciler', () => {
  it('records the schedule once, then writes nothing while nothing changes (keys in any order)', async () => {
    const actions = new Recorder();
    const first = await reconciler(actions, '2026-03-01T01:00:00Z').reconcile(test(undefined));
    // The run ledger (phase, next run) and the spec as read, each under its owner.
    expect(actions.writes.map((write) => write.owner)).toEqual(['run', 'schedule']);
    expect(actions.writes[0]!.status).toEqual({ phase: 'Idle', nextRunAt: '2026-03-01T02:00:00.000Z' });
    expect(actions.writes[1]!.status).toMatchObject({ observedGeneration: 1, conditions: [{ type: 'ScheduleValid', status: 'True' }] });
    expect(first.written?.status).toMatchObject({ phase: 'Idle', nextRunAt: '2026-03-01T02:00:00.000Z' });
    expect(first.requeueAfterMs).toBe(3600_000 + 50);
    await reconciler(actions, '2026-03-01T01:30:00Z').reconcile(test(sortedKeys(first.written!.status!)));
    expect(actions.writes).toHaveLength(2);
  });

  it('queues a run at its cron instant: the instant, the next one and the run in one write of the run ledger', async () => {
    const actions = new Recorder();
    const valid = { type: 'ScheduleValid', status: 'True' as const, reason: 'Valid', message: 'the schedule is valid', lastTransitionTime: CREATED };
    const idle = { observedGeneration: 1, conditions: [valid], phase: 'Idle' as const, nextRunAt: '2026-03-01T02:00:00.000Z' };
    const result = await reconciler(actions, '2026-03-01T02:00:00.500Z').reconcile(test(idle));
    expect(actions.writes).toEqual([
      {
        owner: 'run',
        status: {
          phase: 'Running',
          nextRunAt: '2026-03-02T02:00:00.000Z',
          lastScheduleTime: '2026-03-01T02:00:00.000Z',
          currentRun: expect.objectContaining({ id: 'run1', trigger: 'schedule', stage: 'Queued', scheduledAt: '2026-03-01T02:00:00.000Z' }),
        },
      },
    ]);
    expect(result.written?.status?.currentRun?.stage).toBe('Queued');
    expect(actions.events).toEqual(['RunQueued']);
  });

  it('queues a manual run on a new trigger, and refuses one during a run', async () => {
    const actions = new Recorder();
    const first = await reconciler(actions, '2026-03-01T01:00:00Z').reconcile(test({ phase: 'Idle' }, { 'rehearsal.dev/trigger-request': 'req-1' }));
    expect(actions.writes[0]).toMatchObject({ owner: 'run', status: { handledTrigger: 'req-1', currentRun: { trigger: 'manual', stage: 'Queued' } } });
    const running = sortedKeys(first.written!.status!);
    actions.writes.length = 0;
    await reconciler(actions, '2026-03-01T01:00:01Z').reconcile(test(running, { 'rehearsal.dev/trigger-request': 'req-2' }));
    // Only the ledger changed: the trigger is consumed, the run in progress is carried unchanged.
    expect(actions.writes).toEqual([{ owner: 'run', status: expect.objectContaining({ handledTrigger: 'req-2', currentRun: expect.objectContaining({ id: 'run1' }) }) }]);
    expect(actions.events).toEqual(['RunQueued', 'TriggerRefused']);
  });

  it('consumes a cron instant that passes during a run, with an event', async () => {
    const actions = new Recorder();
    const during = { phase: 'Running' as const, lastScheduleTime: '2026-02-28T02:00:00.000Z', currentRun: { id: 'r0', trigger: 'manual' as const, scheduledAt: CREATED, queuedAt: CREATED, stage: 'Restoring' as const } };
    await reconciler(actions, '2026-03-01T02:00:05Z').reconcile(test(during));
    expect(actions.writes[0]).toMatchObject({ owner: 'run', status: { lastScheduleTime: '2026-03-01T02:00:00.000Z', currentRun: { id: 'r0', stage: 'Restoring' } } });
    expect(actions.events).toHaveLength(1);
  });

  it('never writes a field it does not own: the last run\'s outcome and the evidence anchor are carried by their owners', async () => {
    const actions = new Recorder();
    const ended = {
      phase: 'Completed' as const,
      lastScore: 90,
      lastResult: 'pass' as const,
      lastReport: 'shop-r0',
      evidenceAnchor: { sequence: 3, digest: 'sha256:abc', report: 'shop-r0' },
      conditions: [{ type: 'LastRunPassed', status: 'True' as const, reason: 'Passed', message: 'm', lastTransitionTime: CREATED }],
    };
    await reconciler(actions, '2026-03-01T01:00:00Z').reconcile(test(ended));
    expect(actions.writes.map((write) => write.owner)).toEqual(['run', 'schedule']);
    // The ledger's part carries the ended run's fields unchanged; the schedule's has only its own.
    const { evidenceAnchor: _anchor, ...ledger } = ended;
    expect(actions.writes[0]!.status).toStrictEqual({ ...ledger, nextRunAt: '2026-03-01T02:00:00.000Z' });
    expect(Object.keys(actions.writes[1]!.status).sort()).toEqual(['conditions', 'observedGeneration']);
    expect(actions.writes[1]!.status.conditions!.map((condition) => condition.type)).toEqual(['ScheduleValid']);
  });
});

describe('ScheduleReconciler with onBackup (issue 32)', () => {
  const B1 = { name: 'daily-20260301', completedAt: '2026-03-01T01:00:00Z' };
  const B2 = { name: 'daily-20260302', completedAt: '2026-03-02T01:00:00Z' };
  const B3 = { name: 'daily-20260303', completedAt: '2026-03-03T01:00:00Z' };
  function onBackupTest(status: RestoreTestStatus | undefined, schedule: RestoreTest['spec']['schedule'] = { onBackup: {} }): RestoreTest {
    const base = test(status);
    return { ...base, spec: { ...base.spec, schedule } };
  }

  it('queues one run of the new backup, its ledger in the same write; the same backup seen again queues none', async () => {
    const actions = new Recorder();
    actions.backups = [B1];
    const first = await reconciler(actions, '2026-03-01T01:00:05Z').reconcile(onBackupTest({ phase: 'Idle' }));
    const runWrites = actions.writes.filter((write) => write.owner === 'run');
    expect(runWrites).toHaveLength(1);
    expect(runWrites[0]!.status).toMatchObject({
      phase: 'Running',
      backupTrigger: { lastSeen: B1, countSinceRun: 0, lastRunBackup: B1.name },
      currentRun: { trigger: 'backup', triggerBackup: B1.name, scheduledAt: '2026-03-01T01:00:00.000Z', stage: 'Queued' },
    });
    expect(runWrites[0]!.status.nextRunAt).toBeUndefined();
    expect(actions.events).toEqual(['RunQueued']);
    // The run ends (the run reconciler removes currentRun); the next pass sees the same backup.
    const { currentRun: _run, ...ended } = sortedKeys(first.written!.status!);
    actions.writes.length = 0;
    await reconciler(actions, '2026-03-01T01:20:00Z').reconcile(onBackupTest({ ...ended, phase: 'Completed' }));
    expect(actions.writes).toEqual([]);
    expect(actions.events).toEqual(['RunQueued']);
  });

  it('after a restart with two newer backups, queues exactly one run, of the newest', async () => {
    const actions = new Recorder();
    actions.backups = [B1, B2, B3];
    const status: RestoreTestStatus = { phase: 'Completed', backupTrigger: { lastSeen: B1, countSinceRun: 0, lastRunBackup: B1.name } };
    const result = await reconciler(actions, '2026-03-03T05:00:00Z').reconcile(onBackupTest(status));
    expect(result.written?.status?.currentRun).toMatchObject({ trigger: 'backup', triggerBackup: B3.name });
    expect(result.written?.status?.backupTrigger).toEqual({ lastSeen: B3, countSinceRun: 0, lastRunBackup: B3.name });
    expect(actions.events).toEqual(['RunQueued']);
  });

  it('consumes no backup while a run is in progress (not even reading them), and does once it has ended', async () => {
    const actions = new Recorder();
    let reads = 0;
    actions.restorableBackups = () => {
      reads += 1;
      return Promise.resolve([B1]);
    };
    const during: RestoreTestStatus = { phase: 'Running', currentRun: { id: 'r0', trigger: 'schedule', scheduledAt: CREATED, queuedAt: CREATED, stage: 'Restoring' } };
    await reconciler(actions, '2026-03-01T01:00:05Z').reconcile(onBackupTest(during, { cron: '0 0 * * *', onBackup: {} }));
    expect(reads).toBe(0);
    expect(actions.writes.some((write) => write.status.backupTrigger !== undefined)).toBe(false);
    const { currentRun: _run, ...ended } = during;
    const result = await reconciler(actions, '2026-03-01T01:10:00Z').reconcile(onBackupTest({ ...ended, phase: 'Completed', lastScheduleTime: '2026-03-01T00:00:00.000Z' }, { cron: '0 0 * * *', onBackup: {} }));
    expect(result.written?.status?.currentRun).toMatchObject({ trigger: 'backup', triggerBackup: B1.name });
  });

  it('counts with everyNth: the first of two new backups is counted (an event, no run)', async () => {
    const actions = new Recorder();
    actions.backups = [B1];
    const result = await reconciler(actions, '2026-03-01T01:00:05Z').reconcile(onBackupTest({ phase: 'Idle' }, { onBackup: { everyNth: 2 } }));
    expect(result.written?.status?.currentRun).toBeUndefined();
    expect(result.written?.status?.backupTrigger).toEqual({ lastSeen: B1, countSinceRun: 1 });
    expect(actions.events).toEqual(['BackupCounted']);
  });

  it('leaves everything as it is when the backups cannot be read, and looks again at the poll interval', async () => {
    const actions = new Recorder();
    actions.backups = undefined;
    const result = await reconciler(actions, '2026-03-01T01:00:05Z').reconcile(onBackupTest({ phase: 'Idle' }));
    expect(actions.writes.some((write) => write.status.backupTrigger !== undefined || write.status.currentRun !== undefined)).toBe(false);
    expect(result.requeueAfterMs).toBe(60_000);
  });

  it('an onBackup test with a cron wakes at the earlier of the next instant and the poll', async () => {
    const actions = new Recorder();
    const result = await reconciler(actions, '2026-03-01T01:59:50Z').reconcile(onBackupTest({ phase: 'Idle' }, { cron: '0 2 * * *', onBackup: {} }));
    expect(result.requeueAfterMs).toBe(10_050);
  });

  it('a schedule with neither cron nor onBackup is invalid (a condition, no run)', async () => {
    const actions = new Recorder();
    const result = await reconciler(actions, '2026-03-01T01:00:00Z').reconcile(onBackupTest(undefined, {}));
    expect(result.written?.status?.conditions).toEqual([expect.objectContaining({ type: 'ScheduleValid', status: 'False' })]);
    expect(result.written?.status?.currentRun).toBeUndefined();
  });
});
