// Which Velero Backup changes wake onBackup tests (issue 32): a Backup reaching Completed, once.
import { describe, expect, it } from '@jest/globals';
import { justCompleted } from '../../../server/providers/velero/backup-watch.js';
import type { VeleroBackup } from '../../../server/providers/velero/velero-types.js';

const backup = (phase?: string): VeleroBackup => ({ metadata: { name: 'daily-1' }, ...(phase ? { status: { phase } } : {}) }) as VeleroBackup;

describe('justCompleted', () => {
  it.each([
    ['InProgress → Completed', backup('Completed'), backup('InProgress'), true],
    ['added already Completed (first sync, late watch)', backup('Completed'), undefined, true],
    ['Completed → Completed (a later update)', backup('Completed'), backup('Completed'), false],
    ['InProgress → PartiallyFailed', backup('PartiallyFailed'), backup('InProgress'), false],
    ['New → InProgress', backup('InProgress'), backup('New'), false],
    ['deleted', undefined, backup('Completed'), false],
  ])('%s → %p', (_case, current, previous, expected) => {
    expect(justCompleted(current, previous)).toBe(expected);
  });
});
