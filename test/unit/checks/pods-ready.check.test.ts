import { describe, expect, it } from '@jest/globals';
import { runPodsReadyCheck } from '../../../server/checks/pods-ready.check.js';
import { SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import type { PodsReadyCheck } from '../../../server/domain/resources/resources.js';
import type { RunnableCheck } from '../../../server/checks/check.js';
import { checkContext, FakeSandboxReader, pod } from './fake-sandbox-reader.js';

const NS = 'rehearsal-shop-abc12';
const web = { app: 'web' };

function check(podsReady: PodsReadyCheck, extra: Partial<RunnableCheck> = {}): RunnableCheck {
  return { name: 'pods', kind: 'podsReady', podsReady, ...extra };
}

const reader = new FakeSandboxReader({
  pods: [
    pod(NS, 'web-b', { labels: web }),
    pod(NS, 'web-a', { labels: web }),
    pod(NS, 'web-c', { labels: web, ready: false, phase: 'Pending' }),
    pod(NS, 'migrate-1', { labels: { app: 'migrate' }, ready: false, phase: 'Succeeded' }),
    pod(NS, 'db-0', { labels: { app: 'db' } }),
    pod('shop', 'web-in-source', { labels: web }),
  ],
});
const context = checkContext({ reader, namespace: NS });

describe('podsReady check', () => {
  it('requires every selected pod to be Ready when minReady is unset', async () => {
    expect(await runPodsReadyCheck(check({ selector: web }), context)).toEqual({
      status: 'fail',
      message: `2/3 pods Ready in ${NS} with selector app=web; not Ready: web-c (Pending)`,
    });
    expect(await runPodsReadyCheck(check({ selector: { app: 'db' } }), context)).toEqual({
      status: 'pass',
      message: `1/1 pods Ready in ${NS} with selector app=db`,
    });
  });

  it('passes with minReady when enough pods are Ready', async () => {
    expect(await runPodsReadyCheck(check({ selector: web, minReady: 2 }), context)).toEqual({
      status: 'pass',
      message: `2/3 pods Ready in ${NS} with selector app=web (need 2)`,
    });
    expect((await runPodsReadyCheck(check({ selector: web, minReady: 3 }), context)).message).toBe(
      `2/3 pods Ready in ${NS} with selector app=web, need at least 3; not Ready: web-c (Pending)`,
    );
  });

  it('leaves finished (Succeeded) pods out', async () => {
    expect((await runPodsReadyCheck(check({ selector: { app: 'migrate' } }), context)).message).toBe(
      `no pods in ${NS} with selector app=migrate`,
    );
  });

  it('fails when a configured selector matches nothing, but the default check skips', async () => {
    expect((await runPodsReadyCheck(check({ selector: { app: 'nope' } }), context)).status).toBe('fail');
    const empty = checkContext({ reader: new FakeSandboxReader(), namespace: NS });
    expect(await runPodsReadyCheck(check({}, { origin: 'default' }), empty)).toEqual({
      status: 'skip',
      message: `no pods in ${NS}`,
    });
  });

  it('leaves out the Pods the restore transforms hold (restored Pods of a Job)', async () => {
    const held = new FakeSandboxReader({
      pods: [pod(NS, 'web-a', { labels: web }), pod(NS, 'migrate-x', { ready: false, phase: 'Pending', held: true })],
    });
    expect(await runPodsReadyCheck(check({}, { origin: 'default' }), checkContext({ reader: held, namespace: NS }))).toEqual({
      status: 'pass',
      message: `1/1 pods Ready in ${NS}`,
    });
  });

  describe('Pods refused by Pod Security', () => {
    const refusal = (object: string) => ({
      namespace: NS,
      object,
      message:
        'Error creating: pods "web-5d8f-abcde" is forbidden: violates PodSecurity "baseline:latest": privileged ' +
        '(container "app" must not set securityContext.privileged=true)',
    });
    const refused = `Pod Security "baseline" refused the Pods of ReplicaSet/priv-5d8f (violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true))`;

    it('fail the default check of a sandbox that has no Pod at all, naming the profile', async () => {
      const reader = new FakeSandboxReader({ podCreateFailures: [refusal('ReplicaSet/priv-5d8f'), refusal('ReplicaSet/priv-5d8f')] });
      expect(await runPodsReadyCheck(check({}, { origin: 'default' }), checkContext({ reader, namespace: NS }))).toEqual({
        status: 'fail',
        message: `no pods in ${NS}; ${refused}`,
      });
    });

    it('fail the default check even when every Pod that exists is Ready', async () => {
      const reader = new FakeSandboxReader({ pods: [pod(NS, 'web-a', { labels: web })], podCreateFailures: [refusal('ReplicaSet/priv-5d8f')] });
      expect(await runPodsReadyCheck(check({}, { origin: 'default' }), checkContext({ reader, namespace: NS }))).toEqual({
        status: 'fail',
        message: `1/1 pods Ready in ${NS}; ${refused}`,
      });
    });

    it('are the reason a configured check that fails gives; a satisfied one still passes', async () => {
      const reader = new FakeSandboxReader({ pods: [pod(NS, 'web-a', { labels: web })], podCreateFailures: [refusal('ReplicaSet/priv-5d8f')] });
      const inSandbox = checkContext({ reader, namespace: NS });
      expect(await runPodsReadyCheck(check({ selector: { app: 'priv' } }), inSandbox)).toEqual({
        status: 'fail',
        message: `no pods in ${NS} with selector app=priv; ${refused}`,
      });
      expect((await runPodsReadyCheck(check({ selector: web }), inSandbox)).status).toBe('pass');
    });

    it('other FailedCreate reasons (a quota) are not blamed on Pod Security', async () => {
      const reader = new FakeSandboxReader({
        podCreateFailures: [{ namespace: NS, object: 'ReplicaSet/web-1', message: 'Error creating: pods "web-1-x" is forbidden: exceeded quota: q' }],
      });
      expect(await runPodsReadyCheck(check({}, { origin: 'default' }), checkContext({ reader, namespace: NS }))).toEqual({
        status: 'skip',
        message: `no pods in ${NS}`,
      });
    });
  });

  it('lists only pods of the sandbox namespace it was given', async () => {
    const recording = new FakeSandboxReader({ pods: [pod('shop', 'web-in-source', { labels: web })] });
    const outcome = await runPodsReadyCheck(
      check({ selector: web }),
      checkContext({ reader: recording, namespace: NS }),
    );
    expect(outcome.status).toBe('fail');
    expect(recording.calls.map((call) => call.namespace)).toEqual([NS, NS]); // pods, then refused creations
  });

  it('names at most five not-Ready pods', async () => {
    const many = new FakeSandboxReader({
      pods: Array.from({ length: 8 }, (_, i) => pod(NS, `p-${i}`, { ready: false })),
    });
    const outcome = await runPodsReadyCheck(check({}), checkContext({ reader: many, namespace: NS }));
    expect(outcome.message).toBe(
      `0/8 pods Ready in ${NS}; not Ready: p-0 (Running), p-1 (Running), p-2 (Running), p-3 (Running), p-4 (Running) and 3 more`,
    );
  });

  it('is an error when pods cannot be listed or the block is invalid', async () => {
    const forbidden = new FakeSandboxReader({
      failures: {
        listPods: new SandboxReadError('Forbidden', 'pods is forbidden: cannot list resource "pods"', 403),
      },
    });
    expect(await runPodsReadyCheck(check({}), checkContext({ reader: forbidden, namespace: NS }))).toEqual({
      status: 'error',
      message: `cannot list pods in ${NS}: Forbidden (HTTP 403): pods is forbidden: cannot list resource "pods"`,
    });
    expect((await runPodsReadyCheck(check({ minReady: -1 }), context)).status).toBe('error');
    expect((await runPodsReadyCheck({ name: 'x', kind: 'podsReady' }, context)).message).toBe(
      'check of kind podsReady has no "podsReady" block',
    );
  });
});
