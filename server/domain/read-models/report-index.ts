// An in-memory index of RestoreReports for the read API. The API answers every request from an
// informer cache of up to ~90,000 reports; scanning and sorting all of them per request would make
// /summary and /alerts cost O(all reports). The informer handlers call add/remove (cheap), and the
// queries cost O(days in the window + runs in the window). Still pure: no clock, no I/O.
import { flatString, type ReportSummary } from './report-summary.js';
import type { RestoreTest } from '../resources/resources.js';
import { dayNumber, parseInstant } from '../common/utc-days.js';

/** One run = one RestoreReport, identified in time by spec.completedAt (decision 0005). */
export interface IndexedRun {
  /** namespace/name of the RestoreReport object. */
  readonly key: string;
  /** namespace/name of the RestoreTest the run belongs to. */
  readonly testKey: string;
  /** spec.completedAt in milliseconds since the epoch. */
  readonly completedAt: number;
  /** UTC day number of completedAt. */
  readonly day: number;
  /** The report's summary (a full RestoreReport also fits: tests, PDFs). */
  readonly report: ReportSummary;
  /**
   * What a read model derived from this version of the run (the compliance evaluation's facts,
   * domain/compliance/population.ts): a new IndexedRun per report version, so it never goes stale. One
   * slot here instead of a WeakMap entry per run (~50 bytes, and ephemerons the GC iterates).
   */
  memo?: unknown;
}

export interface DayTotals {
  runs: number;
  scoreSum: number;
  failures: number;
}

interface DayBucket extends DayTotals {
  members: IndexedRun[];
  /**
   * Whether members are in compareRuns order. Reports arrive in completion order, so a bucket
   * usually stays sorted; when not, the next window query sorts it once. Day buckets in day order
   * are then already chronological, and a 90-day window costs a walk, not a sort of 90,000 runs.
   */
  sorted: boolean;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function testKeyOf(test: RestoreTest): string {
  return objectKey(test.metadata.namespace, test.metadata.name);
}

export function reportKeyOf(report: ReportSummary): string {
  return objectKey(report.metadata.namespace, report.metadata.name);
}

/** The owning test; a report is written in its test's namespace, which is the fallback. */
export function reportTestKeyOf(report: ReportSummary): string {
  return objectKey(report.spec.testRef.namespace || report.metadata.namespace, report.spec.testRef.name);
}

/**
 * Null for a report without a parseable completedAt: it cannot be placed in any window.
 * `keys` lets a caller share its key strings (90,000 runs; see Interner.key).
 */
export function toIndexedRun(
  report: ReportSummary,
  keys: { key?: string; testKey?: (testKey: string) => string } = {},
): IndexedRun | null {
  const completedAt = parseInstant(report.spec?.completedAt);
  if (completedAt === null) return null;
  const testKey = reportTestKeyOf(report);
  return {
    key: keys.key ?? reportKeyOf(report),
    testKey: keys.testKey ? keys.testKey(testKey) : testKey,
    completedAt,
    day: dayNumber(completedAt),
    report,
    memo: undefined,
  };
}

/** Chronological order; ties (same completedAt) broken by object key so results are stable. */
export function compareRuns(a: IndexedRun, b: IndexedRun): number {
  if (a.completedAt !== b.completedAt) return a.completedAt - b.completedAt;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

// Index of the first element that sorts after `run` (runs are unique by key, so the order is total).
function upperBound(runs: readonly IndexedRun[], run: IndexedRun): number {
  let low = 0;
  let high = runs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareRuns(runs[middle]!, run) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

// Index of the first element that does not sort before `run`.
function lowerBound(runs: readonly IndexedRun[], run: IndexedRun): number {
  let low = 0;
  let high = runs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareRuns(runs[middle]!, run) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

// A report whose score is missing or not a number must not poison a day's sum.
function scoreOf(run: IndexedRun): number {
  const score = run.report.spec.score;
  return typeof score === 'number' && Number.isFinite(score) ? score : 0;
}

export class ReportIndex {
  private readonly byKey = new Map<string, IndexedRun>();
  private readonly byTest = new Map<string, IndexedRun[]>();
  private readonly byDay = new Map<number, DayBucket>();
  /** One flat string per test key: every run of a test refers to it. */
  private readonly testKeys = new Map<string, string>();
  private changes = 0;

  /** Bulk build: one sort per test instead of one insertion per report. */
  static from(reports: Iterable<ReportSummary>): ReportIndex {
    const index = new ReportIndex();
    for (const report of reports) {
      const run = toIndexedRun(report);
      if (run) index.byKey.set(run.key, run);
    }
    for (const run of index.byKey.values()) {
      const runs = index.byTest.get(run.testKey);
      if (runs) runs.push(run);
      else index.byTest.set(run.testKey, [run]);
      index.addToDay(run);
    }
    for (const runs of index.byTest.values()) runs.sort(compareRuns);
    return index;
  }

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Changes whenever the indexed population changes (add, replace, remove): a read model computed
   * from the index stays valid while the version does (for the API's memoised responses).
   */
  get version(): number {
    return this.changes;
  }

  /**
   * Insert or replace (informer add and update). Reports without completedAt are not indexed.
   * `key`: the report's key as the caller already holds it (shared, not built again).
   */
  add(report: ReportSummary, key?: string): void {
    this.removeKey(key ?? reportKeyOf(report));
    const run = toIndexedRun(report, {
      ...(key !== undefined ? { key } : {}),
      testKey: (testKey) => this.sharedTestKey(testKey),
    });
    if (!run) return;
    this.changes += 1;
    this.byKey.set(run.key, run);
    const runs = this.byTest.get(run.testKey);
    if (!runs) {
      this.byTest.set(run.testKey, [run]);
    } else if (runs.length === 0 || compareRuns(runs[runs.length - 1]!, run) < 0) {
      runs.push(run); // the usual case: reports arrive in completion order
    } else {
      runs.splice(upperBound(runs, run), 0, run);
    }
    this.addToDay(run);
  }

  private sharedTestKey(testKey: string): string {
    const known = this.testKeys.get(testKey);
    if (known !== undefined) return known;
    const flat = flatString(testKey);
    this.testKeys.set(flat, flat);
    return flat;
  }

  /** Informer delete. Returns whether the report was indexed. */
  remove(report: ReportSummary): boolean {
    return this.removeKey(reportKeyOf(report));
  }

  removeKey(key: string): boolean {
    const run = this.byKey.get(key);
    if (!run) return false;
    this.changes += 1;
    this.byKey.delete(key);
    const runs = this.byTest.get(run.testKey);
    if (runs) {
      const position = lowerBound(runs, run);
      if (runs[position] === run) runs.splice(position, 1);
      if (runs.length === 0) this.byTest.delete(run.testKey);
    }
    const bucket = this.byDay.get(run.day);
    if (bucket) {
      const position = bucket.members.indexOf(run);
      if (position >= 0) {
        // Swap-remove keeps it O(1) after the lookup; the bucket is re-sorted when next read.
        const last = bucket.members.length - 1;
        if (position !== last) {
          bucket.members[position] = bucket.members[last]!;
          bucket.sorted = false;
        }
        bucket.members.pop();
      }
      bucket.runs -= 1;
      bucket.scoreSum -= scoreOf(run);
      if (run.report.spec.result === 'fail') bucket.failures -= 1;
      if (bucket.runs === 0) this.byDay.delete(run.day);
    }
    return true;
  }

  /** The indexed run of a report (key namespace/name), if any. */
  runOf(key: string): IndexedRun | undefined {
    return this.byKey.get(key);
  }

  /** The keys (namespace/name) of the tests with indexed runs, in no particular order. O(tests). */
  testKeysWithRuns(): IterableIterator<string> {
    return this.byTest.keys();
  }

  /** The runs of one test (key namespace/name), oldest first. */
  runsOfTest(testKey: string): readonly IndexedRun[] {
    return this.byTest.get(testKey) ?? [];
  }

  latestRunOfTest(testKey: string): IndexedRun | undefined {
    const runs = this.byTest.get(testKey);
    return runs ? runs[runs.length - 1] : undefined;
  }

  /**
   * The newest run of every test that completed at or before `toMs` (a run "in the future", e.g.
   * from clock skew, is passed over for the one before it), in no particular order. O(tests).
   */
  latestRunPerTest(toMs: number): IndexedRun[] {
    const result: IndexedRun[] = [];
    for (const runs of this.byTest.values()) {
      let position = runs.length - 1;
      while (position >= 0 && runs[position]!.completedAt > toMs) position -= 1;
      if (position >= 0) result.push(runs[position]!);
    }
    return result;
  }

  /** The run of the same test just before `run` (indexed or not), if any. */
  previousRun(run: IndexedRun): IndexedRun | undefined {
    const runs = this.byTest.get(run.testKey);
    return runs ? runs[lowerBound(runs, run) - 1] : undefined;
  }

  /** Runs with fromMs <= completedAt <= toMs, oldest first. */
  runsBetween(fromMs: number, toMs: number): IndexedRun[] {
    if (!(fromMs <= toMs)) return [];
    const firstDay = dayNumber(fromMs);
    const lastDay = dayNumber(toMs);
    const result: IndexedRun[] = [];
    // Buckets are visited in day order and each is in run order, so the result needs no sort.
    const collect = (bucket: DayBucket | undefined): void => {
      if (!bucket) return;
      if (!bucket.sorted) {
        bucket.members.sort(compareRuns);
        bucket.sorted = true;
      }
      const whole =
        bucket.members.length > 0 &&
        bucket.members[0]!.completedAt >= fromMs &&
        bucket.members[bucket.members.length - 1]!.completedAt <= toMs;
      // Indexed loops: once per compliance evaluation over ~90,000 runs, where for...of allocated
      // per element.
      const members = bucket.members;
      if (whole) {
        for (let index = 0; index < members.length; index += 1) result.push(members[index]!);
        return;
      }
      for (let index = 0; index < members.length; index += 1) {
        const run = members[index]!;
        if (run.completedAt >= fromMs && run.completedAt <= toMs) result.push(run);
      }
    };
    // A very wide window (e.g. "everything since 1970") walks the existing buckets instead of days.
    if (lastDay - firstDay + 1 > this.byDay.size) {
      const days = [...this.byDay.keys()]
        .filter((day) => day >= firstDay && day <= lastDay)
        .sort((a, b) => a - b);
      for (const day of days) collect(this.byDay.get(day));
    } else {
      for (let day = firstDay; day <= lastDay; day += 1) collect(this.byDay.get(day));
    }
    return result;
  }

  /** Totals of one UTC day number, kept up to date on add/remove so daily series cost O(days). */
  dayTotals(day: number): DayTotals {
    const bucket = this.byDay.get(day);
    return bucket
      ? { runs: bucket.runs, scoreSum: bucket.scoreSum, failures: bucket.failures }
      : { runs: 0, scoreSum: 0, failures: 0 };
  }

  private addToDay(run: IndexedRun): void {
    let bucket = this.byDay.get(run.day);
    if (!bucket) {
      bucket = { runs: 0, scoreSum: 0, failures: 0, members: [], sorted: true };
      this.byDay.set(run.day, bucket);
    }
    const last = bucket.members[bucket.members.length - 1];
    if (last && compareRuns(last, run) > 0) bucket.sorted = false;
    bucket.members.push(run);
    bucket.runs += 1;
    bucket.scoreSum += scoreOf(run);
    if (run.report.spec.result === 'fail') bucket.failures += 1;
  }
}

/** What the aggregate functions accept: a plain array (built into an index) or a live index. */
export type ReportSource = readonly ReportSummary[] | ReportIndex;

export function asReportIndex(source: ReportSource): ReportIndex {
  return source instanceof ReportIndex ? source : ReportIndex.from(source);
}
