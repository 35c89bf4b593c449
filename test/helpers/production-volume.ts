// A source namespace's claim bound to its own statically provisioned PersistentVolume (hostPath,
// Retain), as production holds data: the PV controller of the real kube-controller-manager binds
// them, so the backed-up claim carries spec.volumeName and the controller's binding annotations.
// What a restore must never do is point the sandbox at this volume (issue 27, default transform
// unbind-claims). The volume is cluster-scoped: the caller removes it (removeProductionVolume).
import { CoreV1Api, type KubeConfig, type V1PersistentVolume, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { waitFor } from './kube.js';

export const PRODUCTION_CLAIM = 'orders-data';

export interface ProductionVolume {
  claim: string;
  volume: string;
}

export async function addProductionVolume(kubeConfig: KubeConfig, namespace: string): Promise<ProductionVolume> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const volume = `${namespace}-orders`;
  await core.createPersistentVolume({
    body: {
      metadata: { name: volume, labels: { 'rehearsal.dev/test-volume': namespace } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        // Never mounted: no pod uses the claim (the volume only has to exist for the binding).
        hostPath: { path: `/var/lib/rehearsal-test/${volume}`, type: 'DirectoryOrCreate' },
      },
    },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: {
      metadata: { name: PRODUCTION_CLAIM },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: volume, resources: { requests: { storage: '1Gi' } } },
    },
  });
  await waitFor(
    async () => (await core.readNamespacedPersistentVolumeClaim({ namespace, name: PRODUCTION_CLAIM })).status?.phase === 'Bound',
    { timeoutMs: 60_000, intervalMs: 250, description: `claim ${namespace}/${PRODUCTION_CLAIM} bound to ${volume} by the PV controller` },
  );
  return { claim: PRODUCTION_CLAIM, volume };
}

export async function readProductionVolume(
  kubeConfig: KubeConfig,
  namespace: string,
  production: ProductionVolume,
): Promise<{ volume: V1PersistentVolume; claim: V1PersistentVolumeClaim }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    volume: await core.readPersistentVolume({ name: production.volume }),
    claim: await core.readNamespacedPersistentVolumeClaim({ namespace, name: production.claim }),
  };
}

export async function removeProductionVolume(kubeConfig: KubeConfig, production: ProductionVolume | undefined): Promise<void> {
  if (!production) return;
  await kubeConfig
    .makeApiClient(CoreV1Api)
    .deletePersistentVolume({ name: production.volume })
    .catch(() => undefined);
}
