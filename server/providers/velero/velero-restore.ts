// Pure translations between Rehearsal's provider contract and Velero's Restore and Schedule
// objects: the Restore Rehearsal creates, how Velero's phases read as RestoreStates, and the
// Schedule read model. No I/O, so the tables in test/unit/providers/ cover them.
import type { ScheduleInfo } from '../../domain/read-models/views.js';
import { transformsConfigMapName } from '../../domain/run/sandbox-names.js';
import {
  assertNamespaceMapping,
  type RestoreProgress,
  type RestoreRequest,
  type RestoreState,
} from '../provider.js';
import {
  VELERO_GROUP,
  VELERO_VERSION,
  type RestorePhase,
  type VeleroRestore,
  type VeleroRestoreStatus,
  type VeleroSchedule,
} from './velero-types.js';
import { resourceModifiersData, veleroTransforms } from './velero-transforms.js';
import { groupResource } from '../../domain/run/restore-subset.js';
import canonicalize from 'canonicalize';

/** The resource-modifier ConfigMap a Restore of this request reads, or undefined when it needs none. */
export interface ResourceModifierConfigMap {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences?: { apiVersion: 'v1'; kind: 'Namespace'; name: string; uid: string }[];
  };
  data: Record<string, string>;
}

export function buildResourceModifierConfigMap(
  request: RestoreRequest,
  veleroNamespace: string,
): ResourceModifierConfigMap | undefined {
  const { modifiers } = veleroTransforms(request.transforms);
  if (!modifiers) return undefined;
  return {
    metadata: {
      name: transformsConfigMapName(request.name),
      namespace: veleroNamespace,
      labels: { ...request.labels },
      // Owned by the run's first sandbox: the garbage collector removes it with the sandbox if
      // the run's clean-up could not (a namespaced object may have a cluster-scoped owner).
      ...(request.owner
        ? { ownerReferences: [{ apiVersion: 'v1' as const, kind: 'Namespace' as const, name: request.owner.name, uid: request.owner.uid }] }
        : {}),
    },
    data: resourceModifiersData(modifiers),
  };
}

/**
 * The Restore for a request. Safety (decision 0002): includedNamespaces is exactly the mapping's
 * sources and namespaceMapping sends every one of them to its sandbox, so Velero has nothing it
 * may write into a source namespace; includeClusterResources is false, so nothing cluster-scoped
 * is written either (Velero creates a missing target namespace itself, which is the sandbox).
 * existingResourcePolicy stays unset (Velero's default "none": never touch an existing object).
 * The restore transforms: excludedResources, and the resource-modifier ConfigMap of the run
 * (created first: Velero reads it when it validates the Restore). A subset (issue 32) is Velero's
 * own labelSelector and includedResources (resource.group names, as `velero restore create
 * --include-resources` takes them): Velero restores only the items both select.
 */
export function buildRestoreObject(request: RestoreRequest, veleroNamespace: string): VeleroRestore {
  assertNamespaceMapping(request.mapping);
  const entries = request.mapping.entries;
  const { excludedResources, modifiers } = veleroTransforms(request.transforms);
  return {
    apiVersion: `${VELERO_GROUP}/${VELERO_VERSION}`,
    kind: 'Restore',
    metadata: { name: request.name, namespace: veleroNamespace, labels: { ...request.labels } },
    spec: {
      backupName: request.backup.name,
      includedNamespaces: entries.map((entry) => entry.source),
      namespaceMapping: Object.fromEntries(entries.map((entry) => [entry.source, entry.sandbox])),
      includeClusterResources: false,
      restorePVs: true,
      ...(excludedResources.length > 0 ? { excludedResources } : {}),
      ...(request.subset?.labelSelector ? { labelSelector: request.subset.labelSelector } : {}),
      ...(request.subset && request.subset.includedResources.length > 0
        ? { includedResources: request.subset.includedResources.map(groupResource) }
        : {}),
      ...(modifiers ? { resourceModifier: { kind: 'ConfigMap', name: transformsConfigMapName(request.name) } } : {}),
    },
  };
}

/**
 * Whether an existing Restore (found when a create answered AlreadyExists) does what this request
 * asks. Adopting a same-named Restore with another backup or mapping could mean adopting one that
 * writes to a source namespace, so the provider refuses it instead.
 */
export function restoreMatchesRequest(existing: VeleroRestore, wanted: VeleroRestore): boolean {
  const have = existing.spec ?? {};
  const want = wanted.spec ?? {};
  const sorted = (values: string[] | undefined) => [...(values ?? [])].sort().join('\n');
  const mapping = (value: Record<string, string> | undefined) =>
    Object.entries(value ?? {})
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([source, target]) => `${source}=${target}`)
      .join('\n');
  return (
    have.backupName === want.backupName &&
    sorted(have.includedNamespaces) === sorted(want.includedNamespaces) &&
    mapping(have.namespaceMapping) === mapping(want.namespaceMapping) &&
    have.includeClusterResources === false &&
    // Velero adds its non-restorable resources (events, nodes, ...) to excludedResources when it
    // validates a Restore: more left out is still this request; one we asked for missing is not.
    (want.excludedResources ?? []).every((resource) => (have.excludedResources ?? []).includes(resource)) &&
    (have.resourceModifier?.name ?? '') === (want.resourceModifier?.name ?? '') &&
    // The subset (issue 32): a Restore of more (or less) than the test asks is not this request.
    sorted(have.includedResources) === sorted(want.includedResources) &&
    canonicalize(have.labelSelector ?? null) === canonicalize(want.labelSelector ?? null)
  );
}

/**
 * Velero's restore phases as Rehearsal's states. Completed is a success even with warnings (Velero
 * reports objects that already existed as warnings); PartiallyFailed means errors. The
 * WaitingForPluginOperations*, Finalizing* phases are still running: Velero only decides between
 * Completed and PartiallyFailed once they end. An unknown (future) phase reads as running, so the
 * engine keeps polling until its own restore timeout rather than guessing an outcome.
 */
export function restoreStateOf(phase: string | undefined): RestoreState {
  switch (phase as RestorePhase | '' | undefined) {
    case undefined:
    case '':
    case 'New':
      return 'pending';
    case 'Completed':
      return 'succeeded';
    case 'PartiallyFailed':
      return 'partiallyFailed';
    case 'Failed':
    case 'FailedValidation':
      return 'failed';
    case 'InProgress':
    case 'WaitingForPluginOperations':
    case 'WaitingForPluginOperationsPartiallyFailed':
    case 'Finalizing':
    case 'FinalizingPartiallyFailed':
    default:
      return 'running';
  }
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function restoreMessage(status: VeleroRestoreStatus, state: RestoreState): string | undefined {
  if (status.failureReason) return status.failureReason;
  const validation = (status.validationErrors ?? []).filter((error) => error !== '');
  if (validation.length > 0) return `validation failed: ${validation.join('; ')}`;
  if (state === 'partiallyFailed') {
    return `restore finished with ${count(status.errors)} error(s) and ${count(status.warnings)} warning(s)`;
  }
  if (state === 'failed') return `restore ${status.phase ?? 'failed'} without a reason from Velero`;
  return undefined;
}

export function toRestoreProgress(restore: Pick<VeleroRestore, 'status'>): RestoreProgress {
  const status = restore.status ?? {};
  const state = restoreStateOf(status.phase);
  const progress: RestoreProgress = {
    state,
    phase: status.phase || 'New',
    warnings: count(status.warnings),
    errors: count(status.errors),
  };
  if (typeof status.progress?.itemsRestored === 'number')
    progress.itemsRestored = count(status.progress.itemsRestored);
  if (typeof status.progress?.totalItems === 'number')
    progress.totalItems = count(status.progress.totalItems);
  const message = restoreMessage(status, state);
  if (message) progress.message = message;
  if (status.completionTimestamp) progress.completedAt = status.completionTimestamp;
  return progress;
}

export function toScheduleInfo(schedule: VeleroSchedule): ScheduleInfo {
  return {
    name: schedule.metadata.name,
    cron: schedule.spec?.schedule ?? '',
    namespaces: [...(schedule.spec?.template?.includedNamespaces ?? [])],
    lastBackup: schedule.status?.lastBackup ?? '',
  };
}
