// Which restored claims lack their data (issue 27): the tool's per-volume reports, placed on claims
// directly (CSI data mover) or through the restored Pod's volumes (file-system restores).
import { describe, expect, it } from '@jest/globals';
import { claimsWithoutData, needsPodClaims, type PodClaims } from '../../../server/domain/run/claim-data.js';
import type { VolumeRestoreReport } from '../../../server/domain/resources/resources.js';

const SB = 'rehearsal-shop-k3m9x2';
const fs = (pod: string, volume: string, phase: string, namespace = SB): VolumeRestoreReport => ({
  namespace,
  pod,
  volume,
  method: 'file-system',
  phase,
  dataRestored: phase === 'Completed',
});
const mover = (claim: string, phase: string): VolumeRestoreReport => ({
  namespace: SB,
  claim,
  method: 'csi-data-mover',
  phase,
  dataRestored: phase === 'Completed',
});
const podClaims: PodClaims = new Map([
  [`${SB}/db-0`, new Map([['data', 'data-db-0']])],
  [`${SB}/db-1`, new Map([['data', 'data-db-1']])],
  [`other-sb/db-0`, new Map([['data', 'data-db-0']])],
]);

describe('claimsWithoutData', () => {
  // [what, volume reports, claims without data]
  const table: [string, VolumeRestoreReport[] | undefined, string[]][] = [
    ['no volume reports (the backup held no volume data, or the tool cannot say)', undefined, []],
    ['every data restore completed', [fs('db-0', 'data', 'Completed'), mover('data-web', 'Completed')], []],
    ['a failed file-system restore, placed through its Pod', [fs('db-0', 'data', 'Failed'), fs('db-1', 'data', 'Completed')], [`${SB}/data-db-0`]],
    ['a canceled data mover restore names its claim', [mover('data-web', 'Canceled')], [`${SB}/data-web`]],
    // The restore ended but this volume never finished: the data is not there either.
    ['a volume still InProgress when the restore ended', [fs('db-1', 'data', 'InProgress')], [`${SB}/data-db-1`]],
    ['a Pod volume that is not a claim (emptyDir) names no claim', [fs('db-0', 'cache', 'Failed')], []],
    ['a Pod the lookup does not know names no claim', [fs('gone-0', 'data', 'Failed')], []],
    ['pods of one name in two sandboxes are told apart', [fs('db-0', 'data', 'Failed', 'other-sb')], ['other-sb/data-db-0']],
    ['one failed report among several of a claim is enough', [mover('data-web', 'Completed'), mover('data-web', 'Failed')], [`${SB}/data-web`]],
  ];
  it.each(table)('%s', (_what, volumes, without) => {
    expect([...claimsWithoutData(volumes, podClaims)].sort()).toEqual(without);
  });
});

describe('needsPodClaims (what the engine reads Pods for)', () => {
  it('only file-system reports without data, which name a Pod volume', () => {
    expect([fs('db-0', 'data', 'Failed'), fs('db-0', 'data', 'Completed'), mover('data-web', 'Failed')].map(needsPodClaims)).toEqual([true, false, false]);
  });
});
