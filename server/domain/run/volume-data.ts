// Volume data (issue 27): whether the data of every restored volume came back, as the backup tool
// reports it per volume (domain/resources VolumeRestoreReport). A restore whose volume data failed
// leaves the restored Pod waiting for it (Velero's restore helper never finishes), so without this
// the run would wait for its pod timeout and then blame the pods; with it the run fails at once,
// naming the volume and the tool's reason. Pure.
import type { VolumeRestoreReport } from '../resources/resources.js';

/** The failure reason of a run whose volume data did not come back. */
export const VOLUME_DATA_NOT_RESTORED = 'VolumeDataNotRestored';

/** "rehearsal-shop-k3m9x2/db-0 volume data", or "rehearsal-shop-k3m9x2/data-db-0 (claim)". */
export function describeVolume(volume: VolumeRestoreReport): string {
  if (volume.pod) return `${volume.namespace}/${volume.pod} volume ${volume.volume ?? '?'}`;
  return `${volume.namespace}/${volume.claim ?? '?'} (claim)`;
}

/** The ended volume restores that did not bring their data back. */
export function failedVolumes(volumes: readonly VolumeRestoreReport[] | undefined): VolumeRestoreReport[] {
  return (volumes ?? []).filter((volume) => volume.phase === 'Failed' || volume.phase === 'Canceled');
}

/** The failure message of a run whose volume data did not come back (at most three named). */
export function volumeDataFailure(failed: readonly VolumeRestoreReport[]): string {
  const named = failed
    .slice(0, 3)
    .map((volume) => `${describeVolume(volume)}: ${volume.phase}${volume.message ? ` (${volume.message})` : ''}`);
  const more = failed.length > 3 ? `; and ${failed.length - 3} more` : '';
  return `the data of ${failed.length} volume${failed.length === 1 ? '' : 's'} was not restored: ${named.join('; ')}${more}`;
}
