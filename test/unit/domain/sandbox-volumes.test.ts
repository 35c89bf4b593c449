// Which PersistentVolume or VolumeSnapshotContent the janitor may delete (issue 27, decision 0019),
// what a sandbox's record lists, and when a record has done its job. Every "keep" row changes one
// fact of the one "delete" row, so each condition is shown to matter on its own.
import { describe, expect, it } from '@jest/globals';
import {
  judgeSandboxVolume,
  parseVolumeRecord,
  recordDone,
  volumesOfSandbox,
  type ClusterVolume,
  type RefNamespaceState,
  type SandboxVolumeRecord,
  type VolumeState,
} from '../../../server/domain/run/sandbox-volumes.js';
import { sandboxNamespaceName } from '../../../server/domain/run/sandbox-names.js';

const SANDBOX = sandboxNamespaceName('rehearsal', 'shop-nightly', 'k3m9x');
const SANDBOX_CREATED = '2026-11-28T08:00:00.000Z';

const pv: ClusterVolume = {
  kind: 'PersistentVolume',
  name: 'pvc-0b1c',
  uid: 'pv-uid',
  refNamespace: SANDBOX,
  refName: 'data-db-0',
  phase: 'Released',
  capacity: '1Gi',
  storageClass: 'retained',
  policy: 'Retain',
  provisioned: true,
  createdAt: '2026-11-28T08:01:00.000Z',
  deleting: false,
};

const content: ClusterVolume = {
  kind: 'VolumeSnapshotContent',
  name: 'velero-data-db-0-k3m9x',
  uid: 'vsc-uid',
  refNamespace: SANDBOX,
  refName: 'velero-data-db-0',
  capacity: '1073741824',
  storageClass: 'csi-snapclass',
  policy: 'Retain',
  provisioned: true,
  createdAt: '2026-11-28T08:00:30.000Z',
  deleting: false,
};

const record: SandboxVolumeRecord = {
  sandbox: SANDBOX,
  sandboxUid: 'ns-uid',
  test: 'shop-nightly',
  testNamespace: 'team-a',
  run: 'k3m9x',
  recordedAt: '2026-11-28T09:00:00.000Z',
  volumes: volumesOfSandbox({ name: SANDBOX, createdAt: SANDBOX_CREATED }, [pv, content]),
};

const GONE: RefNamespaceState = { exists: false };
const TERMINATING: RefNamespaceState = { exists: true, uid: 'ns-uid', deleting: true };

describe('judgeSandboxVolume', () => {
  const rows: [string, ClusterVolume, SandboxVolumeRecord[], RefNamespaceState, 'delete' | 'keep', VolumeState][] = [
    ['a Released PV of a recorded sandbox that is gone', pv, [record], GONE, 'delete', 'sandbox-gone'],
    ['the same while its sandbox is terminating', pv, [record], TERMINATING, 'delete', 'sandbox-gone'],
    ['a Retain content of a recorded sandbox that is gone', content, [record], GONE, 'delete', 'sandbox-gone'],
    ['a PV already being deleted', { ...pv, deleting: true }, [record], GONE, 'keep', 'deleting'],
    ['a PV with no claimRef', { ...pv, refNamespace: undefined }, [record], GONE, 'keep', 'no-reference'],
    ['a PV whose claim is in a production namespace', { ...pv, refNamespace: 'shop' }, [record], GONE, 'keep', 'unrecorded'],
    ['a PV whose claim is in a namespace merely named like a sandbox', { ...pv, refNamespace: 'team-shop-redis' }, [record], GONE, 'keep', 'unrecorded'],
    ['no record at all', pv, [], GONE, 'keep', 'unrecorded'],
    ['a PV of the same name, another UID (re-created)', { ...pv, uid: 'other-uid' }, [record], GONE, 'keep', 'unrecorded'],
    ['a PV the record lists for another sandbox', pv, [{ ...record, sandbox: `${SANDBOX}-1` }], GONE, 'keep', 'unrecorded'],
    ['a record whose test and run do not give that sandbox name', pv, [{ ...record, run: 'zzzzz' }], GONE, 'keep', 'not-a-sandbox-name'],
    ['a sandbox still alive', pv, [record], { exists: true, uid: 'ns-uid', deleting: false }, 'keep', 'sandbox-alive'],
    ['a namespace of that name re-created (another UID), even terminating', pv, [record], { exists: true, uid: 'new-uid', deleting: true }, 'keep', 'sandbox-alive'],
    ['a Bound PV', { ...pv, phase: 'Bound' }, [record], GONE, 'keep', 'in-use'],
    ['an Available PV', { ...pv, phase: 'Available' }, [record], GONE, 'keep', 'in-use'],
    ['a PV of no phase', { ...pv, phase: undefined }, [record], GONE, 'keep', 'in-use'],
    ['a Released PV whose reclaimPolicy is Delete (its provisioner\'s, with the disk)', { ...pv, policy: 'Delete' }, [record], GONE, 'keep', 'reclaimed-by-its-class'],
    ['a Released PV whose reclaimPolicy is Recycle', { ...pv, policy: 'Recycle' }, [record], GONE, 'keep', 'reclaimed-by-its-class'],
    ['a Released PV of no reclaimPolicy', { ...pv, policy: undefined }, [record], GONE, 'keep', 'reclaimed-by-its-class'],
    ['a content whose deletionPolicy is Delete (it would delete the snapshot)', { ...content, policy: 'Delete' }, [{ ...record, volumes: [...record.volumes] }], GONE, 'keep', 'snapshot-deleted-with-it'],
    ['a content of no deletionPolicy', { ...content, policy: undefined }, [record], GONE, 'keep', 'snapshot-deleted-with-it'],
    ['a content whose snapshot is in a production namespace', { ...content, refNamespace: 'shop' }, [record], GONE, 'keep', 'unrecorded'],
  ];
  it.each(rows)('%s', (_title, volume, records, namespace, action, reason) => {
    const verdict = judgeSandboxVolume(volume, records, namespace);
    expect([verdict.action, verdict.reason]).toEqual([action, reason]);
    expect(verdict.message).toContain(volume.name);
  });

  it('names what it deletes, with its size, class and policy', () => {
    expect(judgeSandboxVolume(pv, [record], GONE).message).toBe(
      `PersistentVolume pvc-0b1c (1Gi, class retained, policy Retain) of sandbox ${SANDBOX}, gone`,
    );
  });
});

describe('volumesOfSandbox (what the record lists)', () => {
  it('lists the PVs and contents made for the sandbox, with what an auditor needs', () => {
    expect(record.volumes).toEqual([
      { kind: 'PersistentVolume', name: 'pvc-0b1c', uid: 'pv-uid', ref: `${SANDBOX}/data-db-0`, capacity: '1Gi', storageClass: 'retained', policy: 'Retain' },
      {
        kind: 'VolumeSnapshotContent',
        name: 'velero-data-db-0-k3m9x',
        uid: 'vsc-uid',
        ref: `${SANDBOX}/velero-data-db-0`,
        capacity: '1073741824',
        storageClass: 'csi-snapclass',
        policy: 'Retain',
      },
    ]);
  });

  const rows: [string, ClusterVolume][] = [
    ['a PV of another namespace', { ...pv, refNamespace: 'shop' }],
    ['an administrator\'s PV (no provisioner) that a sandbox claim bound', { ...pv, provisioned: false }],
    ['a PV older than the sandbox', { ...pv, createdAt: '2026-11-28T07:59:59.000Z' }],
    ['a PV of unknown age', { ...pv, createdAt: undefined }],
  ];
  it.each(rows)('leaves out %s', (_title, volume) => {
    expect(volumesOfSandbox({ name: SANDBOX, createdAt: SANDBOX_CREATED }, [volume])).toEqual([]);
  });

  it('lists nothing when the sandbox\'s own age is unknown', () => {
    expect(volumesOfSandbox({ name: SANDBOX }, [pv])).toEqual([]);
  });
});

describe('recordDone', () => {
  it('keeps a record while its sandbox exists or one of its objects does, by name and UID', () => {
    expect(recordDone(record, [], TERMINATING)).toBe(false);
    expect(recordDone(record, [pv], GONE)).toBe(false);
    expect(recordDone(record, [content], GONE)).toBe(false);
    expect(recordDone(record, [], GONE)).toBe(true);
    // Another object under a recorded name, or a new namespace under the sandbox's name, holds nothing up.
    expect(recordDone(record, [{ ...pv, uid: 'other-uid' }], GONE)).toBe(true);
    expect(recordDone(record, [], { exists: true, uid: 'new-uid', deleting: false })).toBe(true);
  });
});

describe('parseVolumeRecord', () => {
  it('reads back what was written and refuses what is not a record', () => {
    expect(parseVolumeRecord(JSON.stringify(record))).toEqual(record);
    expect(parseVolumeRecord(undefined)).toBeUndefined();
    expect(parseVolumeRecord('not json')).toBeUndefined();
    expect(parseVolumeRecord(JSON.stringify({ ...record, run: '' }))).toBeUndefined();
    expect(parseVolumeRecord(JSON.stringify({ ...record, volumes: 'pvc-0b1c' }))).toBeUndefined();
    // Entries that are not objects of a known kind with a UID are dropped.
    const odd = { ...record, volumes: [...record.volumes, { kind: 'Secret', name: 'x', uid: 'u' }, { kind: 'PersistentVolume', name: 'y', uid: '' }] };
    expect(parseVolumeRecord(JSON.stringify(odd))?.volumes).toEqual(record.volumes);
  });
});
