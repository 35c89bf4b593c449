// Trilio for Kubernetes through its Kubernetes API only (decision 0002): Backups
// (triliovault.trilio.io/v1) of the source namespace are read; a Restore of the chosen Backup is
// created in the sandbox, which is where TVK restores it (trilio-restore-request.ts). A Backup is
// usable once its status is Available (Trilio's word for a finished backup); a Restore is Pending,
// then InProgress, and ends Completed, or Failed or Error.
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { CustomResources, type ProviderCustomObjectsApi } from '../custom-resources.js';
import { PerNamespaceProvider, type PerNamespaceTool } from '../per-namespace-provider.js';
import type { RestoreProgress, RestoreState } from '../provider.js';
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import { trilioBackupFacts, trilioInventorySchedules } from './trilio-inventory.js';
import {
  TRILIO_BACKUP_PLANS,
  TRILIO_BACKUPS,
  TRILIO_POLICIES,
  TRILIO_RESTORES,
  type TrilioBackup,
  type TrilioBackupPlan,
  type TrilioPolicy,
  type TrilioResource,
  type TrilioRestore,
  type TrilioRestoreComponent,
} from './trilio-types.js';
import { sameTrilioRequest, trilioRestoreBody } from './trilio-restore-request.js';
import { TRILIO_TRANSFORMS_NOT_DONE } from './trilio-transforms.js';
import { trilioVolumes } from './trilio-volume-restores.js';

export function trilioStateOf(status: string | undefined): RestoreState {
  switch (status) {
    case undefined:
    case '':
    case 'Pending':
      return 'pending';
    case 'Completed':
      return 'succeeded';
    case 'Failed':
    case 'Error':
      return 'failed';
    default:
      return 'running'; // InProgress, or a status this version does not know
  }
}

function objectCount(resources: readonly TrilioResource[] | undefined): number {
  return (resources ?? []).reduce((sum, resource) => sum + (resource.objects?.length ?? 0), 0);
}

/**
 * Item counts from status.restoreApplication: the objects of every component's snapshot, less
 * those excluded on purpose (what the restore set out to restore), less those that failed or were
 * skipped. Undefined when Trilio gives no restoreApplication (nothing to count from).
 */
export function trilioItems(
  restore: TrilioRestore,
): { total: number; restored: number; failed: number; skipped: number } | undefined {
  const application = restore.status?.restoreApplication;
  if (!application) return undefined;
  const components: TrilioRestoreComponent[] = [
    ...(application.custom ? [application.custom] : []),
    ...(application.helmCharts ?? []),
    ...(application.operators ?? []),
  ];
  let total = 0;
  let failed = 0;
  let skipped = 0;
  for (const component of components) {
    const snapshot = component.snapshot ?? {};
    total +=
      objectCount(snapshot.resources) + objectCount(snapshot.customResources) + objectCount(snapshot.operatorResources) -
      objectCount(component.status?.excludedResources);
    failed += objectCount(component.status?.failedResources);
    skipped += objectCount(component.status?.skippedResources);
  }
  total = Math.max(0, total);
  return { total, restored: Math.max(0, total - failed - skipped), failed, skipped };
}

export function trilioProgress(restore: TrilioRestore): RestoreProgress {
  const status = restore.status ?? {};
  const state = trilioStateOf(status.status);
  const items = state === 'succeeded' || state === 'failed' ? trilioItems(restore) : undefined;
  // Completed with failed resources is Trilio's "finished with errors" (Velero's PartiallyFailed).
  const partial = state === 'succeeded' && items !== undefined && items.failed > 0;
  const progress: RestoreProgress = {
    state: partial ? 'partiallyFailed' : state,
    phase: status.status || 'Pending',
    warnings: items?.skipped ?? 0,
    errors: items?.failed || (state === 'failed' ? 1 : 0),
  };
  if (items && state === 'succeeded') {
    progress.itemsRestored = items.restored;
    progress.totalItems = items.total;
  }
  if (state === 'failed') {
    const failed = [...(status.condition ?? [])]
      .reverse()
      .find((entry) => entry.status === 'Failed' || entry.status === 'Error');
    progress.message =
      failed?.reason ??
      `Trilio Restore ${status.status}${status.phase ? ` in phase ${status.phase}` : ''} without a reason`;
  }
  if (status.completionTimestamp && (state === 'succeeded' || state === 'failed'))
    progress.completedAt = status.completionTimestamp;
  // Issue 27: the claims whose data the ended restore brought back, or failed to (a failed
  // DataRestore fails the whole Restore, so a failed one lists them too).
  if (state === 'succeeded' || state === 'failed') {
    const volumes = trilioVolumes(restore);
    if (volumes.length > 0) progress.volumes = volumes;
  }
  return progress;
}

export const trilioTool = (api: ProviderCustomObjectsApi): PerNamespaceTool<TrilioBackup, TrilioRestore> => ({
  provider: 'trilio',
  backupNoun: 'Trilio backup',
  backups: new CustomResources<TrilioBackup>(api, TRILIO_BACKUPS),
  restores: new CustomResources<TrilioRestore>(api, TRILIO_RESTORES),
  completedAt: (backup) => backup.status?.completionTimestamp,
  unusable: (backup) => {
    if (backup.metadata.deletionTimestamp) return 'is being deleted';
    const status = backup.status?.status;
    if (status === 'Available') return undefined;
    return `is ${status ?? 'without a status yet'}; a restore needs an Available backup`;
  },
  restoreBody: trilioRestoreBody,
  sameRequest: sameTrilioRequest,
  progress: trilioProgress,
});

export class TrilioProvider extends PerNamespaceProvider<TrilioBackup, TrilioRestore> {
  readonly transformsNotDone = TRILIO_TRANSFORMS_NOT_DONE;
  private readonly plans: CustomResources<TrilioBackupPlan>;
  private readonly policies: CustomResources<TrilioPolicy>;
  private readonly backups: CustomResources<TrilioBackup>;

  constructor(kubeConfigOrApi: KubeConfig | ProviderCustomObjectsApi) {
    const api = kubeConfigOrApi instanceof KubeConfig ? kubeConfigOrApi.makeApiClient(CustomObjectsApi) : kubeConfigOrApi;
    super(trilioTool(api));
    this.plans = new CustomResources<TrilioBackupPlan>(api, TRILIO_BACKUP_PLANS);
    this.policies = new CustomResources<TrilioPolicy>(api, TRILIO_POLICIES);
    this.backups = new CustomResources<TrilioBackup>(api, TRILIO_BACKUPS);
  }

  /**
   * Backup coverage and test drafts (issue 32): every BackupPlan with the schedule Policies it
   * names, and every Available Backup, across namespaces (trilio-inventory.ts).
   */
  async listBackupInventory(): Promise<{ schedules: BackupScheduleFacts[]; backups: BackupFacts[] }> {
    const [plans, policies, backups] = await Promise.all([
      this.plans.listEverywhere(),
      this.policies.listEverywhere(),
      this.backups.listEverywhere(),
    ]);
    return { schedules: trilioInventorySchedules(plans, policies), backups: trilioBackupFacts(backups) };
  }
}
