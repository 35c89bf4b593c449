// The admission guard (decision 0018): which author policies or denying bindings are missing, the
// gauge and log line that say so, answers reused for a few seconds, a list the apiserver refuses
// counting as missing (fail closed), and one it does not answer as unknown (the run waits).
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { AdmissionGuard, AdmissionUnknownError, GUARDED_POLICIES, missingAdmission } from '../../../server/engine/admission-guard.js';
import { Metrics } from '../../../server/metrics/metrics.js';

const bound = (name: string, actions = ['Deny']) => ({ name, policyName: name, actions });

describe('missingAdmission', () => {
  const names = ['a', 'b'];
  it.each([
    ['everything installed', [{ name: 'a' }, { name: 'b' }], [bound('a'), bound('b')], []],
    ['a binding gone', [{ name: 'a' }, { name: 'b' }], [bound('a')], ['ValidatingAdmissionPolicyBinding/b']],
    ['a policy gone', [{ name: 'b' }], [bound('a'), bound('b')], ['ValidatingAdmissionPolicy/a']],
    ['a binding that only warns', [{ name: 'a' }, { name: 'b' }], [bound('a'), bound('b', ['Warn', 'Audit'])], ['ValidatingAdmissionPolicyBinding/b']],
    ['a binding under another name still binds', [{ name: 'a' }, { name: 'b' }], [bound('a'), { name: 'mine', policyName: 'b', actions: ['Deny'] }], []],
  ] as const)('%s → %p', (_label, policies, bindings, missing) => {
    expect(missingAdmission(names, policies, bindings)).toEqual(missing);
  });
});

function guardWith(list: () => Promise<{ policies: string[]; bindings: string[] }>, clock: { now: number }) {
  const metrics = new Metrics();
  let calls = 0;
  const api = {
    listValidatingAdmissionPolicy: async () => {
      calls += 1;
      return { items: (await list()).policies.map((name) => ({ metadata: { name } })) };
    },
    listValidatingAdmissionPolicyBinding: async () => ({
      items: (await list()).bindings.map((name) => ({ metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } })),
    }),
  };
  const guard = new AdmissionGuard({ api: api as never, metrics, log: pino({ level: 'silent' }), now: () => clock.now });
  return { guard, metrics, calls: () => calls };
}

describe('AdmissionGuard', () => {
  it('sets the gauge per policy, reuses an answer for 5 s, then looks again', async () => {
    const clock = { now: 0 };
    let installed = [...GUARDED_POLICIES];
    const { guard, metrics, calls } = guardWith(async () => ({ policies: [...GUARDED_POLICIES], bindings: installed }), clock);
    expect(await guard.missing()).toEqual([]);
    installed = installed.slice(1);
    clock.now = 4_000;
    expect(await guard.missing()).toEqual([]);
    expect(calls()).toBe(1);
    clock.now = 6_000;
    expect(await guard.missing()).toEqual([`ValidatingAdmissionPolicyBinding/${GUARDED_POLICIES[0]}`]);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`rehearsal_admission_policy_missing{policy="${GUARDED_POLICIES[0]}"} 1`);
    expect(text).toContain(`rehearsal_admission_policy_missing{policy="${GUARDED_POLICIES[1]}"} 0`);
  });

  it('counts a list the apiserver refuses as missing (fail closed)', async () => {
    const { guard, metrics } = guardWith(async () => {
      throw { code: 403, body: { reason: 'Forbidden', message: 'validatingadmissionpolicies is forbidden' } };
    }, { now: 0 });
    const missing = await guard.missing();
    expect(missing).toHaveLength(1);
    expect(missing[0]).toContain('could not be listed: validatingadmissionpolicies is forbidden');
    expect(await metrics.registry.metrics()).toContain(`rehearsal_admission_policy_missing{policy="${GUARDED_POLICIES[0]}"} 1`);
  });

  it.each([
    ['no answer at all', new Error('connect ECONNREFUSED 127.0.0.1:6443')],
    ['503 from a restarting apiserver', { code: 503, body: { message: 'etcd not ready' } }],
    ['429', { code: 429, body: { message: 'Too many requests' } }],
  ])('an apiserver that does not answer (%s) is unknown, not missing: missing() throws and the gauge keeps its value', async (_label, failure) => {
    const clock = { now: 0 };
    let down = false;
    const { guard, metrics, calls } = guardWith(async () => {
      if (down) throw failure;
      return { policies: [...GUARDED_POLICIES], bindings: [...GUARDED_POLICIES] };
    }, clock);
    expect(await guard.missing()).toEqual([]);
    down = true;
    clock.now = 10_000;
    await expect(guard.missing()).rejects.toThrow(AdmissionUnknownError);
    await expect(guard.missing()).rejects.toThrow(/could not be looked at .*the run waits/);
    expect(await metrics.registry.metrics()).toContain(`rehearsal_admission_policy_missing{policy="${GUARDED_POLICIES[0]}"} 0`);
    // An unanswered look is never reused: the next call asks again, and an answer is used at once.
    const before = calls();
    down = false;
    expect(await guard.missing()).toEqual([]);
    expect(calls()).toBe(before + 1);
  });

  it("a replica that stops leading exports no answer, so only the leader's view reaches the alert", async () => {
    const { guard, metrics } = guardWith(async () => ({ policies: [], bindings: [] }), { now: 0 });
    guard.start();
    await guard.missing();
    expect(await metrics.registry.metrics()).toContain(`rehearsal_admission_policy_missing{policy="${GUARDED_POLICIES[0]}"} 1`);
    guard.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await metrics.registry.metrics()).not.toMatch(/^rehearsal_admission_policy_missing\{/m);
  });
});
