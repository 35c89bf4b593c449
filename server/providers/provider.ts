// What the engine needs from a backup tool. Every provider talks to its tool through the
// Kubernetes API only (never a CLI). Implementations: velero/ (now); kasten/, trilio/ (same shape).
import type { BackupManifests } from '../domain/preflight/preflight-checks.js';
import type { DefaultTransformId, Provider, VolumeRestoreReport } from '../domain/resources/resources.js';
import type { ScheduleInfo } from '../domain/read-models/views.js';
import type { BackupFacts, BackupScheduleFacts } from '../domain/read-models/coverage.js';
import type { RestoreTransforms } from '../domain/run/restore-transforms.js';
import type { RestoreSubset } from '../domain/run/restore-subset.js';

/**
 * A restore target for every source namespace. The only way to build one is
 * buildNamespaceMapping(), which refuses an incomplete or unsafe mapping: a restore request
 * without a complete source → sandbox mapping must be impossible to construct (decision 0002).
 */
export interface NamespaceMapping {
  readonly __brand: 'NamespaceMapping';
  readonly entries: readonly { readonly source: string; readonly sandbox: string }[];
}

export class UnsafeMappingError extends Error {}

export function buildNamespaceMapping(
  sourceNamespaces: readonly string[],
  sandboxFor: (source: string) => string | undefined,
): NamespaceMapping {
  if (sourceNamespaces.length === 0) throw new UnsafeMappingError('no source namespaces to map');
  const entries = sourceNamespaces.map((source) => {
    const sandbox = sandboxFor(source);
    if (!sandbox) throw new UnsafeMappingError(`source namespace ${source} has no sandbox`);
    if (sandbox === source)
      throw new UnsafeMappingError(`source namespace ${source} would be restored onto itself`);
    return { source, sandbox };
  });
  const sandboxes = new Set(entries.map((entry) => entry.sandbox));
  if (sandboxes.size !== entries.length) throw new UnsafeMappingError('two sources map to one sandbox');
  for (const sandbox of sandboxes) {
    if (sourceNamespaces.includes(sandbox)) {
      throw new UnsafeMappingError(`sandbox ${sandbox} is also a source namespace`);
    }
  }
  return Object.freeze({ __brand: 'NamespaceMapping' as const, entries: Object.freeze(entries) });
}

/**
 * Re-checks a mapping at the moment a provider is about to use it. The type's brand can be forged
 * with a cast, and a restore that writes to a source namespace is the one mistake Rehearsal must
 * never make, so every provider calls this just before it creates a restore (defence in depth).
 */
export function assertNamespaceMapping(mapping: NamespaceMapping): void {
  const entries = mapping?.entries;
  if (mapping?.__brand !== 'NamespaceMapping' || !Array.isArray(entries) || entries.length === 0) {
    throw new UnsafeMappingError('not a mapping built by buildNamespaceMapping()');
  }
  const sources = mapping.entries.map((entry) => entry.source);
  if (new Set(sources).size !== sources.length) {
    throw new UnsafeMappingError('a source namespace is mapped twice');
  }
  // Rebuilding validates every rule of buildNamespaceMapping() again.
  const sandboxOf = new Map(mapping.entries.map((entry) => [entry.source, entry.sandbox]));
  buildNamespaceMapping(sources, (source) => sandboxOf.get(source));
}

export interface BackupInfo {
  name: string;
  /** RFC 3339; absent when the tool does not record it. */
  completedAt?: string;
  includedNamespaces: string[];
  /** Objects per kind in the backup, when the tool can tell (feeds the completeness level). */
  itemsPerKind?: { kind: string; count: number }[];
  totalItems?: number;
}

/** Namespaced objects of one kind and source namespace that a backup holds and a restore writes. */
export interface BackedUpKind {
  apiVersion: string;
  kind: string;
  sourceNamespace: string;
  names: string[];
}

export interface RestoreRef {
  namespace: string;
  name: string;
  /**
   * Tools that restore one namespace per object (Kasten, Trilio) keep one object of this name in
   * each of these namespaces (the run's sandboxes; `namespace` is the first). Absent = one object.
   */
  namespaces?: string[];
}

export interface RestoreRequest {
  /** Deterministic name, so a restarted engine that repeats the request finds its own restore. */
  name: string;
  backup: BackupInfo;
  mapping: NamespaceMapping;
  labels: Record<string, string>;
  /** The restore transforms (domain/run/restore-transforms.ts), in the tool's own terms. */
  transforms: RestoreTransforms;
  /**
   * Only this part of the backup (issue 32); absent = everything in the source namespaces. A
   * provider whose tool cannot restore exactly this subset throws RestoreRejected rather than
   * restore more.
   */
  subset?: RestoreSubset;
  /**
   * The run's first sandbox namespace: helper objects a tool needs outside the sandbox (Velero's
   * resource-modifier ConfigMap) are owned by it, so they go with the sandbox at the latest.
   */
  owner?: { name: string; uid: string };
}

export type RestoreState = 'pending' | 'running' | 'succeeded' | 'partiallyFailed' | 'failed';

export interface RestoreProgress {
  state: RestoreState;
  /** The tool's own phase word, recorded in the report. */
  phase: string;
  warnings: number;
  errors: number;
  itemsRestored?: number;
  totalItems?: number;
  message?: string;
  completedAt?: string;
  /**
   * The volumes whose data the restore brings back (issue 27): read once the restore has ended,
   * absent before, and where the tool restores no volume data or cannot say.
   */
  volumes?: VolumeRestoreReport[];
}

export class ProviderError extends Error {
  constructor(
    readonly reason: 'BackupNotFound' | 'ProviderUnavailable' | 'RestoreNotFound' | 'RestoreRejected',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface BackupProvider {
  readonly name: Provider;
  /** Restore progress comes from a watch that wakes the run on each change (polled less often). */
  readonly watchesRestores?: boolean;
  /**
   * The tool marks each object a restore transform changed (transforms.rehearsal.dev/<transform>),
   * so the report can list them one by one (Velero's merge patches; Kasten and Trilio cannot).
   */
  readonly marksTransformedObjects?: boolean;
  /**
   * Default transforms the tool cannot express (docs/restore-transforms.md says why): a report
   * never lists them as applied.
   */
  readonly transformsNotDone?: readonly DefaultTransformId[];
  /** "latest" (or empty) = the newest completed backup that covers every source namespace. */
  selectBackup(
    sourceNamespaces: readonly string[],
    backupName: string,
    providerNamespace?: string,
  ): Promise<BackupInfo>;
  /**
   * Every backup "latest" could choose (the same filter: restorable, covering every source
   * namespace), in any order, for a randomWithin draw (issue 32, domain/run/backup-sampling.ts).
   * Throws ProviderError BackupNotFound when the tool cannot offer one backup for all the sources
   * (Kasten and Trilio with several source namespaces: they restore one backup per namespace).
   */
  listRestorableBackups?(sourceNamespaces: readonly string[], providerNamespace?: string): Promise<BackupInfo[]>;
  /** Idempotent: a request whose restore already exists returns its reference. */
  startRestore(request: RestoreRequest, providerNamespace?: string): Promise<RestoreRef>;
  getRestoreProgress(ref: RestoreRef): Promise<RestoreProgress>;
  /** Removes the tool's restore object (not the restored data, which lives in the sandbox). */
  deleteRestore(ref: RestoreRef): Promise<void>;
  /**
   * What a backup holds per kind, for completeness per kind (only Velero can tell: it keeps a
   * resource list beside each backup). Throws when the list cannot be had; the caller degrades.
   */
  backedUpObjects?(
    backupName: string,
    sourceNamespaces: readonly string[],
    providerNamespace?: string,
  ): Promise<BackedUpKind[]>;
  /**
   * A backup's manifests for the pre-flight check (issue 32): every kind it holds in the source
   * namespaces and the claims, pods and workloads themselves. Only Velero keeps them readable
   * (its tarball in the bucket). Throws when they cannot be read.
   */
  backupManifests?(
    backupName: string,
    sourceNamespaces: readonly string[],
    providerNamespace?: string,
  ): Promise<BackupManifests>;
  /** Backup schedules of the tool; only Velero has them. */
  listSchedules?(providerNamespace?: string): Promise<ScheduleInfo[]>;
  /** What the tool backs up (schedules and restorable backups), for the coverage view. */
  listBackupInventory?(
    providerNamespace?: string,
  ): Promise<{ schedules: BackupScheduleFacts[]; backups: BackupFacts[] }>;
}
