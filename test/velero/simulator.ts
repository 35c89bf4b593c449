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
//  DownloadRequest (no phase / New) → Processed
//          status.downloadURL points at simulator-object-store.ts (127.0.0.1): a backup's
//          BackupResourceList in Velero's shape, built from its snapshot; anything else is a 404.
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
//  Files: simulator.ts (the server loop), simulator-model.ts (annotations, snapshot shape, restore
//  validation), simulator-snapshots.ts (where backups are kept), simulator-object-store.ts
//  (DownloadRequest answers), simulator-backups.ts (createBackup for tests and the demo).
//
//  Timing: `stepDelayMs` (default 400 ms) between phase transitions, so a backup or restore takes
//  about 1–2 s in the demo; tests pass small values. Identity: whatever KubeConfig it is given.
// ============================================================================================
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { resourceListOf, SimulatedObjectStore } from './simulator-object-store.js';
import {
  abortableSleep,
  describeError,
  DOWNLOAD_URL_TTL_MS,
  encodeSnapshot,
  GROUP,
  kubeTimestamp,
  LABEL_BACKUP_NAME,
  LABEL_RESTORE_NAME,
  labelValue,
  MANAGED_BY,
  MAX_SNAPSHOT_BYTES,
  parseGoDuration,
  prepareForRestore,
  SIMULATOR_BACKUP_OUTCOME,
  SIMULATOR_OMIT_KINDS,
  SIMULATOR_RESTORE_DELAY_MS,
  SIMULATOR_RESTORE_OUTCOME,
  SNAPSHOT_KINDS,
  snapshotSecretName,
  statusCode,
  TERMINAL,
  validateRestore,
  VERSION,
  type BackupObject,
  type DownloadObject,
  type RestoreObject,
  type SimObject,
} from './simulator-model.js';
import { SnapshotStore } from './simulator-snapshots.js';

// The simulator's parts, importable from here as before.
export * from './simulator-model.js';
export * from './simulator-backups.js';

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
  private readonly store = new SimulatedObjectStore();
  private readonly snapshots: SnapshotStore;

  constructor(kubeConfig: KubeConfig, options: VeleroSimulatorOptions = {}) {
    this.namespace = options.namespace ?? 'velero';
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.stepDelayMs = options.stepDelayMs ?? 400;
    this.log = options.log ?? (() => undefined);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    this.snapshots = new SnapshotStore(this.core, this.objects, this.namespace);
  }

  /** Creates the Velero namespace when missing and starts serving. */
  async start(): Promise<void> {
    if (this.running) return;
    await this.ensureNamespace(this.namespace, { 'app.kubernetes.io/managed-by': MANAGED_BY });
    await this.store.start();
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
    await this.store.stop();
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
    const [backups, restores, downloads] = await Promise.all([
      this.listCustom<BackupObject>('backups'),
      this.listCustom<RestoreObject>('restores'),
      this.listCustom<DownloadObject>('downloadrequests'),
    ]);
    for (const backup of backups) this.dispatch('backup', backup, () => this.processBackup(backup));
    for (const restore of restores) this.dispatch('restore', restore, () => this.processRestore(restore));
    for (const download of downloads) this.dispatch('download', download, () => this.processDownload(download));
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

    const snapshot = await this.snapshots.take(name, backup.spec ?? {});
    const encoded = encodeSnapshot(snapshot);
    if (encoded.length > MAX_SNAPSHOT_BYTES) {
      await this.patchStatus('backups', name, {
        phase: 'Failed',
        failureReason: `snapshot of ${snapshot.items.length} objects is too large for the simulator (${encoded.length} bytes)`,
        completionTimestamp: kubeTimestamp(),
      });
      return;
    }
    await this.snapshots.store(backup, encoded);
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

  // ------------------------------------------------------------------ restores

  private async processRestore(restore: RestoreObject): Promise<void> {
    const name = restore.metadata.name;
    const spec = restore.spec ?? {};
    const backup = spec.backupName
      ? await this.getCustom<BackupObject>('backups', spec.backupName)
      : undefined;
    const validationErrors = validateRestore(spec, backup);
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
    const snapshot = await this.snapshots.load(backupName);
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

  // ------------------------------------------------------------------ download requests

  private async processDownload(request: DownloadObject): Promise<void> {
    const target = request.spec?.target ?? {};
    const snapshot =
      target.kind === 'BackupResourceList' && target.name ? await this.snapshots.load(target.name) : undefined;
    await this.patchStatus('downloadrequests', request.metadata.name, {
      phase: 'Processed',
      downloadURL: this.store.publish(snapshot ? resourceListOf(snapshot) : undefined),
      expiration: kubeTimestamp(new Date(Date.now() + DOWNLOAD_URL_TTL_MS)),
    });
    this.log(`download ${request.metadata.name}: ${target.kind} of ${target.name} ${snapshot ? 'served' : 'not found'}`);
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
