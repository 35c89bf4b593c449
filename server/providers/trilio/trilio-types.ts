// The parts of Trilio for Kubernetes (TVK)'s public API (triliovault.trilio.io/v1) that Rehearsal
// reads and writes, as Trilio's CRD documentation describes them (docs.trilio.io, "Custom Resource
// Definitions - Application": Backup, Restore; the Restore's item lists as TVK's API types declare
// them: RestoreStatus.restoreApplication.{custom, helmCharts[], operators[]}, each with the
// snapshot's resources and a ComponentStatus of failed/skipped/excluded resources, a resource
// being {groupVersionKind, objects: names}). Wire shapes for the provider only. Not checked
// against a running TVK: Trilio cannot run here, so the provider is tested against
// test/trilio/simulator.ts (docs/operations.md, "Backup tools").

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

/** Backup and Restore status.status values. */
export type TrilioStatus =
  | 'New'
  | 'InProgress'
  | 'Available'
  | 'Completed'
  | 'Failed'
  | 'Error'
  | 'Coalescing'
  | 'Canceling'
  | 'Canceled';

export interface TrilioBackup {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: { type?: 'Full' | 'Incremental'; backupPlan?: { name?: string; namespace?: string } };
  status?: { status?: TrilioStatus; completionTimestamp?: string; stats?: { backupSize?: number } };
}

export interface TrilioRestore {
  apiVersion?: string;
  kind?: string;
  metadata: TrilioMetadata;
  spec?: {
    source?: { type?: 'Backup' | 'Location'; backup?: { name?: string; namespace?: string } };
    /** The namespace the backup is restored into (a sandbox, for Rehearsal). */
    restoreNamespace?: string;
    skipIfAlreadyExists?: boolean;
    /** Resource types (and Pods of Jobs, by label) not restored (trilio-transforms.ts). */
    excludeResourceSelector?: TrilioTransforms['excludeResourceSelector'];
    /** Changes to restored objects (trilio-transforms.ts). */
    transformComponents?: TrilioTransforms['transformComponents'];
  };
  status?: {
    status?: TrilioStatus;
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
