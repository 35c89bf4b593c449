// The Velero provider with a watch cache: progress comes from the cache when it holds the Restore
// (no GET), from the API when it does not (yet); creating a Restore starts following its namespace.
// The watch itself against a real apiserver and real Velero: test/integration/real-velero.test.ts.
import { describe, expect, it } from '@jest/globals';
import { VeleroProvider } from '../../../server/providers/velero/velero.provider.js';
import type { VeleroCustomObjectsApi } from '../../../server/providers/velero/velero-types.js';
import type { RestoreLookup } from '../../../server/providers/velero/restore-watch.js';
import type { VeleroRestore } from '../../../server/providers/velero/velero-types.js';
import { buildNamespaceMapping } from '../../../server/providers/provider.js';
import { NO_TRANSFORMS } from '../../helpers/transforms.js';

function fakes(cached: VeleroRestore | undefined) {
  const calls: string[] = [];
  const api = {
    getNamespacedCustomObject: async (request: { name: string }) => {
      calls.push(`get ${request.name}`);
      return { metadata: { name: request.name }, status: { phase: 'InProgress' } };
    },
    createNamespacedCustomObject: async () => {
      calls.push('create');
      return {};
    },
    listNamespacedCustomObject: async () => ({ items: [] }),
    deleteNamespacedCustomObject: async () => ({}),
  } as unknown as VeleroCustomObjectsApi;
  const restores: RestoreLookup = {
    cachedRestore: (namespace, name) => {
      calls.push(`cache ${namespace}/${name}`);
      return cached;
    },
    follow: (namespace) => calls.push(`follow ${namespace}`),
  };
  return { provider: new VeleroProvider(api, { restores }), calls };
}

describe('VeleroProvider with a restore watch', () => {
  it('reads progress from the cache without a GET when the cache holds the Restore', async () => {
    const { provider, calls } = fakes({ metadata: { name: 'r1' }, status: { phase: 'Completed', progress: { itemsRestored: 14, totalItems: 14 } } });
    expect(provider.watchesRestores).toBe(true);
    await expect(provider.getRestoreProgress({ namespace: 'velero', name: 'r1' })).resolves.toMatchObject({
      state: 'succeeded',
      itemsRestored: 14,
    });
    expect(calls).toEqual(['cache velero/r1']);
  });

  it('falls back to a GET for a Restore the cache does not hold yet', async () => {
    const { provider, calls } = fakes(undefined);
    await expect(provider.getRestoreProgress({ namespace: 'velero', name: 'r1' })).resolves.toMatchObject({
      state: 'running',
    });
    expect(calls).toEqual(['cache velero/r1', 'get r1']);
  });

  it('starts following the namespace when it creates a Restore', async () => {
    const { provider, calls } = fakes(undefined);
    await provider.startRestore(
      {
        name: 'r1',
        backup: { name: 'nightly', includedNamespaces: ['shop'] },
        mapping: buildNamespaceMapping(['shop'], () => 'rehearsal-shop-r1'),
        labels: {},
        transforms: NO_TRANSFORMS,
      },
      'velero',
    );
    expect(calls).toEqual(['follow velero', 'create']);
  });

  it('without a watch it polls by GET', () => {
    const api = {} as VeleroCustomObjectsApi;
    expect(new VeleroProvider(api).watchesRestores).toBe(false);
  });
});
