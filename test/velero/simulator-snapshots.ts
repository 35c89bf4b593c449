// Where the Velero simulator keeps its backups (NOT VELERO; see simulator.ts): a snapshot of the
// covered namespaces, read (never written) through the API, stored gzip + base64 in a Secret of the
// Velero namespace owned by its Backup.
import type { CoreV1Api, KubernetesObjectApi, V1Secret } from '@kubernetes/client-node';
import {
  decodeSnapshot,
  globMatches,
  GROUP,
  isClusterManaged,
  LABEL_BACKUP_NAME,
  labelValue,
  MANAGED_BY,
  SNAPSHOT_DATA_KEY,
  SNAPSHOT_KINDS,
  snapshotSecretName,
  statusCode,
  VERSION,
  type BackupObject,
  type BackupSnapshot,
  type SnapshotItem,
} from './simulator-model.js';

export class SnapshotStore {
  constructor(
    private readonly core: CoreV1Api,
    private readonly objects: KubernetesObjectApi,
    private readonly namespace: string,
  ) {}

  /** Reads (never writes) the namespaces a Backup covers. */
  async take(
    backupName: string,
    spec: NonNullable<BackupObject['spec']>,
  ): Promise<BackupSnapshot> {
    const included = spec.includedNamespaces ?? [];
    const excluded = spec.excludedNamespaces ?? [];
    let candidates: string[];
    if (included.length > 0 && included.every((pattern) => !/[*?[]/.test(pattern))) {
      candidates = [...new Set(included)];
    } else {
      const namespaces = await this.core.listNamespace();
      candidates = namespaces.items
        .map((namespace) => namespace.metadata?.name ?? '')
        .filter(
          (namespace) => included.length === 0 || included.some((pattern) => globMatches(pattern, namespace)),
        );
    }
    const namespaces = candidates.filter(
      (namespace) => namespace !== '' && !excluded.some((pattern) => globMatches(pattern, namespace)),
    );
    const items: SnapshotItem[] = [];
    for (const namespace of namespaces) {
      for (const { apiVersion, kind } of SNAPSHOT_KINDS) {
        let continueToken: string | undefined;
        do {
          const page = await this.objects.list(
            apiVersion,
            kind,
            namespace,
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            500,
            continueToken,
          );
          for (const object of page.items) {
            const item = { ...object, apiVersion, kind } as SnapshotItem;
            if (isClusterManaged(item)) continue;
            const metadata = { ...item.metadata };
            delete metadata.managedFields;
            items.push({ ...item, metadata });
          }
          continueToken = page.metadata?._continue || undefined;
        } while (continueToken);
      }
    }
    return { formatVersion: 1, backupName, namespaces, items };
  }

  async store(backup: BackupObject, encoded: string): Promise<void> {
    const name = snapshotSecretName(backup.metadata.name);
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace: this.namespace,
        labels: {
          [LABEL_BACKUP_NAME]: labelValue(backup.metadata.name),
          'app.kubernetes.io/managed-by': MANAGED_BY,
        },
        ...(backup.metadata.uid
          ? {
              ownerReferences: [
                {
                  apiVersion: `${GROUP}/${VERSION}`,
                  kind: 'Backup',
                  name: backup.metadata.name,
                  uid: backup.metadata.uid,
                },
              ],
            }
          : {}),
      },
      type: 'Opaque',
      data: { [SNAPSHOT_DATA_KEY]: encoded },
    };
    try {
      await this.core.createNamespacedSecret({ namespace: this.namespace, body });
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
      await this.core.replaceNamespacedSecret({ name, namespace: this.namespace, body }); // a rerun after a restart
    }
  }

  async load(backupName: string): Promise<BackupSnapshot | undefined> {
    try {
      const secret = await this.core.readNamespacedSecret({
        name: snapshotSecretName(backupName),
        namespace: this.namespace,
      });
      const data = secret.data?.[SNAPSHOT_DATA_KEY];
      return data ? decodeSnapshot(data) : undefined;
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }
}
