// observeKinds with the tool's volume data restores (issue 27): a claim whose data did not come
// back is not counted, whether the tool names the claim (CSI data mover) or a restored Pod's
// volume (file-system restore, placed through the Pod's spec); the Pods are read only in the
// sandboxes that need it.
import { describe, expect, it } from '@jest/globals';
import type { PodSummary } from '../../../server/checks/sandbox-reader.js';
import type { CurrentRun, VolumeRestoreReport } from '../../../server/domain/resources/resources.js';
import { resolveTransforms } from '../../../server/domain/run/restore-transforms.js';
import { observeKinds } from '../../../server/engine/run/kind-completeness.js';
import type { BackedUpKind, BackupProvider } from '../../../server/providers/provider.js';
import { makeTest } from '../domain/fixtures.js';

const test = makeTest({ name: 'shop', sources: ['shop', 'shop-db'] });
const run: CurrentRun = {
  id: 'a1b2c',
  trigger: 'schedule',
  scheduledAt: '2026-03-31T02:00:00Z',
  queuedAt: '2026-03-31T02:00:00Z',
  stage: 'Finalizing',
  backup: { name: 'nightly' },
  sandboxNamespaces: [
    { source: 'shop', sandbox: 'sb-shop' },
    { source: 'shop-db', sandbox: 'sb-db' },
  ],
};
const backedUp: BackedUpKind[] = [
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', sourceNamespace: 'shop', names: ['uploads'] },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', sourceNamespace: 'shop-db', names: ['data-db-0', 'data-db-1'] },
  { apiVersion: 'v1', kind: 'ConfigMap', sourceNamespace: 'shop-db', names: ['db-config'] },
];
const provider = { backedUpObjects: async () => backedUp } as unknown as BackupProvider;

/** Every backed-up object is back in its sandbox; the db Pods mount their claims as "data". */
function reader() {
  const podLists: string[] = [];
  const pods: Record<string, PodSummary[]> = {
    'sb-db': ['db-0', 'db-1'].map((name) => ({
      name,
      phase: 'Running',
      ready: true,
      terminating: false,
      containers: ['postgres'],
      claims: { data: `data-${name}` },
    })),
    'sb-shop': [{ name: 'web-1', phase: 'Running', ready: true, terminating: false, containers: ['web'], claims: { files: 'uploads' } }],
  };
  const present: Record<string, string[]> = {
    'sb-shop PersistentVolumeClaim': ['uploads'],
    'sb-db PersistentVolumeClaim': ['data-db-0', 'data-db-1'],
    'sb-db ConfigMap': ['db-config'],
  };
  return {
    podLists,
    listNames: async (_apiVersion: string, kind: string, namespace: string) => present[`${namespace} ${kind}`] ?? [],
    listAnnotated: async () => [],
    listPods: async (namespace: string) => {
      podLists.push(namespace);
      return pods[namespace] ?? [];
    },
  };
}

const volume = (fields: Partial<VolumeRestoreReport> & Pick<VolumeRestoreReport, 'namespace' | 'phase'>): VolumeRestoreReport => ({
  method: fields.claim ? 'csi-data-mover' : 'file-system',
  dataRestored: fields.phase === 'Completed',
  ...fields,
});

async function claimsCounted(volumes: VolumeRestoreReport[] | undefined) {
  const sandbox = reader();
  const observed = await observeKinds(provider, sandbox, test, run, resolveTransforms(undefined), volumes);
  const kinds = observed.kinds && 'completeness' in observed.kinds ? observed.kinds.completeness : [];
  return { kinds, podLists: sandbox.podLists };
}

describe('observeKinds and volume data', () => {
  it('counts every claim as before without volume reports, and reads no Pods', async () => {
    expect(await claimsCounted(undefined)).toEqual({
      kinds: [
        { kind: 'ConfigMap', backedUp: 1, restored: 1 },
        { kind: 'PersistentVolumeClaim', backedUp: 3, restored: 3 },
      ],
      podLists: [],
    });
  });

  it('does not count a claim whose file-system restore failed, placed through the Pod that mounts it', async () => {
    const { kinds, podLists } = await claimsCounted([
      volume({ namespace: 'sb-db', pod: 'db-1', volume: 'data', phase: 'Failed' }),
      volume({ namespace: 'sb-db', pod: 'db-0', volume: 'data', phase: 'Completed' }),
      volume({ namespace: 'sb-shop', pod: 'web-1', volume: 'files', phase: 'Completed' }),
    ]);
    expect(kinds).toEqual([
      { kind: 'ConfigMap', backedUp: 1, restored: 1 },
      { kind: 'PersistentVolumeClaim', backedUp: 3, restored: 2 },
    ]);
    expect(podLists).toEqual(['sb-db']);
  });

  it('does not count a claim the data mover names without its data, and reads no Pods for it', async () => {
    const { kinds, podLists } = await claimsCounted([volume({ namespace: 'sb-shop', claim: 'uploads', phase: 'InProgress' })]);
    expect(kinds).toContainEqual({ kind: 'PersistentVolumeClaim', backedUp: 3, restored: 2 });
    expect(podLists).toEqual([]);
  });
});
