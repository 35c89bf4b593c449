// The Velero simulator's Pod volume data (annotation simulator.rehearsal.dev/pod-volumes on the
// backup), without a cluster: the PodVolumeRestores a restore makes are what Velero's CRD requires
// and what the Velero provider maps into the report's volume rows
// (server/providers/velero/volume-restores.ts). On a real apiserver, with the report's rows in the
// dashboard, it runs in test/integration/dashboard.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { fromPodVolumeRestore, VOLUME_RESTORE_LABEL, type VeleroPodVolumeRestore } from '../../../server/providers/velero/volume-restores.js';
import { repoRoot } from '../../helpers/cluster-info.js';
import type { VeleroObjects } from '../../velero/simulator-kube.js';
import { processRestore, type PhaseContext } from '../../velero/simulator-phases.js';
import type { SnapshotStore } from '../../velero/simulator-snapshots.js';
import type { SimulatedObjectStore } from '../../velero/simulator-object-store.js';
import {
  completedPodVolumeStatus,
  parsePodVolumes,
  podVolumeRestoreFor,
  SIMULATOR_POD_VOLUMES,
  type BackupObject,
  type BackupSnapshot,
  type RestoreObject,
} from '../../velero/simulator.js';

const restore: RestoreObject = {
  metadata: { name: 'shop-daily-r1', uid: '4f1c9a52-0000-4000-8000-000000000001' },
  spec: {
    backupName: 'shop-nightly',
    includedNamespaces: ['shop'],
    namespaceMapping: { shop: 'rehearsal-shop-k3m9x2' },
    includeClusterResources: false,
  },
};
const dbData = { namespace: 'shop', pod: 'db-0', volume: 'data', bytes: 25_690_112 };

describe('simulator.rehearsal.dev/pod-volumes', () => {
  it('reads "<namespace>/<pod>/<volume>=<bytes>" entries and names the ones in another form', () => {
    expect(parsePodVolumes(undefined)).toEqual({ volumes: [], unreadable: [] });
    expect(parsePodVolumes(' shop/db-0/data=25690112 , shop/web-0/cache=0,')).toEqual({
      volumes: [dbData, { namespace: 'shop', pod: 'web-0', volume: 'cache', bytes: 0 }],
      unreadable: [],
    });
    expect(parsePodVolumes('db-0/data=1,shop/db-0/data,shop/db-0/data=1.5,shop/db-0/data=-1').unreadable).toEqual([
      'db-0/data=1',
      'shop/db-0/data',
      'shop/db-0/data=1.5',
      'shop/db-0/data=-1',
    ]);
  });

  it('a PodVolumeRestore has every field Velero\'s CRD requires, and its phases are the CRD\'s', () => {
    const crd = parse(readFileSync(path.join(repoRoot, 'test/fixtures/velero/crds/podvolumerestores.velero.io.yaml'), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, { required?: string[]; properties: Record<string, { enum?: string[] }> }> } } }[] };
    };
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema.properties;
    const made = podVolumeRestoreFor(restore, dbData, 'rehearsal-shop-k3m9x2', new Date('2026-11-28T10:00:00.700Z')) as {
      spec: Record<string, unknown>;
      status: { phase: string };
    };
    for (const field of schema.spec!.required!) expect(made.spec).toHaveProperty(field);
    for (const field of Object.keys(made.spec)) expect(Object.keys(schema.spec!.properties)).toContain(field);
    const phases = schema.status!.properties.phase!.enum!;
    expect(phases).toContain(made.status.phase);
    expect(phases).toContain(completedPodVolumeStatus(dbData, new Date()).phase);
  });

  it('the completed PodVolumeRestore is the report row of the Pod volume in the sandbox: file-system, Completed, its bytes and seconds', () => {
    const made = podVolumeRestoreFor(restore, dbData, 'rehearsal-shop-k3m9x2', new Date('2026-11-28T10:00:00.700Z')) as unknown as VeleroPodVolumeRestore & {
      metadata: { labels: Record<string, string>; ownerReferences: unknown[] };
    };
    expect(made.metadata.labels[VOLUME_RESTORE_LABEL]).toBe('shop-daily-r1');
    expect(made.metadata.ownerReferences).toEqual([
      { apiVersion: 'velero.io/v1', kind: 'Restore', name: 'shop-daily-r1', uid: restore.metadata.uid, controller: true },
    ]);
    // While the node agent works: not restored yet.
    expect(fromPodVolumeRestore(made)).toMatchObject({ phase: 'InProgress', dataRestored: false, bytes: 0 });
    const ended = { ...made, status: { ...made.status, ...completedPodVolumeStatus(dbData, new Date('2026-11-28T10:00:03.100Z')) } };
    expect(fromPodVolumeRestore(ended)).toEqual({
      namespace: 'rehearsal-shop-k3m9x2',
      pod: 'db-0',
      volume: 'data',
      method: 'file-system',
      phase: 'Completed',
      dataRestored: true,
      bytes: 25_690_112,
      durationSeconds: 3, // whole-second Kubernetes timestamps: 10:00:00 → 10:00:03
    });
  });
});

/** processRestore over in-memory stand-ins of the cluster: what it creates and patches, in order. */
async function runRestore(backupAnnotations: Record<string, string>) {
  const events: string[] = [];
  const volumeRestores = new Map<string, Record<string, unknown>>();
  const backup: BackupObject = {
    metadata: { name: 'shop-nightly', annotations: backupAnnotations },
    spec: { includedNamespaces: ['shop', 'billing'] },
    status: { phase: 'Completed' },
  };
  const snapshot: BackupSnapshot = {
    formatVersion: 1,
    backupName: 'shop-nightly',
    namespaces: ['shop', 'billing'],
    items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } }],
  };
  const kube = {
    namespace: 'velero',
    get: async () => backup,
    ensureNamespace: async () => undefined,
    objects: { create: async () => ({}) },
    create: async (plural: string, body: Record<string, unknown>) => {
      const name = `${(body.metadata as { generateName: string }).generateName}${volumeRestores.size}`;
      volumeRestores.set(name, body);
      events.push(`create ${plural} ${name} ${(body.status as { phase: string }).phase}`);
      return name;
    },
    patchStatus: async (plural: string, name: string, status: Record<string, unknown>) => {
      if (plural === 'podvolumerestores') {
        const body = volumeRestores.get(name)!;
        body.status = { ...(body.status as object), ...status };
      }
      if (status.phase) events.push(`${plural} ${name} ${status.phase as string}`);
    },
  } as unknown as VeleroObjects;
  const context: PhaseContext = {
    kube,
    snapshots: { load: async () => snapshot } as unknown as SnapshotStore,
    store: {} as SimulatedObjectStore,
    stepDelayMs: 0,
    pause: async () => undefined,
    stopped: () => false,
    log: () => undefined,
  };
  await processRestore(context, restore);
  return { events, volumeRestores: [...volumeRestores.values()] as VeleroPodVolumeRestore[] };
}

describe('a restore of a backup with pod-volumes', () => {
  it('makes one PodVolumeRestore per volume of the namespaces it includes, each Completed before the Restore ends', async () => {
    const { events, volumeRestores } = await runRestore({
      [SIMULATOR_POD_VOLUMES]: 'shop/db-0/data=25690112,billing/ledger-0/data=1024',
    });
    expect(events).toEqual([
      'restores shop-daily-r1 InProgress',
      'create podvolumerestores shop-daily-r1-0 InProgress',
      'podvolumerestores shop-daily-r1-0 Completed',
      'restores shop-daily-r1 Completed',
    ]);
    expect(volumeRestores.map(fromPodVolumeRestore)).toEqual([
      expect.objectContaining({ namespace: 'rehearsal-shop-k3m9x2', pod: 'db-0', volume: 'data', phase: 'Completed', dataRestored: true, bytes: 25_690_112 }),
    ]);
  });

  it('makes none without the annotation', async () => {
    const { events, volumeRestores } = await runRestore({});
    expect(volumeRestores).toEqual([]);
    expect(events).toEqual(['restores shop-daily-r1 InProgress', 'restores shop-daily-r1 Completed']);
  });

  it('fails the restore on an entry it cannot read, creating nothing', async () => {
    const { events, volumeRestores } = await runRestore({ [SIMULATOR_POD_VOLUMES]: 'db-0/data=1' });
    expect(volumeRestores).toEqual([]);
    expect(events).toEqual(['restores shop-daily-r1 InProgress', 'restores shop-daily-r1 Failed']);
  });
});
