// ============================================================================================
//  KASTEN SIMULATOR — for Rehearsal's tests only. THIS IS NOT VEEAM KASTEN (K10).
// ============================================================================================
// Plays K10's part on the CRDs in test/kasten/crds (written by Rehearsal's developers from Kasten's
// public API documentation, not Kasten's own CRDs): takeBackup() makes a RestorePoint
// (apps.kio.kasten.io/v1alpha1) in the application's namespace; each new RestoreAction
// (actions.kio.kasten.io/v1alpha1) goes Pending → Running → Complete (status.state, startTime,
// endTime, progress) or Failed (status.error.message). Kasten documents nothing per volume on a
// RestoreAction, so neither does this simulator: a claim whose data is not restored (annotation
// simulator.rehearsal.dev/fail-volume-data) fails the action with an error message naming it. See
// test/providers/namespaced-tool-simulator.ts for what is restored, the tripwire and the
// failure-injection annotations.
import { NamespacedToolSimulator, type ToolRestoreRequest } from '../providers/namespaced-tool-simulator.js';
import { kubeTimestamp, type SnapshotItem } from '../velero/simulator.js';
import { groupResourceOf } from '../velero/simulator-model.js';
import { applyKastenTransforms, kastenExcludes } from '../providers/restore-transforms-sim.js';

interface Action {
  spec?: {
    subject?: { name?: string; namespace?: string };
    targetNamespace?: string;
    filters?: Parameters<typeof kastenExcludes>[0];
    transforms?: Parameters<typeof applyKastenTransforms>[2];
  };
  status?: { state?: string };
}

export class KastenSimulator extends NamespacedToolSimulator {
  protected readonly tool = 'Kasten';
  protected readonly backupType = {
    group: 'apps.kio.kasten.io',
    version: 'v1alpha1',
    plural: 'restorepoints',
    kind: 'RestorePoint',
  };
  protected readonly restoreType = {
    group: 'actions.kio.kasten.io',
    version: 'v1alpha1',
    plural: 'restoreactions',
    kind: 'RestoreAction',
  };

  protected backupBody(namespace: string, name: string, completedAt: string) {
    return {
      spec: { restorePointContentRef: { name: `${namespace}-${name}` } },
      status: { actionTime: completedAt },
    };
  }

  protected readRestore(restore: Action): ToolRestoreRequest | undefined {
    const { subject, targetNamespace } = restore.spec ?? {};
    if (!subject?.name || !subject.namespace || !targetNamespace) return undefined;
    return { backupName: subject.name, backupNamespace: subject.namespace, target: targetNamespace };
  }

  // spec.filters.excludeResources leave objects out; spec.transforms change the rest (K10's docs).
  protected override transformItem(restore: Action, item: SnapshotItem): SnapshotItem | undefined {
    const resource = groupResourceOf(item).split('.')[0]!;
    if (kastenExcludes(restore.spec?.filters, item, resource)) return undefined;
    return applyKastenTransforms(item, resource, restore.spec?.transforms);
  }

  protected isNew(restore: Action): boolean {
    return !restore.status?.state || restore.status.state === 'Pending';
  }

  protected runningStatus() {
    return { state: 'Running', startTime: kubeTimestamp(), progress: 10 };
  }

  protected doneStatus() {
    return { state: 'Complete', endTime: kubeTimestamp(), progress: 100 };
  }

  protected failedStatus(reason: string) {
    return { state: 'Failed', endTime: kubeTimestamp(), error: { message: reason } };
  }
}
