// Veeam Kasten (K10) through its Kubernetes API only (decision 0002): RestorePoints
// (apps.kio.kasten.io) of the source namespace are read; a RestoreAction (actions.kio.kasten.io)
// of the chosen RestorePoint with targetNamespace = the sandbox is created in the sandbox.
// Kasten's documentation creates RestoreActions in the application's namespace; Rehearsal never
// writes to a source namespace, so it creates the action in the target (sandbox) namespace instead.
import canonicalize from 'canonicalize';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { CustomResources, type ProviderCustomObjectsApi } from '../custom-resources.js';
import { PerNamespaceProvider, type PerNamespaceTool } from '../per-namespace-provider.js';
import type { RestoreProgress, RestoreState } from '../provider.js';
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import { kastenBackupFacts, kastenScheduleFacts } from './kasten-inventory.js';
import {
  POLICIES,
  RESTORE_ACTIONS,
  RESTORE_POINTS,
  type KastenPolicy,
  type KastenActionState,
  type KastenRestoreAction,
  type KastenRestorePoint,
} from './kasten-types.js';
import { kastenTransforms } from './kasten-transforms.js';

export function kastenStateOf(state: KastenActionState | string | undefined): RestoreState {
  switch (state) {
    case undefined:
    case '':
    case 'Pending':
      return 'pending';
    case 'Complete':
      return 'succeeded';
    case 'Failed':
    case 'Skipped':
    case 'Cancelled':
      return 'failed';
    default:
      return 'running'; // Running, AttemptFailed (K10 retries), or a state this version does not know
  }
}

export function kastenProgress(action: KastenRestoreAction): RestoreProgress {
  const status = action.status ?? {};
  const state = kastenStateOf(status.state);
  const progress: RestoreProgress = {
    state,
    phase: status.state || 'Pending',
    warnings: 0,
    errors: state === 'failed' ? 1 : 0,
  };
  const message =
    status.error?.message ||
    (state === 'failed' ? `RestoreAction ${status.state} without a message from Kasten` : undefined);
  if (message) progress.message = message;
  if (status.endTime && (state === 'succeeded' || state === 'failed')) progress.completedAt = status.endTime;
  return progress;
}

export const kastenTool = (
  api: ProviderCustomObjectsApi,
): PerNamespaceTool<KastenRestorePoint, KastenRestoreAction> => ({
  provider: 'kasten',
  backupNoun: 'Kasten restore point',
  backups: new CustomResources<KastenRestorePoint>(api, RESTORE_POINTS),
  restores: new CustomResources<KastenRestoreAction>(api, RESTORE_ACTIONS),
  completedAt: (point) => point.status?.actionTime ?? point.metadata.creationTimestamp,
  // A RestorePoint exists only once its backup finished; one being deleted is retired by a policy.
  unusable: (point) => (point.metadata.deletionTimestamp ? 'is being deleted' : undefined),
  restoreBody: ({ name, labels, backup, source, sandbox, transforms, subset }) => ({
    apiVersion: `${RESTORE_ACTIONS.group}/${RESTORE_ACTIONS.version}`,
    kind: 'RestoreAction',
    metadata: {
      name,
      namespace: sandbox,
      labels: { ...labels, 'k10.kasten.io/appName': source, 'k10.kasten.io/appNamespace': source },
    },
    spec: { subject: { kind: 'RestorePoint', name: backup, namespace: source }, targetNamespace: sandbox, ...kastenTransforms(transforms, subset) },
  }),
  sameRequest: (existing, wanted) =>
    existing.spec?.subject?.name === wanted.spec?.subject?.name &&
    existing.spec?.subject?.namespace === wanted.spec?.subject?.namespace &&
    existing.spec?.targetNamespace === wanted.spec?.targetNamespace &&
    // Canonically: the apiserver gives an object's keys back in its own order, not Rehearsal's.
    canonicalize([existing.spec?.filters ?? null, existing.spec?.transforms ?? null]) ===
      canonicalize([wanted.spec?.filters ?? null, wanted.spec?.transforms ?? null]),
  progress: kastenProgress,
});

export class KastenProvider extends PerNamespaceProvider<KastenRestorePoint, KastenRestoreAction> {
  private readonly policies: CustomResources<KastenPolicy>;
  private readonly restorePoints: CustomResources<KastenRestorePoint>;

  constructor(kubeConfigOrApi: KubeConfig | ProviderCustomObjectsApi) {
    const api = kubeConfigOrApi instanceof KubeConfig ? kubeConfigOrApi.makeApiClient(CustomObjectsApi) : kubeConfigOrApi;
    super(kastenTool(api));
    this.policies = new CustomResources<KastenPolicy>(api, POLICIES);
    this.restorePoints = new CustomResources<KastenRestorePoint>(api, RESTORE_POINTS);
  }

  /**
   * Backup coverage and test drafts (issue 32): the Policies that take backups and every
   * RestorePoint, across namespaces (kasten-inventory.ts).
   */
  async listBackupInventory(): Promise<{ schedules: BackupScheduleFacts[]; backups: BackupFacts[] }> {
    const [policies, points] = await Promise.all([this.policies.listEverywhere(), this.restorePoints.listEverywhere()]);
    return {
      schedules: policies.flatMap((policy) => kastenScheduleFacts(policy) ?? []),
      backups: kastenBackupFacts(points),
    };
  }
}
