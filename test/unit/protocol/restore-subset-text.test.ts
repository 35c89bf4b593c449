// The one wording of a restored subset (issue 32) the per-test PDF and the dashboard's test page
// share (protocol/restore-subset-text.ts).
import { describe, expect, it } from '@jest/globals';
import { restoredSubsetText, selectorString } from '../../../protocol/restore-subset-text.js';

const deployment = { group: 'apps', kind: 'Deployment' };
const service = { group: '', kind: 'Service' };

describe('restoredSubsetText', () => {
  it.each([
    ['selector and kinds', { matchLabels: { app: 'orders' } }, [deployment, service], 'app=orders; kinds: Deployment, Service'],
    ['kinds only, in the order listed', undefined, [service, deployment], 'kinds: Service, Deployment'],
    ['selector only', { matchLabels: { b: '2', a: '1' } }, undefined, 'a=1,b=2'],
    ['a kind two groups share, qualified', null, [{ group: 'networking.k8s.io', kind: 'Ingress' }, { kind: 'Ingress' }], 'kinds: Ingress (networking.k8s.io), Ingress (core)'],
    ['no subset', undefined, undefined, undefined],
    ['an empty selector and no kinds: everything', { matchLabels: {}, matchExpressions: [] }, [], undefined],
  ])('%s', (_case, selector, kinds, expected) => {
    expect(restoredSubsetText(selector, kinds)).toBe(expected);
  });
});

describe('selectorString', () => {
  it('writes kubectl syntax for every operator', () => {
    expect(
      selectorString({
        matchLabels: { app: 'a' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'back'] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('app=a,tier in (front,back),env notin (dev),owner,!legacy');
  });
});
