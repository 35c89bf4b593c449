// The schedule reconciler with a fake clock and in-memory actions: it queues due and triggered
// runs, refuses triggers during a run, and never writes a status that did not change.
import { describe, expect, it } from '@jest/globals';
import { ScheduleReconciler, type ScheduleActions } from '../../../server/engine/schedule.reconciler.js';
import type { EventType } from '../../../server/engine/events.js';
import type { RestoreTest, RestoreTestStatus } from '../../../server/domain/resources/resources.js';

class Recorder implements ScheduleActions {
  readonly writes: RestoreTestStatus[] = [];
  readonly events: string[] = [];
  async writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest> {
    this.writes.push(status);
    return { ...test, status };
  }
  record(_test: RestoreTest, _type: EventType, reason: string): void {
    this.events.push(reason);
  }
  recordInterval(): void {}
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
    expect(actions.writes).toHaveLength(1);
    expect(actions.writes[0]).toMatchObject({ phase: 'Idle', nextRunAt: '2026-03-01T02:00:00.000Z' });
    expect(first.requeueAfterMs).toBe(3600_000 + 50);
    await reconciler(actions, '2026-03-01T01:30:00Z').reconcile(test(sortedKeys(actions.writes[0]!)));
    expect(actions.writes).toHaveLength(1);
  });

  it('queues a run at its cron instant', async () => {
    const actions = new Recorder();
    const result = await reconciler(actions, '2026-03-01T02:00:00.500Z').reconcile(test({ phase: 'Idle' }));
    expect(actions.writes[0]).toMatchObject({
      phase: 'Running',
      lastScheduleTime: '2026-03-01T02:00:00.000Z',
      currentRun: { id: 'run1', trigger: 'schedule', stage: 'Queued', scheduledAt: '2026-03-01T02:00:00.000Z' },
    });
    expect(result.written?.status?.currentRun?.stage).toBe('Queued');
    expect(actions.events).toEqual(['RunQueued']);
  });

  it('queues a manual run on a new trigger, and refuses one during a run', async () => {
    const actions = new Recorder();
    await reconciler(actions, '2026-03-01T01:00:00Z').reconcile(test({ phase: 'Idle' }, { 'rehearsal.dev/trigger-request': 'req-1' }));
    expect(actions.writes[0]).toMatchObject({ handledTrigger: 'req-1', currentRun: { trigger: 'manual', stage: 'Queued' } });
    const running = sortedKeys(actions.writes[0]!);
    await reconciler(actions, '2026-03-01T01:00:01Z').reconcile(test(running, { 'rehearsal.dev/trigger-request': 'req-2' }));
    expect(actions.writes[1]).toMatchObject({ handledTrigger: 'req-2', currentRun: { id: 'run1' } });
    expect(actions.events).toEqual(['RunQueued', 'TriggerRefused']);
  });

  it('consumes a cron instant that passes during a run, with an event', async () => {
    const actions = new Recorder();
    const during = { phase: 'Running' as const, lastScheduleTime: '2026-02-28T02:00:00.000Z', currentRun: { id: 'r0', trigger: 'manual' as const, scheduledAt: CREATED, queuedAt: CREATED, stage: 'Restoring' as const } };
    await reconciler(actions, '2026-03-01T02:00:05Z').reconcile(test(during));
    expect(actions.writes[0]).toMatchObject({ lastScheduleTime: '2026-03-01T02:00:00.000Z', currentRun: { id: 'r0', stage: 'Restoring' } });
    expect(actions.events).toHaveLength(1);
  });
});
