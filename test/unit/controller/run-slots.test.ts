import { describe, expect, it } from '@jest/globals';
import { RunSlots, oldestQueued } from '../../../server/controller/run-slots.js';
import type { RestoreTest, RunStage } from '../../../server/domain/resources.js';

function test(name: string, stage?: RunStage, queuedAt = '2026-11-22T00:00:00.000Z'): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name, namespace: 'ns' },
    spec: {
      provider: 'velero',
      backupSource: { namespaces: [{ name: 'src' }] },
      schedule: { cron: '@daily' },
    },
    status: stage
      ? { currentRun: { id: 'r', trigger: 'schedule', scheduledAt: queuedAt, queuedAt, stage } }
      : {},
  };
}

describe('RunSlots', () => {
  it('rebuilds the runs holding slots from status (a restarted leader)', () => {
    const slots = new RunSlots(5);
    slots.resync([test('a', 'Restoring'), test('b', 'Queued'), test('c'), test('d', 'Validating')]);
    expect(slots.inUse).toBe(2);
    expect(slots.holds('ns/a')).toBe(true);
    expect(slots.holds('ns/b')).toBe(false);
  });

  it('admits queued runs oldest first and never beyond the limit', () => {
    const slots = new RunSlots(2);
    const queued = [
      test('late', 'Queued', '2026-11-22T00:00:03.000Z'),
      test('early', 'Queued', '2026-11-22T00:00:01.000Z'),
      test('middle', 'Queued', '2026-11-22T00:00:02.000Z'),
    ];
    expect(slots.tryAcquire('ns/late', queued)).toBe(false); // not first in line
    expect(slots.tryAcquire('ns/early', queued)).toBe(true);
    expect(slots.tryAcquire('ns/middle', queued)).toBe(true);
    expect(slots.tryAcquire('ns/late', queued)).toBe(false); // limit reached
    // early finishes: its slot is free and it is no longer queued.
    slots.release('ns/early');
    const remaining = [queued[0]!, test('middle', 'Restoring')];
    expect(slots.tryAcquire('ns/late', remaining)).toBe(true);
  });

  it('breaks ties in queue time by key, so the order is stable', () => {
    const at = '2026-11-22T00:00:00.000Z';
    expect(oldestQueued([test('b', 'Queued', at), test('a', 'Queued', at)])).toBe('ns/a');
    expect(oldestQueued([test('a', 'Restoring', at)])).toBeUndefined();
  });

  it('does not keep a run waiting behind a queued test that is being deleted', () => {
    const deleting = test('gone', 'Queued', '2026-11-22T00:00:01.000Z');
    deleting.metadata.deletionTimestamp = '2026-11-22T00:00:05.000Z';
    const waiting = test('next', 'Queued', '2026-11-22T00:00:02.000Z');
    expect(oldestQueued([deleting, waiting])).toBe('ns/next');
    expect(new RunSlots(1).tryAcquire('ns/next', [deleting, waiting])).toBe(true);
  });
});
