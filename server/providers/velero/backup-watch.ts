// Velero Backups followed by watch, so a test with spec.schedule.onBackup (issue 32) runs soon
// after its source's backup completes, not only at its next poll. One informer per Velero
// namespace an onBackup test uses (started on first use), holding of each Backup only its phase.
// A Backup that reaches Completed calls onCompleted; which tests that concerns, and whether it is
// new to them, is the engine's decision (domain/run/backup-trigger.ts), from the restorable
// backups it lists then. RBAC: list/watch of backups in those namespaces (rehearsal's role has it).
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ResilientInformer, type InformerMetrics } from '../../kube/informer.js';
import { BACKUPS, VELERO_VERSION, type VeleroBackup } from './velero-types.js';

export interface BackupWatchOptions {
  group: string;
  /** Called with the Velero namespace when one of its Backups has just completed. */
  onCompleted: (veleroNamespace: string, backupName: string) => void;
  log: Logger;
  metrics?: InformerMetrics;
}

/** Only what "has it just completed" needs: a watch of every Backup must stay small. */
function project(object: KubernetesObject): VeleroBackup {
  const backup = object as VeleroBackup;
  return {
    metadata: { name: backup.metadata.name, ...(backup.metadata.namespace ? { namespace: backup.metadata.namespace } : {}) },
    ...(backup.status?.phase ? { status: { phase: backup.status.phase } } : {}),
  };
}

/** Whether this change is a Backup reaching Completed (an add counts: the informer's first sync or a late watch). */
export function justCompleted(current: VeleroBackup | undefined, previous: VeleroBackup | undefined): boolean {
  return current?.status?.phase === 'Completed' && previous?.status?.phase !== 'Completed';
}

export class VeleroBackupWatch {
  private readonly informers = new Map<string, ResilientInformer<VeleroBackup>>();
  private stopped = false;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly options: BackupWatchOptions,
  ) {}

  /** Starts following a namespace's Backups (idempotent). */
  follow(namespace: string): void {
    if (this.stopped || this.informers.has(namespace)) return;
    const informer = new ResilientInformer<VeleroBackup>(
      this.kubeConfig,
      {
        name: `velero-backups/${namespace}`,
        apiVersion: `${this.options.group}/${VELERO_VERSION}`,
        kind: 'Backup',
        collectionPath: `/apis/${this.options.group}/${VELERO_VERSION}/namespaces/${namespace}/${BACKUPS}`,
        namespace,
        project,
      },
      this.options.log,
      this.options.metrics,
    );
    informer.onChange((_event, _key, current, previous) => {
      if (justCompleted(current, previous)) this.options.onCompleted(namespace, current!.metadata.name);
    });
    this.informers.set(namespace, informer);
    void informer.start();
  }

  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
    this.informers.clear();
  }
}
