// GET /api/v1/reports: RestoreReports in their full resource representation, from the cache's
// report index (O(runs in the window), not O(all reports)). Newest first. The index holds
// summaries; the answer is the selected reports' stored JSON, joined (ApiCache.reportsJson).
// Without `latest` the list is paged (report-pages.ts), so no answer holds more than `limit`.
import type { IndexedRun } from '../../domain/report-index.js';
import type { RunResult } from '../../domain/resources.js';
import { MILLISECONDS_PER_DAY } from '../../domain/utc-days.js';
import type { ApiCache } from '../ports.js';
import { ProblemError } from '../problem.js';
import { requireSynced } from './readiness.js';
import { DEFAULT_REPORT_LIMIT, pageOf } from './report-pages.js';

export interface ReportQuery {
  /** Only the reports of this RestoreTest (404 when it does not exist). */
  test?: string;
  /** Namespace of `test`; without `test`, only reports in this namespace. */
  namespace?: string;
  /** Only reports with this result. */
  result?: RunResult;
  /** Reports completed in the last `days` days. */
  days: number;
  /** Only the most recent report of each test (one per test, not paged). */
  latest: boolean;
  /** Most reports in one answer (without latest); default 500. */
  limit?: number;
  /** Token of the next page, from the previous answer. */
  continue?: string;
}

export interface ReportKeysPage {
  /** Keys ("namespace/name") of the page's reports, newest first. */
  keys: string[];
  /** Token of the next page; absent on the last page. */
  next?: string;
}

export class ReportsService {
  constructor(
    private readonly cache: ApiCache,
    private readonly defaultNamespace: string,
    private readonly now: () => Date,
  ) {}

  /** The reports' JSON array for the keys of a page. */
  json(keys: readonly string[]): Promise<Buffer> {
    return this.cache.reportsJson(keys);
  }

  /** The page the query asks for: every selected report with latest, else at most `limit`. */
  page(query: ReportQuery): ReportKeysPage {
    const runs = this.newestFirst(query);
    if (query.latest) return { keys: runs.map((run) => run.key) };
    const page = pageOf(runs, query.limit ?? DEFAULT_REPORT_LIMIT, query.continue);
    return { keys: page.runs.map((run) => run.key), ...(page.next ? { next: page.next } : {}) };
  }

  /** Checks what can make the query fail (not ready, unknown test) without selecting anything. */
  validate(query: ReportQuery): void {
    requireSynced(this.cache);
    if (query.test) this.requireTest(query.test, query.namespace);
  }

  /** Keys ("namespace/name") of every selected report, newest first (not paged). */
  keys(query: ReportQuery): string[] {
    return this.newestFirst(query).map((run) => run.key);
  }

  /** The selected runs, newest first: by completion time, then key, both descending. */
  private newestFirst(query: ReportQuery): IndexedRun[] {
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
    if (query.result) runs = runs.filter((run) => run.report.spec.result === query.result);
    return [...runs].reverse();
  }

  private requireTest(test: string, namespace: string | undefined): string {
    const ns = namespace || this.defaultNamespace;
    if (!this.cache.getTest(ns, test)) {
      throw new ProblemError('not-found', `RestoreTest "${test}" not found in namespace "${ns}".`);
    }
    return ns;
  }
}
