// The trigger's pieces that need no server: when a run counts as in progress (decision 0012: 409),
// and the waiter that resolves when the engine acknowledges a request in status.handledTrigger.
import { describe, expect, it } from '@jest/globals';
import { ANNOTATION_TRIGGER, API_VERSION, type RestoreTest } from '../../../server/domain/resources/resources.js';
import type { InformerHandler } from '../../../server/kube/informer.js';
import { runInProgress, testLocation } from '../../../server/api/services/tests.service.js';
import { TriggerWatch } from '../../../server/api/services/trigger-watch.js';

function test(status?: RestoreTest['status'], annotation?: string): RestoreTest {
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: {
      name: 'payments',
      namespace: 'ns',
      ...(annotation ? { annotations: { [ANNOTATION_TRIGGER]: annotation } } : {}),
    },
    spec: {
      provider: 'velero',
      backupSource: { namespaces: [{ name: 'payments' }] },
      schedule: { cron: '@daily' },
    },
    ...(status ? { status } : {}),
  };
}

const run = {
  id: 'ab12c',
  trigger: 'manual' as const,
  scheduledAt: 't',
  queuedAt: 't',
  stage: 'Queued' as const,
};

describe('runInProgress', () => {
  it.each<[string, RestoreTest, string | undefined]>([
    ['a test that never ran', test(), undefined],
    ['a completed test', test({ phase: 'Completed' }), undefined],
    ['a failed test', test({ phase: 'Failed' }), undefined],
    ['phase Running', test({ phase: 'Running' }), 'a run is in progress (phase Running)'],
    [
      'a current run',
      test({ phase: 'Completed', currentRun: run }),
      'run ab12c is in progress (stage Queued)',
    ],
    [
      'a pending request',
      test({ phase: 'Completed', handledTrigger: 'old' }, 'new'),
      'an earlier trigger request has not been picked up by the engine yet',
    ],
    [
      'a request never handled',
      test(undefined, 'first'),
      'an earlier trigger request has not been picked up by the engine yet',
    ],
    ['a handled request', test({ phase: 'Completed', handledTrigger: 'same' }, 'same'), undefined],
  ])('%s', (_name, subject, expected) => {
    expect(runInProgress(subject)).toBe(expected);
  });

  it('builds the Location of a test', () => {
    expect(testLocation('team-a', 'payments')).toBe('/api/v1/tests/payments?namespace=team-a');
  });
});

class FakeCache {
  handler: InformerHandler<RestoreTest> | undefined;
  current: RestoreTest | undefined;
  getTest = () => this.current;
  onTestChange = (handler: InformerHandler<RestoreTest>) => {
    this.handler = handler;
  };
  publish(next: RestoreTest): void {
    this.current = next;
    this.handler!('update', 'ns/payments', next, undefined);
  }
}

describe('TriggerWatch', () => {
  it('resolves when status.handledTrigger reaches the value, ignoring other values and tests', async () => {
    const cache = new FakeCache();
    const watch = new TriggerWatch(cache);
    const wait = watch.waitFor('ns', 'payments', 'v2', 5_000);
    cache.publish(test({ phase: 'Completed', handledTrigger: 'v1' }));
    cache.handler!(
      'update',
      'ns/other',
      { ...test({ handledTrigger: 'v2' }), metadata: { name: 'other', namespace: 'ns' } },
      undefined,
    );
    expect(watch.pending).toBe(1);
    cache.publish(test({ phase: 'Running', handledTrigger: 'v2' }));
    await expect(wait.handled).resolves.toMatchObject({ status: { phase: 'Running' } });
    expect(watch.pending).toBe(0);
  });

  it('check() settles a waiter whose update arrived before it waited', async () => {
    const cache = new FakeCache();
    const watch = new TriggerWatch(cache);
    cache.current = test({ phase: 'Running', handledTrigger: 'early' });
    const wait = watch.waitFor('ns', 'payments', 'early', 5_000);
    watch.check('ns', 'payments');
    await expect(wait.handled).resolves.toBeDefined();
  });

  it('gives undefined after the timeout or on cancel, and forgets the waiter', async () => {
    const cache = new FakeCache();
    const watch = new TriggerWatch(cache);
    const timedOut = watch.waitFor('ns', 'payments', 'never', 10);
    const cancelled = watch.waitFor('ns', 'payments', 'never-either', 5_000);
    cancelled.cancel();
    await expect(timedOut.handled).resolves.toBeUndefined();
    await expect(cancelled.handled).resolves.toBeUndefined();
    expect(watch.pending).toBe(0);
  });
});
