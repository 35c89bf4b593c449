// GET /api/v1/reports: RestoreReports in their full resource representation, from the cache's
// report index (O(runs in the window), not O(all reports)). Newest first. The index holds
// summaries; the answer is the selected reports' stored JSON, joined (ApiCache.reportsJson).
import type { IndexedRun } from '../../domain/report-index.js';
import { MILLISECONDS_PER_DAY } from '../../domain/utc-days.js';
import type { ApiCache } from '../ports.js';
import { ProblemError } from '../problem.js';
import { requireSynced } from './readiness.js';

export interface ReportQuery {
  /** Only the reports of this RestoreTest (404 when it does not exist). */
  test?: string;
  /** Namespace of `test`; without `test`, only reports in this namespace. */
  namespace?: string;
  /** Reports completed in the last `days` days. */
  days: number;
  /** Only the most recent report of each test. */
  latest: boolean;
}

export class ReportsService {
  constructor(
    private readonly cache: ApiCache,
    private readonly defaultNamespace: string,
    private readonly now: () => Date,
  ) {}

  /** The reports' JSON array (the body of the answer). */
  json(query: ReportQuery): Promise<Buffer> {
    return this.cache.reportsJson(this.keys(query));
  }

  /** Checks what can make the query fail (not ready, unknown test) without selecting anything. */
  validate(query: ReportQuery): void {
    requireSynced(this.cache);
    if (query.test) this.requireTest(query.test, query.namespace);
  }

  /** Keys ("namespace/name") of the selected reports, newest first. */
  keys(query: ReportQuery): string[] {
    requireSynced(this.cache);
    const to = this.now().getTime();
    const from = to - query.days * MILLISECONDS_PER_DAY;
    const index = this.cache.reportIndex;
    let runs: readonly IndexedRun[];
    if (query.test) {
      const namespace = this.requireTest(query.test, query.namespace);
      runs = index
        .runsOfTest(`${namespace}/${query.test}`)
        .filter((run) => run.completedAt >= from && run.completedAt <= to);
    } else if (query.latest && !query.namespace) {
      // The dashboard's "latest per test": O(tests) from each test's newest run, instead of
      // collecting every run of the window (30,000 at 1,000 daily tests) to keep one per test.
      runs = index.latestRunPerTest(to).filter((run) => run.completedAt >= from);
    } else {
      runs = index.runsBetween(from, to);
      if (query.namespace) runs = runs.filter((run) => run.key.startsWith(`${query.namespace}/`));
    }
    if (query.latest) {
      const newest = new Map<string, IndexedRun>();
      for (const run of runs) newest.set(run.testKey, run); // runs are oldest first
      runs = [...newest.values()].sort((a, b) => a.completedAt - b.completedAt || (a.key < b.key ? -1 : 1));
    }
    return [...runs].reverse().map((run) => run.key);
  }

  private requireTest(test: string, namespace: string | undefined): string {
    const ns = namespace || this.defaultNamespace;
    if (!this.cache.getTest(ns, test)) {
      throw new ProblemError('not-found', `RestoreTest "${test}" not found in namespace "${ns}".`);
    }
    return ns;
  }
}
