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
//          with status.failureReason. Restore transforms as Velero v1.18 applies them
//          (test/providers/restore-transforms-sim.ts): spec.excludedResources are left out, and the
//          resource modifiers of spec.resourceModifier (a ConfigMap in the Velero namespace, read at
//          validation: missing → FailedValidation) change each object before it is created.
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
//  POD VOLUME DATA — annotation on the BACKUP (read when a restore of it runs):
//    simulator.rehearsal.dev/pod-volumes: <namespace>/<pod>/<volume>=<bytes>,...
//        the backup holds the file-system data of these Pod volumes (<namespace>: the Pod's
//        namespace in the backup). A restore that includes the namespace plays Velero's node agent
//        for each: a PodVolumeRestore in the Velero namespace, owned by the Restore, labelled
//        velero.io/restore-name, spec.pod = the Pod in the MAPPED namespace, spec.volume, created
//        InProgress after the restore's objects and Completed (progress.bytesDone = totalBytes =
//        <bytes>) before the Restore ends — what Rehearsal's Velero provider lists for the
//        report's volume table (issue 27). It moves no data and does not check that the Pod exists
//        (the simulator restores no Pods: a workload's Pods come from its controller). An entry not
//        of that form fails the restore.
//
//  Files: simulator.ts (the server loop), simulator-phases.ts (each object's run through its
//  phases), simulator-kube.ts (reads and patches of the velero.io objects), simulator-model.ts
//  (annotations, snapshot shape, restore validation), simulator-snapshots.ts (where backups are
//  kept), simulator-object-store.ts (DownloadRequest answers), simulator-backups.ts (createBackup
//  for tests and the demo).
//
//  Timing: `stepDelayMs` (default 400 ms) between phase transitions, so a backup or restore takes
//  about 1–2 s in the demo; tests pass small values. Identity: whatever KubeConfig it is given.
// ============================================================================================
import type { KubeConfig } from '@kubernetes/client-node';
import { SimulatedObjectStore } from './simulator-object-store.js';
import {
  abortableSleep,
  describeError,
  MANAGED_BY,
  TERMINAL,
  type BackupObject,
  type DownloadObject,
  type RestoreObject,
  type SimObject,
} from './simulator-model.js';
import { VeleroObjects } from './simulator-kube.js';
import { processBackup, processDownload, processRestore, type PhaseContext } from './simulator-phases.js';
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
  private readonly kube: VeleroObjects;
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
  /** What the phase runs use; it reads the abort signal of the current start() at each use. */
  private readonly phaseContext: PhaseContext;

  constructor(kubeConfig: KubeConfig, options: VeleroSimulatorOptions = {}) {
    this.namespace = options.namespace ?? 'velero';
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.stepDelayMs = options.stepDelayMs ?? 400;
    this.log = options.log ?? (() => undefined);
    this.kube = new VeleroObjects(kubeConfig, this.namespace);
    this.snapshots = new SnapshotStore(this.kube.core, this.kube.objects, this.namespace);
    this.phaseContext = {
      kube: this.kube,
      snapshots: this.snapshots,
      store: this.store,
      stepDelayMs: this.stepDelayMs,
      pause: (ms = this.stepDelayMs) => abortableSleep(ms, this.abort.signal),
      stopped: () => this.abort.signal.aborted,
      log: (line) => this.log(line),
    };
  }

  /** Creates the Velero namespace when missing and starts serving. */
  async start(): Promise<void> {
    if (this.running) return;
    await this.kube.ensureNamespace(this.namespace, { 'app.kubernetes.io/managed-by': MANAGED_BY });
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
      this.kube.list<BackupObject>('backups'),
      this.kube.list<RestoreObject>('restores'),
      this.kube.list<DownloadObject>('downloadrequests'),
    ]);
    const context = this.phaseContext;
    for (const backup of backups) this.dispatch('backup', backup, () => processBackup(context, backup));
    for (const restore of restores) this.dispatch('restore', restore, () => processRestore(context, restore));
    for (const download of downloads) this.dispatch('download', download, () => processDownload(context, download));
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
}
