// Which old-form reports (an ownerReference to their RestoreTest, written before issue 17's fourth
// cut) may lose that reference: only where the evidence owner stays the same test (name and uid).
import { describe, expect, it } from '@jest/globals';
import { decideOldForm } from '../../../server/domain/retention/old-report-forms.js';
import type { OwnerReference, RestoreReport } from '../../../server/domain/resources/resources.js';

const owner = (name: string, uid: string): OwnerReference => ({
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreTest',
  name,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});
const report = (owners: OwnerReference[] | undefined, testRef: { name: string; uid: string }): RestoreReport =>
  ({
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreReport',
    metadata: { name: 'shop-abcde', namespace: 'team-a', ...(owners ? { ownerReferences: owners } : {}) },
    spec: { testRef: { ...testRef, namespace: 'team-a' } },
  }) as unknown as RestoreReport;

describe('decideOldForm', () => {
  it("today's form (no ownerReference): nothing to do", () => {
    expect(decideOldForm(report(undefined, { name: 'shop', uid: 'u1' }))).toEqual({ action: 'none' });
    expect(decideOldForm(report([], { name: 'shop', uid: 'u1' }))).toEqual({ action: 'none' });
  });

  it('the old form naming the same test as spec.testRef: the reference goes, other references stay', () => {
    expect(decideOldForm(report([owner('shop', 'u1')], { name: 'shop', uid: 'u1' }))).toEqual({ action: 'migrate', keep: [] });
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'c1' };
    expect(decideOldForm(report([other, owner('shop', 'u1')], { name: 'shop', uid: 'u1' }))).toEqual({ action: 'migrate', keep: [other] });
  });

  it.each([
    ['a testRef without a uid', { name: 'shop', uid: '' }, /uid none/],
    ['a testRef naming another uid', { name: 'shop', uid: 'u2' }, /uid u2/],
    ['a testRef naming another test', { name: 'cart', uid: 'u1' }, /cart/],
  ])('keeps it with %s: the evidence would change', (_label, testRef, reason) => {
    const decision = decideOldForm(report([owner('shop', 'u1')], testRef));
    expect(decision.action).toBe('keep');
    expect(decision.action === 'keep' && decision.reason).toMatch(reason);
  });
});
