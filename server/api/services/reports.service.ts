// GET /api/v1/reports: RestoreReports in their full resource representation, from the cache's
// report index (O(runs in the window), not O(all reports)). Newest first. The index holds
// summaries; the answer is the selected reports' stored JSON, joined (ApiCache.reportsJson).
// Without `latest` the list is paged (report-pages.ts), so no answer holds more than `limit`.
import type { IndexedRun } from '../../domain/read-models/report-index.js';
import type { RunResult } from '../../domain/resources/resources.js';
import { MILLISECONDS_PER_DAY } from '../../domain/common/utc-days.js';
import { ALL_NAMESPACES, inScope, namespaceOfKey, scopeKey, type NamespaceScope } from '../auth/namespace-scope.js';
import type { ApiCache } from '../ports.js';
import type { PreparedJson } from '../responses/prepared-json.js';
import { ProblemError } from '../problem.js';
import { LatestLists, MAX_LATEST_LISTS } from './latest-lists.js';
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
  /** The namespaces the caller may read (issue 30); default every namespace. */
  scope?: NamespaceScope;
}

export interface ReportKeysPage {
  /** Keys ("namespace/name") of the page's reports, newest first. */
  keys: string[];
  /** The page's runs, in the same order. */
  runs: readonly IndexedRun[];
  /** Token of the next page; absent on the last page. */
  next?: string;
}

/**
 * How long a `latest` selection is reused while no report changes: selecting and sorting the
 * newest run of 1,000 tests cost 1-3 ms per request, most of /reports?latest=true's CPU at
 * 200 req/s. Its window ("completed in the last N days, not in the future") moves with the clock,
 * so it lags by at most this, like the dashboard's other windowed answers (1 s).
 */
const LATEST_SELECTION_TTL_MS = 1_000;

interface Selection {
  version: number;
  atMs: number;
  page: ReportKeysPage;
}

/** Identifies a `latest` query (its selection and its kept answer). */
function latestKey(query: ReportQuery): string {
  return `${query.test ?? ''}|${query.namespace ?? ''}|${query.result ?? ''}|${query.days}${scopeKey(query.scope ?? ALL_NAMESPACES)}`;
}

export class ReportsService {
  private readonly latestLists: LatestLists;
  private readonly latestSelections = new Map<string, Selection>();

  constructor(
    private readonly cache: ApiCache,
    private readonly defaultNamespace: string,
    private readonly now: () => Date,
  ) {
    this.latestLists = new LatestLists(cache, now);
  }

  /** The reports' JSON array for the keys of a page. */
  json(keys: readonly string[]): Promise<Buffer> {
    return this.cache.reportsJson(keys);
  }

  /**
   * The answer of a `latest` query (not paged) for its runs (from page()): kept per query and
   * rebuilt incrementally, so a new run costs the chunk it lands in, not the whole list; and kept
   * warm after the reports change while the query was asked recently (latest-lists.ts). Byte for
   * byte the JSON json() gives for the same runs.
   *
   * The answer itself is kept there, one per query, while its runs are the same: not in the
   * response cache, which keeps no answer over 4 MiB (3,000 tests' latest reports are ~9 MiB, whose
   * parts the builder holds anyway) and keyed each version's answer apart until its byte budget
   * pushed them out. At any size, an unchanged list costs a request a comparison of its runs.
   */
  latestJson(query: ReportQuery, runs: readonly IndexedRun[]): Promise<PreparedJson> {
    const selection = { ...query, latest: true };
    return this.latestLists.requested(latestKey(selection), runs, () => this.latestPage(selection).runs);
  }

  /** Brings the warm `latest` answers up to the report index now (the timer does it every second). */
  refreshLatest(): Promise<void> {
    return this.latestLists.refreshWarm();
  }

  /** The same JSON in slices, for pages too large to keep (ApiCache.writeReportsJson). */
  write(keys: readonly string[], write: (chunk: Buffer) => Promise<boolean>): Promise<void> {
    return this.cache.writeReportsJson(keys, write);
  }

  /** The page the query asks for: every selected report with latest, else at most `limit`. */
  page(query: ReportQuery): ReportKeysPage {
    if (query.latest) return this.latestPage(query);
    const runs = this.newestFirst(query);
    const page = pageOf(runs, query.limit ?? DEFAULT_REPORT_LIMIT, query.continue);
    return { keys: page.runs.map((run) => run.key), runs: page.runs, ...(page.next ? { next: page.next } : {}) };
  }

  private latestPage(query: ReportQuery): ReportKeysPage {
    const key = latestKey(query);
    const version = this.cache.reportIndex.version;
    const nowMs = this.now().getTime();
    const known = this.latestSelections.get(key);
    if (known && known.version === version && nowMs >= known.atMs && nowMs - known.atMs < LATEST_SELECTION_TTL_MS) {
      return known.page;
    }
    const runs = this.newestFirst(query);
    const page = { keys: runs.map((run) => run.key), runs };
    this.latestSelections.delete(key);
    this.latestSelections.set(key, { version, atMs: nowMs, page });
    if (this.latestSelections.size > MAX_LATEST_LISTS) {
      this.latestSelections.delete(this.latestSelections.keys().next().value!);
    }
    return page;
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
    const scope = query.scope ?? ALL_NAMESPACES;
    if (scope.kind !== 'all') runs = runs.filter((run) => inScope(scope, namespaceOfKey(run.key)));
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
