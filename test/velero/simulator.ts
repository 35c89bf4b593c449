// ============================================================================================
//  VELERO SIMULATOR — exists only for Rehearsal's tests and demo. THIS IS NOT VELERO.
// ============================================================================================
// It plays the Velero server's part through the Kubernetes API, so the Velero provider can be
// tested against the real velero.io/v1 CRDs on a real apiserver without Velero, object storage or
// Docker. It polls (every 250 ms by default) the Backups and Restores in its Velero namespace and
// moves them through their phases the way Velero does:
//
//  Backup  (no phase / New) → InProgress → Completed
//          Reads — and only reads — the included namespaces' objects of common kinds
//          (SNAPSHOT_KINDS below) and stores them, gzip + base64, in the Secret
//          `velero-sim-backup-<backup>` in the Velero namespace (a Secret, because a backup holds
//          Secrets), owned by the Backup so deleting the Backup deletes its data. Sets
//          startTimestamp, completionTimestamp, expiration (spec.ttl, default 720h) and
//          progress {totalItems, itemsBackedUp}.
//  Restore (no phase / New) → InProgress → Completed | PartiallyFailed | Failed, or FailedValidation
//          Creates the snapshot's objects of spec.includedNamespaces in the MAPPED namespaces only
//          (creating a missing target namespace, as Velero does), stripped of uid, resourceVersion,
//          creationTimestamp, managedFields, ownerReferences, finalizers, status, Service cluster
//          IPs and node ports, PVC volume bindings; labelled velero.io/backup-name and
//          velero.io/restore-name. An object that already exists is a warning (Velero's default
//          existingResourcePolicy "none"); an object that could not be created is an error, and
//          errors make the restore PartiallyFailed (Velero's rule). Missing backup data → Failed
//          with status.failureReason.
//
//  TRIPWIRE: unlike Velero, the simulator refuses (phase FailedValidation, validationErrors
//  starting "simulator tripwire:") any Restore that could write outside a sandbox: an empty or
//  wildcard includedNamespaces, an included namespace without a mapping to another namespace, a
//  mapping onto a namespace the backup covers, two sources onto one target, or
//  includeClusterResources not explicitly false. It also refuses, as Velero does, a missing
//  backup or one that is not Completed/PartiallyFailed.
//
//  FAILURE INJECTION — annotations on the BACKUP (read when a restore of it runs):
//    simulator.rehearsal.dev/restore-outcome: Failed | PartiallyFailed
//        Failed: nothing is restored, phase Failed with a failureReason.
//        PartiallyFailed: everything is restored, but at least one error is reported.
//    simulator.rehearsal.dev/omit-kinds: Secret,ConfigMap
//        objects of these kinds are not restored; each counts as a restore ERROR (so the restore
//        ends PartiallyFailed, as Velero reports items it could not restore) — e.g. to simulate
//        a missing Secret.
//    simulator.rehearsal.dev/restore-delay-ms: "5000"
//        the restore stays InProgress this long before it creates anything.
//    simulator.rehearsal.dev/backup-outcome: Failed | PartiallyFailed
//        the backup itself ends in that phase (Failed stores no data).
//
//  Timing: `stepDelayMs` (default 400 ms) between phase transitions, so a backup or restore takes
//  about 1–2 s in the demo; tests pass small values. Identity: whatever KubeConfig it is given.
// ============================================================================================
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1Secret,
} from '@kubernetes/client-node';

export const SIMULATOR_RESTORE_OUTCOME = 'simulator.rehearsal.dev/restore-outcome';
export const SIMULATOR_OMIT_KINDS = 'simulator.rehearsal.dev/omit-kinds';
export const SIMULATOR_RESTORE_DELAY_MS = 'simulator.rehearsal.dev/restore-delay-ms';
export const SIMULATOR_BACKUP_OUTCOME = 'simulator.rehearsal.dev/backup-outcome';
export const SIMULATOR_TRIPWIRE_PREFIX = 'simulator tripwire:';

export const SNAPSHOT_SECRET_PREFIX = 'velero-sim-backup-';
export const SNAPSHOT_DATA_KEY = 'snapshot.json.gz';
const MANAGED_BY = 'velero-simulator';
const LABEL_BACKUP_NAME = 'velero.io/backup-name';
const LABEL_RESTORE_NAME = 'velero.io/restore-name';
const GROUP = 'velero.io';
const VERSION = 'v1';
/** Secrets hold at most 1 MiB; leave room for metadata. */
const MAX_SNAPSHOT_BYTES = 900 * 1024;

export interface SnapshotKind {
  apiVersion: string;
  kind: string;
}

/** What a simulated backup holds, in the order a restore creates it (Velero's priorities, roughly). */
export const SNAPSHOT_KINDS: readonly SnapshotKind[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  { apiVersion: 'batch/v1', kind: 'CronJob' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
];

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

interface SimObject {
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

interface BackupObject extends SimObject {
  spec?: { includedNamespaces?: string[]; excludedNamespaces?: string[]; ttl?: string };
}

interface RestoreObject extends SimObject {
  spec?: {
    backupName?: string;
    scheduleName?: string;
    includedNamespaces?: string[];
    namespaceMapping?: Record<string, string>;
    includeClusterResources?: boolean;
  };
}

export interface VeleroSimulatorOptions {
  /** The Velero namespace the simulator serves; default "velero" (created when missing). */
  namespace?: string;
  /** How often Backups and Restores are listed; default 250 ms. */
  pollIntervalMs?: number;
  /** Pause between phase transitions; default 400 ms (a restore then takes about 1–2 s). */
  stepDelayMs?: number;
  /** Where progress lines go; default: nowhere. */
  log?: (line: string) => void;
}

const TERMINAL = new Set(['Completed', 'PartiallyFailed', 'Failed', 'FailedValidation', 'Deleting']);

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

function globMatches(pattern: string, namespace: string): boolean {
  if (pattern === '*') return true;
  if (!/[*?[]/.test(pattern)) return pattern === namespace;
  const source = pattern
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(namespace);
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

function describeError(error: unknown): string {
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

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
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

function labelValue(value: string): string {
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
  if (item.kind === 'PersistentVolumeClaim' && spec) delete spec.volumeName;
  return copy;
}

export class VeleroSimulator {
  readonly namespace: string;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly objects: KubernetesObjectApi;
  private readonly pollIntervalMs: number;
  private readonly stepDelayMs: number;
  private readonly log: (line: string) => void;
  private readonly active = new Map<string, Promise<void>>();
  private readonly retryAfter = new Map<string, number>();
  /** Objects this simulator finished: a list answer older than the final write must not rerun them. */
  private readonly finished = new Set<string>();
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private running = false;

  constructor(kubeConfig: KubeConfig, options: VeleroSimulatorOptions = {}) {
    this.namespace = options.namespace ?? 'velero';
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.stepDelayMs = options.stepDelayMs ?? 400;
    this.log = options.log ?? (() => undefined);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  }

  /** Creates the Velero namespace when missing and starts serving. */
  async start(): Promise<void> {
    if (this.running) return;
    await this.ensureNamespace(this.namespace, { 'app.kubernetes.io/managed-by': MANAGED_BY });
    this.running = true;
    this.abort = new AbortController();
    this.loop = this.pollLoop();
    this.log(`velero simulator serving namespace ${this.namespace}`);
  }

  /** Stops polling; work in flight stops at its next pause (its object keeps its current phase). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort.abort();
    await this.loop;
    await Promise.allSettled([...this.active.values()]);
    this.log('velero simulator stopped');
  }

  // ------------------------------------------------------------------ the loop

  private async pollLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.pollOnce();
      } catch (error) {
        this.log(`poll failed: ${describeError(error)}`);
      }
      try {
        await abortableSleep(this.pollIntervalMs, this.abort.signal);
      } catch {
        return;
      }
    }
  }

  private async pollOnce(): Promise<void> {
    const [backups, restores] = await Promise.all([
      this.listCustom<BackupObject>('backups'),
      this.listCustom<RestoreObject>('restores'),
    ]);
    for (const backup of backups) this.dispatch('backup', backup, () => this.processBackup(backup));
    for (const restore of restores) this.dispatch('restore', restore, () => this.processRestore(restore));
  }

  private dispatch(type: string, object: SimObject, work: () => Promise<void>): void {
    const key = `${type}/${object.metadata.name}/${object.metadata.uid ?? ''}`;
    const phase = object.status?.phase ?? '';
    if (
      TERMINAL.has(phase) ||
      object.metadata.deletionTimestamp ||
      this.active.has(key) ||
      this.finished.has(key)
    ) {
      return;
    }
    if ((this.retryAfter.get(key) ?? 0) > Date.now()) return;
    const task = work()
      .then(() => {
        this.finished.add(key);
        this.retryAfter.delete(key);
      })
      .catch((error: unknown) => {
        if (!this.running) return;
        this.log(`${type} ${object.metadata.name}: ${describeError(error)} (retrying)`);
        this.retryAfter.set(key, Date.now() + 1000);
      })
      .finally(() => this.active.delete(key));
    this.active.set(key, task);
  }

  private pause(ms: number = this.stepDelayMs): Promise<void> {
    return abortableSleep(ms, this.abort.signal);
  }

  // ------------------------------------------------------------------ backups

  private async processBackup(backup: BackupObject): Promise<void> {
    const name = backup.metadata.name;
    const annotations = backup.metadata.annotations ?? {};
    const started = new Date();
    const ttlMs = parseGoDuration(backup.spec?.ttl) ?? 720 * 3_600_000;
    await this.patchStatus('backups', name, {
      phase: 'InProgress',
      startTimestamp: kubeTimestamp(started),
      expiration: kubeTimestamp(new Date(started.getTime() + ttlMs)),
      version: 1,
      formatVersion: '1.1.0',
    });
    this.log(`backup ${name}: InProgress`);
    await this.pause();

    const outcome = annotations[SIMULATOR_BACKUP_OUTCOME];
    if (outcome === 'Failed') {
      await this.patchStatus('backups', name, {
        phase: 'Failed',
        failureReason: `simulated failure (annotation ${SIMULATOR_BACKUP_OUTCOME})`,
        completionTimestamp: kubeTimestamp(),
      });
      this.log(`backup ${name}: Failed (injected)`);
      return;
    }

    const snapshot = await this.takeSnapshot(name, backup.spec ?? {});
    const encoded = encodeSnapshot(snapshot);
    if (encoded.length > MAX_SNAPSHOT_BYTES) {
      await this.patchStatus('backups', name, {
        phase: 'Failed',
        failureReason: `snapshot of ${snapshot.items.length} objects is too large for the simulator (${encoded.length} bytes)`,
        completionTimestamp: kubeTimestamp(),
      });
      return;
    }
    await this.storeSnapshot(backup, encoded);
    await this.pause();
    const total = snapshot.items.length;
    const partially = outcome === 'PartiallyFailed';
    await this.patchStatus('backups', name, {
      phase: partially ? 'PartiallyFailed' : 'Completed',
      completionTimestamp: kubeTimestamp(),
      progress: { totalItems: total, itemsBackedUp: total },
      warnings: 0,
      errors: partially ? 1 : 0,
    });
    this.log(`backup ${name}: ${partially ? 'PartiallyFailed' : 'Completed'} (${total} items)`);
  }

  /** Reads (never writes) the namespaces a Backup covers. */
  private async takeSnapshot(
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

  private async storeSnapshot(backup: BackupObject, encoded: string): Promise<void> {
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

  private async loadSnapshot(backupName: string): Promise<BackupSnapshot | undefined> {
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

  // ------------------------------------------------------------------ restores

  /** Velero's own checks plus the sandbox tripwire; empty = valid. */
  private validateRestore(
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

  private async processRestore(restore: RestoreObject): Promise<void> {
    const name = restore.metadata.name;
    const spec = restore.spec ?? {};
    const backup = spec.backupName
      ? await this.getCustom<BackupObject>('backups', spec.backupName)
      : undefined;
    const validationErrors = this.validateRestore(spec, backup);
    if (validationErrors.length > 0 || !backup || !spec.backupName) {
      await this.patchStatus('restores', name, {
        phase: 'FailedValidation',
        validationErrors,
        completionTimestamp: kubeTimestamp(),
      });
      this.log(`restore ${name}: FailedValidation (${validationErrors.join('; ')})`);
      return;
    }
    const backupName = spec.backupName;
    const annotations = backup.metadata.annotations ?? {};
    await this.patchStatus('restores', name, { phase: 'InProgress', startTimestamp: kubeTimestamp() });
    this.log(`restore ${name}: InProgress`);
    const delay = Number(annotations[SIMULATOR_RESTORE_DELAY_MS]);
    await this.pause(Number.isFinite(delay) && delay >= 0 ? delay : this.stepDelayMs);

    const failWith = async (failureReason: string) => {
      await this.patchStatus('restores', name, {
        phase: 'Failed',
        failureReason,
        completionTimestamp: kubeTimestamp(),
      });
      this.log(`restore ${name}: Failed (${failureReason})`);
    };
    if (annotations[SIMULATOR_RESTORE_OUTCOME] === 'Failed') {
      return failWith(`simulated failure (annotation ${SIMULATOR_RESTORE_OUTCOME} on backup ${backupName})`);
    }
    const snapshot = await this.loadSnapshot(backupName);
    if (!snapshot) {
      return failWith(
        `backup data of ${backupName} not found (Secret ${this.namespace}/${snapshotSecretName(backupName)} is missing)`,
      );
    }

    const mapping = spec.namespaceMapping ?? {};
    const included = new Set(spec.includedNamespaces ?? []);
    const omitted = new Set(
      (annotations[SIMULATOR_OMIT_KINDS] ?? '')
        .split(',')
        .map((kind) => kind.trim())
        .filter(Boolean),
    );
    const items = snapshot.items.filter((item) => included.has(item.metadata.namespace));
    const total = items.length;
    let restored = 0;
    let warnings = 0;
    let errors = 0;
    await this.patchStatus('restores', name, { progress: { totalItems: total, itemsRestored: 0 } });

    for (const target of new Set([...included].map((source) => mapping[source] as string))) {
      await this.ensureNamespace(target, {
        [LABEL_BACKUP_NAME]: labelValue(backupName),
        [LABEL_RESTORE_NAME]: labelValue(name),
      });
    }
    for (const { kind } of SNAPSHOT_KINDS) {
      const ofKind = items.filter((item) => item.kind === kind);
      if (ofKind.length === 0) continue;
      for (const item of ofKind) {
        if (omitted.has(kind)) {
          errors += 1;
          this.log(
            `restore ${name}: ${kind} ${item.metadata.namespace}/${item.metadata.name} omitted (injected)`,
          );
          continue;
        }
        const target = mapping[item.metadata.namespace] as string;
        if (this.abort.signal.aborted) throw new Error('simulator stopped');
        try {
          await this.objects.create(prepareForRestore(item, target, backupName, name));
          restored += 1;
        } catch (error) {
          if (statusCode(error) === 409) warnings += 1;
          else {
            errors += 1;
            this.log(
              `restore ${name}: could not create ${kind} ${target}/${item.metadata.name}: ${describeError(error)}`,
            );
          }
        }
      }
      await this.patchStatus('restores', name, { progress: { totalItems: total, itemsRestored: restored } });
    }
    if (annotations[SIMULATOR_RESTORE_OUTCOME] === 'PartiallyFailed' && errors === 0) errors = 1;
    await this.pause();
    const phase = errors > 0 ? 'PartiallyFailed' : 'Completed';
    await this.patchStatus('restores', name, {
      phase,
      warnings,
      errors,
      progress: { totalItems: total, itemsRestored: restored },
      completionTimestamp: kubeTimestamp(),
    });
    this.log(
      `restore ${name}: ${phase} (${restored}/${total} items, ${warnings} warnings, ${errors} errors)`,
    );
  }

  // ------------------------------------------------------------------ Kubernetes access

  private async ensureNamespace(name: string, labels: Record<string, string>): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name, labels } } });
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
  }

  private async listCustom<T>(plural: string): Promise<T[]> {
    const list = (await this.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: this.namespace,
      plural,
    })) as { items?: T[] };
    return list.items ?? [];
  }

  private async getCustom<T>(plural: string, name: string): Promise<T | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural,
        name,
      })) as T;
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }

  /** Velero's Backup and Restore CRDs have no status subresource: status is merged into the object. */
  private async patchStatus(plural: string, name: string, status: Record<string, unknown>): Promise<void> {
    await this.custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace: this.namespace, plural, name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}

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
      includeClusterResources: false,
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
