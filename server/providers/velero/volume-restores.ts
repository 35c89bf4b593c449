// The volumes whose data a Velero Restore brings back (issue 27), from the objects Velero makes per
// volume and labels with the restore's name (velero.io/restore-name):
//   - PodVolumeRestore (velero.io/v1): file-system restores by the node agent (kopia), one per
//     restored Pod volume; spec.pod names the restored Pod in the sandbox;
//   - DataDownload (velero.io/v2alpha1): CSI snapshot data movement, one per restored claim;
//     spec.targetVolume names the claim.
// Both carry status.phase (New, Accepted, Prepared, InProgress, Completed, Failed, Canceled),
// status.progress.{bytesDone,totalBytes}, start/completion timestamps and a message. The mapping
// is pure; listVolumeRestores reads them through the provider's error-mapping call.
import type { VolumeRestoreReport } from '../../domain/resources/resources.js';
import { orderVolumes, volumeMessage } from '../../domain/run/volume-data.js';
import { isKind } from '../../kube/errors.js';
import type { RestoreRef } from '../provider.js';
import { VELERO_VERSION, type VeleroCustomObjectsApi, type VeleroList } from './velero-types.js';

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
