// The answers of /reports?latest=true, one per distinct query, kept incrementally
// (incremental-json-list.ts) and kept warm: a query asked within LATEST_KEEP_WARM_MS is rebuilt in
// the background after the report index changes, so the first request after a quiet spell finds
// its answer built, or with the chunks of at most one interval's runs to redo.
//
// Without it (issue 17, bench:api): nobody asked for 40 s while ~40 runs finished, so the first
// request of the `latest` phase rebuilt nearly every chunk of the 3 MiB answer and waited 143 ms,
// and every request arriving meanwhile waited behind it.
import type { IndexedRun } from '../../domain/read-models/report-index.js';
import { IncrementalJsonList } from '../responses/incremental-json-list.js';
import type { ApiCache } from '../ports.js';
import type { PreparedJson } from '../responses/prepared-json.js';

/** Latest-per-test lists kept (one per distinct query; the dashboard asks one). */
export const MAX_LATEST_LISTS = 8;
/**
 * Of those, how many are kept warm (the most recently asked): each rebuild costs the chunks a run
 * touched (~5 ms of deflate on the thread pool) plus the selection (1-3 ms at 1,000 tests).
 */
export const MAX_WARM_LATEST_LISTS = 4;
/** How long after its last request a query's answer is rebuilt in the background (as compliance's). */
export const LATEST_KEEP_WARM_MS = 10 * 60_000;
/**
 * How often warm answers are compared with the report index and rebuilt when it changed. Changes
 * are coalesced over one interval, so with a run finishing every second a request finds at most
 * one or two runs not yet in the answer (one or two chunks to redo). A rebuild yields to the event
 * loop every 50 reports serialised and deflates on the thread pool, so it never holds the loop
 * for more than a few ms at once.
 */
export const LATEST_WARM_INTERVAL_MS = 1_000;

/** A `latest` list: its incremental builder and the answer for the runs it was last built from. */
interface LatestList {
  readonly builder: IncrementalJsonList;
  runs?: readonly IndexedRun[];
  answer?: Promise<PreparedJson>;
}

interface WarmEntry {
  requestedAtMs: number;
  /** The runs of the query now (undefined: it no longer selects anything, e.g. its test is gone). */
  readonly select: () => readonly IndexedRun[] | undefined;
  /** The report index's version the answer was last brought up to. */
  version: number;
}

/** Same runs in the same order: IndexedRuns are replaced whenever their report changes. */
function sameRuns(a: readonly IndexedRun[], b: readonly IndexedRun[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

export class LatestLists {
  private readonly lists = new Map<string, LatestList>();
  private readonly warm = new Map<string, WarmEntry>();
  private warmTimer: NodeJS.Timeout | undefined;
  /** A background pass in progress: passes never overlap (coalesced into the next tick). */
  private warming: Promise<void> | undefined;

  constructor(
    private readonly cache: ApiCache,
    private readonly now: () => Date,
  ) {}

  /**
   * The answer of the query `key` for `runs`, asked by a request: the query is kept warm
   * (`select` gives its runs at the time of a background pass).
   */
  requested(key: string, runs: readonly IndexedRun[], select: () => readonly IndexedRun[] | undefined): Promise<PreparedJson> {
    const answer = this.answer(key, runs);
    this.warm.delete(key);
    this.warm.set(key, { requestedAtMs: this.now().getTime(), select, version: this.cache.reportIndex.version });
    if (this.warm.size > MAX_WARM_LATEST_LISTS) this.warm.delete(this.warm.keys().next().value!);
    this.startTimer();
    return answer;
  }

  /**
   * The answer for `runs`: kept while its runs are the same; otherwise built from the previous
   * one's chunks. Byte for byte the reports' JSON array in that order.
   */
  answer(key: string, runs: readonly IndexedRun[]): Promise<PreparedJson> {
    let list = this.lists.get(key);
    if (list) this.lists.delete(key);
    list ??= {
      builder: new IncrementalJsonList((reportKey) => {
        const report = this.cache.fullReport(reportKey);
        return report && Buffer.from(JSON.stringify(report), 'utf8');
      }),
    };
    this.lists.set(key, list);
    if (this.lists.size > MAX_LATEST_LISTS) {
      const evicted = this.lists.keys().next().value!;
      this.lists.delete(evicted);
      this.warm.delete(evicted);
    }
    if (list.answer && list.runs && sameRuns(list.runs, runs)) return list.answer;
    const answer = list.builder.build(runs.map((run) => ({ key: run.key, group: run.testKey, source: run.report })));
    const kept = list;
    kept.runs = runs;
    kept.answer = answer;
    // A failed build is not kept: the next request tries again.
    answer.catch(() => {
      if (kept.answer === answer) kept.answer = undefined;
    });
    return answer;
  }

  /**
   * One background pass: every warm query asked within LATEST_KEEP_WARM_MS whose answer predates
   * the report index's version is rebuilt, one after the other. Resolves when done; a pass already
   * running is returned instead of starting another.
   */
  refreshWarm(): Promise<void> {
    this.warming ??= this.refreshPass().finally(() => {
      this.warming = undefined;
    });
    return this.warming;
  }

  private async refreshPass(): Promise<void> {
    if (!this.cache.synced) return;
    for (const [key, entry] of [...this.warm]) {
      const version = this.cache.reportIndex.version;
      if (this.now().getTime() - entry.requestedAtMs > LATEST_KEEP_WARM_MS || !this.lists.has(key)) {
        this.warm.delete(key);
        continue;
      }
      if (entry.version === version) continue;
      let runs: readonly IndexedRun[] | undefined;
      try {
        runs = entry.select();
      } catch {
        runs = undefined; // e.g. its test was deleted: the next request gets the 404
      }
      if (!runs) {
        this.warm.delete(key);
        continue;
      }
      try {
        await this.answer(key, runs);
        entry.version = version;
      } catch {
        // Not remembered: the next pass or request tries again (and a request sees the error).
      }
    }
  }

  private startTimer(): void {
    if (this.warmTimer) return;
    this.warmTimer = setInterval(() => {
      if (this.warm.size === 0) {
        clearInterval(this.warmTimer);
        this.warmTimer = undefined;
        return;
      }
      void this.refreshWarm();
    }, LATEST_WARM_INTERVAL_MS);
    this.warmTimer.unref();
  }
}
