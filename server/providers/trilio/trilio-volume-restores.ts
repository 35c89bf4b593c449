// The volumes whose data a Trilio Restore brought back (issue 27), from what TVK documents per
// volume. The vendor's Restore CRD (triliovault.trilio.io/v1, controller-gen; published in
// github.com/trilioData/lightspeed-rag-content, validation-framework/validator/crds/
// triliovault.trilio.io_restores.yaml) declares, under status.restoreApplication, each
// component's snapshot — custom, helmCharts[], operators[] (and an operator's helm) — with
// `dataSnapshots[]`: one per PersistentVolumeClaim (`persistentVolumeClaimName`, required), with
// `conditions[]` ({phase: Snapshot | Upload | DataRestore | DataSnapshot, status: InProgress |
// Error | Completed | Failed | Skipped | Unavailable | Canceled, reason, timestamp}) and `size`
// ("the size of qcow2 created/restored in backup/restore", a quantity). Trilio's restore phases
// (docs.trilio.io, and the same repository's troubleshooting guide): DataRestore "restores
// persistent volume data", before MetadataRestore.
//
// One report entry per dataSnapshot: the claim in the Restore's namespace (Rehearsal restores
// into the namespace the Restore lives in: its sandbox), method provider-data-mover (Trilio's data
// mover writes the volume's QCOW2 image from its target), the status of the claim's latest
// DataRestore condition as the phase, its reason as the message, the size as bytes once the data
// is restored, and the time from the first DataRestore condition to the last. Not mapped: the
// Pods of podContainersMap (the source's Pods at backup time, whose restored copies may have other
// names), `error` (documented as the error of the backup), the restore-level `status.size` and
// `duration` (no per-volume field to put them in). Pure.
import type { VolumeRestoreReport } from '../../domain/resources/resources.js';
import { orderVolumes, volumeMessage } from '../../domain/run/volume-data.js';
import { quantityBytes } from '../../domain/common/quantity.js';
import type { TrilioDataSnapshot, TrilioRestore, TrilioRestoreComponent } from './trilio-types.js';

/** The phase of a claim whose dataSnapshot carries no DataRestore condition: Trilio did not say. */
export const NO_DATA_RESTORE_CONDITION = 'Unknown';

const DATA_RESTORE = 'DataRestore';

function time(value: string | undefined): number {
  const parsed = value ? Date.parse(value) : NaN;
  return Number.isNaN(parsed) ? NaN : parsed;
}

/** One dataSnapshot as a report entry, in `namespace` (the Restore's own, where its claims are restored). */
export function fromDataSnapshot(item: TrilioDataSnapshot, namespace: string): VolumeRestoreReport {
  // Conditions in the order Trilio wrote them; a timestamp, where there is one, decides.
  const restores = (item.conditions ?? [])
    .map((condition, index) => ({ condition, index }))
    .filter(({ condition }) => condition.phase === DATA_RESTORE)
    .sort((a, b) => {
      const [left, right] = [time(a.condition.timestamp), time(b.condition.timestamp)];
      return Number.isNaN(left) || Number.isNaN(right) || left === right ? a.index - b.index : left - right;
    })
    .map(({ condition }) => condition);
  const first = restores[0];
  const last = restores[restores.length - 1];
  const phase = last?.status || NO_DATA_RESTORE_CONDITION;
  const dataRestored = phase === 'Completed';
  const bytes = dataRestored ? quantityBytes(item.size) : undefined;
  const spanMs = first && last && first !== last ? time(last.timestamp) - time(first.timestamp) : NaN;
  const reason = last?.reason ?? (last ? undefined : 'Trilio gave no DataRestore condition for this claim');
  return {
    namespace,
    ...(item.persistentVolumeClaimName ? { claim: item.persistentVolumeClaimName } : {}),
    method: 'provider-data-mover',
    phase,
    dataRestored,
    ...(bytes !== undefined ? { bytes } : {}),
    ...(Number.isFinite(spanMs) ? { durationSeconds: Math.max(0, Math.round(spanMs / 1000)) } : {}),
    ...(reason ? { message: volumeMessage(reason) } : {}),
  };
}

function dataSnapshotsOf(component: TrilioRestoreComponent): TrilioDataSnapshot[] {
  return [...(component.snapshot?.dataSnapshots ?? []), ...(component.snapshot?.helm?.dataSnapshots ?? [])];
}

/**
 * The volumes of a Restore, failed ones first, at most MAX_REPORTED_VOLUMES; empty when its status
 * lists no dataSnapshots (a restore of metadata only, or an application without volumes).
 */
export function trilioVolumes(restore: TrilioRestore): VolumeRestoreReport[] {
  const application = restore.status?.restoreApplication;
  if (!application) return [];
  const namespace = restore.metadata.namespace ?? '';
  const components: TrilioRestoreComponent[] = [
    ...(application.custom ? [application.custom] : []),
    ...(application.helmCharts ?? []),
    ...(application.operators ?? []),
  ];
  return orderVolumes(components.flatMap(dataSnapshotsOf).map((item) => fromDataSnapshot(item, namespace)));
}
