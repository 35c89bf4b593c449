// Trilio for Kubernetes through its Kubernetes API only (decisions §2): Backups
// (triliovault.trilio.io/v1) of the source namespace are read; a Restore of the chosen Backup with
// restoreNamespace = the sandbox is created in the sandbox. A Backup is usable once its status is
// Available (Trilio's word for a finished backup); a Restore ends Completed or Failed/Error.
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { CustomResources, type ProviderCustomObjectsApi } from '../custom-resources.js';
import { PerNamespaceProvider, type PerNamespaceTool } from '../per-namespace-provider.js';
import type { RestoreProgress, RestoreState } from '../provider.js';
import { TRILIO_BACKUPS, TRILIO_RESTORES, type TrilioBackup, type TrilioRestore } from './trilio-types.js';

export function trilioStateOf(status: string | undefined): RestoreState {
  switch (status) {
    case undefined:
    case '':
    case 'New':
      return 'pending';
    case 'Completed':
      return 'succeeded';
    case 'Failed':
    case 'Error':
    case 'Canceled':
      return 'failed';
    default:
      return 'running'; // InProgress, Canceling, or a status this version does not know
  }
}

export function trilioProgress(restore: TrilioRestore): RestoreProgress {
  const status = restore.status ?? {};
  const state = trilioStateOf(status.status);
  const progress: RestoreProgress = {
    state,
    phase: status.status || 'New',
    warnings: 0,
    errors: state === 'failed' ? 1 : 0,
  };
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
    const status = backup.status?.status ?? 'New';
    return status === 'Available' ? undefined : `is ${status}; a restore needs an Available backup`;
  },
  restoreBody: ({ name, labels, backup, source, sandbox }) => ({
    apiVersion: `${TRILIO_RESTORES.group}/${TRILIO_RESTORES.version}`,
    kind: 'Restore',
    metadata: { name, namespace: sandbox, labels: { ...labels } },
    spec: {
      source: { type: 'Backup', backup: { name: backup, namespace: source } },
      restoreNamespace: sandbox,
      skipIfAlreadyExists: true,
    },
  }),
  sameRequest: (existing, wanted) =>
    existing.spec?.source?.backup?.name === wanted.spec?.source?.backup?.name &&
    existing.spec?.source?.backup?.namespace === wanted.spec?.source?.backup?.namespace &&
    existing.spec?.restoreNamespace === wanted.spec?.restoreNamespace,
  progress: trilioProgress,
});

export class TrilioProvider extends PerNamespaceProvider<TrilioBackup, TrilioRestore> {
  constructor(kubeConfigOrApi: KubeConfig | ProviderCustomObjectsApi) {
    super(
      trilioTool(
        kubeConfigOrApi instanceof KubeConfig
          ? kubeConfigOrApi.makeApiClient(CustomObjectsApi)
          : kubeConfigOrApi,
      ),
    );
  }
}
