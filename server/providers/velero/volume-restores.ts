// The volumes whose data a Velero Restore brings back (issue 27), from the objects Velero makes per
// volume and labels with the restore's name (velero.io/restore-name):
//   - PodVolumeRestore (velero.io/v1): file-system restores by the node agent (kopia), one per
//     restored Pod volume; spec.pod names the restored Pod in the sandbox;
//   - DataDownload (velero.io/v2alpha1): CSI snapshot data movement, one per restored claim;
//     spec.targetVolume names the claim.
// Both carry status.phase (New, Accepted, Prepared, InProgress, Completed, Failed, Canceled),
// status.progress.{bytesDone,totalBytes}, start/completion timestamps and a message.
// A CSI snapshot restored as it is (no data movement) has no such object: Velero restores the
// VolumeSnapshot and its content and points the claim's dataSource at it, and the CSI driver fills
// the new volume when it provisions it. Those claims come from the restore's volume information
// (the RestoreVolumeInfo file Velero keeps in its object store since 1.13, restoreMethod
// CSISnapshot), read only when the backup says it took CSI snapshots.
// The mapping is pure; listVolumeRestores reads them through the provider's error-mapping call.
import type { VolumeRestoreReport } from '../../domain/resources/resources.js';
import { orderVolumes, volumeMessage } from '../../domain/run/volume-data.js';
import { isKind } from '../../kube/errors.js';
import type { RestoreRef } from '../provider.js';
import { DownloadError, downloadVeleroFile, type DownloadLimits } from './download-request.js';
import { BACKUPS, VELERO_VERSION, type VeleroBackup, type VeleroCustomObjectsApi, type VeleroList } from './velero-types.js';

export const VOLUME_RESTORE_LABEL = 'velero.io/restore-name';

interface VolumeStatus {
  phase?: string;
  message?: string;
  startTimestamp?: string;
  completionTimestamp?: string;
  progress?: { bytesDone?: number; totalBytes?: number };
}

export interface VeleroPodVolumeRestore {
  spec?: { pod?: { namespace?: string; name?: string }; volume?: string };
  status?: VolumeStatus;
}

export interface VeleroDataDownload {
  spec?: { targetVolume?: { namespace?: string; pvc?: string } };
  status?: VolumeStatus;
}

function durationSeconds(status: VolumeStatus): number | undefined {
  if (!status.startTimestamp || !status.completionTimestamp) return undefined;
  const ms = Date.parse(status.completionTimestamp) - Date.parse(status.startTimestamp);
  return Number.isFinite(ms) ? Math.max(0, Math.round(ms / 1000)) : undefined;
}

function common(status: VolumeStatus | undefined): Pick<VolumeRestoreReport, 'phase' | 'dataRestored' | 'bytes' | 'durationSeconds' | 'message'> {
  const phase = status?.phase || 'New';
  const bytes = status?.progress?.bytesDone;
  const duration = status ? durationSeconds(status) : undefined;
  return {
    phase,
    dataRestored: phase === 'Completed',
    ...(typeof bytes === 'number' && Number.isFinite(bytes) && bytes >= 0 ? { bytes: Math.floor(bytes) } : {}),
    ...(duration !== undefined ? { durationSeconds: duration } : {}),
    ...(status?.message ? { message: volumeMessage(status.message) } : {}),
  };
}

export function fromPodVolumeRestore(item: VeleroPodVolumeRestore): VolumeRestoreReport {
  return {
    namespace: item.spec?.pod?.namespace ?? '',
    ...(item.spec?.pod?.name ? { pod: item.spec.pod.name } : {}),
    ...(item.spec?.volume ? { volume: item.spec.volume } : {}),
    method: 'file-system',
    ...common(item.status),
  };
}

export function fromDataDownload(item: VeleroDataDownload): VolumeRestoreReport {
  return {
    namespace: item.spec?.targetVolume?.namespace ?? '',
    ...(item.spec?.targetVolume?.pvc ? { claim: item.spec.targetVolume.pvc } : {}),
    method: 'csi-data-mover',
    ...common(item.status),
  };
}

/** One entry of Velero's RestoreVolumeInfo file (internal/volume/volumes_information.go). */
export interface VeleroRestoreVolumeInfo {
  pvcName?: string;
  pvcNamespace?: string;
  pvName?: string;
  restoreMethod?: string;
  snapshotDataMoved?: boolean;
  csiSnapshotInfo?: { snapshotHandle?: string; size?: number; driver?: string; vscName?: string };
}

/**
 * The claims Velero restored from a CSI snapshot without data movement. Velero's part is done when
 * the claim exists with the snapshot as its source: the data is in the volume the CSI driver
 * provisions from it, so the claim restored counts as the data restored here, and a claim that
 * then cannot bind fails the run as VolumeNotBound (domain/run/claim-binding.ts). The size is the
 * snapshot's restore size (the volume's), not bytes moved: it goes into the message, not `bytes`.
 */
export function fromRestoreVolumeInfo(entries: readonly VeleroRestoreVolumeInfo[]): VolumeRestoreReport[] {
  return entries
    .filter((entry) => entry.restoreMethod === 'CSISnapshot' && !entry.snapshotDataMoved && entry.pvcNamespace && entry.pvcName)
    .map((entry) => {
      const snapshot = entry.csiSnapshotInfo;
      const size = typeof snapshot?.size === 'number' && snapshot.size > 0 ? `, restore size ${snapshot.size} bytes` : '';
      const from = snapshot?.vscName ? `VolumeSnapshotContent ${snapshot.vscName}` : 'its VolumeSnapshot';
      const message = `provisioned from ${from}${snapshot?.driver ? ` by ${snapshot.driver}` : ''}${size}`;
      return {
        namespace: entry.pvcNamespace!,
        claim: entry.pvcName!,
        method: 'csi-snapshot' as const,
        phase: 'Restored',
        dataRestored: true,
        message: volumeMessage(message),
      };
    });
}

/** Parses the RestoreVolumeInfo file (a JSON array); anything else is no entries. */
export function parseRestoreVolumeInfo(text: string): VeleroRestoreVolumeInfo[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed.filter((entry) => entry !== null && typeof entry === 'object') as VeleroRestoreVolumeInfo[]) : [];
  } catch {
    return [];
  }
}

/** The provider's call: runs a request on its API, mapping an unreachable apiserver to ProviderUnavailable. */
export type VeleroCall = <T>(what: string, request: (api: VeleroCustomObjectsApi) => Promise<T>) => Promise<T>;

/**
 * The per-volume objects of an ended restore. A cluster without them (no node agent, no data
 * mover, an older Velero) or an installation whose role does not grant them yet: no volumes, the
 * report then has no volume table.
 */
export async function listVolumeRestores(ref: RestoreRef, group: string, call: VeleroCall): Promise<VolumeRestoreReport[]> {
  const list = async <T>(version: string, plural: string): Promise<T[]> => {
    try {
      const page = (await call(`listing ${plural} of Restore ${ref.name}`, (api) =>
        api.listNamespacedCustomObject({
          group,
          version,
          namespace: ref.namespace,
          plural,
          labelSelector: `${VOLUME_RESTORE_LABEL}=${ref.name}`,
          limit: 500,
        }),
      )) as VeleroList<T>;
      return page.items ?? [];
    } catch (error) {
      if (isKind(error, 'NotFound') || isKind(error, 'Forbidden')) return [];
      throw error;
    }
  };
  const [podVolumes, dataDownloads] = await Promise.all([
    list<VeleroPodVolumeRestore>(VELERO_VERSION, 'podvolumerestores'),
    list<VeleroDataDownload>('v2alpha1', 'datadownloads'),
  ]);
  return orderVolumes([...podVolumes.map(fromPodVolumeRestore), ...dataDownloads.map(fromDataDownload)]);
}

/**
 * The claims an ended restore provisioned from CSI snapshots, from its RestoreVolumeInfo file: read
 * only when its backup took CSI snapshots, so restores without any cost no download. A backup or
 * file Velero cannot give (an older Velero, an unreachable store, no right to read): no rows.
 */
export async function listSnapshotRestores(
  ref: RestoreRef,
  backupName: string | undefined,
  group: string,
  limits: DownloadLimits,
  call: VeleroCall,
): Promise<VolumeRestoreReport[]> {
  if (!backupName) return [];
  try {
    const backup = (await call(`reading Backup ${ref.namespace}/${backupName}`, (api) =>
      api.getNamespacedCustomObject({ group, version: VELERO_VERSION, namespace: ref.namespace, plural: BACKUPS, name: backupName }),
    )) as VeleroBackup;
    if (!backup.status?.csiVolumeSnapshotsCompleted) return [];
    const file = await call(`reading the volume information of Restore ${ref.namespace}/${ref.name}`, (api) =>
      downloadVeleroFile(api, group, ref.namespace, { kind: 'RestoreVolumeInfo', name: ref.name }, limits).catch((error: unknown) => {
        if (error instanceof DownloadError) return undefined; // not there to give: no rows, not an outage
        throw error;
      }),
    );
    return file ? fromRestoreVolumeInfo(parseRestoreVolumeInfo(file.toString('utf8'))) : [];
  } catch (error) {
    if (isKind(error, 'NotFound') || isKind(error, 'Forbidden')) return [];
    throw error;
  }
}
