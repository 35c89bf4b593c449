// The claims a Velero restore provisioned from CSI snapshots, from its RestoreVolumeInfo file
// (server/providers/velero/volume-restores.ts). The whole path (Velero v1.18 writing the file, the
// DownloadRequest, the report's row) runs on the real node in
// test/integration/real-node-csi-snapshot.test.ts.
import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { VeleroProvider } from '../../../server/providers/velero/velero.provider.js';
import type { VeleroCustomObjectsApi } from '../../../server/providers/velero/velero-types.js';
import { fromRestoreVolumeInfo, parseRestoreVolumeInfo } from '../../../server/providers/velero/volume-restores.js';

// An entry as Velero 1.18 writes it (internal/volume/volumes_information.go), one per method.
const csiSnapshot = {
  pvcName: 'data-pg-0',
  pvcNamespace: 'rehearsal-shop-x1',
  pvName: '',
  restoreMethod: 'CSISnapshot',
  snapshotDataMoved: false,
  csiSnapshotInfo: { snapshotHandle: 'snap-1', size: 268435456, driver: 'hostpath.csi.rehearsal.dev', vscName: 'velero-vsc-1', operationID: '' },
};

describe('RestoreVolumeInfo → the report\'s CSI snapshot rows', () => {
  it('a claim provisioned from a CSI snapshot: its namespace and name, the content and driver it came from, the restore size in the message (not as bytes moved)', () => {
    expect(fromRestoreVolumeInfo([csiSnapshot])).toEqual([
      {
        namespace: 'rehearsal-shop-x1',
        claim: 'data-pg-0',
        method: 'csi-snapshot',
        phase: 'Restored',
        dataRestored: true,
        message: 'provisioned from VolumeSnapshotContent velero-vsc-1 by hostpath.csi.rehearsal.dev, restore size 268435456 bytes',
      },
    ]);
  });

  it.each([
    ['a file-system restore (its PodVolumeRestore is the row)', { ...csiSnapshot, restoreMethod: 'PodVolumeRestore' }],
    ['a CSI snapshot whose data was moved (its DataDownload is the row)', { ...csiSnapshot, snapshotDataMoved: true }],
    ['a native snapshot', { ...csiSnapshot, restoreMethod: 'NativeSnapshot' }],
    ['no claim namespace', { ...csiSnapshot, pvcNamespace: undefined }],
    ['no claim name', { ...csiSnapshot, pvcName: '' }],
  ])('no row for %s', (_, entry) => {
    expect(fromRestoreVolumeInfo([entry])).toEqual([]);
  });

  it('says less when Velero says less, and keeps a hostile message within 256 characters', () => {
    expect(fromRestoreVolumeInfo([{ ...csiSnapshot, csiSnapshotInfo: undefined }])[0]?.message).toBe('provisioned from its VolumeSnapshot');
    const long = fromRestoreVolumeInfo([{ ...csiSnapshot, csiSnapshotInfo: { vscName: 'x'.repeat(400) } }])[0]!;
    expect(long.message).toHaveLength(256);
    expect(long.message?.endsWith('…')).toBe(true);
  });

  it('parses the file: a JSON array of objects; anything else is no entries', () => {
    expect(parseRestoreVolumeInfo(JSON.stringify([csiSnapshot, null, 3]))).toEqual([csiSnapshot]);
    expect(parseRestoreVolumeInfo('{"pvcName":"x"}')).toEqual([]);
    expect(parseRestoreVolumeInfo('not json')).toEqual([]);
  });
});

describe('VeleroProvider reads the file only when the backup took CSI snapshots', () => {
  const answers = (backupStatus: Record<string, unknown> | Error) => {
    const calls: string[] = [];
    const answer = (method: string) => async (param: Record<string, unknown>) => {
      calls.push([method, param.plural, param.name].filter(Boolean).join(' '));
      if (method === 'get' && param.plural === 'restores') {
        return { metadata: { name: 'rt-1', namespace: 'velero' }, spec: { backupName: 'b1' }, status: { phase: 'Completed' } };
      }
      if (method === 'get' && param.plural === 'backups') {
        if (backupStatus instanceof Error) throw backupStatus;
        return { metadata: { name: 'b1', namespace: 'velero' }, status: backupStatus };
      }
      if (method === 'list') return { items: [] };
      if (method === 'create') return { metadata: { name: 'rehearsal-dl1' } };
      // The DownloadRequest is answered with a URL nothing listens on: a DownloadError.
      if (method === 'get') return { status: { phase: 'Processed', downloadURL: 'http://127.0.0.1:9/volumeinfo.json.gz' } };
      return {};
    };
    const api = {
      listNamespacedCustomObject: answer('list'),
      getNamespacedCustomObject: answer('get'),
      createNamespacedCustomObject: answer('create'),
      deleteNamespacedCustomObject: answer('delete'),
    } as unknown as VeleroCustomObjectsApi;
    return { api, calls };
  };

  it('no CSI snapshots in the backup: no download', async () => {
    const { api, calls } = answers({ phase: 'Completed' });
    const progress = await new VeleroProvider(api).getRestoreProgress({ namespace: 'velero', name: 'rt-1' });
    expect(progress.volumes).toBeUndefined();
    expect(calls.filter((call) => call.startsWith('create'))).toEqual([]);
  });

  it('CSI snapshots in the backup: a DownloadRequest for the restore\'s RestoreVolumeInfo; a file the store cannot give is no rows, not an outage', async () => {
    const { api, calls } = answers({ phase: 'Completed', csiVolumeSnapshotsAttempted: 1, csiVolumeSnapshotsCompleted: 1 });
    const progress = await new VeleroProvider(api).getRestoreProgress({ namespace: 'velero', name: 'rt-1' });
    expect(progress).toMatchObject({ state: 'succeeded' });
    expect(progress.volumes).toBeUndefined();
    expect(calls).toContain('create downloadrequests');
    expect(calls).toContain('delete downloadrequests rehearsal-dl1');
  });

  it('a backup that cannot be read: no rows', async () => {
    const { api, calls } = answers(new ApiException(403, 'Forbidden', '{}', {}));
    expect((await new VeleroProvider(api).getRestoreProgress({ namespace: 'velero', name: 'rt-1' })).volumes).toBeUndefined();
    expect(calls.filter((call) => call.startsWith('create'))).toEqual([]);
  });
});
