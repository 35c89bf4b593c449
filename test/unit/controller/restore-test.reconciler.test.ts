// The reconciler's run slots when the cache is a moment behind the apiserver: a run that ended is
// seen once more as in progress, settled again (idempotent) and its status write loses to a
// Conflict. The slot it took for that must come back, or the engine runs out of slots for good.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import {
  RestoreTestReconciler,
  type ReconcilerDeps,
} from '../../../server/controller/restore-test.reconciler.js';
import type { RunStepper, StepOutcome } from '../../../server/controller/run-stepper.js';
import { RunSlots } from '../../../server/controller/run-slots.js';
import type { CurrentRun, RestoreTest, RestoreTestStatus } from '../../../server/domain/resources.js';
import { KubeError } from '../../../server/kube/errors.js';
import type { RehearsalCache } from '../../../server/kube/rehearsal-cache.js';
import type { RehearsalClient } from '../../../server/kube/rehearsal-client.js';
import { Metrics } from '../../../server/metrics.js';

const NOW = new Date('2026-11-22T10:00:00.000Z');

function restoreTest(name: string, status: RestoreTestStatus): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name, namespace: 'ns', resourceVersion: '1', creationTimestamp: '2026-11-22T09:00:00Z' },
    spec: {
      provider: 'velero',
      backupSource: { namespaces: [{ name: 'src' }] },
      schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
    },
    status,
  };
}

function run(stage: CurrentRun['stage'], queuedAt = '2026-11-22T09:59:00.000Z'): CurrentRun {
  return { id: 'r1', trigger: 'manual', scheduledAt: queuedAt, queuedAt, stage, startedAt: queuedAt };
}

const done: StepOutcome = {
  kind: 'done',
  result: 'pass',
  score: 100,
  completedAt: '2026-11-22T09:59:30.000Z',
  reportName: 'shop-r1',
};

/** A reconciler over a hand-held cache; status writes answer as `writeStatus` says. */
function harness(limit: number) {
  const tests = new Map<string, RestoreTest>();
  const slots = new RunSlots(limit);
  let writeStatus: () => Promise<void> = async () => undefined;
  const steps: string[] = [];
  const deps: ReconcilerDeps = {
    cache: {
      getTest: (namespace: string, name: string) => tests.get(`${namespace}/${name}`),
      listTests: () => [...tests.values()],
    } as unknown as RehearsalCache,
    client: {
      replaceTestStatus: async (test: RestoreTest, status: RestoreTestStatus) => {
        await writeStatus();
        return { ...test, status };
      },
    } as unknown as RehearsalClient,
    slots,
    stepper: {
      step: async (test: RestoreTest) => {
        steps.push(test.metadata.name);
        return done;
      },
      forget: () => undefined,
    } as unknown as RunStepper,
    events: { record: () => undefined },
    metrics: new Metrics(),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    missedRunWindowSeconds: 3600,
    pollIntervalMs: 200,
    enqueue: () => undefined,
  };
  return {
    reconciler: new RestoreTestReconciler(deps),
    slots,
    steps,
    put: (test: RestoreTest) => tests.set(`ns/${test.metadata.name}`, test),
    failWritesWith: (error: Error | undefined) => {
      writeStatus = async () => {
        if (error) throw error;
      };
    },
  };
}

describe('run slots when the cache lags behind', () => {
  it('a stale view of an ended run does not keep a slot after its Conflict', async () => {
    const h = harness(1);
    // The cache still shows the ended run as validating; the status write that settles it again
    // finds a newer resourceVersion.
    h.put(restoreTest('shop', { phase: 'Running', currentRun: run('Validating') }));
    h.failWritesWith(new KubeError('Conflict', 409, 'the object has been modified'));
    await expect(h.reconciler.reconcile('ns/shop')).rejects.toThrow('modified');
    expect(h.steps).toEqual(['shop']);

    // The queue retries with the fresh object: no run in progress.
    h.failWritesWith(undefined);
    h.put(restoreTest('shop', { phase: 'Completed', lastReport: 'shop-r1', handledTrigger: 't1' }));
    await h.reconciler.reconcile('ns/shop');
    expect(h.slots.inUse).toBe(0);

    // The only slot is free for the next run in line.
    h.put(restoreTest('orders', { phase: 'Running', currentRun: run('Queued') }));
    await h.reconciler.reconcile('ns/orders');
    expect(h.slots.holds('ns/orders')).toBe(true);
  });

  it('a run in progress keeps its slot across reconciles', async () => {
    const h = harness(2);
    h.put(restoreTest('shop', { phase: 'Running', currentRun: run('Queued') }));
    await h.reconciler.reconcile('ns/shop');
    expect(h.slots.holds('ns/shop')).toBe(true);
    h.put(restoreTest('orders', { phase: 'Running', currentRun: run('Queued', '2026-11-22T09:59:30.000Z') }));
    await h.reconciler.reconcile('ns/orders');
    expect(h.slots.inUse).toBe(2);
  });

  it('a stale view of a run still queued does not give away the slot its promotion took', async () => {
    const h = harness(1);
    h.put(restoreTest('shop', { phase: 'Running', currentRun: run('Queued') }));
    await h.reconciler.reconcile('ns/shop'); // promoted: holds the only slot
    expect(h.slots.holds('ns/shop')).toBe(true);
    // The same queued view again (the cache has not seen the promotion); its write conflicts.
    h.failWritesWith(new KubeError('Conflict', 409, 'the object has been modified'));
    await expect(h.reconciler.reconcile('ns/shop')).rejects.toThrow('modified');
    expect(h.slots.holds('ns/shop')).toBe(true);
    // So a second test cannot start beyond the limit of one.
    h.failWritesWith(undefined);
    h.put(restoreTest('orders', { phase: 'Running', currentRun: run('Queued', '2026-11-22T09:59:30.000Z') }));
    await h.reconciler.reconcile('ns/orders');
    expect(h.slots.holds('ns/orders')).toBe(false);
  });
});
