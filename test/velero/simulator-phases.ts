// How the Velero simulator moves each object through its phases (NOT VELERO; see simulator.ts,
// whose header is the specification): a Backup to Completed with a snapshot of its namespaces, a
// Restore to Completed, PartiallyFailed, Failed or FailedValidation, a DownloadRequest to
// Processed. Each function is one object's whole run; the simulator's loop decides when to call it.
import { resourceListOf, type SimulatedObjectStore } from './simulator-object-store.js';
import {
  describeError,
  DOWNLOAD_URL_TTL_MS,
  encodeSnapshot,
  kubeTimestamp,
  LABEL_BACKUP_NAME,
  LABEL_RESTORE_NAME,
  labelValue,
  MAX_SNAPSHOT_BYTES,
  parseGoDuration,
  prepareForRestore,
  SIMULATOR_BACKUP_OUTCOME,
  SIMULATOR_OMIT_KINDS,
  SIMULATOR_POD_VOLUMES,
  SIMULATOR_RESTORE_DELAY_MS,
  SIMULATOR_RESTORE_OUTCOME,
  SNAPSHOT_KINDS,
  groupResourceOf,
  snapshotSecretName,
  statusCode,
  completedPodVolumeStatus,
  parsePodVolumes,
  podVolumeRestoreFor,
  validateRestore,
  type BackupObject,
  type DownloadObject,
  type RestoreObject,
} from './simulator-model.js';
import type { SnapshotStore } from './simulator-snapshots.js';
import { applyVeleroModifiers, veleroExcludes } from '../providers/restore-transforms-sim.js';
import type { VeleroObjects } from './simulator-kube.js';

/** What a phase run needs from the simulator serving it. */
export interface PhaseContext {
  kube: VeleroObjects;
  snapshots: SnapshotStore;
  store: SimulatedObjectStore;
  /** Pause between phase transitions. */
  stepDelayMs: number;
  /** Waits `ms` (default stepDelayMs); rejects once the simulator stops. */
  pause(ms?: number): Promise<void>;
  /** Whether the simulator was stopped: a restore then stops creating objects. */
  stopped(): boolean;
  log(line: string): void;
}

export async function processBackup(context: PhaseContext, backup: BackupObject): Promise<void> {
  const { kube } = context;
  const name = backup.metadata.name;
  const annotations = backup.metadata.annotations ?? {};
  const started = new Date();
  const ttlMs = parseGoDuration(backup.spec?.ttl) ?? 720 * 3_600_000;
  await kube.patchStatus('backups', name, {
    phase: 'InProgress',
    startTimestamp: kubeTimestamp(started),
    expiration: kubeTimestamp(new Date(started.getTime() + ttlMs)),
    version: 1,
    formatVersion: '1.1.0',
  });
  context.log(`backup ${name}: InProgress`);
  await context.pause();

  const outcome = annotations[SIMULATOR_BACKUP_OUTCOME];
  if (outcome === 'Failed') {
    await kube.patchStatus('backups', name, {
      phase: 'Failed',
      failureReason: `simulated failure (annotation ${SIMULATOR_BACKUP_OUTCOME})`,
      completionTimestamp: kubeTimestamp(),
    });
    context.log(`backup ${name}: Failed (injected)`);
    return;
  }

  const snapshot = await context.snapshots.take(name, backup.spec ?? {});
  const encoded = encodeSnapshot(snapshot);
  if (encoded.length > MAX_SNAPSHOT_BYTES) {
    await kube.patchStatus('backups', name, {
      phase: 'Failed',
      failureReason: `snapshot of ${snapshot.items.length} objects is too large for the simulator (${encoded.length} bytes)`,
      completionTimestamp: kubeTimestamp(),
    });
    return;
  }
  await context.snapshots.store(backup, encoded);
  await context.pause();
  const total = snapshot.items.length;
  const partially = outcome === 'PartiallyFailed';
  await kube.patchStatus('backups', name, {
    phase: partially ? 'PartiallyFailed' : 'Completed',
    completionTimestamp: kubeTimestamp(),
    progress: { totalItems: total, itemsBackedUp: total },
    warnings: 0,
    errors: partially ? 1 : 0,
  });
  context.log(`backup ${name}: ${partially ? 'PartiallyFailed' : 'Completed'} (${total} items)`);
}

export async function processRestore(context: PhaseContext, restore: RestoreObject): Promise<void> {
  const { kube } = context;
  const name = restore.metadata.name;
  const spec = restore.spec ?? {};
  const backup = spec.backupName
    ? await kube.get<BackupObject>('backups', spec.backupName)
    : undefined;
  const validationErrors = validateRestore(spec, backup);
  // Velero reads the resource modifiers when it validates the Restore: a missing or unreadable
  // ConfigMap is a validation error (restore_controller.go validateAndComplete).
  let modifiers: { version?: string; resourceModifierRules?: [] } | undefined;
  if (spec.resourceModifier?.name && validationErrors.length === 0) {
    try {
      const configMap = await kube.core.readNamespacedConfigMap({ namespace: kube.namespace, name: spec.resourceModifier.name });
      const values = Object.values(configMap.data ?? {});
      if (values.length !== 1) throw new Error(`illegal resource modifiers ${kube.namespace}/${spec.resourceModifier.name} configmap`);
      modifiers = JSON.parse(values[0]!) as typeof modifiers;
      if (modifiers?.version !== 'v1') throw new Error(`unsupported resource modifier version ${modifiers?.version}`);
    } catch (error) {
      validationErrors.push(`failed to get resource modifiers configmap ${kube.namespace}/${spec.resourceModifier.name}: ${describeError(error)}`);
    }
  }
  if (validationErrors.length > 0 || !backup || !spec.backupName) {
    await kube.patchStatus('restores', name, {
      phase: 'FailedValidation',
      validationErrors,
      completionTimestamp: kubeTimestamp(),
    });
    context.log(`restore ${name}: FailedValidation (${validationErrors.join('; ')})`);
    return;
  }
  const backupName = spec.backupName;
  const annotations = backup.metadata.annotations ?? {};
  await kube.patchStatus('restores', name, { phase: 'InProgress', startTimestamp: kubeTimestamp() });
  context.log(`restore ${name}: InProgress`);
  const delay = Number(annotations[SIMULATOR_RESTORE_DELAY_MS]);
  await context.pause(Number.isFinite(delay) && delay >= 0 ? delay : context.stepDelayMs);

  const failWith = async (failureReason: string) => {
    await kube.patchStatus('restores', name, {
      phase: 'Failed',
      failureReason,
      completionTimestamp: kubeTimestamp(),
    });
    context.log(`restore ${name}: Failed (${failureReason})`);
  };
  if (annotations[SIMULATOR_RESTORE_OUTCOME] === 'Failed') {
    return failWith(`simulated failure (annotation ${SIMULATOR_RESTORE_OUTCOME} on backup ${backupName})`);
  }
  const snapshot = await context.snapshots.load(backupName);
  if (!snapshot) {
    return failWith(
      `backup data of ${backupName} not found (Secret ${kube.namespace}/${snapshotSecretName(backupName)} is missing)`,
    );
  }

  const podVolumes = parsePodVolumes(annotations[SIMULATOR_POD_VOLUMES]);
  if (podVolumes.unreadable.length > 0) {
    return failWith(
      `simulator: annotation ${SIMULATOR_POD_VOLUMES} on backup ${backupName} has entries not of the form <namespace>/<pod>/<volume>=<bytes>: ${podVolumes.unreadable.join(', ')}`,
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
  // Restore spec.excludedResources ("<resource>.<group>"): left out, not counted (Velero does not
  // list them among the items to restore).
  const items = snapshot.items.filter(
    (item) => included.has(item.metadata.namespace) && !veleroExcludes(spec.excludedResources, groupResourceOf(item)),
  );
  const total = items.length;
  let restored = 0;
  let warnings = 0;
  let errors = 0;
  await kube.patchStatus('restores', name, { progress: { totalItems: total, itemsRestored: 0 } });

  for (const target of new Set([...included].map((source) => mapping[source] as string))) {
    await kube.ensureNamespace(target, {
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
        context.log(
          `restore ${name}: ${kind} ${item.metadata.namespace}/${item.metadata.name} omitted (injected)`,
        );
        continue;
      }
      const target = mapping[item.metadata.namespace] as string;
      if (context.stopped()) throw new Error('simulator stopped');
      // Resource modifiers apply to the object as Velero prepared it, its namespace still the source's.
      const modified = applyVeleroModifiers(item, groupResourceOf(item), modifiers);
      for (const problem of modified.errors) {
        errors += 1;
        context.log(`restore ${name}: ${kind} ${item.metadata.namespace}/${item.metadata.name}: ${problem}`);
      }
      try {
        await kube.objects.create(prepareForRestore(modified.item, target, backupName, name));
        restored += 1;
      } catch (error) {
        if (statusCode(error) === 409) warnings += 1;
        else {
          errors += 1;
          context.log(
            `restore ${name}: could not create ${kind} ${target}/${item.metadata.name}: ${describeError(error)}`,
          );
        }
      }
    }
    await kube.patchStatus('restores', name, { progress: { totalItems: total, itemsRestored: restored } });
  }
  // The Pod volumes' data (SIMULATOR_POD_VOLUMES), as Velero's node agent restores it once the Pods
  // are back: one PodVolumeRestore each, InProgress now and Completed after a pause, before the
  // Restore ends (Velero waits for them). One it cannot create is a restore error, as in Velero.
  const volumeRestores: { name: string; volume: (typeof podVolumes.volumes)[number] }[] = [];
  for (const volume of podVolumes.volumes.filter((entry) => included.has(entry.namespace))) {
    const target = mapping[volume.namespace] as string;
    try {
      const created = await kube.create('podvolumerestores', podVolumeRestoreFor(restore, volume, target, new Date()));
      volumeRestores.push({ name: created, volume });
    } catch (error) {
      errors += 1;
      context.log(`restore ${name}: could not create the PodVolumeRestore of ${target}/${volume.pod} volume ${volume.volume}: ${describeError(error)}`);
    }
  }
  if (annotations[SIMULATOR_RESTORE_OUTCOME] === 'PartiallyFailed' && errors === 0) errors = 1;
  await context.pause();
  for (const { name: volumeRestore, volume } of volumeRestores) {
    await kube.patchStatus('podvolumerestores', volumeRestore, completedPodVolumeStatus(volume, new Date()));
    context.log(`restore ${name}: PodVolumeRestore ${volumeRestore} Completed (${volume.bytes} bytes)`);
  }
  const phase = errors > 0 ? 'PartiallyFailed' : 'Completed';
  await kube.patchStatus('restores', name, {
    phase,
    warnings,
    errors,
    progress: { totalItems: total, itemsRestored: restored },
    completionTimestamp: kubeTimestamp(),
  });
  context.log(
    `restore ${name}: ${phase} (${restored}/${total} items, ${warnings} warnings, ${errors} errors)`,
  );
}

export async function processDownload(context: PhaseContext, request: DownloadObject): Promise<void> {
  const { kube } = context;
  const target = request.spec?.target ?? {};
  const snapshot =
    target.kind === 'BackupResourceList' && target.name ? await context.snapshots.load(target.name) : undefined;
  await kube.patchStatus('downloadrequests', request.metadata.name, {
    phase: 'Processed',
    downloadURL: context.store.publish(snapshot ? resourceListOf(snapshot) : undefined),
    expiration: kubeTimestamp(new Date(Date.now() + DOWNLOAD_URL_TTL_MS)),
  });
  context.log(`download ${request.metadata.name}: ${target.kind} of ${target.name} ${snapshot ? 'served' : 'not found'}`);
}
