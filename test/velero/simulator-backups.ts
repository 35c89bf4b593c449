// Helpers for tests and the demo around a Velero server (the simulator or a real one).
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, TERMINAL, VERSION } from './simulator-model.js';

// ------------------------------------------------------------------ helpers for tests and the demo

export interface CreateBackupOptions {
  name: string;
  /** spec.includedNamespaces (names, '*' or globs); empty = all namespaces, as in Velero. */
  namespaces: string[];
  excludedNamespaces?: string[];
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** Velero namespace; default "velero". */
  veleroNamespace?: string;
  /** Go duration; default 720h0m0s (Velero's default). */
  ttl?: string;
  /** spec.defaultVolumesToFsBackup: every pod volume's data through the node agent (real Velero only). */
  defaultVolumesToFsBackup?: boolean;
  /**
   * spec.includeClusterResources (default false). `null` leaves it unset, Velero's default: the
   * PersistentVolumes of the included claims are backed up too, and with them Velero's volume
   * information (which lists each claim and how its data was kept).
   */
  includeClusterResources?: boolean | null;
  /** spec.snapshotVolumes: CSI snapshots of the claims (real Velero with EnableCSI only). */
  snapshotVolumes?: boolean;
  /** spec.snapshotMoveData: the snapshots' data moved to the object store by the node agent (CSI data mover). */
  snapshotMoveData?: boolean;
  /** Phase to wait for (default Completed); another terminal phase throws. 'none' = do not wait. */
  expectPhase?: 'Completed' | 'PartiallyFailed' | 'Failed' | 'none';
  timeoutMs?: number;
}

export interface SimulatedBackup {
  metadata: { name: string; namespace: string; uid?: string; creationTimestamp?: string };
  spec: { includedNamespaces?: string[]; excludedNamespaces?: string[] };
  status?: {
    phase?: string;
    completionTimestamp?: string;
    progress?: { totalItems?: number; itemsBackedUp?: number };
  };
}

/**
 * Creates a velero.io/v1 Backup and waits until a Velero server (the simulator, or a real one)
 * finishes it in `expectPhase`. Needs a running server for that namespace.
 */
export async function createBackup(
  kubeConfig: KubeConfig,
  options: CreateBackupOptions,
): Promise<SimulatedBackup> {
  const namespace = options.veleroNamespace ?? 'velero';
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const body = {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Backup',
    metadata: {
      name: options.name,
      namespace,
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      includedNamespaces: options.namespaces,
      ...(options.excludedNamespaces ? { excludedNamespaces: options.excludedNamespaces } : {}),
      ...(options.includeClusterResources === null ? {} : { includeClusterResources: options.includeClusterResources ?? false }),
      ...(options.defaultVolumesToFsBackup ? { defaultVolumesToFsBackup: true } : {}),
      ...(options.snapshotVolumes !== undefined ? { snapshotVolumes: options.snapshotVolumes } : {}),
      ...(options.snapshotMoveData ? { snapshotMoveData: true } : {}),
      storageLocation: 'default',
      ttl: options.ttl ?? '720h0m0s',
    },
  };
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: 'backups',
    body,
  });
  const expected = options.expectPhase ?? 'Completed';
  const read = async () =>
    (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'backups',
      name: options.name,
    })) as SimulatedBackup;
  if (expected === 'none') return read();
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const backup = await read();
    const phase = backup.status?.phase ?? '';
    if (phase === expected) return backup;
    if (TERMINAL.has(phase)) {
      throw new Error(`backup ${namespace}/${options.name} ended ${phase}, expected ${expected}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `backup ${namespace}/${options.name} still ${phase || 'without a phase'} after ${options.timeoutMs ?? 30_000} ms ` +
          '(is a Velero simulator serving this namespace?)',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
