// The apiserver side of the cluster-scoped objects a sandbox provisioned (issue 27, decision 0019;
// the rules are domain/run/sandbox-volumes.ts). Three jobs:
//  - record: when a sandbox is deleted, the PVs bound to its claims and its snapshots' contents
//    are written to ConfigMap <sandbox>.volumes in Rehearsal's own namespace (what an auditor reads,
//    and the janitor's proof that they are Rehearsal's once the sandbox is gone);
//  - sweep (the janitor, on the leader): each recorded object whose sandbox is gone is judged and,
//    when the rule says so, deleted with its UID and resourceVersion as preconditions; a record
//    goes once nothing it lists exists. All from the apiserver's state: a restart loses nothing;
//  - nothing else: no PV or content is ever patched, and a record that fails to be written only
//    means its objects are never deleted (the safe side), with a warning.
// The admission policy rehearsal-server-sandbox-volumes (deploy/base/server-admission.yaml) is the
// second fence: the apiserver refuses this ServiceAccount any other PV or content delete.
import type { CoreV1Api, CustomObjectsApi, V1Namespace, V1PersistentVolume } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { LABEL_MANAGED_BY, LABEL_RUN, LABEL_TEST, LABEL_TEST_NAMESPACE, MANAGED_BY_VALUE } from '../../domain/resources/resources.js';
import {
  judgeSandboxVolume,
  LABEL_SANDBOX_VOLUMES,
  parseVolumeRecord,
  recordDone,
  VOLUME_RECORD_KEY,
  volumeRecordName,
  volumesOfSandbox,
  type ClusterVolume,
  type RefNamespaceState,
  type SandboxVolumeRecord,
} from '../../domain/run/sandbox-volumes.js';
import { isKind, kubeCall } from '../../kube/errors.js';

const SNAPSHOT_CONTENTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshotcontents' } as const;

/** A VolumeSnapshotContent as far as it is read here. */
interface SnapshotContent {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string | Date; deletionTimestamp?: string | Date };
  spec?: { deletionPolicy?: string; volumeSnapshotClassName?: string; volumeSnapshotRef?: { namespace?: string; name?: string } };
  status?: { restoreSize?: number | string };
}

/** A volume with the resourceVersion it was read at (the delete's precondition). */
type ReadVolume = ClusterVolume & { resourceVersion?: string };

export interface SandboxVolumesDeps {
  core: Pick<
    CoreV1Api,
    'listPersistentVolume' | 'deletePersistentVolume' | 'readNamespace' | 'createNamespacedConfigMap' | 'listNamespacedConfigMap' | 'deleteNamespacedConfigMap'
  >;
  custom: Pick<CustomObjectsApi, 'listClusterCustomObject' | 'deleteClusterCustomObject'>;
  /** Rehearsal's own namespace: where the records live. */
  namespace: string;
  now: () => Date;
  log: Logger;
}

export interface VolumeSweepResult {
  deleted: string[];
  kept: string[];
}

export class SandboxVolumes {
  constructor(private readonly deps: SandboxVolumesDeps) {}

  /**
   * Records what the sandbox provisioned outside itself, before it is deleted. Never throws: a
   * record that cannot be written leaves its objects in place for good (logged).
   */
  async record(namespace: V1Namespace): Promise<void> {
    const meta = namespace.metadata ?? {};
    const sandbox = meta.name ?? '';
    const labels = meta.labels ?? {};
    try {
      const volumes = volumesOfSandbox(
        { name: sandbox, ...(meta.creationTimestamp ? { createdAt: new Date(meta.creationTimestamp).toISOString() } : {}) },
        await this.list(),
      );
      if (volumes.length === 0) return;
      const record: SandboxVolumeRecord = {
        sandbox,
        sandboxUid: meta.uid ?? '',
        test: labels[LABEL_TEST] ?? '',
        testNamespace: labels[LABEL_TEST_NAMESPACE] ?? '',
        run: labels[LABEL_RUN] ?? '',
        recordedAt: this.deps.now().toISOString(),
        volumes,
      };
      await kubeCall(() =>
        this.deps.core.createNamespacedConfigMap({
          namespace: this.deps.namespace,
          body: {
            metadata: {
              name: volumeRecordName(sandbox),
              labels: {
                [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
                [LABEL_SANDBOX_VOLUMES]: sandbox,
                [LABEL_TEST]: record.test,
                [LABEL_TEST_NAMESPACE]: record.testNamespace,
                [LABEL_RUN]: record.run,
              },
            },
            data: { [VOLUME_RECORD_KEY]: JSON.stringify(record, null, 2) },
          },
        }),
      );
      this.deps.log.info({ sandbox, volumes }, 'recorded the cluster-scoped volumes of a sandbox');
    } catch (error) {
      // A repeated delete finds the record of the first attempt.
      if (isKind(error, 'AlreadyExists')) return;
      this.deps.log.warn({ err: error, sandbox }, 'could not record the volumes of a sandbox: they will not be removed');
    }
  }

  /** Deletes the recorded objects whose sandbox is gone, then the records that have done their job. */
  async sweep(): Promise<VolumeSweepResult> {
    const result: VolumeSweepResult = { deleted: [], kept: [] };
    const records = await this.records();
    if (records.length === 0) return result;
    const volumes = await this.list();
    const namespaces = new Map<string, RefNamespaceState>();
    for (const record of records) namespaces.set(record.sandbox, await this.namespaceState(record.sandbox));
    const remaining: ClusterVolume[] = [];
    for (const volume of volumes) {
      const state = volume.refNamespace ? namespaces.get(volume.refNamespace) : undefined;
      if (!state) continue; // no record names its namespace: not looked at
      const verdict = judgeSandboxVolume(volume, records, state);
      const key = `${volume.kind}/${volume.name}`;
      if (verdict.action === 'keep') {
        remaining.push(volume);
        if (verdict.reason !== 'deleting') result.kept.push(key);
        continue;
      }
      try {
        await this.deleteVolume(volume);
        result.deleted.push(key);
        this.deps.log.info({ volume: key, reason: verdict.reason, message: verdict.message }, 'removed a sandbox volume');
      } catch (error) {
        remaining.push(volume);
        this.deps.log.warn({ err: error, volume: key }, 'could not remove a sandbox volume');
      }
    }
    for (const record of records) {
      if (!recordDone(record, remaining, namespaces.get(record.sandbox)!)) continue;
      try {
        await kubeCall(() => this.deps.core.deleteNamespacedConfigMap({ name: volumeRecordName(record.sandbox), namespace: this.deps.namespace }));
      } catch (error) {
        if (!isKind(error, 'NotFound')) this.deps.log.warn({ err: error, sandbox: record.sandbox }, 'could not remove a volume record');
      }
    }
    return result;
  }

  /** The records in Rehearsal's namespace (one a sandbox). */
  async records(): Promise<SandboxVolumeRecord[]> {
    const list = await kubeCall(() =>
      this.deps.core.listNamespacedConfigMap({ namespace: this.deps.namespace, labelSelector: LABEL_SANDBOX_VOLUMES }),
    );
    const records: SandboxVolumeRecord[] = [];
    for (const configMap of list.items) {
      const record = parseVolumeRecord(configMap.data?.[VOLUME_RECORD_KEY]);
      // The record must be the one its name and label say: <sandbox>.volumes, labelled <sandbox>.
      if (record && configMap.metadata?.name === volumeRecordName(record.sandbox) && configMap.metadata.labels?.[LABEL_SANDBOX_VOLUMES] === record.sandbox) {
        records.push(record);
      }
    }
    return records;
  }

  /** Every PV and (when the snapshot API is installed) every VolumeSnapshotContent. */
  async list(): Promise<ReadVolume[]> {
    const volumes = (await kubeCall(() => this.deps.core.listPersistentVolume())).items.map(persistentVolume);
    let contents: SnapshotContent[] = [];
    try {
      const answer = (await kubeCall(() => this.deps.custom.listClusterCustomObject({ ...SNAPSHOT_CONTENTS }))) as { items?: SnapshotContent[] };
      contents = answer.items ?? [];
    } catch (error) {
      // No snapshot CRDs in this cluster: no contents to look after.
      if (!isKind(error, 'NotFound')) throw error;
    }
    return [...volumes, ...contents.map(snapshotContent)];
  }

  private async namespaceState(name: string): Promise<RefNamespaceState> {
    try {
      const namespace = await kubeCall(() => this.deps.core.readNamespace({ name }));
      return { exists: true, uid: namespace.metadata?.uid ?? '', deleting: Boolean(namespace.metadata?.deletionTimestamp) };
    } catch (error) {
      if (isKind(error, 'NotFound')) return { exists: false };
      throw error;
    }
  }

  private async deleteVolume(volume: ReadVolume): Promise<void> {
    // The object judged, not one re-created under its name nor the same one changed since.
    const preconditions = { uid: volume.uid, ...(volume.resourceVersion ? { resourceVersion: volume.resourceVersion } : {}) };
    try {
      if (volume.kind === 'PersistentVolume') {
        await kubeCall(() => this.deps.core.deletePersistentVolume({ name: volume.name, body: { preconditions } }));
      } else {
        await kubeCall(() => this.deps.custom.deleteClusterCustomObject({ ...SNAPSHOT_CONTENTS, name: volume.name, body: { preconditions } }));
      }
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }
}

function time(value: string | Date | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}

function persistentVolume(volume: V1PersistentVolume): ReadVolume {
  const meta = volume.metadata ?? {};
  const createdAt = time(meta.creationTimestamp);
  const capacity = volume.spec?.capacity?.['storage'];
  return {
    kind: 'PersistentVolume',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    ...(volume.spec?.claimRef?.namespace ? { refNamespace: volume.spec.claimRef.namespace } : {}),
    ...(volume.spec?.claimRef?.name ? { refName: volume.spec.claimRef.name } : {}),
    ...(volume.status?.phase ? { phase: volume.status.phase } : {}),
    ...(capacity !== undefined ? { capacity: String(capacity) } : {}),
    ...(volume.spec?.storageClassName ? { storageClass: volume.spec.storageClassName } : {}),
    ...(volume.spec?.persistentVolumeReclaimPolicy ? { policy: volume.spec.persistentVolumeReclaimPolicy } : {}),
    provisioned: Boolean(meta.annotations?.['pv.kubernetes.io/provisioned-by']),
    ...(createdAt ? { createdAt } : {}),
    deleting: Boolean(meta.deletionTimestamp),
  };
}

function snapshotContent(content: SnapshotContent): ReadVolume {
  const meta = content.metadata ?? {};
  const ref = content.spec?.volumeSnapshotRef ?? {};
  const createdAt = time(meta.creationTimestamp);
  const size = content.status?.restoreSize;
  return {
    kind: 'VolumeSnapshotContent',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    ...(ref.namespace ? { refNamespace: ref.namespace } : {}),
    ...(ref.name ? { refName: ref.name } : {}),
    ...(size !== undefined ? { capacity: String(size) } : {}),
    ...(content.spec?.volumeSnapshotClassName ? { storageClass: content.spec.volumeSnapshotClassName } : {}),
    ...(content.spec?.deletionPolicy ? { policy: content.spec.deletionPolicy } : {}),
    provisioned: true,
    ...(createdAt ? { createdAt } : {}),
    deleting: Boolean(meta.deletionTimestamp),
  };
}
