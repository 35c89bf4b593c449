// Dynamic provisioning of `local` PersistentVolumes on the real node, for the tests that restore
// volume data (issue 27). The test cluster has no storage driver, and the kube-controller-manager's
// built-in hostPath provisioner will not do: Velero's file-system backup skips hostPath volumes
// (they are not mounted under the kubelet's pods directory, where the node agent reads). A `local`
// volume is: the kubelet bind-mounts it at <kubelet root>/pods/<pod uid>/volumes/kubernetes.io~local-volume/<pv>.
//
// This is a minimal external provisioner, as rancher's local-path-provisioner is one (it runs in
// the test process, not in the cluster): for every Pending claim of its StorageClass it makes a
// directory under `root` and a `local` PersistentVolume pre-bound to the claim, with node affinity
// to the real node; the PersistentVolume controller then binds them, as it does for any
// external provisioner. A Released volume of its own (reclaim policy Delete) loses its directory
// and is deleted. Everything it did is recorded, so a test can say which volumes a run provisioned.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  CoreV1Api,
  StorageV1Api,
  type KubeConfig,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';

export const LOCAL_PROVISIONER = 'rehearsal.dev/local-directory';

export interface ProvisionedVolume {
  volume: string;
  claim: string; // namespace/name
  directory: string;
}

export interface LocalVolumeProvisioner {
  storageClass: string;
  /** Volumes made so far, in order. */
  provisioned(): ProvisionedVolume[];
  /** Volumes released and deleted so far (directory removed, PersistentVolume deleted). */
  deleted(): string[];
  stop(): Promise<void>;
}

export interface LocalVolumeProvisionerOptions {
  nodeName: string;
  /** Where the volumes' directories go (on this host, which is the real node). */
  root: string;
  storageClass?: string;
  intervalMs?: number;
}

async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

export async function startLocalVolumeProvisioner(
  admin: KubeConfig,
  options: LocalVolumeProvisionerOptions,
): Promise<LocalVolumeProvisioner> {
  const storageClass = options.storageClass ?? 'rehearsal-local';
  const core = admin.makeApiClient(CoreV1Api);
  await ensure(() =>
    admin.makeApiClient(StorageV1Api).createStorageClass({
      body: {
        metadata: { name: storageClass },
        provisioner: LOCAL_PROVISIONER,
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
      },
    }),
  );
  mkdirSync(options.root, { recursive: true });
  const provisioned: ProvisionedVolume[] = [];
  const deleted: string[] = [];
  let stopped = false;
  let lastError: unknown;

  const provision = async (claim: V1PersistentVolumeClaim): Promise<void> => {
    const namespace = claim.metadata!.namespace!;
    const name = `pvc-${claim.metadata!.uid}`;
    const directory = path.join(options.root, name);
    mkdirSync(directory, { recursive: true });
    chmodSync(directory, 0o777); // any pod user may write, as with local-path-provisioner
    const volume: V1PersistentVolume = {
      metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': LOCAL_PROVISIONER } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: storageClass,
        local: { path: directory },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: claim.metadata!.name!, uid: claim.metadata!.uid! },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [options.nodeName] }] }],
          },
        },
      },
    };
    await ensure(() => core.createPersistentVolume({ body: volume }));
    if (!provisioned.some((entry) => entry.volume === name)) {
      provisioned.push({ volume: name, claim: `${namespace}/${claim.metadata!.name}`, directory });
    }
  };

  const reclaim = async (volume: V1PersistentVolume): Promise<void> => {
    const name = volume.metadata!.name!;
    const directory = volume.spec?.local?.path;
    if (directory?.startsWith(options.root + path.sep)) rmSync(directory, { recursive: true, force: true });
    await core.deletePersistentVolume({ name }).catch((error: { code?: number }) => {
      if (error.code !== 404) throw error;
    });
    if (!deleted.includes(name)) deleted.push(name);
  };

  const pass = async (): Promise<void> => {
    const claims = await core.listPersistentVolumeClaimForAllNamespaces();
    for (const claim of claims.items) {
      if (claim.spec?.storageClassName !== storageClass || claim.spec.volumeName || claim.status?.phase !== 'Pending') continue;
      if (claim.metadata?.deletionTimestamp) continue;
      await provision(claim);
    }
    const volumes = await core.listPersistentVolume();
    for (const volume of volumes.items) {
      if (volume.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'] !== LOCAL_PROVISIONER) continue;
      if (volume.spec?.storageClassName !== storageClass) continue;
      if (volume.status?.phase === 'Released' || volume.status?.phase === 'Failed') await reclaim(volume);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await pass();
        lastError = undefined;
      } catch (error) {
        if (!lastError) console.warn(`[local-volume-provisioner] ${error instanceof Error ? error.message : String(error)}`);
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
    }
  })();

  return {
    storageClass,
    provisioned: () => [...provisioned],
    deleted: () => [...deleted],
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
