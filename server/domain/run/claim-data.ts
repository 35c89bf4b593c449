// Issue 27: a restored PersistentVolumeClaim is complete only with its data. The claim object can
// be back while the volume behind it is empty (the tool's per-volume restore failed, was canceled,
// or had not finished when the restore ended), so completeness (decision 0004) must not count such
// a claim as restored. Pure: the engine hands over the tool's per-volume reports
// (VolumeRestoreReport) and, for file-system restores, which claim each restored Pod volume mounts.
//
// The rule, per claim in a sandbox:
//   - the tool reported one or more data restores for it: complete only if every one restored its
//     data (dataRestored);
//   - the tool reported none: counted as before (the backup held no data for it, e.g. a claim whose
//     volume was not backed up, or a tool that does not report volumes). A data restore that the
//     tool should have made but never reported cannot be told apart from "no data in the backup"
//     with what the tools report today (decision 0004).
import type { VolumeRestoreReport } from '../resources/resources.js';

/** Which claim a Pod volume mounts, per restored Pod: "namespace/pod" → volume name → claim name. */
export type PodClaims = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** "sandbox/claim", the key of a claim across the run's sandboxes. */
export function claimKey(namespace: string, claim: string): string {
  return `${namespace}/${claim}`;
}

/** The claim a volume report is about; undefined for a Pod volume that is not a claim (emptyDir, ...). */
export function claimOfVolume(volume: VolumeRestoreReport, podClaims: PodClaims): string | undefined {
  if (volume.claim) return volume.claim;
  if (!volume.pod || !volume.volume) return undefined;
  return podClaims.get(`${volume.namespace}/${volume.pod}`)?.get(volume.volume);
}

/** Whether a file-system volume report still needs its Pod's claims to be placed (what to read). */
export function needsPodClaims(volume: VolumeRestoreReport): boolean {
  return !volume.dataRestored && !volume.claim && volume.pod !== undefined && volume.volume !== undefined;
}

/** The claims ("sandbox/claim") with at least one data restore that did not bring its data back. */
export function claimsWithoutData(volumes: readonly VolumeRestoreReport[] | undefined, podClaims: PodClaims): Set<string> {
  const without = new Set<string>();
  for (const volume of volumes ?? []) {
    if (volume.dataRestored) continue;
    const claim = claimOfVolume(volume, podClaims);
    if (claim !== undefined) without.add(claimKey(volume.namespace, claim));
  }
  return without;
}
