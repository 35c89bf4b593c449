// The parts of Trilio for Kubernetes (TVK)'s public API (triliovault.trilio.io/v1) that Rehearsal
// reads and writes, at the paths of the vendor's own CRDs (controller-gen output of TVK's API
// types, published in github.com/trilioData/lightspeed-rag-content,
// validation-framework/validator/crds/triliovault.trilio.io_{restores,backups}.yaml; the test
// cluster installs them, descriptions removed: test/trilio/crds). Worth knowing, because a
// field that is not in the schema is silently dropped by the apiserver: a Restore has no target
// namespace field (it restores into the namespace it is created in), its flags live under
// spec.restoreFlags, and status.status is one of InProgress, Pending, Error, Completed, Failed.
// test/unit/providers/trilio-crd-schema.test.ts checks every object Rehearsal writes against
// that schema. Not checked against a running TVK: Trilio cannot run here, so the provider is
// tested against test/trilio/simulator.ts (docs/operations.md, "Backup tools").
import type { LabelSelector } from '../../domain/resources/resources.js';

import type { TrilioTransforms } from './trilio-transforms.js';

export const TRILIO_BACKUPS = {
  tool: 'Trilio',
  group: 'triliovault.trilio.io',
  version: 'v1',
  plural: 'backups',
};
export const TRILIO_RESTORES = {
  tool: 'Trilio',
  group: 'triliovault.trilio.io',
  version: 'v1',
  plural: 'restores',
};

export interface TrilioMetadata {
  name: string;
  namespace?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
}

/** A Restore's status.status (the CRD's enum). */
export type TrilioRestoreStatus = 'InProgress' | 'Pending' | 'Error' | 'Completed' | 'Failed';

/** A Backup's status.status (the CRD's enum); only Available can be restored. */
export type TrilioBackupStatus =
  | 'Queued'
  | 'InProgress'
  | 'Pending'
  | 'Error'
  | 'Completed'
  | 'Failed'
  | 'Available'
  | 'Coalescing'
  | 'Canceling'
  | 'Canceled'
  | 'Degraded';

export interface TrilioBackup {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: { type?: 'Full' | 'Incremental' | 'Mixed'; backupPlan?: { name?: string; namespace?: string } };
  status?: { status?: TrilioBackupStatus; completionTimestamp?: string };
}

export interface TrilioRestore {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: {
    // No target namespace here: TVK restores into the Restore's own namespace (a sandbox, for Rehearsal).
    source?: { type?: 'Backup' | 'Snapshot' | 'Location' | 'BackupPlan' | 'ConsistentSet' | 'ContinuousRestorePlan'; backup?: { name?: string; namespace?: string } };
    restoreFlags?: { skipIfAlreadyExists?: boolean };
    /** Resource types (and Pods of Jobs, by label) not restored (trilio-transforms.ts). */
    excludeResourceSelector?: TrilioTransforms['excludeResourceSelector'];
    /** Only the objects selected (issue 32: a subset): by labels, or by type (trilio-restore-request.ts). */
    resourceSelector?: {
      gvkSelector?: { groupVersionKind: { group: string; version: string; kind: string } }[];
      labelSelector?: LabelSelector[];
    };
    /** Changes to restored objects (trilio-transforms.ts). */
    transformComponents?: TrilioTransforms['transformComponents'];
  };
  status?: {
    status?: TrilioRestoreStatus;
    phase?: string;
    phaseStatus?: string;
    percentageCompletion?: number;
    startTimestamp?: string;
    completionTimestamp?: string;
    condition?: { phase?: string; status?: string; reason?: string; timestamp?: string }[];
    restoreApplication?: {
      custom?: TrilioRestoreComponent;
      helmCharts?: TrilioRestoreComponent[];
      operators?: TrilioRestoreComponent[];
    };
  };
}

/** Objects of one kind, by name. */
export interface TrilioResource {
  groupVersionKind?: { group?: string; version?: string; kind?: string };
  objects?: string[];
}

/**
 * One volume of a restore (TVK's DataSnapshot, as the vendor's Restore CRD declares it: "Snapshot
 * of a Persistent Volume"; persistentVolumeClaimName is its only required field). Rehearsal reads
 * the claim, the DataRestore conditions and the size (trilio-volume-restores.ts).
 */
export interface TrilioDataSnapshot {
  persistentVolumeClaimName?: string;
  /** "The current statuses for backup and restore PVCs": phase Snapshot, Upload, DataRestore or DataSnapshot. */
  conditions?: { phase?: string; status?: string; reason?: string; timestamp?: string }[];
  /** "The size of qcow2 created/restored in backup/restore": a Kubernetes quantity, number or string. */
  size?: number | string;
}

/** One application component of a restore: what its snapshot held and how restoring it went. */
export interface TrilioRestoreComponent {
  /** Custom and Helm snapshots list `resources`; Operator snapshots `customResources` and `operatorResources`. */
  snapshot?: {
    resources?: TrilioResource[];
    customResources?: TrilioResource[];
    operatorResources?: TrilioResource[];
    /** The component's volumes (custom, helmCharts[], operators[]). */
    dataSnapshots?: TrilioDataSnapshot[];
    /** A Helm-based operator's chart, with its own volumes. */
    helm?: { dataSnapshots?: TrilioDataSnapshot[] };
  };
  status?: {
    failedResources?: TrilioResource[];
    skippedResources?: TrilioResource[];
    /** Left out by the restore on purpose (spec.excludeResources, Trilio's default ignore list). */
    excludedResources?: TrilioResource[];
  };
}

/**
 * BackupPlans and schedule Policies (triliovault.trilio.io/v1, TVK's own CRDs: backupplans,
 * policies), read for backup coverage and test drafts. A BackupPlan lives in the namespace it
 * backs up (one per namespace, scope Namespace or App); its schedule is one or two references to
 * Policies of type Schedule, each holding cron expressions.
 */
export const TRILIO_BACKUP_PLANS = {
  tool: 'Trilio',
  group: 'triliovault.trilio.io',
  version: 'v1',
  plural: 'backupplans',
};
export const TRILIO_POLICIES = {
  tool: 'Trilio',
  group: 'triliovault.trilio.io',
  version: 'v1',
  plural: 'policies',
};

/** An object reference as TVK's CRDs write it (corev1.ObjectReference). */
export interface TrilioObjectReference {
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface TrilioBackupPlan {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: {
    backupConfig?: {
      schedulePolicy?: { fullBackupPolicy?: TrilioObjectReference; incrementalBackupPolicy?: TrilioObjectReference };
    };
    backupPlanFlags?: { pauseSchedule?: boolean };
  };
  status?: { pauseSchedule?: boolean };
}

export interface TrilioPolicy {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: {
    type?: 'Timeout' | 'Retention' | 'Cleanup' | 'Schedule' | 'SecurityScan' | 'ContinuousRestore';
    scheduleConfig?: { schedule?: string[] };
  };
}
