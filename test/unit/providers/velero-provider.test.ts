// The provider's error mapping and idempotency against a fake CustomObjectsApi that fails the way
// @kubernetes/client-node does (ApiException with the HTTP status code; a plain Error when no
// HTTP answer came). The same paths run against a real apiserver in
// test/integration/velero-provider.test.ts.
import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { KubeError } from '../../../server/kube/errors.js';
import {
  buildNamespaceMapping,
  ProviderError,
  type RestoreRequest,
} from '../../../server/providers/provider.js';
import { VeleroProvider } from '../../../server/providers/velero/velero.provider.js';
import type { VeleroCustomObjectsApi } from '../../../server/providers/velero/velero-types.js';
import { NO_TRANSFORMS } from '../../helpers/transforms.js';

type Call = { method: string; param: Record<string, unknown> };

function apiError(code: number, reason = ''): ApiException<string> {
  return new ApiException(
    code,
    `HTTP ${code}`,
    JSON.stringify({ kind: 'Status', reason, message: `status ${code}` }),
    {},
  );
}

/** Answers from a table keyed by "method plural [name]"; records every call. */
function fakeApi(answers: Record<string, unknown | (() => unknown)>): {
  api: VeleroCustomObjectsApi;
  calls: Call[];
} {
  const calls: Call[] = [];
  const answer = (method: string) => async (param: Record<string, unknown>) => {
    calls.push({ method, param });
    const key = [method, param.plural, param.name].filter(Boolean).join(' ');
    const value = key in answers ? answers[key] : answers[`${method} ${String(param.plural)}`];
    const resolved = typeof value === 'function' ? (value as () => unknown)() : value;
    if (resolved instanceof Error) throw resolved;
    return resolved;
  };
  const api = {
    listNamespacedCustomObject: answer('list'),
    getNamespacedCustomObject: answer('get'),
    createNamespacedCustomObject: answer('create'),
    deleteNamespacedCustomObject: answer('delete'),
  } as unknown as VeleroCustomObjectsApi;
  return { api, calls };
}

const request: RestoreRequest = {
  name: 'rt-1',
  backup: { name: 'b1', includedNamespaces: ['shop'] },
  mapping: buildNamespaceMapping(['shop'], () => 'rehearsal-shop-x1'),
  labels: {},
  transforms: NO_TRANSFORMS,
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('VeleroProvider against a fake API', () => {
  it('reports an absent Velero API (404 on the collection) as ProviderUnavailable', async () => {
    const { api } = fakeApi({ 'list backups': apiError(404), 'list schedules': apiError(404) });
    const provider = new VeleroProvider(api);
    const error = await rejection(provider.selectBackup(['shop'], 'latest'));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('ProviderUnavailable');
    expect((await rejection(provider.listSchedules())) as ProviderError).toMatchObject({
      reason: 'ProviderUnavailable',
    });
  });

  it('reports no HTTP answer and 503 as ProviderUnavailable', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    for (const failure of [refused, apiError(503)]) {
      const { api } = fakeApi({ 'list schedules': failure });
      expect(await rejection(new VeleroProvider(api).listSchedules())).toMatchObject({
        reason: 'ProviderUnavailable',
      });
    }
  });

  it('tells a missing named backup from an absent API by probing the collection', async () => {
    const present = fakeApi({ 'get backups b9': apiError(404), 'list backups': { items: [] } });
    expect(await rejection(new VeleroProvider(present.api).selectBackup(['shop'], 'b9'))).toMatchObject({
      reason: 'BackupNotFound',
      message: 'Velero backup b9 not found in namespace velero',
    });
    expect(present.calls.map((call) => call.method)).toEqual(['get', 'list']);

    const absent = fakeApi({ 'get backups b9': apiError(404), 'list backups': apiError(404) });
    expect(await rejection(new VeleroProvider(absent.api).selectBackup(['shop'], 'b9'))).toMatchObject({
      reason: 'ProviderUnavailable',
    });
  });

  it('leaves Forbidden as a KubeError for the error handler', async () => {
    const { api } = fakeApi({ 'list schedules': apiError(403) });
    const error = await rejection(new VeleroProvider(api).listSchedules());
    expect(error).toBeInstanceOf(KubeError);
    expect((error as KubeError).kind).toBe('Forbidden');
  });

  it('follows list pages', async () => {
    let page = 0;
    const { api, calls } = fakeApi({
      'list schedules': () =>
        page++ === 0
          ? {
              items: [{ metadata: { name: 'b' }, spec: { schedule: '@daily' } }],
              metadata: { continue: 'next' },
            }
          : { items: [{ metadata: { name: 'a' }, spec: { schedule: '@hourly' } }], metadata: {} },
    });
    const schedules = await new VeleroProvider(api, {
      namespace: 'backup-system',
      pageSize: 1,
    }).listSchedules();
    expect(schedules.map((schedule) => schedule.name)).toEqual(['a', 'b']);
    expect(calls.map((call) => [call.param.namespace, call.param._continue])).toEqual([
      ['backup-system', undefined],
      ['backup-system', 'next'],
    ]);
  });

  it('creates the Restore in the provider namespace and adopts an identical existing one', async () => {
    const { api, calls } = fakeApi({ 'create restores': {} });
    const provider = new VeleroProvider(api);
    expect(await provider.startRestore(request, 'velero-2')).toEqual({ namespace: 'velero-2', name: 'rt-1' });
    const body = calls[0]?.param.body as { spec: Record<string, unknown> };
    expect(calls[0]?.param.namespace).toBe('velero-2');
    expect(body.spec).toMatchObject({
      namespaceMapping: { shop: 'rehearsal-shop-x1' },
      includeClusterResources: false,
    });

    const again = fakeApi({ 'create restores': apiError(409, 'AlreadyExists'), 'get restores rt-1': body });
    expect(await new VeleroProvider(again.api).startRestore(request)).toEqual({
      namespace: 'velero',
      name: 'rt-1',
    });
  });

  it('refuses to adopt an existing Restore with another mapping', async () => {
    const foreign = {
      metadata: { name: 'rt-1' },
      spec: { backupName: 'b1', includedNamespaces: ['shop'], namespaceMapping: {} },
    };
    const { api } = fakeApi({
      'create restores': apiError(409, 'AlreadyExists'),
      'get restores rt-1': foreign,
    });
    expect(await rejection(new VeleroProvider(api).startRestore(request))).toMatchObject({
      reason: 'RestoreRejected',
    });
  });

  it('maps 422 on create to RestoreRejected and a missing Restore to RestoreNotFound', async () => {
    const { api } = fakeApi({
      'create restores': apiError(422, 'Invalid'),
      'get restores gone': apiError(404),
      'list restores': { items: [] },
    });
    const provider = new VeleroProvider(api);
    expect(await rejection(provider.startRestore(request))).toMatchObject({ reason: 'RestoreRejected' });
    expect(await rejection(provider.getRestoreProgress({ namespace: 'velero', name: 'gone' }))).toMatchObject(
      {
        reason: 'RestoreNotFound',
      },
    );
  });

  it('an ended restore carries its volumes (PodVolumeRestores and DataDownloads by restore name), failed first; a running one reads none', async () => {
    const restore = (phase: string) => ({ metadata: { name: 'rt-1', namespace: 'velero' }, status: { phase, errors: 1 } });
    const { api, calls } = fakeApi({
      'get restores rt-1': restore('PartiallyFailed'),
      'list podvolumerestores': {
        items: [
          {
            spec: { pod: { namespace: 'rehearsal-shop-x1', name: 'web-0' }, volume: 'cache' },
            status: { phase: 'Completed', progress: { bytesDone: 2048, totalBytes: 2048 }, startTimestamp: '2026-11-28T10:00:00Z', completionTimestamp: '2026-11-28T10:00:07Z' },
          },
          { spec: { pod: { namespace: 'rehearsal-shop-x1', name: 'db-0' }, volume: 'data' }, status: { phase: 'Failed', message: 'repository not found' } },
        ],
      },
      // No CSI data mover in this cluster (an older Velero): no DataDownloads, not an error.
      'list datadownloads': apiError(404, 'NotFound'),
    });
    const progress = await new VeleroProvider(api).getRestoreProgress({ namespace: 'velero', name: 'rt-1' });
    expect(progress.volumes).toEqual([
      { namespace: 'rehearsal-shop-x1', pod: 'db-0', volume: 'data', method: 'file-system', phase: 'Failed', dataRestored: false, message: 'repository not found' },
      { namespace: 'rehearsal-shop-x1', pod: 'web-0', volume: 'cache', method: 'file-system', phase: 'Completed', dataRestored: true, bytes: 2048, durationSeconds: 7 },
    ]);
    expect(calls.filter((call) => call.method === 'list').map((call) => [call.param.plural, call.param.version, call.param.labelSelector])).toEqual([
      ['podvolumerestores', 'v1', 'velero.io/restore-name=rt-1'],
      ['datadownloads', 'v2alpha1', 'velero.io/restore-name=rt-1'],
    ]);

    const running = fakeApi({ 'get restores rt-1': restore('InProgress') });
    expect((await new VeleroProvider(running.api).getRestoreProgress({ namespace: 'velero', name: 'rt-1' })).volumes).toBeUndefined();
    expect(running.calls.filter((call) => call.method === 'list')).toEqual([]);
  });

  it('deletes idempotently', async () => {
    const { api, calls } = fakeApi({ 'delete restores': apiError(404) });
    await new VeleroProvider(api).deleteRestore({ namespace: 'velero', name: 'rt-1' });
    expect(calls[0]?.param).toMatchObject({ name: 'rt-1', propagationPolicy: 'Background' });
  });
});
