// Trilio's per-volume results (server/providers/trilio/trilio-volume-restores.ts), from payloads of
// the shape the vendor's Restore CRD declares: status.restoreApplication.<component>.snapshot.
// dataSnapshots[] with persistentVolumeClaimName, conditions (phase DataRestore …) and size.
import { describe, expect, it } from '@jest/globals';
import type { VolumeRestoreReport } from '../../../server/domain/resources/resources.js';
import { trilioProgress } from '../../../server/providers/trilio/trilio.provider.js';
import type { TrilioDataSnapshot, TrilioRestore } from '../../../server/providers/trilio/trilio-types.js';
import {
  fromDataSnapshot,
  NO_DATA_RESTORE_CONDITION,
  trilioVolumes,
} from '../../../server/providers/trilio/trilio-volume-restores.js';
import { quantityBytes, quantityValue } from '../../../server/domain/common/quantity.js';

const SANDBOX = 'rehearsal-shop-r1';
const T0 = '2026-11-28T10:00:00Z';
const T1 = '2026-11-28T10:00:42Z';

const condition = (phase: string, status: string, timestamp?: string, reason?: string) => ({
  phase,
  status,
  ...(timestamp ? { timestamp } : {}),
  ...(reason ? { reason } : {}),
});

describe('quantityBytes', () => {
  it.each([
    [1073741824, 1073741824],
    ['1Gi', 1073741824],
    ['24Mi', 25165824],
    ['512M', 512_000_000],
    ['1.5Ki', 1536],
    ['1e3', 1000],
    ['100', 100],
    ['', undefined],
    ['12 GiB', undefined],
    ['-1Gi', undefined],
    [-5, undefined],
    [undefined, undefined],
  ])('%p → %p', (value, expected) => {
    expect(quantityBytes(value)).toBe(expected);
  });
});

describe('quantityValue', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['128Mi', 134217728],
    ['x', undefined],
  ])('%p → %p', (value, expected) => {
    expect(quantityValue(value)).toBe(expected);
  });
});

describe('fromDataSnapshot', () => {
  it.each<[string, TrilioDataSnapshot, Partial<VolumeRestoreReport>]>([
    [
      'restored: Completed, the size as bytes, first to last DataRestore condition as the duration',
      {
        persistentVolumeClaimName: 'data-db-0',
        size: '24Mi',
        conditions: [
          condition('DataSnapshot', 'Completed', '2026-11-27T02:00:00Z'),
          condition('Upload', 'Completed', '2026-11-27T02:01:00Z'),
          condition('DataRestore', 'InProgress', T0),
          condition('DataRestore', 'Completed', T1),
        ],
      },
      { claim: 'data-db-0', phase: 'Completed', dataRestored: true, bytes: 25165824, durationSeconds: 42 },
    ],
    [
      'failed: the status and reason of the last DataRestore condition; no bytes for data that did not come back',
      {
        persistentVolumeClaimName: 'data-db-0',
        size: 25165824,
        conditions: [condition('DataRestore', 'InProgress', T0), condition('DataRestore', 'Failed', T1, 'qcow2 image not found on target')],
      },
      { phase: 'Failed', dataRestored: false, durationSeconds: 42, message: 'qcow2 image not found on target' },
    ],
    [
      'Error is Trilio’s other failure word',
      { persistentVolumeClaimName: 'cache', conditions: [condition('DataRestore', 'Error', T1, 'datamover pod evicted')] },
      { phase: 'Error', dataRestored: false, message: 'datamover pod evicted' },
    ],
    [
      'conditions out of order: the timestamps decide which is the latest',
      {
        persistentVolumeClaimName: 'data-db-0',
        conditions: [condition('DataRestore', 'Completed', T1), condition('DataRestore', 'InProgress', T0)],
      },
      { phase: 'Completed', dataRestored: true, durationSeconds: 42 },
    ],
    [
      'no DataRestore condition: Trilio did not say the data came back',
      { persistentVolumeClaimName: 'data-db-0', size: '1Gi', conditions: [condition('Upload', 'Completed', T0)] },
      { phase: NO_DATA_RESTORE_CONDITION, dataRestored: false, message: 'Trilio gave no DataRestore condition for this claim' },
    ],
  ])('%s', (_name, item, expected) => {
    const volume = fromDataSnapshot(item, SANDBOX);
    expect(volume).toMatchObject({ namespace: SANDBOX, method: 'provider-data-mover', ...expected });
    for (const key of ['bytes', 'durationSeconds', 'message'] as const) {
      if (!(key in expected)) expect(volume[key]).toBeUndefined();
    }
  });

  it('keeps a long reason within the report’s 256 characters', () => {
    const volume = fromDataSnapshot(
      { persistentVolumeClaimName: 'x', conditions: [condition('DataRestore', 'Failed', T1, 'e'.repeat(400))] },
      SANDBOX,
    );
    expect(volume.message).toHaveLength(256);
    expect(volume.message?.endsWith('…')).toBe(true);
  });
});

describe('trilioVolumes', () => {
  const snapshot = (claim: string, status: string, reason?: string): TrilioDataSnapshot => ({
    persistentVolumeClaimName: claim,
    conditions: [condition('DataRestore', status, T1, reason)],
  });

  it('lists the dataSnapshots of every component (custom, Helm charts, operators and their charts), failed first, in the Restore’s namespace', () => {
    const restore: TrilioRestore = {
      metadata: { name: 'rt-run1', namespace: SANDBOX },
      status: {
        status: 'Completed',
        restoreApplication: {
          custom: { snapshot: { dataSnapshots: [snapshot('data-web-0', 'Completed')] } },
          helmCharts: [{ snapshot: { dataSnapshots: [snapshot('data-db-0', 'Failed', 'target unreachable')] } }],
          operators: [
            {
              snapshot: {
                dataSnapshots: [snapshot('data-mq-0', 'Completed')],
                helm: { dataSnapshots: [snapshot('data-mq-operator', 'Completed')] },
              },
            },
          ],
        },
      },
    };
    expect(trilioVolumes(restore).map((volume) => [volume.namespace, volume.claim, volume.phase])).toEqual([
      [SANDBOX, 'data-db-0', 'Failed'],
      [SANDBOX, 'data-mq-0', 'Completed'],
      [SANDBOX, 'data-mq-operator', 'Completed'],
      [SANDBOX, 'data-web-0', 'Completed'],
    ]);
  });

  it('is empty without restoreApplication or dataSnapshots', () => {
    expect(trilioVolumes({ metadata: { name: 'x', namespace: SANDBOX }, status: { status: 'Completed' } })).toEqual([]);
    expect(
      trilioVolumes({ metadata: { name: 'x', namespace: SANDBOX }, status: { status: 'Completed', restoreApplication: { custom: { snapshot: { resources: [] } } } } }),
    ).toEqual([]);
  });

  it('reports at most 20, the failed ones kept', () => {
    const many = Array.from({ length: 25 }, (_unused, index) => snapshot(`data-${String(index).padStart(2, '0')}`, index === 24 ? 'Failed' : 'Completed'));
    const volumes = trilioVolumes({
      metadata: { name: 'x', namespace: SANDBOX },
      status: { status: 'Completed', restoreApplication: { custom: { snapshot: { dataSnapshots: many } } } },
    });
    expect(volumes).toHaveLength(20);
    expect(volumes[0]).toMatchObject({ claim: 'data-24', phase: 'Failed' });
  });
});

describe('trilioProgress with volumes', () => {
  const withVolumes = (status: 'InProgress' | 'Completed' | 'Failed'): TrilioRestore => ({
    metadata: { name: 'rt-run1', namespace: SANDBOX },
    status: {
      status,
      ...(status === 'Failed' ? { phase: 'DataRestore', condition: [{ phase: 'DataRestore', status: 'Failed', reason: 'data restore failed' }] } : {}),
      restoreApplication: {
        custom: { snapshot: { dataSnapshots: [{ persistentVolumeClaimName: 'data-db-0', conditions: [condition('DataRestore', status, T1)] }] } },
      },
    },
  });

  it('an ended restore carries its volumes; a running one none', () => {
    expect(trilioProgress(withVolumes('InProgress')).volumes).toBeUndefined();
    expect(trilioProgress(withVolumes('Completed')).volumes).toEqual([
      { namespace: SANDBOX, claim: 'data-db-0', method: 'provider-data-mover', phase: 'Completed', dataRestored: true },
    ]);
    expect(trilioProgress(withVolumes('Failed'))).toMatchObject({
      state: 'failed',
      message: 'data restore failed',
      volumes: [{ claim: 'data-db-0', phase: 'Failed', dataRestored: false }],
    });
  });
});
