// The Velero simulator's model (NOT VELERO; see simulator.ts): its failure-injection annotations,
// what a simulated backup holds (the snapshot) and how a restore recreates it, the Velero objects it
// reads, and Velero's restore validation plus the simulator's sandbox tripwire. Pure.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubernetesObject } from '@kubernetes/client-node';

export const SIMULATOR_RESTORE_OUTCOME = 'simulator.rehearsal.dev/restore-outcome';
export const SIMULATOR_OMIT_KINDS = 'simulator.rehearsal.dev/omit-kinds';
export const SIMULATOR_RESTORE_DELAY_MS = 'simulator.rehearsal.dev/restore-delay-ms';
export const SIMULATOR_BACKUP_OUTCOME = 'simulator.rehearsal.dev/backup-outcome';
/** Pod volumes whose data a restore brings back through the node agent: "<namespace>/<pod>/<volume>=<bytes>,...". */
export const SIMULATOR_POD_VOLUMES = 'simulator.rehearsal.dev/pod-volumes';
export const SIMULATOR_TRIPWIRE_PREFIX = 'simulator tripwire:';

export const SNAPSHOT_SECRET_PREFIX = 'velero-sim-backup-';
export const SNAPSHOT_DATA_KEY = 'snapshot.json.gz';
export const MANAGED_BY = 'velero-simulator';
export const LABEL_BACKUP_NAME = 'velero.io/backup-name';
export const LABEL_RESTORE_NAME = 'velero.io/restore-name';
export const GROUP = 'velero.io';
export const VERSION = 'v1';
/** Secrets hold at most 1 MiB; leave room for metadata. */
export const MAX_SNAPSHOT_BYTES = 900 * 1024;

export interface SnapshotKind {
  apiVersion: string;
  kind: string;
  /** Plural resource name (restore transforms select by "<resource>.<group>"). */
  resource: string;
}

/** What a simulated backup holds, in the order a restore creates it (Velero's priorities, roughly). */
export const SNAPSHOT_KINDS: readonly SnapshotKind[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount', resource: 'serviceaccounts' },
  { apiVersion: 'v1', kind: 'Secret', resource: 'secrets' },
  { apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', resource: 'roles' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', resource: 'rolebindings' },
  { apiVersion: 'v1', kind: 'Service', resource: 'services' },
  { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', resource: 'statefulsets' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', resource: 'daemonsets' },
  { apiVersion: 'batch/v1', kind: 'CronJob', resource: 'cronjobs' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', resource: 'ingresses' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', resource: 'networkpolicies' },
];

/** "<resource>.<group>" (or the resource of the core group) of a snapshot item: Velero's groupResource. */
export function groupResourceOf(item: { apiVersion: string; kind: string }): string {
  const type = SNAPSHOT_KINDS.find((entry) => entry.apiVersion === item.apiVersion && entry.kind === item.kind);
  const resource = type?.resource ?? `${item.kind.toLowerCase()}s`;
  const group = item.apiVersion.includes('/') ? item.apiVersion.split('/')[0] : '';
  return group ? `${resource}.${group}` : resource;
}

export interface SnapshotItem extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: NonNullable<KubernetesObject['metadata']> & { name: string; namespace: string };
  [field: string]: unknown;
}

export interface BackupSnapshot {
  formatVersion: 1;
  backupName: string;
  namespaces: string[];
  items: SnapshotItem[];
}

export interface SimObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: { phase?: string } & Record<string, unknown>;
}

export interface BackupObject extends SimObject {
  spec?: { includedNamespaces?: string[]; excludedNamespaces?: string[]; ttl?: string };
}

export interface RestoreObject extends SimObject {
  spec?: {
    backupName?: string;
    scheduleName?: string;
    includedNamespaces?: string[];
    namespaceMapping?: Record<string, string>;
    includeClusterResources?: boolean;
    excludedResources?: string[];
    resourceModifier?: { kind?: string; name?: string };
  };
}

export interface DownloadObject extends SimObject {
  spec?: { target?: { kind?: string; name?: string } };
}

// ------------------------------------------------------------------ pod volume data (issue 27)

/** One Pod volume of the backup whose data a restore brings back (SIMULATOR_POD_VOLUMES). */
export interface SimulatedPodVolume {
  /** The Pod's namespace in the backup (a restore maps it to its target). */
  namespace: string;
  pod: string;
  volume: string;
  bytes: number;
}

/**
 * The entries of SIMULATOR_POD_VOLUMES ("<namespace>/<pod>/<volume>=<bytes>", comma-separated);
 * `unreadable` lists the entries that are not in that form (the restore then fails, loudly).
 */
export function parsePodVolumes(value: string | undefined): { volumes: SimulatedPodVolume[]; unreadable: string[] } {
  const volumes: SimulatedPodVolume[] = [];
  const unreadable: string[] = [];
  for (const entry of (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = /^([^/=\s]+)\/([^/=\s]+)\/([^/=\s]+)=(\d+)$/.exec(entry);
    if (!match) unreadable.push(entry);
    else volumes.push({ namespace: match[1]!, pod: match[2]!, volume: match[3]!, bytes: Number(match[4]) });
  }
  return { volumes, unreadable };
}

/**
 * The PodVolumeRestore (velero.io/v1) Velero's restore makes for one restored Pod volume, as
 * pkg/podvolume/restorer.go does: in the Velero namespace, named after the restore, owned by it,
 * labelled velero.io/restore-name and -uid; spec.pod is the Pod in the TARGET namespace. Created
 * InProgress (the node agent's part); completedPodVolumeStatus() ends it. The simulator keeps no
 * volume data: the repository and snapshot ID name nothing, and no Pod is looked up.
 */
export function podVolumeRestoreFor(
  restore: RestoreObject,
  volume: SimulatedPodVolume,
  targetNamespace: string,
  started: Date,
): Record<string, unknown> {
  const { name, uid } = restore.metadata;
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'PodVolumeRestore',
    metadata: {
      generateName: `${name}-`,
      labels: {
        [LABEL_RESTORE_NAME]: labelValue(name),
        ...(uid ? { 'velero.io/restore-uid': uid } : {}),
        'app.kubernetes.io/managed-by': MANAGED_BY,
      },
      ...(uid
        ? { ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'Restore', name, uid, controller: true }] }
        : {}),
    },
    spec: {
      pod: { kind: 'Pod', namespace: targetNamespace, name: volume.pod },
      volume: volume.volume,
      sourceNamespace: volume.namespace,
      backupStorageLocation: 'default',
      repoIdentifier: `velero-simulator:${volume.namespace}`,
      snapshotID: `simulated-${volume.pod}-${volume.volume}`,
      snapshotSize: volume.bytes,
      uploaderType: 'kopia',
    },
    status: {
      phase: 'InProgress',
      startTimestamp: kubeTimestamp(started),
      progress: { totalBytes: volume.bytes, bytesDone: 0 },
    },
  };
}

/** The status a PodVolumeRestore ends with once the node agent has written all its bytes. */
export function completedPodVolumeStatus(volume: SimulatedPodVolume, completed: Date): Record<string, unknown> {
  return {
    phase: 'Completed',
    completionTimestamp: kubeTimestamp(completed),
    progress: { totalBytes: volume.bytes, bytesDone: volume.bytes },
  };
}

export const TERMINAL = new Set(['Completed', 'PartiallyFailed', 'Failed', 'FailedValidation', 'Deleting', 'Processed']);
/** Velero's DownloadURLTTL. */
export const DOWNLOAD_URL_TTL_MS = 10 * 60 * 1000;

/** Kubernetes timestamps have whole seconds (metav1.Time). */
export function kubeTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go duration ("720h0m0s", "24h", "90m") in milliseconds; undefined when unreadable. */
export function parseGoDuration(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  let rest = value.trim();
  if (rest === '' || rest === '0') return rest === '0' ? 0 : undefined;
  while (rest.length > 0) {
    const match = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * (units[match[2] as string] as number);
    rest = rest.slice(match[0].length);
  }
  return total;
}

export function globMatches(pattern: string, namespace: string): boolean {
  if (pattern === '*') return true;
  if (!/[*?[]/.test(pattern)) return pattern === namespace;
  const source = pattern
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(namespace);
}

export function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

export function describeError(error: unknown): string {
  const body = (error as { body?: unknown } | undefined)?.body;
  if (typeof body === 'string') {
    try {
      const message = (JSON.parse(body) as { message?: string }).message;
      if (message) return message;
    } catch {
      // not JSON: fall through
    }
  }
  return error instanceof Error ? error.message : String(error);
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('simulator stopped'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('simulator stopped'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function snapshotSecretName(backupName: string): string {
  return `${SNAPSHOT_SECRET_PREFIX}${backupName}`;
}

export function encodeSnapshot(snapshot: BackupSnapshot): string {
  return gzipSync(Buffer.from(JSON.stringify(snapshot))).toString('base64');
}

export function decodeSnapshot(data: string): BackupSnapshot {
  return JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as BackupSnapshot;
}

/** Objects the cluster creates in every namespace by itself; Velero would only report them as existing. */
export function isClusterManaged(item: SnapshotItem): boolean {
  if (item.kind === 'ConfigMap' && item.metadata.name === 'kube-root-ca.crt') return true;
  if (item.kind === 'ServiceAccount' && item.metadata.name === 'default') return true;
  if (item.kind === 'Secret' && (item as { type?: string }).type === 'kubernetes.io/service-account-token')
    return true;
  return false;
}

export function labelValue(value: string): string {
  return value.length <= 63 ? value : value.slice(0, 63).replace(/[^a-zA-Z0-9]+$/, '');
}

/** The object as the restore creates it in `targetNamespace`: cluster-assigned fields removed. */
export function prepareForRestore(
  item: SnapshotItem,
  targetNamespace: string,
  backupName: string,
  restoreName: string,
): SnapshotItem {
  const copy = structuredClone(item) as SnapshotItem & { spec?: Record<string, unknown> };
  const source = item.metadata;
  const annotations = { ...(source.annotations ?? {}) };
  for (const key of Object.keys(annotations)) {
    if (key.startsWith('pv.kubernetes.io/') || key === 'volume.kubernetes.io/selected-node')
      delete annotations[key];
  }
  copy.metadata = {
    name: source.name,
    namespace: targetNamespace,
    labels: {
      ...(source.labels ?? {}),
      [LABEL_BACKUP_NAME]: labelValue(backupName),
      [LABEL_RESTORE_NAME]: labelValue(restoreName),
    },
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  delete (copy as { status?: unknown }).status;
  const spec = copy.spec;
  if (item.kind === 'Service' && spec) {
    if (spec.clusterIP !== 'None') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    } else {
      spec.clusterIPs = ['None'];
    }
    delete spec.healthCheckNodePort;
    if (Array.isArray(spec.ports)) {
      spec.ports = (spec.ports as Record<string, unknown>[]).map(({ nodePort: _nodePort, ...port }) => port);
    }
  }
  // A claim keeps spec.volumeName, as with Velero when it does not restore the PersistentVolume
  // (never, for a namespace-scoped restore: restore.go drops the name only for a volume it
  // re-provisions); the binding annotations went above, as Velero's PVC action removes them.
  return copy;
}

/** Velero's own checks plus the sandbox tripwire; empty = valid. */
export function validateRestore(
  spec: NonNullable<RestoreObject['spec']>,
  backup: BackupObject | undefined,
): string[] {
  const errors: string[] = [];
  if (!spec.backupName) {
    errors.push(
      spec.scheduleName ? 'the simulator does not support scheduleName' : 'backupName is required',
    );
    return errors;
  }
  if (!backup) {
    errors.push(`Error retrieving backup: backups.velero.io "${spec.backupName}" not found`);
    return errors;
  }
  const backupPhase = backup.status?.phase ?? 'New';
  if (backupPhase !== 'Completed' && backupPhase !== 'PartiallyFailed') {
    errors.push(
      `backup ${spec.backupName} is ${backupPhase}; only Completed or PartiallyFailed backups can be restored`,
    );
  }
  const included = spec.includedNamespaces ?? [];
  const mapping = spec.namespaceMapping ?? {};
  if (included.length === 0 || included.some((namespace) => /[*?[]/.test(namespace))) {
    errors.push(
      `${SIMULATOR_TRIPWIRE_PREFIX} includedNamespaces must name every source namespace explicitly`,
    );
  }
  const backupNamespaces = new Set([...(backup.spec?.includedNamespaces ?? []), ...included]);
  const targets = new Set<string>();
  for (const source of included) {
    const target = mapping[source];
    if (!target || target === source) {
      errors.push(`${SIMULATOR_TRIPWIRE_PREFIX} namespace ${source} is not mapped to another namespace`);
      continue;
    }
    if (backupNamespaces.has(target)) {
      errors.push(
        `${SIMULATOR_TRIPWIRE_PREFIX} namespace ${source} is mapped onto ${target}, a namespace of the backup`,
      );
    }
    if (targets.has(target))
      errors.push(`${SIMULATOR_TRIPWIRE_PREFIX} two namespaces are mapped onto ${target}`);
    targets.add(target);
  }
  if (spec.includeClusterResources !== false) {
    errors.push(`${SIMULATOR_TRIPWIRE_PREFIX} includeClusterResources must be false`);
  }
  return errors;
}
