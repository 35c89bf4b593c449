// SandboxVolumes against an in-memory apiserver: recording when a sandbox is deleted, then the
// janitor's sweep deleting only what the rule allows, with UID and resourceVersion preconditions,
// and starting afresh from the apiserver's state (a new instance, as after a restart).
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import type { V1ConfigMap, V1Namespace, V1PersistentVolume } from '@kubernetes/client-node';
import { SandboxVolumes } from '../../../server/engine/sandbox/sandbox-volumes.js';
import { deleteSandbox } from '../../../server/engine/sandbox/sandbox-delete.js';
import { KubeError } from '../../../server/kube/errors.js';

const SANDBOX = 'rehearsal-shop-nightly-k3m9x';
const NOW = new Date('2026-11-28T09:00:00Z');

function fakeCluster(options: { snapshotApi: boolean }) {
  const namespaces = new Map<string, V1Namespace>([
    [
      SANDBOX,
      {
        metadata: {
          name: SANDBOX,
          uid: 'ns-uid',
          creationTimestamp: new Date('2026-11-28T08:00:00Z'),
          labels: {
            'rehearsal.dev/managed-by': 'rehearsal',
            'rehearsal.dev/test': 'shop-nightly',
            'rehearsal.dev/test-namespace': 'team-a',
            'rehearsal.dev/run': 'k3m9x',
          },
        },
      },
    ],
  ]);
  const volume = (name: string, claimNamespace: string, phase: string, extra: Partial<V1PersistentVolume['metadata']> = {}): V1PersistentVolume => ({
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '7',
      creationTimestamp: new Date('2026-11-28T08:01:00Z'),
      annotations: { 'pv.kubernetes.io/provisioned-by': 'csi.example.com' },
      ...extra,
    },
    spec: {
      capacity: { storage: '1Gi' },
      storageClassName: 'retained',
      persistentVolumeReclaimPolicy: 'Retain',
      claimRef: { namespace: claimNamespace, name: 'data' },
    },
    status: { phase },
  });
  const volumes = new Map<string, V1PersistentVolume>([
    ['pvc-sandbox', volume('pvc-sandbox', SANDBOX, 'Bound')],
    ['pvc-prod', volume('pvc-prod', 'shop', 'Released')],
  ]);
  const contents = new Map<string, Record<string, unknown>>([
    [
      'vsc-sandbox',
      {
        metadata: { name: 'vsc-sandbox', uid: 'uid-vsc', resourceVersion: '3', creationTimestamp: '2026-11-28T08:00:30Z' },
        spec: { deletionPolicy: 'Retain', volumeSnapshotRef: { namespace: SANDBOX, name: 'snap' } },
      },
    ],
  ]);
  const configMaps = new Map<string, V1ConfigMap>();
  const deletes: string[] = [];
  const notFound = () => new KubeError('NotFound', 404, 'not found');
  const core = {
    listPersistentVolume: async () => ({ items: [...volumes.values()] }),
    deletePersistentVolume: async ({ name, body }: { name: string; body?: { preconditions?: { uid?: string; resourceVersion?: string } } }) => {
      const found = volumes.get(name);
      if (!found) throw notFound();
      if (body?.preconditions?.uid !== found.metadata?.uid || body?.preconditions?.resourceVersion !== found.metadata?.resourceVersion) {
        throw new KubeError('Conflict', 409, 'precondition failed');
      }
      deletes.push(`pv/${name}`);
      volumes.delete(name);
      return found;
    },
    readNamespace: async ({ name }: { name: string }) => {
      const found = namespaces.get(name);
      if (!found) throw notFound();
      return found;
    },
    deleteNamespace: async ({ name }: { name: string }) => {
      namespaces.get(name)!.metadata!.deletionTimestamp = NOW;
      return {};
    },
    createNamespacedConfigMap: async ({ body }: { namespace: string; body: V1ConfigMap }) => {
      if (configMaps.has(body.metadata!.name!)) throw new KubeError('AlreadyExists', 409, 'exists');
      configMaps.set(body.metadata!.name!, body);
      return body;
    },
    listNamespacedConfigMap: async ({ labelSelector }: { namespace: string; labelSelector?: string }) => ({
      items: [...configMaps.values()].filter((configMap) => labelSelector! in (configMap.metadata?.labels ?? {})),
    }),
    deleteNamespacedConfigMap: async ({ name }: { name: string; namespace: string }) => {
      if (!configMaps.delete(name)) throw notFound();
      return {};
    },
  };
  const custom = {
    listClusterCustomObject: async () => {
      if (!options.snapshotApi) throw notFound();
      return { items: [...contents.values()] };
    },
    deleteClusterCustomObject: async ({ name }: { name: string }) => {
      deletes.push(`vsc/${name}`);
      contents.delete(name);
      return {};
    },
  };
  const make = () =>
    new SandboxVolumes({ core: core as never, custom: custom as never, namespace: 'rehearsal-system', now: () => NOW, log: pino({ level: 'silent' }) });
  return { namespaces, volumes, contents, configMaps, deletes, core, make };
}

describe('SandboxVolumes', () => {
  it('records the sandbox\'s PV and content when it is deleted, and removes them once it is gone', async () => {
    const cluster = fakeCluster({ snapshotApi: true });
    const volumes = cluster.make();
    await deleteSandbox(cluster.core as never, SANDBOX, 'ns-uid', volumes);
    const record = JSON.parse(cluster.configMaps.get(`${SANDBOX}.volumes`)!.data!['record.json']!) as { volumes: { name: string }[]; run: string };
    expect([record.run, record.volumes.map((volume) => volume.name)]).toEqual(['k3m9x', ['pvc-sandbox', 'vsc-sandbox']]);

    // Terminating, the claim still there: the PV is Bound, nothing goes; the content does (Retain, sandbox terminating).
    expect(await volumes.sweep()).toEqual({ deleted: ['VolumeSnapshotContent/vsc-sandbox'], kept: ['PersistentVolume/pvc-sandbox'] });
    // The claim is gone (Released) and so is the namespace: a fresh instance (a restart) finishes the job.
    cluster.volumes.get('pvc-sandbox')!.status!.phase = 'Released';
    cluster.volumes.get('pvc-sandbox')!.metadata!.resourceVersion = '8';
    cluster.namespaces.delete(SANDBOX);
    expect(await cluster.make().sweep()).toEqual({ deleted: ['PersistentVolume/pvc-sandbox'], kept: [] });
    expect(cluster.deletes).toEqual(['vsc/vsc-sandbox', 'pv/pvc-sandbox']);
    // The production PV (Released, another namespace) is untouched; the record has done its job.
    expect([...cluster.volumes.keys()]).toEqual(['pvc-prod']);
    expect(cluster.configMaps.size).toBe(0);
    expect(await cluster.make().sweep()).toEqual({ deleted: [], kept: [] });
  });

  it('deletes nothing without a record, and writes none for a sandbox that provisioned nothing', async () => {
    const cluster = fakeCluster({ snapshotApi: false });
    cluster.volumes.delete('pvc-sandbox');
    await deleteSandbox(cluster.core as never, SANDBOX, 'ns-uid', cluster.make());
    expect(cluster.configMaps.size).toBe(0);
    cluster.namespaces.delete(SANDBOX);
    expect(await cluster.make().sweep()).toEqual({ deleted: [], kept: [] });
    expect(cluster.deletes).toEqual([]);
  });

  it('works without the snapshot API (no contents), and a changed PV fails its precondition', async () => {
    const cluster = fakeCluster({ snapshotApi: false });
    const volumes = cluster.make();
    await deleteSandbox(cluster.core as never, SANDBOX, 'ns-uid', volumes);
    cluster.namespaces.delete(SANDBOX);
    cluster.volumes.get('pvc-sandbox')!.status!.phase = 'Released';
    // Changed between the list and the delete: the precondition refuses it, the next sweep retries.
    const list = volumes.list.bind(volumes);
    volumes.list = async () => {
      const read = await list();
      cluster.volumes.get('pvc-sandbox')!.metadata!.resourceVersion = '9';
      return read;
    };
    expect(await volumes.sweep()).toEqual({ deleted: [], kept: [] });
    expect(cluster.volumes.has('pvc-sandbox')).toBe(true);
    expect(cluster.configMaps.size).toBe(1);
    expect(await cluster.make().sweep()).toEqual({ deleted: ['PersistentVolume/pvc-sandbox'], kept: [] });
  });
});
