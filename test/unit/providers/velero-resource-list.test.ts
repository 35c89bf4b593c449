import { describe, expect, it } from '@jest/globals';
import { backedUpKinds, parseResourceList, ResourceListError } from '../../../server/providers/velero/backup-resource-list.js';

// The shape Velero v1.18 writes (<backup>-resource-list.json.gz), as read from a real backup of the
// shop app by test/integration/real-velero.test.ts.
const shopList = {
  'apps/v1/Deployment': ['shop/db', 'shop/web'],
  'apps/v1/ReplicaSet': ['shop/db-5d8f', 'shop/web-7c9b'],
  'discovery.k8s.io/v1/EndpointSlice': ['shop/web-x7k2p'],
  'events.k8s.io/v1/Event': ['shop/web.1'],
  'v1/ConfigMap': ['other/unrelated', 'shop/kube-root-ca.crt', 'shop/shop-config'],
  'v1/Event': ['shop/web.1', 'shop/db.2'],
  'v1/Namespace': ['shop'],
  'v1/Secret': ['shop/db-credentials'],
};

describe('backedUpKinds', () => {
  it('lists the namespaced objects of the source namespaces per kind, without what Velero never restores', () => {
    expect(backedUpKinds(shopList, ['shop'])).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', sourceNamespace: 'shop', names: ['kube-root-ca.crt', 'shop-config'] },
      { apiVersion: 'apps/v1', kind: 'Deployment', sourceNamespace: 'shop', names: ['db', 'web'] },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', sourceNamespace: 'shop', names: ['web-x7k2p'] },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', sourceNamespace: 'shop', names: ['db-5d8f', 'web-7c9b'] },
      { apiVersion: 'v1', kind: 'Secret', sourceNamespace: 'shop', names: ['db-credentials'] },
    ]);
  });

  it('keeps each source namespace apart', () => {
    const kinds = backedUpKinds({ 'v1/ConfigMap': ['a/x', 'b/y', 'b/z'] }, ['a', 'b']);
    expect(kinds.map((entry) => [entry.sourceNamespace, entry.names])).toEqual([
      ['a', ['x']],
      ['b', ['y', 'z']],
    ]);
  });

  it('refuses what is not Velero’s shape', () => {
    expect(() => backedUpKinds([], ['shop'])).toThrow(ResourceListError);
    expect(() => backedUpKinds({ Secret: ['shop/a'] }, ['shop'])).toThrow(ResourceListError);
    expect(() => backedUpKinds({ 'v1/Secret': 'shop/a' }, ['shop'])).toThrow(ResourceListError);
    expect(() => backedUpKinds({ 'v1/Secret': [1] }, ['shop'])).toThrow(ResourceListError);
  });
});

describe('parseResourceList (fuzz: what a writer of Velero\'s bucket could put in the file)', () => {
  it('reads Velero\'s file', () => {
    expect(parseResourceList(JSON.stringify(shopList), ['shop'])).toEqual(backedUpKinds(shopList, ['shop']));
  });

  it.each([
    ['deep nesting', `{"v1/Secret":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ['a nested object where names belong', '{"v1/Secret":[{"a":["b"]}]}'],
    ['truncated JSON', JSON.stringify(shopList).slice(0, 40)],
    ['not JSON', 'PK\u0003\u0004 zip'],
    ['a JSON array', '[]'],
    ['more text than the inflated bound', `{"v1/Secret":["${'x'.repeat(32 * 1024 * 1024)}"]}`],
  ])('refuses %s with ResourceListError', (_case, text) => {
    expect(() => parseResourceList(text, ['shop'])).toThrow(ResourceListError);
  });
});
