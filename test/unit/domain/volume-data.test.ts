// The volumes as a report keeps them (server/domain/run/volume-data.ts orderVolumes): whatever a
// tool or a file in the backup's bucket says, each entry stays within the CRD's bounds, or the
// apiserver would refuse the whole report.
import { describe, expect, it } from '@jest/globals';
import type { VolumeRestoreReport } from '../../../server/domain/resources/resources.js';
import { MAX_REPORTED_VOLUMES, orderVolumes } from '../../../server/domain/run/volume-data.js';
import { fromRestoreVolumeInfo } from '../../../server/providers/velero/volume-restores.js';

const restored = (claim: string, dataRestored = true): VolumeRestoreReport => ({
  namespace: 'rehearsal-shop-x1',
  claim,
  method: 'csi-snapshot',
  phase: dataRestored ? 'Restored' : 'Failed',
  dataRestored,
});

describe('orderVolumes', () => {
  it('puts failed volumes first and keeps at most the CRD\'s 20', () => {
    const many = Array.from({ length: 25 }, (_, i) => restored(`data-${String(i).padStart(2, '0')}`, i !== 24));
    const kept = orderVolumes(many);
    expect(kept).toHaveLength(MAX_REPORTED_VOLUMES);
    expect(kept[0]).toMatchObject({ claim: 'data-24', dataRestored: false });
  });

  it('keeps a hostile bucket\'s RestoreVolumeInfo within the CRD\'s bounds (names, phase, message, counters)', () => {
    const [entry] = orderVolumes(
      fromRestoreVolumeInfo([
        {
          pvcName: 'c'.repeat(1000),
          pvcNamespace: 'n'.repeat(1000),
          restoreMethod: 'CSISnapshot',
          csiSnapshotInfo: { vscName: 'v'.repeat(1000), driver: 'd'.repeat(1000), size: 1 },
        },
      ]),
    );
    expect(entry!.namespace).toHaveLength(63);
    expect(entry!.claim).toHaveLength(253);
    expect(entry!.message).toHaveLength(256);
    expect(entry!.namespace.endsWith('…')).toBe(true);
    const [odd] = orderVolumes([{ ...restored('data-0'), phase: 'p'.repeat(100), bytes: -1, durationSeconds: Number.NaN, volume: 'v'.repeat(100), pod: 'p'.repeat(300) }]);
    expect(odd).toEqual({
      namespace: 'rehearsal-shop-x1',
      pod: `${'p'.repeat(252)}…`,
      volume: `${'v'.repeat(62)}…`,
      claim: 'data-0',
      method: 'csi-snapshot',
      phase: `${'p'.repeat(31)}…`,
      dataRestored: true,
    });
  });

  it('leaves a well-formed entry as it is', () => {
    const entry = { ...restored('data-pg-0'), bytes: 47_783_737, durationSeconds: 16, message: 'done' };
    expect(orderVolumes([entry])).toEqual([entry]);
  });
});
