// What the engine observes about a run, and the bounds it runs within: the input of nextStep
// (run-policy.ts). The engine's gatherer (engine/run/run-gatherer.ts) fills in what the run's stage
// needs; a field left out means "not looked at", never "false".
import type { BackupSelectionRecord, CurrentRun, RunResult, VolumeRestoreReport } from '../resources/resources.js';

export interface RunBounds {
  /** The sandbox ttl: a run still going after it fails with TTLExceeded. */
  ttlSeconds: number;
  /** How long Validating waits for pods before checking anyway (the score says what was missing). */
  podReadyTimeoutSeconds: number;
  /**
   * How long a restored claim may stay Pending after a binding failure was reported for it before
   * the run fails with VolumeNotBound (claim-binding.ts). Default 120 s.
   */
  claimBindTimeoutSeconds: number;
  /** How long the backup provider may stay unreachable before the run fails (ProviderUnavailable). */
  providerUnavailableSeconds: number;
  /** How often a run waiting on something outside is looked at again. */
  pollIntervalMs: number;
  /**
   * How often a Restoring run is looked at without an event, when the provider's restore objects
   * are watched (each change wakes the run; this is only the safety net). Default pollIntervalMs.
   */
  restorePollMs?: number;
}

export interface BackupChoice {
  name: string;
  completedAt?: string;
  totalItems?: number;
  /** How a randomWithin test drew it (domain/run/backup-sampling.ts). */
  selection?: BackupSelectionRecord;
}

/** Preparing: what the provider said about the backup to restore. */
export type BackupObservation =
  | { state: 'found'; backup: BackupChoice }
  | { state: 'rejected'; reason: string; message: string }
  | { state: 'unavailable'; message: string };

/** Restoring: the restore object's progress, as the provider reports it. */
export type RestoreObservation =
  | { state: 'pending' | 'running'; phase: string }
  | {
      state: 'succeeded' | 'partiallyFailed';
      phase: string;
      completedAt?: string;
      itemsRestored?: number;
      warnings: number;
      /** The volumes whose data the restore brought back, per the tool (volume-data.ts). */
      volumes?: VolumeRestoreReport[];
    }
  | {
      state: 'failed';
      phase: string;
      message?: string;
      /** The volumes the failed restore names (Trilio's dataSnapshots: a failed DataRestore fails the Restore). */
      volumes?: VolumeRestoreReport[];
    }
  | { state: 'missing' }
  | { state: 'unavailable'; message: string };

/**
 * Restoring, and Validating until podsReadyAt: a PersistentVolumeClaim in one of the run's
 * sandboxes, and the latest event that says why it is not bound (claim-binding.ts).
 */
export interface ClaimObservation {
  namespace: string;
  name: string;
  /** status.phase: Pending, Bound or Lost. */
  phase: string;
  /** metadata.creationTimestamp: a restored claim is Pending from then on. */
  createdAt: string;
  /**
   * The claim's latest Warning event, or FailedBinding of any type: the PV controller writes
   * "no persistent volumes available for this claim and no storage class is set" as a Normal
   * FailedBinding (pv_controller.go, syncUnboundClaim). Absent when there is none.
   */
  lastWarning?: { reason: string; message: string; at: string };
}

/** Validating: the background task that runs the health checks of this run. */
export type ChecksObservation = { state: 'not-started' } | { state: 'running' } | { state: 'done' };

/** Preparing, after the prepare action: the sandboxes it created and the restore it requested. */
export type PreparationObservation =
  | {
      state: 'prepared';
      sandboxNamespaces: NonNullable<CurrentRun['sandboxNamespaces']>;
      restore: NonNullable<CurrentRun['restore']>;
      /** When the restore was requested (the start of the RTO). */
      requestedAt: string;
    }
  /** A namespace of the run's name exists that Rehearsal did not create (decision 0009). */
  | { state: 'sandbox-taken'; sandboxNamespaces: NonNullable<CurrentRun['sandboxNamespaces']>; reason: string; message: string }
  /** The sandboxes exist but their storage quota was not synced in time (issue 27): nothing was restored. */
  | { state: 'sandbox-unready'; sandboxNamespaces: NonNullable<CurrentRun['sandboxNamespaces']>; reason: string; message: string };

/** Validating/Finalizing: the run's report (deterministic name), once it exists. */
export interface ReportObservation {
  name: string;
  result: RunResult;
  score: number;
  completedAt: string;
}

export interface RunObservations {
  /** The RestoreTest is gone or being deleted. */
  testDeleted: boolean;
  /** This replica still holds the leader lease. */
  leading: boolean;
  /** Queued: a run slot is free and this run is next in line (engine/run/run-slots.ts). */
  admitted?: boolean;
  /** Queued and admitted: may the run start at all (domain/permissions/run-permission.ts, decision 0018). */
  permission?: { allowed: boolean; reason: string; message: string };
  backup?: BackupObservation;
  restore?: RestoreObservation;
  /** Validating, until podsReadyAt is recorded. */
  pods?: { expected: number; ready: number };
  /** Restoring, and Validating until podsReadyAt is recorded: the sandboxes' claims. */
  claims?: ClaimObservation[];
  checks?: ChecksObservation;
  /** Preparing: what the prepare action did (present only when asking again after it). */
  preparation?: PreparationObservation;
  /** Validating/Finalizing: the run's report, when it exists (absent: not written yet). */
  report?: ReportObservation;
  bounds: RunBounds;
}
