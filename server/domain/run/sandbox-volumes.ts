// The cluster-scoped objects a run's sandbox provisions (issue 27, decision 0019): the
// PersistentVolumes bound to its claims and the VolumeSnapshotContents of its VolumeSnapshots.
// They are not in the namespace, so deleting the sandbox leaves behind a PV whose class retains
// its volumes (Released for ever) and a content whose deletionPolicy is Retain. Two pure rules:
// what the record of a sandbox lists (written when the sandbox is deleted, so an auditor sees what
// was provisioned and the janitor knows what is Rehearsal's), and which object the janitor may
// delete. An object is deleted only when all of these agree: a record of Rehearsal's lists it
// (name and UID), the namespace it refers to is that record's sandbox and carries the sandbox name
// of the record's test and run, the sandbox is gone (or terminating, the same UID), and nothing
// else will remove it: a PV Released whose reclaimPolicy is Retain (a Delete one is its
// provisioner's, with its disk), a content whose deletionPolicy is Retain (deleting a Delete one
// would delete a storage snapshot, which may be the backup's own).
import { isSandboxNameOfRun } from './sandbox-names.js';

export type SandboxVolumeKind = 'PersistentVolume' | 'VolumeSnapshotContent';

/** One PV or VolumeSnapshotContent, as the janitor's gatherer read it. */
export interface ClusterVolume {
  kind: SandboxVolumeKind;
  name: string;
  uid: string;
  /** spec.claimRef.namespace (PV) or spec.volumeSnapshotRef.namespace (content). */
  refNamespace?: string;
  /** spec.claimRef.name or spec.volumeSnapshotRef.name. */
  refName?: string;
  /** PV status.phase (Pending, Available, Bound, Released, Failed); absent for a content. */
  phase?: string;
  /** PV spec.capacity.storage, or a content's status.restoreSize. */
  capacity?: string;
  /** PV spec.storageClassName, or a content's spec.volumeSnapshotClassName. */
  storageClass?: string;
  /** PV spec.persistentVolumeReclaimPolicy, or a content's spec.deletionPolicy. */
  policy?: string;
  /** A PV made by a provisioner for a claim (annotation pv.kubernetes.io/provisioned-by); always true for a content. */
  provisioned: boolean;
  /** metadata.creationTimestamp. */
  createdAt?: string;
  /** metadata.deletionTimestamp is set. */
  deleting: boolean;
}

/** One object in a sandbox's record. */
export interface RecordedVolume {
  kind: SandboxVolumeKind;
  name: string;
  uid: string;
  /** "<namespace>/<claim or VolumeSnapshot>". */
  ref: string;
  capacity?: string;
  storageClass?: string;
  policy?: string;
}

/** What a sandbox provisioned outside itself, recorded when it is deleted. */
export interface SandboxVolumeRecord {
  sandbox: string;
  sandboxUid: string;
  test: string;
  testNamespace: string;
  run: string;
  recordedAt: string;
  volumes: RecordedVolume[];
}

/** The PVs bound to the sandbox's claims and its snapshots' contents, made for it (not before it). */
export function volumesOfSandbox(
  sandbox: { name: string; createdAt?: string },
  volumes: readonly ClusterVolume[],
): RecordedVolume[] {
  const since = sandbox.createdAt ? Date.parse(sandbox.createdAt) : Number.NaN;
  return volumes
    .filter((volume) => volume.refNamespace === sandbox.name && volume.provisioned)
    // A PV older than the sandbox was not provisioned for it: an administrator's volume that a
    // sandbox claim bound. Never recorded, so never deleted. Without both times, not recorded either.
    .filter((volume) => Number.isFinite(since) && volume.createdAt !== undefined && Date.parse(volume.createdAt) >= since)
    .map((volume) => ({
      kind: volume.kind,
      name: volume.name,
      uid: volume.uid,
      ref: `${volume.refNamespace}/${volume.refName ?? ''}`,
      ...(volume.capacity ? { capacity: volume.capacity } : {}),
      ...(volume.storageClass ? { storageClass: volume.storageClass } : {}),
      ...(volume.policy ? { policy: volume.policy } : {}),
    }))
    .sort((left, right) => (left.kind + left.name < right.kind + right.name ? -1 : 1));
}

/** The namespace an object refers to, as the apiserver has it now. */
export type RefNamespaceState = { exists: false } | { exists: true; uid: string; deleting: boolean };

/**
 * - sandbox-gone: the janitor deletes it;
 * - deleting: already being deleted;
 * - no-reference: no claim or snapshot namespace (never a sandbox's);
 * - unrecorded: no record of Rehearsal's lists this object, by name and UID, for that namespace;
 * - not-a-sandbox-name: the namespace is not the sandbox name of the record's test and run;
 * - sandbox-alive: the namespace still exists and is not terminating, or is another namespace of
 *   the same name (another UID);
 * - in-use: a PV not Released (its claim still exists or it never bound);
 * - reclaimed-by-its-class: a PV whose reclaimPolicy is not Retain: its provisioner deletes it
 *   with its disk (deleting the object first would leave the disk behind for good);
 * - snapshot-deleted-with-it: a content whose deletionPolicy is not Retain: deleting it would
 *   delete the storage snapshot (the snapshot controller deletes it with its VolumeSnapshot).
 */
export type VolumeState =
  | 'sandbox-gone'
  | 'deleting'
  | 'no-reference'
  | 'unrecorded'
  | 'not-a-sandbox-name'
  | 'sandbox-alive'
  | 'in-use'
  | 'reclaimed-by-its-class'
  | 'snapshot-deleted-with-it';

export interface VolumeVerdict {
  action: 'delete' | 'keep';
  reason: VolumeState;
  message: string;
}

const keep = (reason: VolumeState, message: string): VolumeVerdict => ({ action: 'keep', reason, message });

/** Whether the janitor may delete this PV or VolumeSnapshotContent. */
export function judgeSandboxVolume(
  volume: ClusterVolume,
  records: readonly SandboxVolumeRecord[],
  namespace: RefNamespaceState,
): VolumeVerdict {
  const what = `${volume.kind} ${volume.name}`;
  if (volume.deleting) return keep('deleting', `${what} is already being deleted`);
  const ref = volume.refNamespace;
  if (!ref) return keep('no-reference', `${what} refers to no namespace`);
  const record = records.find(
    (candidate) =>
      candidate.sandbox === ref &&
      candidate.volumes.some((recorded) => recorded.kind === volume.kind && recorded.name === volume.name && recorded.uid === volume.uid),
  );
  if (!record) return keep('unrecorded', `no record of Rehearsal's lists ${what} (uid ${volume.uid}) for namespace ${ref}`);
  if (!isSandboxNameOfRun(ref, record.test, record.run)) {
    return keep('not-a-sandbox-name', `${what}: namespace ${ref} is not a sandbox name of test ${record.test}, run ${record.run}`);
  }
  if (namespace.exists && (namespace.uid !== record.sandboxUid || !namespace.deleting)) {
    return keep(
      'sandbox-alive',
      namespace.uid !== record.sandboxUid
        ? `${what}: namespace ${ref} exists with uid ${namespace.uid}, not the recorded sandbox's ${record.sandboxUid}`
        : `${what}: sandbox ${ref} still exists`,
    );
  }
  if (volume.kind === 'PersistentVolume' && volume.phase !== 'Released') {
    return keep('in-use', `${what} is ${volume.phase ?? 'of no phase'}, not Released`);
  }
  if (volume.kind === 'PersistentVolume' && volume.policy !== 'Retain') {
    return keep('reclaimed-by-its-class', `${what} has reclaimPolicy ${volume.policy ?? 'unset'}: its provisioner deletes it with its disk`);
  }
  if (volume.kind === 'VolumeSnapshotContent' && volume.policy !== 'Retain') {
    return keep('snapshot-deleted-with-it', `${what} has deletionPolicy ${volume.policy ?? 'unset'}: deleting it would delete its storage snapshot`);
  }
  return {
    action: 'delete',
    reason: 'sandbox-gone',
    message: `${what} (${describe(volume)}) of sandbox ${ref}, ${namespace.exists ? 'terminating' : 'gone'}`,
  };
}

/**
 * Whether a record has done its job: its sandbox is gone and none of the objects it lists exists
 * any more (by name and UID). Until then the janitor keeps it.
 */
export function recordDone(record: SandboxVolumeRecord, volumes: readonly ClusterVolume[], namespace: RefNamespaceState): boolean {
  if (namespace.exists && namespace.uid === record.sandboxUid) return false;
  return !record.volumes.some((recorded) =>
    volumes.some((volume) => volume.kind === recorded.kind && volume.name === recorded.name && volume.uid === recorded.uid),
  );
}

function describe(volume: ClusterVolume): string {
  return [volume.capacity, volume.storageClass && `class ${volume.storageClass}`, volume.policy && `policy ${volume.policy}`]
    .filter(Boolean)
    .join(', ');
}

// The record's ConfigMap in Rehearsal's own namespace: the sandbox is gone by the time the record
// is needed, so it cannot live there, and a record in the sandbox would go with it.

/** The record's ConfigMap name: `<sandbox>.volumes`. */
export function volumeRecordName(sandbox: string): string {
  return `${sandbox}.volumes`;
}

/** Label of every record ConfigMap (its value: the sandbox). */
export const LABEL_SANDBOX_VOLUMES = 'rehearsal.dev/sandbox-volumes';

/** The record's one data key: JSON. */
export const VOLUME_RECORD_KEY = 'record.json';

/** Reads a record's JSON; undefined when it is not one (a record someone else edited is ignored). */
export function parseVolumeRecord(text: string | undefined): SandboxVolumeRecord | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = value as Partial<SandboxVolumeRecord>;
  const strings = [record.sandbox, record.sandboxUid, record.test, record.testNamespace, record.run, record.recordedAt];
  if (strings.some((field) => typeof field !== 'string' || field === '') || !Array.isArray(record.volumes)) return undefined;
  const volumes = record.volumes.filter(
    (volume): volume is RecordedVolume =>
      typeof volume === 'object' &&
      volume !== null &&
      (volume.kind === 'PersistentVolume' || volume.kind === 'VolumeSnapshotContent') &&
      typeof volume.name === 'string' &&
      typeof volume.uid === 'string' &&
      volume.uid !== '',
  );
  return { ...(record as SandboxVolumeRecord), volumes };
}
