import { describe, expect, it } from '@jest/globals';
import type { IndexedRun } from '../../../server/domain/read-models/report-index.js';
import { ProblemError } from '../../../server/api/problem.js';
import { decodeContinue, encodeContinue, pageOf } from '../../../server/api/services/report-pages.js';

// Runs newest first: by completion time, then key, both descending (ties on purpose).
function runs(...entries: [number, string][]): IndexedRun[] {
  return entries
    .map(([completedAt, key]) => ({ key, testKey: 't', completedAt, day: 0, report: {} }) as unknown as IndexedRun)
    .sort((a, b) => b.completedAt - a.completedAt || (a.key < b.key ? 1 : -1));
}

const keys = (list: readonly IndexedRun[]) => list.map((run) => run.key);

describe('pageOf', () => {
  const list = runs([5, 'ns/e'], [4, 'ns/d2'], [4, 'ns/d1'], [3, 'ns/c'], [1, 'ns/a']);

  it('walks the list in pages of `limit`, the last without a token', () => {
    const first = pageOf(list, 2);
    expect(keys(first.runs)).toEqual(['ns/e', 'ns/d2']);
    const second = pageOf(list, 2, first.next);
    expect(keys(second.runs)).toEqual(['ns/d1', 'ns/c']);
    const third = pageOf(list, 2, second.next);
    expect([keys(third.runs), third.next]).toEqual([['ns/a'], undefined]);
    expect(pageOf(list, 5).next).toBeUndefined();
  });

  it('continues after the last report it answered even when reports came or went in between', () => {
    const first = pageOf(list, 2);
    const changed = runs([9, 'ns/new'], [5, 'ns/e'], [4, 'ns/d1'], [4, 'ns/d0'], [3, 'ns/c'], [1, 'ns/a']);
    expect(keys(pageOf(changed, 2, first.next).runs)).toEqual(['ns/d1', 'ns/d0']);
  });

  it('rejects a token it did not issue with a 400 naming continue', () => {
    for (const token of ['%%%', 'bm90IGpzb24', Buffer.from('{"v":2,"t":1,"k":"x"}').toString('base64url')]) {
      let thrown: unknown;
      try {
        decodeContinue(token);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ProblemError);
      expect((thrown as ProblemError).extras.errors?.[0]?.field).toBe('continue');
    }
    expect(decodeContinue(encodeContinue({ completedAt: 7, key: 'ns/x' }))).toEqual({ completedAt: 7, key: 'ns/x' });
  });
});
