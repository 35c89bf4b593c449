import { describe, expect, it } from '@jest/globals';
import { ReportIndex, toIndexedRun, type IndexedRun } from '../../../server/domain/read-models/report-index.js';
import { dayNumber } from '../../../server/domain/common/utc-days.js';
import { makeReport } from './fixtures.js';

const ms = (text: string): number => Date.parse(text);
const ids = (runs: readonly IndexedRun[]): string[] => runs.map((run) => run.report.spec.runId);

const reports = [
  makeReport({ test: 'a', runId: 'a3', completedAt: '2026-03-31T10:00:00Z', score: 95 }),
  makeReport({ test: 'a', runId: 'a1', completedAt: '2026-03-29T10:00:00Z', score: 50, result: 'fail' }),
  makeReport({
    test: 'b',
    runId: 'b1',
    completedAt: '2026-03-30T23:59:59.999Z',
    score: 80,
    result: 'partial',
  }),
  makeReport({ test: 'a', runId: 'a2', completedAt: '2026-03-30T00:00:00Z', score: 70, result: 'partial' }),
  makeReport({ test: 'b', runId: 'b2', completedAt: '2026-03-31T10:00:00Z', score: 20, result: 'fail' }),
];

function incremental(): ReportIndex {
  const index = new ReportIndex();
  for (const report of reports) index.add(report);
  return index;
}

describe.each([
  ['bulk', () => ReportIndex.from(reports)],
  ['incremental', incremental],
])('ReportIndex built %s', (_how, build) => {
  it('keeps each test oldest first', () => {
    const index = build();
    expect(index.size).toBe(5);
    expect(ids(index.runsOfTest('rehearsal-system/a'))).toEqual(['a1', 'a2', 'a3']);
    expect(ids(index.runsOfTest('rehearsal-system/b'))).toEqual(['b1', 'b2']);
    expect(index.runsOfTest('rehearsal-system/none')).toEqual([]);
    expect(index.latestRunOfTest('rehearsal-system/a')?.report.spec.runId).toBe('a3');
  });

  it('answers inclusive time windows in order, ties broken by object key', () => {
    const index = build();
    expect(ids(index.runsBetween(ms('2026-03-30T00:00:00Z'), ms('2026-03-31T10:00:00Z')))).toEqual([
      'a2',
      'b1',
      'a3',
      'b2',
    ]);
    expect(ids(index.runsBetween(ms('2026-03-30T00:00:00.001Z'), ms('2026-03-31T09:59:59Z')))).toEqual([
      'b1',
    ]);
    // the wide-window path walks buckets instead of days
    expect(ids(index.runsBetween(0, ms('2030-01-01T00:00:00Z')))).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
    expect(index.runsBetween(ms('2026-04-01T00:00:00Z'), ms('2026-03-01T00:00:00Z'))).toEqual([]);
  });

  it('keeps per-day totals', () => {
    const index = build();
    expect(index.dayTotals(dayNumber(ms('2026-03-30T12:00:00Z')))).toEqual({
      runs: 2,
      scoreSum: 150,
      failures: 0,
    });
    expect(index.dayTotals(dayNumber(ms('2026-03-31T12:00:00Z')))).toEqual({
      runs: 2,
      scoreSum: 115,
      failures: 1,
    });
    expect(index.dayTotals(dayNumber(ms('2026-03-01T12:00:00Z')))).toEqual({
      runs: 0,
      scoreSum: 0,
      failures: 0,
    });
  });

  it('finds the previous run of the same test, indexed or not', () => {
    const index = build();
    const [a1, a2, a3] = index.runsOfTest('rehearsal-system/a');
    expect(index.previousRun(a1!)).toBeUndefined();
    expect(index.previousRun(a2!)?.report.spec.runId).toBe('a1');
    expect(index.previousRun(a3!)?.report.spec.runId).toBe('a2');
    const between = toIndexedRun(
      makeReport({ test: 'a', runId: 'ax', completedAt: '2026-03-30T12:00:00Z' }),
    )!;
    expect(index.previousRun(between)?.report.spec.runId).toBe('a2');
  });
});

describe('ReportIndex updates', () => {
  it('add replaces a report with the same object key (informer update)', () => {
    const index = ReportIndex.from(reports);
    const moved = makeReport({
      test: 'a',
      runId: 'a1',
      completedAt: '2026-03-31T11:00:00Z',
      score: 90,
      result: 'pass',
    });
    index.add(moved);
    expect(index.size).toBe(5);
    expect(ids(index.runsOfTest('rehearsal-system/a'))).toEqual(['a2', 'a3', 'a1']);
    expect(index.dayTotals(dayNumber(ms('2026-03-29T10:00:00Z'))).runs).toBe(0);
    expect(index.dayTotals(dayNumber(ms('2026-03-31T10:00:00Z')))).toEqual({
      runs: 3,
      scoreSum: 205,
      failures: 1,
    });
  });

  it('remove takes a report out of every view', () => {
    const index = ReportIndex.from(reports);
    expect(index.remove(reports[4]!)).toBe(true);
    expect(index.remove(reports[4]!)).toBe(false);
    expect(index.size).toBe(4);
    expect(ids(index.runsOfTest('rehearsal-system/b'))).toEqual(['b1']);
    expect(index.dayTotals(dayNumber(ms('2026-03-31T10:00:00Z')))).toEqual({
      runs: 1,
      scoreSum: 95,
      failures: 0,
    });
    index.remove(reports[2]!);
    expect(index.runsOfTest('rehearsal-system/b')).toEqual([]);
  });

  it('ignores reports without a parseable completedAt', () => {
    const index = new ReportIndex();
    index.add(makeReport({ test: 'a', completedAt: 'not a date' }));
    index.add(makeReport({ test: 'a', completedAt: '' }));
    expect(index.size).toBe(0);
  });

  it('falls back to the report namespace when testRef has none', () => {
    const report = makeReport({ test: 'a', testNamespace: 'team-x', completedAt: '2026-03-31T10:00:00Z' });
    report.spec.testRef.namespace = '';
    expect(toIndexedRun(report)?.testKey).toBe('team-x/a');
  });

  it('handles out-of-order inserts and many runs per test', () => {
    const index = new ReportIndex();
    const times = Array.from({ length: 200 }, (_, i) => (i * 7919) % 200); // a permutation of 0..199
    for (const minute of times) {
      index.add(
        makeReport({
          test: 'p',
          runId: `m${minute}`,
          completedAt: new Date(ms('2026-03-01T00:00:00Z') + minute * 60_000).toISOString(),
        }),
      );
    }
    const runs = index.runsOfTest('rehearsal-system/p');
    expect(runs).toHaveLength(200);
    expect(runs.every((run, i) => i === 0 || runs[i - 1]!.completedAt < run.completedAt)).toBe(true);
  });
});
