// The Kasten and Trilio providers against a fake CustomObjectsApi: backup selection (latest, named,
// unusable), where the restore object is created and what it targets, adoption of
// an existing one, and the tools' states as Rehearsal's. The same providers run against a real
// apiserver with the simulators in test/integration/provider-conformance.test.ts.
import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import type { ProviderCustomObjectsApi } from '../../../server/providers/custom-resources.js';
import {
  KastenProvider,
  kastenProgress,
  kastenStateOf,
} from '../../../server/providers/kasten/kasten.provider.js';
import {
  buildNamespaceMapping,
  ProviderError,
  type RestoreRequest,
} from '../../../server/providers/provider.js';
import {
  TrilioProvider,
  trilioProgress,
  trilioStateOf,
} from '../../../server/providers/trilio/trilio.provider.js';
import { DEFAULT_TRANSFORMS_ONLY, NO_TRANSFORMS } from '../../helpers/transforms.js';

type Call = { method: string; param: Record<string, unknown> };

function notFound(): ApiException<string> {
  return new ApiException(
    404,
    'HTTP 404',
    JSON.stringify({ kind: 'Status', reason: 'NotFound', message: 'nope' }),
    {},
  );
}

function fakeApi(answers: Record<string, unknown>): { api: ProviderCustomObjectsApi; calls: Call[] } {
  const calls: Call[] = [];
  const answer = (method: string) => async (param: Record<string, unknown>) => {
    calls.push({ method, param });
    const key = [method, param.plural, param.name].filter(Boolean).join(' ');
    const value = key in answers ? answers[key] : answers[`${method} ${String(param.plural)}`];
    if (value instanceof Error) throw value;
    return value;
  };
  const api = {
    listNamespacedCustomObject: answer('list'),
    getNamespacedCustomObject: answer('get'),
    createNamespacedCustomObject: answer('create'),
    deleteNamespacedCustomObject: answer('delete'),
  } as unknown as ProviderCustomObjectsApi;
  return { api, calls };
}

const point = (name: string, actionTime: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'shop', ...extra },
  status: { actionTime },
});

function request(backup: string): RestoreRequest {
  return {
    name: 'rt-run1',
    backup: { name: backup, includedNamespaces: ['shop'] },
    mapping: buildNamespaceMapping(['shop'], () => 'rehearsal-rt-run1'),
    labels: { 'rehearsal.dev/run': 'run1' },
    transforms: NO_TRANSFORMS,
  };
}

describe('Kasten provider', () => {
  it('picks the newest RestorePoint that is not being deleted for latest', async () => {
    const { api } = fakeApi({
      'list restorepoints': {
        items: [
          point('rp-old', '2026-11-24T01:00:00Z'),
          point('rp-new', '2026-11-25T01:00:00Z'),
          point('rp-gone', '2026-11-25T02:00:00Z', { deletionTimestamp: '2026-11-25T03:00:00Z' }),
        ],
      },
    });
    const info = await new KastenProvider(api).selectBackup(['shop'], 'latest');
    expect(info).toEqual({
      name: 'rp-new',
      includedNamespaces: ['shop'],
      completedAt: '2026-11-25T01:00:00Z',
    });
  });

  it('refuses a named RestorePoint that does not exist, and a namespace without any', async () => {
    const { api } = fakeApi({ 'get restorepoints nope': notFound(), 'list restorepoints': { items: [] } });
    const provider = new KastenProvider(api);
    await expect(provider.selectBackup(['a', 'b'], 'latest')).rejects.toThrow(/no usable Kasten restore point in namespace a/);
    await expect(provider.selectBackup(['shop'], 'nope')).rejects.toMatchObject({ reason: 'BackupNotFound' });
    await expect(provider.selectBackup(['shop'], 'latest')).rejects.toBeInstanceOf(ProviderError);
  });

  it('creates the RestoreAction in the sandbox, targeting the sandbox, from the source RestorePoint', async () => {
    const { api, calls } = fakeApi({ 'create restoreactions': {} });
    const ref = await new KastenProvider(api).startRestore(request('rp-new'));
    expect(ref).toEqual({ namespace: 'rehearsal-rt-run1', name: 'rt-run1' });
    const create = calls.find((call) => call.method === 'create')!;
    expect(create.param.namespace).toBe('rehearsal-rt-run1');
    expect((create.param.body as { spec: unknown }).spec).toEqual({
      subject: { kind: 'RestorePoint', name: 'rp-new', namespace: 'shop' },
      targetNamespace: 'rehearsal-rt-run1',
    });
  });

  it('adopts a RestoreAction of the same request whose transforms come back with their keys in another order', async () => {
    const withTransforms = { ...request('rp-new'), transforms: DEFAULT_TRANSFORMS_ONLY };
    const created = fakeApi({ 'create restoreactions': {} });
    await new KastenProvider(created.api).startRestore(withTransforms);
    const body = created.calls.find((call) => call.method === 'create')!.param.body as { metadata: unknown; spec: Record<string, unknown> };
    expect(body.spec.transforms).toBeDefined();
    // Every object's keys reversed, as an apiserver may store and return them.
    const reordered = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reordered)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, reordered(inner)]))
          : value;
    const exists = new ApiException(409, 'HTTP 409', JSON.stringify({ kind: 'Status', reason: 'AlreadyExists' }), {});
    const again = fakeApi({ 'create restoreactions': exists, 'get restoreactions rt-run1': { metadata: body.metadata, spec: reordered(body.spec) } });
    await expect(new KastenProvider(again.api).startRestore(withTransforms)).resolves.toEqual({ namespace: 'rehearsal-rt-run1', name: 'rt-run1' });
    // A different transform list is still refused.
    const other = fakeApi({ 'create restoreactions': exists, 'get restoreactions rt-run1': { metadata: body.metadata, spec: { ...body.spec, transforms: [] } } });
    await expect(new KastenProvider(other.api).startRestore(withTransforms)).rejects.toMatchObject({ reason: 'RestoreRejected' });
  });

  it('does not adopt an existing RestoreAction that asks for something else', async () => {
    const conflict = new ApiException(
      409,
      'HTTP 409',
      JSON.stringify({ kind: 'Status', reason: 'AlreadyExists' }),
      {},
    );
    const { api } = fakeApi({
      'create restoreactions': conflict,
      'get restoreactions rt-run1': {
        metadata: { name: 'rt-run1' },
        spec: { subject: { name: 'other', namespace: 'shop' }, targetNamespace: 'rehearsal-rt-run1' },
      },
    });
    await expect(new KastenProvider(api).startRestore(request('rp-new'))).rejects.toMatchObject({
      reason: 'RestoreRejected',
    });
  });

  it.each([
    [undefined, 'pending'],
    ['Pending', 'pending'],
    ['Running', 'running'],
    ['AttemptFailed', 'running'],
    ['Complete', 'succeeded'],
    ['Failed', 'failed'],
    ['Cancelled', 'failed'],
  ])('reads state %s as %s', (state, expected) => {
    expect(kastenStateOf(state)).toBe(expected);
  });

  it('carries Kasten’s error message on failure', () => {
    const progress = kastenProgress({
      metadata: { name: 'x' },
      status: { state: 'Failed', error: { message: 'no artifacts' }, endTime: '2026-11-25T01:00:00Z' },
    });
    expect(progress).toMatchObject({
      state: 'failed',
      phase: 'Failed',
      message: 'no artifacts',
      completedAt: '2026-11-25T01:00:00Z',
    });
  });
});

describe('Trilio provider', () => {
  it('uses only Available backups, the newest for latest', async () => {
    const backup = (name: string, status: string, at: string) => ({
      metadata: { name },
      status: { status, completionTimestamp: at },
    });
    const { api } = fakeApi({
      'list backups': {
        items: [
          backup('b1', 'Available', '2026-11-24T01:00:00Z'),
          backup('b2', 'Failed', '2026-11-25T01:00:00Z'),
          backup('b3', 'InProgress', ''),
        ],
      },
      'get backups b2': backup('b2', 'Failed', '2026-11-25T01:00:00Z'),
    });
    const provider = new TrilioProvider(api);
    expect((await provider.selectBackup(['shop'], '')).name).toBe('b1');
    await expect(provider.selectBackup(['shop'], 'b2')).rejects.toThrow(
      /is Failed; a restore needs an Available backup/,
    );
  });

  it('creates the Restore in the sandbox, which is where TVK restores it, with skipIfAlreadyExists under restoreFlags', async () => {
    const { api, calls } = fakeApi({ 'create restores': {} });
    await new TrilioProvider(api).startRestore(request('b1'));
    const create = calls.find((call) => call.method === 'create')!;
    expect(create.param.namespace).toBe('rehearsal-rt-run1');
    const body = create.param.body as { metadata: { namespace: string }; spec: unknown };
    expect(body.metadata.namespace).toBe('rehearsal-rt-run1');
    // The vendor CRD has no spec.restoreNamespace, and its flags live under spec.restoreFlags.
    expect(body.spec).toEqual({
      source: { type: 'Backup', backup: { name: 'b1', namespace: 'shop' } },
      restoreFlags: { skipIfAlreadyExists: true },
    });
  });

  it('adopts a Restore of the same request as the apiserver gives it back, and not another one', async () => {
    const stored = (backup: string) => ({
      apiVersion: 'triliovault.trilio.io/v1',
      kind: 'Restore',
      metadata: { name: 'rt-run1', namespace: 'rehearsal-rt-run1', uid: 'u1', labels: { 'rehearsal.dev/run': 'run1' } },
      spec: { restoreFlags: { skipIfAlreadyExists: true }, source: { backup: { namespace: 'shop', name: backup }, type: 'Backup' } },
      status: { status: 'InProgress' },
    });
    const exists = new ApiException(409, 'HTTP 409', JSON.stringify({ kind: 'Status', reason: 'AlreadyExists' }), {});
    const same = fakeApi({ 'create restores': exists, 'get restores rt-run1': stored('b1') });
    await expect(new TrilioProvider(same.api).startRestore(request('b1'))).resolves.toEqual({ namespace: 'rehearsal-rt-run1', name: 'rt-run1' });
    const other = fakeApi({ 'create restores': exists, 'get restores rt-run1': stored('b0') });
    await expect(new TrilioProvider(other.api).startRestore(request('b1'))).rejects.toThrow(/will not adopt/);
  });

  it.each([
    [undefined, 'pending'],
    ['Pending', 'pending'],
    ['InProgress', 'running'],
    ['Completed', 'succeeded'],
    ['Failed', 'failed'],
    ['Error', 'failed'],
  ])('reads status %s as %s', (status, expected) => {
    expect(trilioStateOf(status)).toBe(expected);
  });

  it('takes the reason of the failed condition', () => {
    const progress = trilioProgress({
      metadata: { name: 'x' },
      status: {
        status: 'Failed',
        condition: [{ status: 'InProgress' }, { status: 'Failed', reason: 'target unreachable' }],
      },
    });
    expect(progress).toMatchObject({ state: 'failed', message: 'target unreachable', errors: 1 });
  });

  it('counts items from status.restoreApplication: snapshot less excluded, less failed and skipped', () => {
    const resource = (kind: string, ...objects: string[]) => ({ groupVersionKind: { group: '', version: 'v1', kind }, objects });
    const restore = {
      metadata: { name: 'x' },
      status: {
        status: 'Completed' as const,
        restoreApplication: {
          custom: {
            snapshot: { resources: [resource('ConfigMap', 'a', 'b'), resource('Secret', 's'), resource('Event', 'e1', 'e2')] },
            status: { excludedResources: [resource('Event', 'e1', 'e2')], skippedResources: [resource('Secret', 's')] },
          },
          helmCharts: [{ snapshot: { resources: [resource('Service', 'web')] }, status: {} }],
        },
      },
    };
    expect(trilioProgress(restore)).toMatchObject({ state: 'succeeded', itemsRestored: 3, totalItems: 4, warnings: 1, errors: 0 });
    const failed = structuredClone(restore);
    failed.status.restoreApplication.custom.status = { ...failed.status.restoreApplication.custom.status, failedResources: [resource('ConfigMap', 'a')] } as never;
    expect(trilioProgress(failed)).toMatchObject({ state: 'partiallyFailed', itemsRestored: 2, totalItems: 4, errors: 1 });
    // No restoreApplication: no counts (completeness is then not tested).
    expect(trilioProgress({ metadata: { name: 'x' }, status: { status: 'Completed' } }).totalItems).toBeUndefined();
  });
});
