// Reads what the backup tool backs up (its schedules and restorable backups) and the namespaces a
// wildcard backup stands for. Kubernetes system namespaces, the tool's own namespace and
// Rehearsal's sandboxes are left out: nobody restore-tests kube-system, and a sandbox that a
// cluster-wide backup happened to catch is not an application.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { BackupInventory } from '../domain/read-models/coverage.js';
import { kubeCall } from '../kube/errors.js';
import type { BackupProvider } from '../providers/provider.js';

const MANAGED_BY = 'rehearsal.dev/managed-by';

export interface InventoryReaderOptions {
  provider: BackupProvider;
  core: Pick<CoreV1Api, 'listNamespace'>;
  /** The tool's own namespace (velero) and Rehearsal's, never applications to test. */
  excludedNamespaces: readonly string[];
}

export function isApplicationNamespace(
  name: string,
  labels: Record<string, string> | undefined,
  excluded: ReadonlySet<string>,
): boolean {
  if (excluded.has(name) || name.startsWith('kube-')) return false;
  return labels?.[MANAGED_BY] !== 'rehearsal';
}

/** A function reading the current inventory; undefined when the provider cannot list backups. */
export function inventoryReader(options: InventoryReaderOptions): (() => Promise<BackupInventory>) | undefined {
  const list = options.provider.listBackupInventory?.bind(options.provider);
  if (!list) return undefined;
  const excluded = new Set(options.excludedNamespaces);
  return async () => {
    const [tool, namespaces] = await Promise.all([
      list(),
      kubeCall(() => options.core.listNamespace({})),
    ]);
    const clusterNamespaces = (namespaces.items ?? [])
      .filter((item) => item.metadata?.name && !item.metadata.deletionTimestamp)
      .filter((item) => isApplicationNamespace(item.metadata!.name!, item.metadata?.labels, excluded))
      .map((item) => item.metadata!.name!);
    return { ...tool, clusterNamespaces };
  };
}
