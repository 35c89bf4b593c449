// Per-RestoreTest aggregates of runs (results, score, RTO median / p95 / worst, runs over target,
// evidence not verified): the compliance PDF's "runs per RestoreTest" and RTO tables. Fed one run
// at a time; only numbers per test are kept, never the runs.
import type { RunResult } from '../domain/resources/resources.js';
import { median, percentile } from './format.js';
import type { AggregatedRun, RunRecord, TestAggregate } from './report-data.js';

/** Per RestoreTest aggregates of runs given oldest first; rows sorted by namespace/name. */
export function aggregateByTest(runs: Iterable<AggregatedRun>): TestAggregate[] {
  const aggregator = new TestAggregator();
  for (const run of runs) aggregator.add(run);
  return aggregator.rows();
}

interface TestTotals {
  latest: AggregatedRun;
  counts: Record<RunResult, number>;
  runs: number;
  scoreSum: number;
  seconds: number[];
  worst?: AggregatedRun;
  breaches: number;
  notVerified: number;
  checked: boolean;
  sources: Set<string>;
}

/** aggregateByTest fed one run at a time: keeps numbers per test, never the runs. */
export class TestAggregator {
  private readonly tests = new Map<string, TestTotals>();

  /** Runs must come oldest first (the latest run of a test is the last one added). */
  add(run: AggregatedRun): void {
    const key = `${run.testNamespace}/${run.test}`;
    let totals = this.tests.get(key);
    if (!totals) {
      totals = {
        latest: run,
        counts: { pass: 0, partial: 0, fail: 0 },
        runs: 0,
        scoreSum: 0,
        seconds: [],
        breaches: 0,
        notVerified: 0,
        checked: false,
        sources: new Set(),
      };
      this.tests.set(key, totals);
    }
    totals.latest = run;
    totals.runs += 1;
    totals.counts[run.result] += 1;
    totals.scoreSum += run.score;
    if (run.breached && run.rtoTarget !== undefined) totals.breaches += 1;
    if (run.verified !== undefined) totals.checked = true;
    if (run.verified === false) totals.notVerified += 1;
    for (const source of run.sourceNamespaces) totals.sources.add(source);
    if (run.rtoSeconds !== undefined) {
      totals.seconds.push(run.rtoSeconds);
      if (totals.worst === undefined || run.rtoSeconds > totals.worst.rtoSeconds!) totals.worst = run;
    }
  }

  rows(): TestAggregate[] {
    return [...this.tests.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, totals]) => {
        const { latest, worst, seconds } = totals;
        return {
          test: latest.test,
          testNamespace: latest.testNamespace,
          sourceNamespaces: [...totals.sources].sort(),
          runs: totals.runs,
          pass: totals.counts.pass,
          partial: totals.counts.partial,
          fail: totals.counts.fail,
          avgScore: Math.round(totals.scoreSum / totals.runs),
          measured: seconds.length,
          breaches: totals.breaches,
          latestResult: latest.result,
          latestAt: latest.completedAt,
          ...(latest.rtoTarget !== undefined ? { target: latest.rtoTarget } : {}),
          ...(seconds.length
            ? { medianSeconds: median(seconds)!, p95Seconds: percentile(seconds, 95)! }
            : {}),
          ...(worst
            ? { worstSeconds: worst.rtoSeconds, worstRun: worst.name, worstAt: worst.completedAt }
            : {}),
          ...(totals.checked ? { notVerified: totals.notVerified } : {}),
        };
      });
  }
}

/** The run's aggregate facts, from a PDF run record. */
export function aggregatedRun(run: RunRecord): AggregatedRun {
  return {
    name: run.name,
    test: run.test,
    testNamespace: run.testNamespace,
    sourceNamespaces: run.sourceNamespaces,
    completedAt: run.completedAt,
    result: run.result,
    score: run.score,
    ...(run.rtoSeconds !== undefined ? { rtoSeconds: run.rtoSeconds } : {}),
    ...(run.rtoTarget !== undefined ? { rtoTarget: run.rtoTarget } : {}),
    breached: run.withinSLA === false,
    ...(run.evidenceVerified !== undefined ? { verified: run.evidenceVerified } : {}),
  };
}
