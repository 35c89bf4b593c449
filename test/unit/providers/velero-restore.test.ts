import { describe, expect, it } from '@jest/globals';
import {
  buildNamespaceMapping,
  UnsafeMappingError,
  type NamespaceMapping,
  type RestoreRequest,
} from '../../../server/providers/provider.js';
import {
  buildResourceModifierConfigMap,
  buildRestoreObject,
  restoreMatchesRequest,
  restoreStateOf,
  toRestoreProgress,
  toScheduleInfo,
} from '../../../server/providers/velero/velero-restore.js';
import { DEFAULT_TRANSFORMS_ONLY, NO_TRANSFORMS } from '../../helpers/transforms.js';

function request(mapping: NamespaceMapping): RestoreRequest {
  return {
    name: 'rt-shop-20260310',
    backup: { name: 'nightly-2', includedNamespaces: ['shop', 'billing'] },
    mapping,
    labels: { 'rehearsal.dev/test': 'shop' },
    transforms: NO_TRANSFORMS,
  };
}

const mapping = buildNamespaceMapping(['shop', 'billing'], (source) => `rehearsal-${source}-abc12`);

describe('buildRestoreObject', () => {
  it('maps every source to its sandbox and writes nothing cluster-scoped', () => {
    expect(buildRestoreObject(request(mapping), 'velero')).toEqual({
      apiVersion: 'velero.io/v1',
      kind: 'Restore',
      metadata: { name: 'rt-shop-20260310', namespace: 'velero', labels: { 'rehearsal.dev/test': 'shop' } },
      spec: {
        backupName: 'nightly-2',
        includedNamespaces: ['shop', 'billing'],
        namespaceMapping: { shop: 'rehearsal-shop-abc12', billing: 'rehearsal-billing-abc12' },
        includeClusterResources: false,
        restorePVs: true,
      },
    });
  });

  it.each<[string, NamespaceMapping]>([
    [
      'a forged mapping without the brand',
      { entries: [{ source: 'shop', sandbox: 'sandbox' }] } as unknown as NamespaceMapping,
    ],
    ['an empty mapping', { __brand: 'NamespaceMapping', entries: [] }],
    ['a source onto itself', { __brand: 'NamespaceMapping', entries: [{ source: 'shop', sandbox: 'shop' }] }],
    [
      'a sandbox that is another source',
      {
        __brand: 'NamespaceMapping',
        entries: [
          { source: 'shop', sandbox: 'billing' },
          { source: 'billing', sandbox: 'sandbox' },
        ],
      },
    ],
    ['a source without sandbox', { __brand: 'NamespaceMapping', entries: [{ source: 'shop', sandbox: '' }] }],
    [
      'a source mapped twice',
      {
        __brand: 'NamespaceMapping',
        entries: [
          { source: 'shop', sandbox: 'a' },
          { source: 'shop', sandbox: 'b' },
        ],
      },
    ],
  ])('refuses %s', (_label, forged) => {
    expect(() => buildRestoreObject(request(forged), 'velero')).toThrow(UnsafeMappingError);
  });
});

describe('the restore transforms on the Restore (issue 28)', () => {
  const withDefaults: RestoreRequest = { ...request(mapping), transforms: DEFAULT_TRANSFORMS_ONLY, owner: { name: 'rehearsal-shop-abc12', uid: 'u-1' } };

  it('excludes the defaults\' types and names the run\'s resource-modifier ConfigMap, beside the same safety fields', () => {
    const restore = buildRestoreObject(withDefaults, 'velero');
    expect(restore.spec).toMatchObject({
      includedNamespaces: ['shop', 'billing'],
      includeClusterResources: false,
      resourceModifier: { kind: 'ConfigMap', name: 'rt-shop-20260310-transforms' },
    });
    expect(restore.spec?.excludedResources).toEqual(
      expect.arrayContaining(['jobs.batch', 'ingresses.networking.k8s.io', 'networkpolicies.networking.k8s.io', 'certificates.cert-manager.io']),
    );
  });

  it('builds the ConfigMap in Velero\'s namespace, labelled with the run and owned by the first sandbox', () => {
    const configMap = buildResourceModifierConfigMap(withDefaults, 'velero');
    expect(configMap?.metadata).toEqual({
      name: 'rt-shop-20260310-transforms',
      namespace: 'velero',
      labels: { 'rehearsal.dev/test': 'shop' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'rehearsal-shop-abc12', uid: 'u-1' }],
    });
    expect(Object.keys(configMap?.data ?? {})).toEqual(['resource-modifiers.yaml']);
    expect(buildResourceModifierConfigMap(request(mapping), 'velero')).toBeUndefined(); // nothing to modify
  });
});

describe('restoreMatchesRequest', () => {
  const wanted = buildRestoreObject({ ...request(mapping), transforms: DEFAULT_TRANSFORMS_ONLY }, 'velero');
  it('accepts the excludedResources Velero adds when it validates the Restore (events, nodes, ...)', () => {
    const existing = structuredClone(wanted);
    existing.spec!.excludedResources = [...existing.spec!.excludedResources!, 'nodes', 'events', 'events.events.k8s.io'];
    expect(restoreMatchesRequest(existing, wanted)).toBe(true);
  });
  it('accepts the same restore (order of namespaces aside)', () => {
    const existing = structuredClone(wanted);
    existing.spec!.includedNamespaces = ['billing', 'shop'];
    expect(restoreMatchesRequest(existing, wanted)).toBe(true);
  });
  it.each([
    ['another backup', { backupName: 'other' }],
    ['another mapping', { namespaceMapping: { shop: 'shop', billing: 'rehearsal-billing-abc12' } }],
    ['fewer namespaces', { includedNamespaces: ['shop'] }],
    ['cluster resources', { includeClusterResources: true }],
    ['cluster resources unset', { includeClusterResources: undefined }],
    ['other excluded resources', { excludedResources: ['secrets'] }],
    ['fewer excluded resources', { excludedResources: ['jobs.batch'] }],
    ['another resource modifier', { resourceModifier: { kind: 'ConfigMap', name: 'someone-elses' } }],
  ])('refuses %s', (_label, change) => {
    const existing = structuredClone(wanted);
    existing.spec = { ...existing.spec, ...change };
    expect(restoreMatchesRequest(existing, wanted)).toBe(false);
  });
});

describe('restoreStateOf', () => {
  it.each([
    [undefined, 'pending'],
    ['', 'pending'],
    ['New', 'pending'],
    ['InProgress', 'running'],
    ['WaitingForPluginOperations', 'running'],
    ['WaitingForPluginOperationsPartiallyFailed', 'running'],
    ['Finalizing', 'running'],
    ['FinalizingPartiallyFailed', 'running'],
    ['Completed', 'succeeded'],
    ['PartiallyFailed', 'partiallyFailed'],
    ['Failed', 'failed'],
    ['FailedValidation', 'failed'],
    ['SomethingNewInVelero2', 'running'],
  ])('%p → %p', (phase, state) => {
    expect(restoreStateOf(phase)).toBe(state);
  });
});

describe('toRestoreProgress', () => {
  it.each([
    ['no status yet', undefined, { state: 'pending', phase: 'New', warnings: 0, errors: 0 }],
    [
      'running with progress',
      { phase: 'InProgress', progress: { totalItems: 10, itemsRestored: 4 } },
      { state: 'running', phase: 'InProgress', warnings: 0, errors: 0, totalItems: 10, itemsRestored: 4 },
    ],
    [
      'completed with warnings',
      {
        phase: 'Completed',
        warnings: 2,
        progress: { totalItems: 10, itemsRestored: 10 },
        completionTimestamp: '2026-03-10T02:03:04Z',
      },
      {
        state: 'succeeded',
        phase: 'Completed',
        warnings: 2,
        errors: 0,
        totalItems: 10,
        itemsRestored: 10,
        completedAt: '2026-03-10T02:03:04Z',
      },
    ],
    [
      'partially failed',
      { phase: 'PartiallyFailed', errors: 3, warnings: 1, progress: { totalItems: 10, itemsRestored: 7 } },
      {
        state: 'partiallyFailed',
        phase: 'PartiallyFailed',
        warnings: 1,
        errors: 3,
        totalItems: 10,
        itemsRestored: 7,
        message: 'restore finished with 3 error(s) and 1 warning(s)',
      },
    ],
    [
      'failed with a reason',
      { phase: 'Failed', failureReason: 'error getting backup: not found' },
      {
        state: 'failed',
        phase: 'Failed',
        warnings: 0,
        errors: 0,
        message: 'error getting backup: not found',
      },
    ],
    [
      'failed validation',
      { phase: 'FailedValidation', validationErrors: ['backupName is required', 'bad mapping'] },
      {
        state: 'failed',
        phase: 'FailedValidation',
        warnings: 0,
        errors: 0,
        message: 'validation failed: backupName is required; bad mapping',
      },
    ],
    [
      'failed without a reason',
      { phase: 'Failed' },
      {
        state: 'failed',
        phase: 'Failed',
        warnings: 0,
        errors: 0,
        message: 'restore Failed without a reason from Velero',
      },
    ],
    [
      'nonsense counts are cleaned',
      { phase: 'Completed', warnings: -1, errors: Number.NaN },
      { state: 'succeeded', phase: 'Completed', warnings: 0, errors: 0 },
    ],
  ] as const)('%s', (_label, status, expected) => {
    expect(toRestoreProgress({ status: status as never })).toEqual(expected);
  });
});

describe('toScheduleInfo', () => {
  it('reads cron, namespaces and the last backup', () => {
    expect(
      toScheduleInfo({
        metadata: { name: 'nightly' },
        spec: { schedule: '0 2 * * *', template: { includedNamespaces: ['shop', 'billing'] } },
        status: { lastBackup: '2026-03-10T02:00:00Z' },
      }),
    ).toEqual({
      name: 'nightly',
      cron: '0 2 * * *',
      namespaces: ['shop', 'billing'],
      lastBackup: '2026-03-10T02:00:00Z',
    });
  });
  it('fills absent fields with empty values', () => {
    expect(toScheduleInfo({ metadata: { name: 'new' } })).toEqual({
      name: 'new',
      cron: '',
      namespaces: [],
      lastBackup: '',
    });
  });
});
