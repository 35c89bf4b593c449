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

/**
 * The tools' words for a volume whose data did not come back: Velero's Failed and Canceled, and
 * Trilio's Failed, Error and Canceled (the statuses of a claim's DataRestore condition). Trilio's
 * Skipped and Unavailable are not failures the tool names: the volume is listed, not restored.
 */
const FAILED_PHASES: ReadonlySet<string> = new Set(['Failed', 'Error', 'Canceled']);

/** The ended volume restores that did not bring their data back. */
export function failedVolumes(volumes: readonly VolumeRestoreReport[] | undefined): VolumeRestoreReport[] {
  return (volumes ?? []).filter((volume) => FAILED_PHASES.has(volume.phase));
}

/** At most this many volumes go into a report (the CRD's bound; failed ones come first). */
export const MAX_REPORTED_VOLUMES = 20;

/** A string cut to the CRD's maxLength, marked as cut. */
function fit(text: string, maxLength: number): string {
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/**
 * The entry within the CRD's bounds. Its words come from the tools' objects and from files in the
 * backup's bucket (Velero's RestoreVolumeInfo), which whoever writes there chooses: a value over a
 * bound would make the apiserver refuse the whole report.
 */
function withinBounds(volume: VolumeRestoreReport): VolumeRestoreReport {
  const count = (value: number | undefined) => (value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined);
  const bytes = count(volume.bytes);
  const durationSeconds = count(volume.durationSeconds);
  return {
    namespace: fit(volume.namespace, 63),
    ...(volume.pod !== undefined ? { pod: fit(volume.pod, 253) } : {}),
    ...(volume.volume !== undefined ? { volume: fit(volume.volume, 63) } : {}),
    ...(volume.claim !== undefined ? { claim: fit(volume.claim, 253) } : {}),
    method: volume.method,
    phase: fit(volume.phase, 32),
    dataRestored: volume.dataRestored,
    ...(bytes !== undefined ? { bytes } : {}),
    ...(durationSeconds !== undefined ? { durationSeconds } : {}),
    ...(volume.message !== undefined ? { message: volumeMessage(volume.message) } : {}),
  };
}

/**
 * The volumes as a report keeps them, whichever tool reported them: failed ones first (what a
 * reader looks for), then by namespace, pod/claim and volume; at most MAX_REPORTED_VOLUMES; each
 * within the CRD's bounds.
 */
export function orderVolumes(volumes: readonly VolumeRestoreReport[]): VolumeRestoreReport[] {
  const key = (v: VolumeRestoreReport) => `${v.dataRestored ? 1 : 0}/${v.namespace}/${v.pod ?? v.claim ?? ''}/${v.volume ?? ''}`;
  return [...volumes]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .slice(0, MAX_REPORTED_VOLUMES)
    .map(withinBounds);
}

/** A tool's message as the report keeps it (the CRD's bound: 256 characters). */
export function volumeMessage(message: string): string {
  return fit(message, 256);
}

/** The failure message of a run whose volume data did not come back (at most three named). */
export function volumeDataFailure(failed: readonly VolumeRestoreReport[]): string {
  const named = failed
    .slice(0, 3)
    .map((volume) => `${describeVolume(volume)}: ${volume.phase}${volume.message ? ` (${volume.message})` : ''}`);
  const more = failed.length > 3 ? `; and ${failed.length - 3} more` : '';
  return `the data of ${failed.length} volume${failed.length === 1 ? '' : 's'} was not restored: ${named.join('; ')}${more}`;
}
