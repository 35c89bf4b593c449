// Several source namespaces with a tool that restores one namespace per object (Kasten, Trilio):
// one backup chosen per namespace and recorded together, one restore object per sandbox, their
// progress combined (the least advanced wins, counts add up only when all give them), all cleaned up.
import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import type { ProviderCustomObjectsApi } from '../../../server/providers/custom-resources.js';
import { KastenProvider } from '../../../server/providers/kasten/kasten.provider.js';
import { combineProgress } from '../../../server/providers/per-namespace-provider.js';
import { buildNamespaceMapping, type RestoreProgress } from '../../../server/providers/provider.js';
import { TrilioProvider } from '../../../server/providers/trilio/trilio.provider.js';
import { NO_TRANSFORMS } from '../../helpers/transforms.js';

type Stored = Record<string, Record<string, unknown>>; // "<plural>/<namespace>/<name>" → object

function fakeApi(stored: Stored): { api: ProviderCustomObjectsApi; calls: string[] } {
  const calls: string[] = [];
  const key = (param: Record<string, unknown>, name = param.name) => `${String(param.plural)}/${String(param.namespace)}/${String(name)}`;
  const api = {
    listNamespacedCustomObject: async (param: Record<string, unknown>) => ({
      items: Object.entries(stored)
        .filter(([entry]) => entry.startsWith(`${String(param.plural)}/${String(param.namespace)}/`))
        .map(([, object]) => object),
    }),
    getNamespacedCustomObject: async (param: Record<string, unknown>) => {
      const found = stored[key(param)];
      if (!found) throw new ApiException(404, 'HTTP 404', JSON.stringify({ kind: 'Status', reason: 'NotFound' }), {});
      return found;
    },
    createNamespacedCustomObject: async (param: Record<string, unknown>) => {
      const body = param.body as { metadata: { name: string } };
      calls.push(`create ${key(param, body.metadata.name)}`);
      stored[key(param, body.metadata.name)] = body;
      return body;
    },
    deleteNamespacedCustomObject: async (param: Record<string, unknown>) => {
      calls.push(`delete ${key(param)}`);
      delete stored[key(param)];
      return {};
    },
  } as unknown as ProviderCustomObjectsApi;
  return { api, calls };
}

const point = (namespace: string, name: string, actionTime: string) => ({
  [`restorepoints/${namespace}/${name}`]: { metadata: { name, namespace }, status: { actionTime } },
});

const mapping = buildNamespaceMapping(['shop', 'shop-db'], (source) => (source === 'shop' ? 'rt-x-run1' : 'rt-x-run1-1'));

describe('a Kasten test of two namespaces', () => {
  it('chooses the newest point in each, records both names in source order and the oldest completion', async () => {
    const { api } = fakeApi({
      ...point('shop', 'rp-a-old', '2026-11-24T01:00:00Z'),
      ...point('shop', 'rp-a-new', '2026-11-25T01:00:00Z'),
      ...point('shop-db', 'rp-b', '2026-11-25T00:30:00Z'),
    });
    expect(await new KastenProvider(api).selectBackup(['shop', 'shop-db'], 'latest')).toEqual({
      name: 'rp-a-new,rp-b',
      includedNamespaces: ['shop', 'shop-db'],
      completedAt: '2026-11-25T00:30:00Z',
    });
  });

  it('needs a named point in every namespace', async () => {
    const { api } = fakeApi({ ...point('shop', 'nightly', '2026-11-25T01:00:00Z') });
    await expect(new KastenProvider(api).selectBackup(['shop', 'shop-db'], 'nightly')).rejects.toThrow(
      /nightly not found in namespace shop-db/,
    );
  });

  it('creates one RestoreAction per sandbox, tracks them together and deletes both', async () => {
    const stored: Stored = {};
    const { api, calls } = fakeApi(stored);
    const provider = new KastenProvider(api);
    const ref = await provider.startRestore({
      name: 'rt-run1',
      backup: { name: 'rp-a-new,rp-b', includedNamespaces: ['shop', 'shop-db'] },
      mapping,
      labels: { 'rehearsal.dev/run': 'run1' },
      transforms: NO_TRANSFORMS,
    });
    expect(ref).toEqual({ namespace: 'rt-x-run1', name: 'rt-run1', namespaces: ['rt-x-run1', 'rt-x-run1-1'] });
    const second = stored['restoreactions/rt-x-run1-1/rt-run1'] as { spec: unknown };
    expect(second.spec).toEqual({ subject: { kind: 'RestorePoint', name: 'rp-b', namespace: 'shop-db' }, targetNamespace: 'rt-x-run1-1' });
    (stored['restoreactions/rt-x-run1/rt-run1'] as { status?: unknown }).status = { state: 'Complete', endTime: '2026-11-25T02:00:05Z' };
    (second as { status?: unknown }).status = { state: 'Running' };
    expect((await provider.getRestoreProgress(ref)).state).toBe('running');
    (second as { status?: unknown }).status = { state: 'Complete', endTime: '2026-11-25T02:00:09Z' };
    expect(await provider.getRestoreProgress(ref)).toMatchObject({ state: 'succeeded', phase: 'Complete', completedAt: '2026-11-25T02:00:09Z' });
    await provider.deleteRestore(ref);
    expect(calls.filter((call) => call.startsWith('delete'))).toEqual([
      'delete restoreactions/rt-x-run1/rt-run1',
      'delete restoreactions/rt-x-run1-1/rt-run1',
    ]);
  });

  it('refuses a backup record that does not name one backup per namespace', async () => {
    const { api } = fakeApi({});
    await expect(
      new KastenProvider(api).startRestore({ name: 'rt-run1', backup: { name: 'rp-a', includedNamespaces: ['shop', 'shop-db'] }, mapping, labels: {}, transforms: NO_TRANSFORMS }),
    ).rejects.toMatchObject({ reason: 'RestoreRejected' });
  });
});

describe('a Trilio test of two namespaces', () => {
  it('fails when one of its Restores failed, naming the namespace', async () => {
    const stored: Stored = {};
    const { api } = fakeApi(stored);
    const provider = new TrilioProvider(api);
    const ref = await provider.startRestore({ name: 'rt-run1', backup: { name: 'b1,b2', includedNamespaces: ['shop', 'shop-db'] }, mapping, labels: {}, transforms: NO_TRANSFORMS });
    (stored['restores/rt-x-run1/rt-run1'] as { status?: unknown }).status = { status: 'Completed' };
    (stored['restores/rt-x-run1-1/rt-run1'] as { status?: unknown }).status = {
      status: 'Failed',
      condition: [{ status: 'Failed', reason: 'target full' }],
    };
    expect(await provider.getRestoreProgress(ref)).toMatchObject({ state: 'failed', phase: 'Failed', errors: 1, message: 'rt-x-run1-1: target full' });
  });
});

describe('combineProgress', () => {
  const part = (namespace: string, progress: Partial<RestoreProgress>) => ({
    namespace,
    progress: { state: 'succeeded', phase: 'Completed', warnings: 0, errors: 0, ...progress } as RestoreProgress,
  });
  it('adds the counts when every part gives them, and gives none otherwise', () => {
    expect(combineProgress([part('a', { itemsRestored: 5, totalItems: 6, warnings: 1 }), part('b', { itemsRestored: 3, totalItems: 3 })])).toMatchObject({
      state: 'succeeded',
      itemsRestored: 8,
      totalItems: 9,
      warnings: 1,
    });
    expect(combineProgress([part('a', { itemsRestored: 5 }), part('b', {})]).itemsRestored).toBeUndefined();
  });
  it('lists the volumes of every part together, failed first, and none when no part has any', () => {
    const volume = (namespace: string, claim: string, phase: string) => ({
      namespace,
      claim,
      method: 'provider-data-mover' as const,
      phase,
      dataRestored: phase === 'Completed',
    });
    const combined = combineProgress([
      part('a', { volumes: [volume('rt-a', 'data-web-0', 'Completed')] }),
      part('b', { state: 'failed', volumes: [volume('rt-b', 'data-db-0', 'Failed')] }),
      part('c', {}),
    ]);
    expect(combined.volumes?.map((entry) => `${entry.namespace}/${entry.claim} ${entry.phase}`)).toEqual([
      'rt-b/data-db-0 Failed',
      'rt-a/data-web-0 Completed',
    ]);
    expect(combineProgress([part('a', {}), part('b', {})]).volumes).toBeUndefined();
  });
  it('is running while any part is, pending only while all are, partially failed when one is', () => {
    expect(combineProgress([part('a', { state: 'pending' }), part('b', { state: 'succeeded' })]).state).toBe('running');
    expect(combineProgress([part('a', { state: 'pending' }), part('b', { state: 'pending' })]).state).toBe('pending');
    expect(combineProgress([part('a', { state: 'partiallyFailed' }), part('b', {})]).state).toBe('partiallyFailed');
  });
});

describe('the candidates of a randomWithin draw (issue 32)', () => {
  it('lists every usable point of a one-namespace Kasten test, skipping those being deleted', async () => {
    const { api } = fakeApi({
      ...point('shop', 'rp-1', '2026-11-24T01:00:00Z'),
      ...point('shop', 'rp-2', '2026-11-25T01:00:00Z'),
      'restorepoints/shop/rp-gone': { metadata: { name: 'rp-gone', namespace: 'shop', deletionTimestamp: '2026-11-25T02:00:00Z' }, status: { actionTime: '2026-11-23T01:00:00Z' } },
    });
    const listed = await new KastenProvider(api).listRestorableBackups(['shop']);
    expect(listed.map((backup) => [backup.name, backup.completedAt]).sort()).toEqual([
      ['rp-1', '2026-11-24T01:00:00Z'],
      ['rp-2', '2026-11-25T01:00:00Z'],
    ]);
    expect(listed.every((backup) => backup.includedNamespaces.join() === 'shop')).toBe(true);
  });

  it('refuses a test of several namespaces (one backup per namespace: nothing to draw one from), saying why', async () => {
    const { api } = fakeApi({ ...point('shop', 'rp-1', '2026-11-24T01:00:00Z') });
    await expect(new KastenProvider(api).listRestorableBackups(['shop', 'shop-db'])).rejects.toThrow(
      /randomWithin needs exactly one source namespace \(this test has 2\)/,
    );
  });
});
