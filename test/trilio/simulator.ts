// ============================================================================================
//  TRILIO SIMULATOR — for Rehearsal's tests only. THIS IS NOT TRILIO FOR KUBERNETES.
// ============================================================================================
// Plays TVK's part on the CRDs in test/trilio/crds (Trilio's own Restore and Backup CRDs, their
// descriptions removed: test/trilio/crds-gen), so the apiserver keeps of a Restore only what TVK's
// would: the simulator reads the request at the paths the vendor CRD declares (the backup in
// spec.source.backup; the target is the Restore's own namespace, as with TVK — the CRD has no
// field for another one). takeBackup() makes an Available Backup
// (triliovault.trilio.io/v1) in the application's namespace; each new Restore goes InProgress →
// Completed (status.status, phase, percentageCompletion, completionTimestamp, and the item lists of
// status.restoreApplication.custom as TVK's API types declare them) or Failed (with a
// Failed condition carrying the reason). The backup's claims appear as the dataSnapshots of
// status.restoreApplication.custom.snapshot, each with DataRestore conditions (InProgress, then
// Completed or Failed with a reason) and a size, as the vendor's Restore CRD declares them
// (server/providers/trilio/trilio-volume-restores.ts); a failed one fails the Restore in its
// DataRestore phase. See test/providers/namespaced-tool-simulator.ts for what is restored, the
// tripwire and the failure-injection annotations.
import {
  NamespacedToolSimulator,
  SIMULATOR_FAIL_VOLUME_DATA,
  type ToolRestoreRequest,
  type VolumeDataOutcome,
} from '../providers/namespaced-tool-simulator.js';
import { kubeTimestamp, type SnapshotItem } from '../velero/simulator.js';
import { applyTrilioTransforms, trilioExcludes } from '../providers/restore-transforms-sim.js';

interface TrilioRestoreObject {
  metadata: { namespace: string };
  spec?: {
    source?: { backup?: { name?: string; namespace?: string } };
    excludeResourceSelector?: Parameters<typeof trilioExcludes>[0];
    transformComponents?: Parameters<typeof applyTrilioTransforms>[1];
  };
  status?: { status?: string };
}

export class TrilioSimulator extends NamespacedToolSimulator {
  protected readonly tool = 'Trilio';
  protected readonly backupType = {
    group: 'triliovault.trilio.io',
    version: 'v1',
    plural: 'backups',
    kind: 'Backup',
  };
  protected readonly restoreType = {
    group: 'triliovault.trilio.io',
    version: 'v1',
    plural: 'restores',
    kind: 'Restore',
  };

  protected backupBody(namespace: string, name: string, completedAt: string) {
    return {
      spec: { type: 'Full', backupPlan: { name: `${name}-plan`, namespace } },
      status: { status: 'Available', completionTimestamp: completedAt },
    };
  }

  protected readRestore(restore: TrilioRestoreObject): ToolRestoreRequest | undefined {
    const backup = restore.spec?.source?.backup;
    if (!backup?.name || !backup.namespace) return undefined;
    // TVK restores into the namespace the Restore is in; the shared tripwire still refuses the
    // backup's own namespace.
    return { backupName: backup.name, backupNamespace: backup.namespace, target: restore.metadata.namespace };
  }

  // spec.excludeResourceSelector leaves objects out; spec.transformComponents.custom changes the rest.
  protected override transformItem(restore: TrilioRestoreObject, item: SnapshotItem): SnapshotItem | undefined {
    if (trilioExcludes(restore.spec?.excludeResourceSelector, item)) return undefined;
    return applyTrilioTransforms(item, restore.spec?.transformComponents);
  }

  protected isNew(restore: TrilioRestoreObject): boolean {
    return !restore.status?.status || restore.status.status === 'Pending';
  }

  protected runningStatus() {
    return {
      status: 'InProgress',
      phase: 'MetadataRestore',
      phaseStatus: 'InProgress',
      startTimestamp: kubeTimestamp(),
      percentageCompletion: 10,
    };
  }

  // Trilio's item lists (status.restoreApplication.custom): the snapshot's objects by kind, the ones
  // left out by the restore's excludeResourceSelector as excludedResources, and the others not
  // restored (kinds the backup annotation omits) as skippedResources.
  protected doneStatus(outcome: {
    all: readonly SnapshotItem[];
    restored: readonly SnapshotItem[];
    excluded: readonly SnapshotItem[];
    volumes: VolumeDataOutcome;
  }) {
    const restored = new Set(outcome.restored);
    const excluded = new Set(outcome.excluded);
    const now = kubeTimestamp();
    const claims = outcome.volumes.claims.filter((claim) => !excluded.has(claim));
    const dataSnapshots = claims.map((claim) => dataSnapshot(claim, outcome.volumes.startedAt, now));
    return {
      status: 'Completed',
      phase: 'MetadataRestore',
      phaseStatus: 'Completed',
      completionTimestamp: now,
      percentageCompletion: 100,
      restoreApplication: {
        custom: {
          snapshot: { resources: byKind(outcome.all), ...(dataSnapshots.length > 0 ? { dataSnapshots } : {}) },
          status: {
            skippedResources: byKind(outcome.all.filter((item) => !restored.has(item) && !excluded.has(item))),
            ...(excluded.size > 0 ? { excludedResources: byKind(outcome.excluded) } : {}),
          },
        },
      },
    };
  }

  // A claim's data did not come back: its DataRestore condition fails with the reason, the others'
  // complete, and the Restore fails in its DataRestore phase before any object is created.
  protected override volumeDataFailedStatus(volumes: VolumeDataOutcome) {
    const now = kubeTimestamp();
    const reason = `simulated failure (annotation ${SIMULATOR_FAIL_VOLUME_DATA}): the volume image could not be restored`;
    const failed = [...volumes.failed];
    return {
      status: 'Failed',
      phase: 'DataRestore',
      phaseStatus: 'Failed',
      completionTimestamp: now,
      condition: [{ phase: 'DataRestore', status: 'Failed', reason: `restoring the data of ${failed.join(', ')} failed`, timestamp: now }],
      restoreApplication: {
        custom: {
          snapshot: {
            dataSnapshots: volumes.claims.map((claim) =>
              dataSnapshot(claim, volumes.startedAt, now, volumes.failed.has(claim.metadata.name) ? reason : undefined),
            ),
          },
        },
      },
    };
  }

  protected failedStatus(reason: string) {
    const now = kubeTimestamp();
    return {
      status: 'Failed',
      phase: 'MetadataRestore',
      phaseStatus: 'Failed',
      completionTimestamp: now,
      condition: [{ phase: 'MetadataRestore', status: 'Failed', reason, timestamp: now }],
    };
  }
}

/**
 * One claim as a Trilio dataSnapshot: DataRestore InProgress at the restore's start, then
 * Completed (or Failed with `failure`) now; size = the claim's storage request (the simulator
 * moves no data, so this stands in for the restored image's size).
 */
function dataSnapshot(claim: SnapshotItem, startedAt: string, now: string, failure?: string) {
  const request = (claim.spec as { resources?: { requests?: { storage?: string } } } | undefined)?.resources?.requests?.storage;
  return {
    persistentVolumeClaimName: claim.metadata.name,
    ...(request && !failure ? { size: request } : {}),
    conditions: [
      { phase: 'DataRestore', status: 'InProgress', timestamp: startedAt },
      failure
        ? { phase: 'DataRestore', status: 'Failed', reason: failure, timestamp: now }
        : { phase: 'DataRestore', status: 'Completed', timestamp: now },
    ],
  };
}

/** Trilio's Resource list: one entry per kind with the object names. */
function byKind(items: readonly SnapshotItem[]): { groupVersionKind: { group: string; version: string; kind: string }; objects: string[] }[] {
  const kinds = new Map<string, { groupVersionKind: { group: string; version: string; kind: string }; objects: string[] }>();
  for (const item of items) {
    const [group, version] = item.apiVersion.includes('/') ? item.apiVersion.split('/') : ['', item.apiVersion];
    const key = `${item.apiVersion}/${item.kind}`;
    const entry = kinds.get(key) ?? { groupVersionKind: { group: group!, version: version!, kind: item.kind }, objects: [] };
    entry.objects.push(item.metadata?.name ?? '');
    kinds.set(key, entry);
  }
  return [...kinds.values()];
}
