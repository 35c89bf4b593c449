// ============================================================================================
//  SHARED PART OF THE KASTEN AND TRILIO SIMULATORS — for Rehearsal's tests only. NOT A VENDOR TOOL.
// ============================================================================================
// Kasten and Trilio cannot run here. Their simulators (test/kasten/simulator.ts,
// test/trilio/simulator.ts) play the tool's part through the Kubernetes API, on Kasten CRDs
// Rehearsal's developers wrote from its documentation (test/kasten/crds) and Trilio's own CRDs
// without their descriptions (test/trilio/crds):
//  - takeBackup(): reads the application namespace's objects of common kinds (the Velero
//    simulator's SNAPSHOT_KINDS), keeps them gzip+base64 in a Secret of the simulator's own data
//    namespace, and creates the tool's backup object (Kasten RestorePoint, Trilio Backup) in the
//    application namespace, finished;
//  - a poll loop (every pollIntervalMs) takes each new restore object anywhere in the cluster
//    (Kasten RestoreAction, Trilio Restore) through running → done: it creates the backup's objects
//    in the TARGET namespace only (which must exist: Rehearsal creates its sandboxes), stripped of
//    cluster-assigned fields, after the restore object's own transforms (exclusions and changes,
//    as each tool documents them: restore-transforms-sim.ts).
//  TRIPWIRE: a restore whose target is the backup's own namespace, or a restore object that is not
//  in its target namespace, fails with "simulator tripwire:" and writes nothing.
//  FAILURE INJECTION, annotations on the backup object:
//    simulator.rehearsal.dev/restore-outcome: Failed   → the restore fails, nothing restored
//    simulator.rehearsal.dev/omit-kinds: Secret,...    → those kinds are not restored (tool says done)
//    simulator.rehearsal.dev/restore-delay-ms: "5000"   → stays running that long first
//    simulator.rehearsal.dev/fail-volume-data: data-db-0,... → the data of those claims is not
//      restored: the restore fails before any object is created (both tools restore volume data
//      before the application's objects), and says so as each tool documents it (Kasten: its
//      error message; Trilio: the claims' DataRestore conditions). The simulator moves no data:
//      a claim "restored" is only the claim object, and its reported size is its storage request.
// ============================================================================================
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import {
  decodeSnapshot,
  encodeSnapshot,
  isClusterManaged,
  kubeTimestamp,
  prepareForRestore,
  SIMULATOR_OMIT_KINDS,
  SIMULATOR_RESTORE_DELAY_MS,
  SIMULATOR_RESTORE_OUTCOME,
  SIMULATOR_TRIPWIRE_PREFIX,
  SNAPSHOT_DATA_KEY,
  SNAPSHOT_KINDS,
  type SnapshotItem,
} from '../velero/simulator.js';

export interface ApiType {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

export interface ToolRestoreRequest {
  backupName: string;
  backupNamespace: string;
  target: string;
}

export interface SimulatorOptions {
  /** Namespace for the simulator's backup data (Secrets); created when missing. */
  dataNamespace: string;
  pollIntervalMs?: number;
  stepDelayMs?: number;
  log?: (line: string) => void;
}

interface SimObject {
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const SNAPSHOT_ANNOTATION = 'simulator.rehearsal.dev/snapshot-secret';
/** Claims (comma-separated names) whose volume data the restore fails to bring back. */
export const SIMULATOR_FAIL_VOLUME_DATA = 'simulator.rehearsal.dev/fail-volume-data';

/** The restore's claims and what became of their data. */
export interface VolumeDataOutcome {
  /** The backup's PersistentVolumeClaims the restore brings back (not left out). */
  claims: readonly SnapshotItem[];
  /** The names of those whose data did not come back. */
  failed: ReadonlySet<string>;
  /** When the restore started (RFC 3339, whole seconds). */
  startedAt: string;
}

function code(error: unknown): number | undefined {
  const value = (error as { code?: unknown } | undefined)?.code;
  return typeof value === 'number' ? value : undefined;
}

export abstract class NamespacedToolSimulator {
  protected readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly objects: KubernetesObjectApi;
  private readonly active = new Set<string>();
  private readonly done = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private inFlight: Promise<void>[] = [];

  protected abstract readonly tool: string;
  protected abstract readonly backupType: ApiType;
  protected abstract readonly restoreType: ApiType;
  /** The finished backup object as the tool would have made it (spec and status). */
  protected abstract backupBody(
    namespace: string,
    name: string,
    completedAt: string,
    items: number,
  ): Pick<SimObject, 'spec' | 'status'>;
  /** What a restore object asks for, or undefined when it is not a restore this simulator can read. */
  protected abstract readRestore(restore: SimObject): ToolRestoreRequest | undefined;
  protected abstract isNew(restore: SimObject): boolean;
  protected abstract runningStatus(): Record<string, unknown>;
  /**
   * The finished restore's status: `all` the backup held, `restored` what was created in the
   * target, `excluded` what the restore's transforms left out on purpose.
   */
  protected abstract doneStatus(outcome: {
    all: readonly SnapshotItem[];
    restored: readonly SnapshotItem[];
    excluded: readonly SnapshotItem[];
    volumes: VolumeDataOutcome;
  }): Record<string, unknown>;
  protected abstract failedStatus(reason: string): Record<string, unknown>;
  /**
   * The status of a restore whose volume data did not all come back (SIMULATOR_FAIL_VOLUME_DATA).
   * By default the tool's plain failure naming the claims (what Kasten documents).
   */
  protected volumeDataFailedStatus(volumes: VolumeDataOutcome): Record<string, unknown> {
    return this.failedStatus(
      `restoring the data of PersistentVolumeClaim ${[...volumes.failed].join(', ')}: simulated failure (annotation ${SIMULATOR_FAIL_VOLUME_DATA})`,
    );
  }
  /**
   * The object as the tool's restore transforms leave it (its spec's exclusions and changes), or
   * undefined when they leave it out; throws when a transform fails the restore.
   */
  protected transformItem(_restore: SimObject, item: SnapshotItem): SnapshotItem | undefined {
    return item;
  }

  constructor(
    kubeConfig: KubeConfig,
    protected readonly options: SimulatorOptions,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  }

  private log(line: string): void {
    this.options.log?.(`${this.tool} simulator: ${line}`);
  }

  async start(): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name: this.options.dataNamespace } } });
    } catch (error) {
      if (code(error) !== 409) throw error;
    }
    this.running = true;
    const tick = async () => {
      if (!this.running) return;
      await this.pollOnce().catch((error: unknown) => this.log(`poll failed: ${(error as Error).message}`));
      if (this.running) this.timer = setTimeout(() => void tick(), this.options.pollIntervalMs ?? 200);
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled(this.inFlight);
  }

  /** Backs up `namespace` now and returns the backup object's name. */
  async takeBackup(
    namespace: string,
    name: string,
    annotations: Record<string, string> = {},
  ): Promise<string> {
    const items: SnapshotItem[] = [];
    for (const { apiVersion, kind } of SNAPSHOT_KINDS) {
      const page = await this.objects.list(apiVersion, kind, namespace);
      for (const object of page.items) {
        const item = { ...object, apiVersion, kind } as SnapshotItem;
        if (!isClusterManaged(item)) items.push(item);
      }
    }
    const secret = `${this.tool.toLowerCase()}-sim-${namespace}-${name}`.slice(0, 253);
    await this.core.createNamespacedSecret({
      namespace: this.options.dataNamespace,
      body: {
        metadata: { name: secret },
        data: {
          [SNAPSHOT_DATA_KEY]: encodeSnapshot({
            formatVersion: 1,
            backupName: name,
            namespaces: [namespace],
            items,
          }),
        },
      },
    });
    const body = this.backupBody(namespace, name, kubeTimestamp(), items.length);
    const { group, version, plural, kind } = this.backupType;
    await this.custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: {
        apiVersion: `${group}/${version}`,
        kind,
        metadata: { name, namespace, annotations: { ...annotations, [SNAPSHOT_ANNOTATION]: secret } },
        spec: body.spec,
      },
    });
    await this.patchStatus(this.backupType, namespace, name, body.status ?? {});
    return name;
  }

  private async patchStatus(
    type: ApiType,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus(
      { group: type.group, version: type.version, namespace, plural: type.plural, name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  private async pollOnce(): Promise<void> {
    const { group, version, plural } = this.restoreType;
    const list = (await this.custom.listClusterCustomObject({ group, version, plural })) as {
      items?: SimObject[];
    };
    for (const restore of list.items ?? []) {
      const key = `${restore.metadata.namespace}/${restore.metadata.name}/${restore.metadata.uid ?? ''}`;
      if (
        this.active.has(key) ||
        this.done.has(key) ||
        restore.metadata.deletionTimestamp ||
        !this.isNew(restore)
      )
        continue;
      this.active.add(key);
      const task = this.process(restore)
        .then(() => void this.done.add(key))
        .catch((error: unknown) => this.log(`restore ${key}: ${(error as Error).message}`))
        .finally(() => this.active.delete(key));
      this.inFlight.push(task);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  private async process(restore: SimObject): Promise<void> {
    const { namespace, name } = restore.metadata;
    const request = this.readRestore(restore);
    const fail = (reason: string) =>
      this.patchStatus(this.restoreType, namespace, name, this.failedStatus(reason));
    if (!request) return fail('the restore names no backup or target namespace');
    if (request.target === request.backupNamespace || request.target !== namespace) {
      return fail(
        `${SIMULATOR_TRIPWIRE_PREFIX} target ${request.target} must be the restore object's own namespace and not the backup's`,
      );
    }
    const { group, version, plural } = this.backupType;
    let backup: SimObject | undefined;
    try {
      backup = (await this.custom.getNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: request.backupNamespace,
        name: request.backupName,
      })) as SimObject;
    } catch (error) {
      if (code(error) !== 404) throw error;
    }
    if (!backup) return fail(`backup ${request.backupNamespace}/${request.backupName} not found`);
    const startedAt = kubeTimestamp();
    await this.patchStatus(this.restoreType, namespace, name, this.runningStatus());
    const annotations = backup.metadata.annotations ?? {};
    const delay = Number(annotations[SIMULATOR_RESTORE_DELAY_MS]);
    await this.pause(Number.isFinite(delay) && delay > 0 ? delay : (this.options.stepDelayMs ?? 150));
    if (annotations[SIMULATOR_RESTORE_OUTCOME] === 'Failed')
      return fail(`simulated failure (annotation ${SIMULATOR_RESTORE_OUTCOME})`);
    let data: string | undefined;
    try {
      const secret = await this.core.readNamespacedSecret({
        namespace: this.options.dataNamespace,
        name: annotations[SNAPSHOT_ANNOTATION] ?? '',
      });
      data = secret.data?.[SNAPSHOT_DATA_KEY];
    } catch (error) {
      if (code(error) !== 404) throw error;
    }
    if (!data) return fail(`the data of backup ${request.backupName} is missing`);
    const omitted = new Set((annotations[SIMULATOR_OMIT_KINDS] ?? '').split(',').map((kind) => kind.trim()));
    const items = decodeSnapshot(data).items;
    const toFail = new Set(
      (annotations[SIMULATOR_FAIL_VOLUME_DATA] ?? '').split(',').map((claim) => claim.trim()).filter(Boolean),
    );
    const claims = items.filter((item) => item.kind === 'PersistentVolumeClaim' && !omitted.has(item.kind));
    const volumes: VolumeDataOutcome = {
      claims,
      failed: new Set(claims.map((claim) => claim.metadata.name).filter((claim) => toFail.has(claim))),
      startedAt,
    };
    if (volumes.failed.size > 0) {
      await this.patchStatus(this.restoreType, namespace, name, this.volumeDataFailedStatus(volumes));
      this.log(`restore ${namespace}/${name}: the data of ${[...volumes.failed].join(', ')} was not restored (simulated)`);
      return;
    }
    const restored: SnapshotItem[] = [];
    const excluded: SnapshotItem[] = [];
    for (const item of items) {
      if (omitted.has(item.kind)) continue;
      let transformed: SnapshotItem | undefined;
      try {
        transformed = this.transformItem(restore, item);
      } catch (error) {
        return fail((error as Error).message);
      }
      if (!transformed) {
        excluded.push(item);
        continue;
      }
      try {
        await this.objects.create(prepareForRestore(transformed, request.target, request.backupName, name));
        restored.push(item);
      } catch (error) {
        if (code(error) !== 409) throw error;
      }
    }
    await this.patchStatus(this.restoreType, namespace, name, this.doneStatus({ all: items, restored, excluded, volumes }));
    this.log(`restore ${namespace}/${name}: ${restored.length}/${items.length} objects into ${request.target}`);
  }
}
