// The parts of Velero's velero.io/v1 API that Rehearsal reads and writes. Field names follow the
// CRDs generated from the Velero v1.18.3 Go module (test/fixtures/velero/crds/). These are wire
// shapes for the provider only: they never leave server/providers/velero/.
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { LabelSelector } from '../../domain/resources/resources.js';

/** The part of @kubernetes/client-node's CustomObjectsApi (object-parameter style) the provider uses. */
export type VeleroCustomObjectsApi = Pick<
  CustomObjectsApi,
  | 'listNamespacedCustomObject'
  | 'getNamespacedCustomObject'
  | 'createNamespacedCustomObject'
  | 'deleteNamespacedCustomObject'
>;

/** The ConfigMap calls of @kubernetes/client-node's CoreV1Api the provider makes (resource modifiers). */
export type VeleroConfigMapApi = Pick<CoreV1Api, 'createNamespacedConfigMap' | 'readNamespacedConfigMap' | 'deleteNamespacedConfigMap'>;

export const VELERO_GROUP = 'velero.io';
export const VELERO_VERSION = 'v1';
export const VELERO_DEFAULT_NAMESPACE = 'velero';

export const BACKUPS = 'backups';
export const RESTORES = 'restores';
export const SCHEDULES = 'schedules';
export const DOWNLOAD_REQUESTS = 'downloadrequests';

export type BackupPhase =
  | 'New'
  | 'Queued'
  | 'ReadyToStart'
  | 'FailedValidation'
  | 'InProgress'
  | 'WaitingForPluginOperations'
  | 'WaitingForPluginOperationsPartiallyFailed'
  | 'Finalizing'
  | 'FinalizingPartiallyFailed'
  | 'Completed'
  | 'PartiallyFailed'
  | 'Failed'
  | 'Deleting';

export type RestorePhase =
  | 'New'
  | 'FailedValidation'
  | 'InProgress'
  | 'WaitingForPluginOperations'
  | 'WaitingForPluginOperationsPartiallyFailed'
  | 'Finalizing'
  | 'FinalizingPartiallyFailed'
  | 'Completed'
  | 'PartiallyFailed'
  | 'Failed';

export interface VeleroMetadata {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface VeleroBackupSpec {
  includedNamespaces?: string[];
  excludedNamespaces?: string[];
  includedResources?: string[];
  excludedResources?: string[];
  includeClusterResources?: boolean;
  storageLocation?: string;
  /** Go duration, e.g. 720h0m0s. */
  ttl?: string;
}

export interface VeleroBackupStatus {
  phase?: BackupPhase;
  startTimestamp?: string;
  completionTimestamp?: string;
  expiration?: string;
  failureReason?: string;
  validationErrors?: string[];
  warnings?: number;
  errors?: number;
  formatVersion?: string;
  version?: number;
  progress?: { totalItems?: number; itemsBackedUp?: number };
  /** CSI VolumeSnapshots the backup took (Velero with EnableCSI). */
  csiVolumeSnapshotsAttempted?: number;
  csiVolumeSnapshotsCompleted?: number;
}

export interface VeleroBackup {
  apiVersion?: string;
  kind?: string;
  metadata: VeleroMetadata;
  spec?: VeleroBackupSpec;
  status?: VeleroBackupStatus;
}

export interface VeleroRestoreSpec {
  backupName?: string;
  scheduleName?: string;
  includedNamespaces?: string[];
  excludedNamespaces?: string[];
  includedResources?: string[];
  excludedResources?: string[];
  /** Only items whose labels match are restored (a Kubernetes label selector). */
  labelSelector?: LabelSelector;
  namespaceMapping?: Record<string, string>;
  includeClusterResources?: boolean;
  restorePVs?: boolean;
  existingResourcePolicy?: string;
  /** The ConfigMap (in Velero's namespace) with the resource modifiers of this restore. */
  resourceModifier?: { kind: string; name: string; apiGroup?: string };
}

export interface VeleroRestoreStatus {
  phase?: RestorePhase;
  startTimestamp?: string;
  completionTimestamp?: string;
  failureReason?: string;
  validationErrors?: string[];
  warnings?: number;
  errors?: number;
  progress?: { totalItems?: number; itemsRestored?: number };
}

export interface VeleroRestore {
  apiVersion?: string;
  kind?: string;
  metadata: VeleroMetadata;
  spec?: VeleroRestoreSpec;
  status?: VeleroRestoreStatus;
}

export interface VeleroSchedule {
  apiVersion?: string;
  kind?: string;
  metadata: VeleroMetadata;
  spec?: { schedule?: string; paused?: boolean; template?: VeleroBackupSpec };
  status?: { phase?: string; lastBackup?: string; validationErrors?: string[] };
}

export interface VeleroDownloadRequest {
  metadata: VeleroMetadata;
  spec?: { target?: { kind?: string; name?: string } };
  status?: { phase?: 'New' | 'Processed'; downloadURL?: string; expiration?: string };
}

export interface VeleroList<T> {
  items?: T[];
  metadata?: { continue?: string; resourceVersion?: string };
}
