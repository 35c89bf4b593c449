// Issue 27, decision 0019, on the real control plane (no node needed): the PersistentVolumes (and,
// where the snapshot CRDs are installed, the VolumeSnapshotContents) a sandbox provisioned outlive
// it when their class retains them; Rehearsal records them when it deletes the sandbox and its
// janitor removes them once the sandbox is gone, and nothing else. Run as the server's own
// ServiceAccount with the shipped RBAC (deploy/base/rbac.yaml) and admission policies
// (deploy/base/server-admission.yaml, applied by the global setup):
//  - the apiserver refuses it deleting a PV whose claim was in a production namespace, a Bound PV
//    of a sandbox, a Released sandbox PV whose reclaimPolicy is Delete (its provisioner's), a
//    content of a production VolumeSnapshot, and a content whose deletionPolicy is Delete (policy
//    rehearsal-server-sandbox-volumes; dry runs: nothing is lost if it let one by);
//  - the sandbox is deleted the engine's way (deleteSandbox): its Retain PV is recorded
//    (ConfigMap <sandbox>.volumes in rehearsal-system, with capacity, class and policy), the
//    namespace controller deletes the claim, the PV goes Released and the janitor deletes it;
//    the record goes with it. A janitor built afresh (a restart) does it: no memory involved;
//  - Released PVs it did not record stay: production's, and one whose claim namespace is merely
//    named like a sandbox; so does the sandbox's Delete-policy PV (recorded), and the record with
//    it until that one is gone.
// The PVs are pre-bound (spec.claimRef and the claim's volumeName) in a StorageClass whose
// provisioner does not exist, so kube-controller-manager's PV controller binds and releases them
// without any node, CSI driver or provisioner.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  StorageV1Api,
  type KubeConfig,
  type V1PersistentVolume,
} from '@kubernetes/client-node';
import pino from 'pino';
import { sandboxNamespaceName } from '../../server/domain/run/sandbox-names.js';
import { Janitor } from '../../server/engine/sandbox/janitor.js';
import { deleteSandbox } from '../../server/engine/sandbox/sandbox-delete.js';
import { SandboxVolumes } from '../../server/engine/sandbox/sandbox-volumes.js';
import { apiStatusCode, deleteNamespaces, sleep, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';

jest.setTimeout(180_000);

const POLICY = 'rehearsal-server-sandbox-volumes';
const SNAPSHOTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshotcontents' } as const;

let admin: KubeConfig;
let server: KubeConfig;
const run = 'v0l5x';
const test = uniqueName('shop-volumes', 30);
const sandbox = sandboxNamespaceName('rehearsal', test, run);
// No dash: it can never be named like a sandbox (<prefix>-<test>-<run>).
const production = `prodshop${Date.now().toString(36)}`;
// Named exactly like a sandbox, but never Rehearsal's (an administrator may create any name).
const lookalike = sandboxNamespaceName('team', 'shop-redis', 'zzzzz');
const storageClass = uniqueName('retained', 40);
const volumes = {
  sandbox: uniqueName('pv-sandbox', 40),
  production: uniqueName('pv-production', 40),
  lookalike: uniqueName('pv-lookalike', 40),
  /** The sandbox's second claim, in a class that deletes its volumes: its (absent) provisioner's job. */
  reclaimed: uniqueName('pv-reclaimed', 40),
};
const contents = {
  sandbox: uniqueName('vsc-sandbox', 40),
  production: uniqueName('vsc-production', 40),
  deleting: uniqueName('vsc-delete-policy', 40),
};
let snapshotApi = false;

function persistentVolume(name: string, namespace: string, claim = 'data', policy = 'Retain'): V1PersistentVolume {
  return {
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': 'example.com/nowhere' } },
    spec: {
      storageClassName: storageClass,
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: policy,
      hostPath: { path: `/tmp/${name}` },
      claimRef: { namespace, name: claim },
    },
  };
}

async function bindClaim(namespace: string, volume: string, claim = 'data'): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: {
      metadata: { name: claim },
      spec: { storageClassName: storageClass, volumeName: volume, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await waitFor(async () => (await core.readPersistentVolume({ name: volume })).status?.phase === 'Bound', { timeoutMs: 60_000, intervalMs: 250 });
}

async function phaseOf(name: string): Promise<string | undefined> {
  try {
    return (await admin.makeApiClient(CoreV1Api).readPersistentVolume({ name })).status?.phase ?? 'none';
  } catch (error) {
    if (apiStatusCode(error) === 404) return undefined;
    throw error;
  }
}

/** "allowed", or the status code and whether this policy refused it (and its message). */
async function attempt(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'allowed';
  } catch (error) {
    const body = String((error as { body?: string }).body ?? '');
    let message = body;
    try {
      message = String((JSON.parse(body) as { message?: string }).message ?? body);
    } catch {
      // not a Status: keep the text
    }
    return `${apiStatusCode(error)}${body.includes(POLICY) ? ` policy: ${message}` : ''}`;
  }
}

function content(name: string, namespace: string, deletionPolicy: 'Retain' | 'Delete') {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name },
    spec: {
      deletionPolicy,
      driver: 'example.com.nowhere',
      source: { snapshotHandle: `handle-${name}` },
      volumeSnapshotRef: { namespace, name: 'snap' },
    },
  };
}

beforeAll(async () => {
  admin = testKubeConfig();
  server = testKubeConfig(await rehearsalKubeconfig('sandbox-volumes.kubeconfig'));
  const core = admin.makeApiClient(CoreV1Api);
  await admin.makeApiClient(StorageV1Api).createStorageClass({
    body: { metadata: { name: storageClass }, provisioner: 'example.com/nowhere', reclaimPolicy: 'Retain', volumeBindingMode: 'Immediate' },
  });
  // The sandbox as SandboxManager creates it (labels; only the server and cluster admins may set them).
  await core.createNamespace({
    body: {
      metadata: {
        name: sandbox,
        labels: {
          'rehearsal.dev/managed-by': 'rehearsal',
          'rehearsal.dev/test': test,
          'rehearsal.dev/test-namespace': 'default',
          'rehearsal.dev/run': run,
        },
      },
    },
  });
  await core.createNamespace({ body: { metadata: { name: production } } });
  await core.createNamespace({ body: { metadata: { name: lookalike } } });
  // Created after the sandbox (the record takes only what was made for it).
  await sleep(1100);
  for (const [volume, namespace] of [
    [volumes.sandbox, sandbox],
    [volumes.production, production],
    [volumes.lookalike, lookalike],
  ] as const) {
    await core.createPersistentVolume({ body: persistentVolume(volume, namespace) });
    await bindClaim(namespace, volume);
  }
  await core.createPersistentVolume({ body: persistentVolume(volumes.reclaimed, sandbox, 'cache', 'Delete') });
  await bindClaim(sandbox, volumes.reclaimed, 'cache');
  // Production's and the look-alike's claims are deleted by their owners: Released, retained on purpose.
  for (const namespace of [production, lookalike]) await core.deleteNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
  await waitFor(async () => (await phaseOf(volumes.production)) === 'Released' && (await phaseOf(volumes.lookalike)) === 'Released', {
    timeoutMs: 60_000,
    intervalMs: 250,
  });

  const crds = admin.makeApiClient(ApiextensionsV1Api);
  try {
    await crds.readCustomResourceDefinition({ name: 'volumesnapshotcontents.snapshot.storage.k8s.io' });
    snapshotApi = true;
  } catch (error) {
    if (apiStatusCode(error) !== 404) throw error;
  }
  if (snapshotApi) {
    const custom = admin.makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({ ...SNAPSHOTS, body: content(contents.sandbox, sandbox, 'Retain') });
    await custom.createClusterCustomObject({ ...SNAPSHOTS, body: content(contents.production, production, 'Retain') });
    await custom.createClusterCustomObject({ ...SNAPSHOTS, body: content(contents.deleting, sandbox, 'Delete') });
  }
});

afterAll(async () => {
  const core = admin.makeApiClient(CoreV1Api);
  for (const name of Object.values(volumes)) await core.deletePersistentVolume({ name }).catch(() => undefined);
  if (snapshotApi) {
    const custom = admin.makeApiClient(CustomObjectsApi);
    for (const name of Object.values(contents)) await custom.deleteClusterCustomObject({ ...SNAPSHOTS, name }).catch(() => undefined);
  }
  await core.deleteNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, name: `${sandbox}.volumes` }).catch(() => undefined);
  await admin.makeApiClient(StorageV1Api).deleteStorageClass({ name: storageClass }).catch(() => undefined);
  await deleteNamespaces(admin, [sandbox, production, lookalike]);
});

describe("the server's ServiceAccount and cluster-scoped volumes (rehearsal-server-sandbox-volumes)", () => {
  it('is refused deleting a PV of a production claim or a Bound PV of a sandbox (dry runs)', async () => {
    const core = server.makeApiClient(CoreV1Api);
    const remove = (name: string) => attempt(() => core.deletePersistentVolume({ name, dryRun: 'All' }));
    // RBAC grants delete on every PV (their names are not known in advance); the policy refuses
    // this one: Released, but its claim was in a production namespace.
    expect(await remove(volumes.production)).toMatch(/^403 policy: .*only of Rehearsal sandbox namespaces.*prodshop/);
    // The sandbox's own PV while its claim is bound: refused too.
    expect(await phaseOf(volumes.sandbox)).toBe('Bound');
    expect(await remove(volumes.sandbox)).toMatch(/^403 policy: .*only Released PersistentVolumes/);
    // The look-alike passes the apiserver's fence (an admission policy cannot read a namespace
    // for a cluster-scoped object, so it goes by the name): the janitor's record is what keeps it (below).
    expect(await remove(volumes.lookalike)).toBe('allowed');
    // Nothing was deleted by these dry runs.
    for (const name of Object.values(volumes)) expect([name, await phaseOf(name)]).not.toEqual([name, undefined]);
  });

  it('is refused deleting a content of a production snapshot, or one whose deletionPolicy is Delete', async () => {
    if (!snapshotApi) {
      console.warn('the snapshot CRDs (volumesnapshotcontents.snapshot.storage.k8s.io) are not installed in this cluster: VolumeSnapshotContent part skipped');
      return;
    }
    const custom = server.makeApiClient(CustomObjectsApi);
    const remove = (name: string) => attempt(() => custom.deleteClusterCustomObject({ ...SNAPSHOTS, name, dryRun: 'All' }));
    expect(await remove(contents.production)).toMatch(/^403 policy: .*only of Rehearsal sandbox namespaces/);
    expect(await remove(contents.deleting)).toMatch(/^403 policy: .*deletionPolicy is Retain/);
    expect(await remove(contents.sandbox)).toBe('allowed');
  });

  it("records the sandbox's PV when deleting it; the janitor removes it once the sandbox is gone, and nothing else", async () => {
    const log = pino({ level: 'silent' });
    const core = server.makeApiClient(CoreV1Api);
    const store = () =>
      new SandboxVolumes({ core, custom: server.makeApiClient(CustomObjectsApi), namespace: REHEARSAL_NAMESPACE, now: () => new Date(), log });
    const namespace = await admin.makeApiClient(CoreV1Api).readNamespace({ name: sandbox });
    // The engine's delete path (SandboxManager.delete and the orphan removal both come here).
    await deleteSandbox(core, sandbox, namespace.metadata!.uid!, store());
    const record = await admin.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, name: `${sandbox}.volumes` });
    const recorded = JSON.parse(record.data!['record.json']!) as { run: string; sandbox: string; volumes: Record<string, string>[] };
    expect([recorded.sandbox, recorded.run]).toEqual([sandbox, run]);
    expect(recorded.volumes.find((volume) => volume.name === volumes.sandbox)).toEqual(
      expect.objectContaining({ kind: 'PersistentVolume', ref: `${sandbox}/data`, capacity: '1Gi', storageClass, policy: 'Retain' }),
    );
    expect(recorded.volumes.map((volume) => volume.name)).not.toContain(volumes.production);
    expect(recorded.volumes.map((volume) => volume.name)).not.toContain(volumes.lookalike);
    if (snapshotApi) {
      // The Retain content is recorded; the Delete one too (an auditor sees it), but it is never deleted.
      expect(recorded.volumes.map((volume) => volume.name)).toEqual(expect.arrayContaining([contents.sandbox, contents.deleting]));
    }

    // Janitors built afresh at every sweep, as after restarts: everything comes from the apiserver.
    const sweep = () =>
      new Janitor({ inventory: { list: async () => [] }, sandboxes: { delete: async () => undefined }, volumes: store(), log }).sweep();
    await waitFor(
      async () => {
        await sweep();
        return (await phaseOf(volumes.sandbox)) === undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    // The namespace controller deleted the claim, the PV controller released the PV, the janitor deleted it.
    expect(await phaseOf(volumes.production)).toBe('Released');
    expect(await phaseOf(volumes.lookalike)).toBe('Released');
    // The Delete-policy volume is its provisioner's (none here: the PV controller waits for it):
    // Released, recorded, and left alone; the apiserver refuses it to the server too.
    expect(recorded.volumes.map((volume) => volume.name)).toContain(volumes.reclaimed);
    await waitFor(async () => (await phaseOf(volumes.reclaimed)) === 'Released', { timeoutMs: 30_000, intervalMs: 500 });
    await sweep();
    expect(await phaseOf(volumes.reclaimed)).toBe('Released');
    expect(await attempt(() => core.deletePersistentVolume({ name: volumes.reclaimed, dryRun: 'All' }))).toMatch(
      /^403 policy: .*reclaimPolicy is Retain/,
    );
    const custom = admin.makeApiClient(CustomObjectsApi);
    if (snapshotApi) {
      await waitFor(
        async () => {
          await sweep();
          try {
            await custom.getClusterCustomObject({ ...SNAPSHOTS, name: contents.sandbox });
            return false;
          } catch (error) {
            return apiStatusCode(error) === 404;
          }
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
      // Production's content and the sandbox's Delete-policy content (its storage snapshot would go with it) stay.
      for (const name of [contents.production, contents.deleting]) {
        expect((await custom.getClusterCustomObject({ ...SNAPSHOTS, name })) as object).toBeDefined();
      }
    }
    // The record stays while anything it lists exists, and goes once nothing is left.
    const recordExists = async () =>
      (await admin.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE })).items.some(
        (item) => item.metadata?.name === `${sandbox}.volumes`,
      );
    expect(await recordExists()).toBe(true);
    if (!snapshotApi) {
      await admin.makeApiClient(CoreV1Api).deletePersistentVolume({ name: volumes.reclaimed }); // as its provisioner would
      await waitFor(
        async () => {
          await sweep();
          return !(await recordExists());
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
      );
    }
    // A few more sweeps change nothing.
    for (let index = 0; index < 3; index += 1) await sweep();
    expect(await phaseOf(volumes.production)).toBe('Released');
    expect(await phaseOf(volumes.lookalike)).toBe('Released');
  });
});
