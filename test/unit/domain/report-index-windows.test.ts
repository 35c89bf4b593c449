// The ReportIndex paths the read API's hot endpoints rely on (test/bench/api-bench.ts): windows
// answered from day buckets without a final sort, the newest run per test, and the version that
// tells a memoised read model whether the population changed. Each is checked against the obvious
// full-scan answer over a shuffled population with inserts, replacements and removals.
import { describe, expect, it } from '@jest/globals';
import { ReportIndex, compareRuns, type IndexedRun } from '../../../server/domain/read-models/report-index.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { makeReport } from './fixtures.js';

const BASE = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
const keys = (runs: readonly IndexedRun[]): string[] => runs.map((run) => run.key);

/** A deterministic shuffle (LCG), so a failure reproduces. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** 6 tests × 40 runs over ~10 days, several completing at the same instant (ties by key). */
function population(): RestoreReport[] {
  const reports: RestoreReport[] = [];
  for (let test = 0; test < 6; test += 1) {
    for (let run = 0; run < 40; run += 1) {
      const minute = run * 360 + (test % 3) * 7; // tests 0 and 3 (1 and 4, ...) tie
      reports.push(
        makeReport({
          test: `t${test}`,
          runId: `t${test}r${String(run).padStart(2, '0')}`,
          completedAt: new Date(BASE + minute * MINUTE).toISOString(),
        }),
      );
    }
  }
  return reports;
}

function scanBetween(all: readonly IndexedRun[], from: number, to: number): IndexedRun[] {
  return all.filter((run) => run.completedAt >= from && run.completedAt <= to).sort(compareRuns);
}

function indexedRuns(index: ReportIndex): IndexedRun[] {
  return index.runsBetween(-Infinity, Infinity);
}

describe('ReportIndex windows without a final sort', () => {
  it.each([1, 2, 3])(
    'matches a full scan after shuffled inserts, replacements and removals (seed %i)',
    (seed) => {
      const reports = population();
      const index = new ReportIndex();
      for (const report of shuffled(reports, seed)) index.add(report);
      // replace some (moved in time), remove others: swap-removes disturb bucket order
      for (const report of shuffled(reports, seed + 10).slice(0, 30)) index.remove(report);
      for (const report of shuffled(reports, seed + 20).slice(0, 20)) {
        index.add({
          ...report,
          spec: { ...report.spec, completedAt: new Date(BASE + 17 * MINUTE * seed).toISOString() },
        });
      }
      expect(reports).toHaveLength(240);
      const everything = indexedRuns(index);
      expect(everything.length).toBe(index.size);
      expect(everything).toEqual([...everything].sort(compareRuns));
      for (const [from, to] of [
        [BASE, BASE + 3 * 24 * 60 * MINUTE],
        [BASE + 361 * MINUTE, BASE + 2000 * MINUTE],
        [BASE - 1, BASE + 100 * 24 * 60 * MINUTE],
        [0, Date.parse('2030-01-01T00:00:00Z')], // the wide-window path
        [BASE + 7 * MINUTE, BASE + 7 * MINUTE], // a single instant with a tie
      ] as const) {
        expect(keys(index.runsBetween(from, to))).toEqual(keys(scanBetween(everything, from, to)));
      }
    },
  );

  it('stays correct when a query sorts a bucket and later inserts land out of order', () => {
    const index = new ReportIndex();
    const at = (minute: number, id: string): RestoreReport =>
      makeReport({ test: 'x', runId: id, completedAt: new Date(BASE + minute * MINUTE).toISOString() });
    index.add(at(30, 'c'));
    index.add(at(10, 'a'));
    expect(keys(index.runsBetween(BASE, BASE + 60 * MINUTE))).toEqual([
      'rehearsal-system/x-a',
      'rehearsal-system/x-c',
    ]);
    index.add(at(20, 'b'));
    index.add(at(40, 'd'));
    expect(keys(index.runsBetween(BASE, BASE + 60 * MINUTE))).toEqual([
      'rehearsal-system/x-a',
      'rehearsal-system/x-b',
      'rehearsal-system/x-c',
      'rehearsal-system/x-d',
    ]);
    expect(keys(index.runsBetween(BASE + 15 * MINUTE, BASE + 35 * MINUTE))).toEqual([
      'rehearsal-system/x-b',
      'rehearsal-system/x-c',
    ]);
  });
});

describe('ReportIndex.latestRunPerTest', () => {
  it('is the newest run of each test at or before the instant', () => {
    const reports = population();
    const index = ReportIndex.from(shuffled(reports, 7));
    const everything = indexedRuns(index);
    for (const to of [BASE + 5 * 24 * 60 * MINUTE, BASE + 6 * MINUTE, BASE - 1, Infinity]) {
      const expected = new Map<string, IndexedRun>();
      for (const run of everything) if (run.completedAt <= to) expected.set(run.testKey, run); // oldest first
      expect(keys(index.latestRunPerTest(to).sort(compareRuns))).toEqual(
        keys([...expected.values()].sort(compareRuns)),
      );
    }
    expect(index.latestRunPerTest(BASE - 1)).toEqual([]);
  });
});

describe('ReportIndex.version', () => {
  it('changes on every add, replacement and removal, and only then', () => {
    const [first, second] = population();
    const index = new ReportIndex();
    const seen = [index.version];
    index.add(first!);
    seen.push(index.version);
    index.add({ ...first!, spec: { ...first!.spec, score: 10 } }); // informer update
    seen.push(index.version);
    index.add(second!);
    seen.push(index.version);
    expect(index.remove(second!)).toBe(true);
    seen.push(index.version);
    expect(new Set(seen).size).toBe(seen.length);
    const before = index.version;
    expect(index.remove(second!)).toBe(false);
    index.runsBetween(0, Infinity);
    index.latestRunPerTest(Infinity);
    index.add(makeReport({ test: 'x', completedAt: 'not a date' })); // not indexable: nothing changes
    expect(index.version).toBe(before);
  });
});
