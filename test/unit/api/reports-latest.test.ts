// /reports?latest=true's answer is kept per list while its runs are unchanged, at any number of
// tests (issue 17's scale curve: above 1,000 tests the list was streamed, every report inflated for
// every request), equals the reports' JSON in order, and follows a new run at once. A query asked
// recently is rebuilt in the background after reports change (latest-lists.ts), so the first
// request after a quiet spell finds it built; one not asked for LATEST_KEEP_WARM_MS is not.
import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import type { ApiCache } from '../../../server/api/ports.js';
import { STREAMED_PAGE_REPORTS } from '../../../server/api/reports.controller.js';
import {
  LATEST_KEEP_WARM_MS,
  LATEST_WARM_INTERVAL_MS,
  MAX_WARM_LATEST_LISTS,
} from '../../../server/api/services/latest-lists.js';
import { ReportsService, type ReportQuery } from '../../../server/api/services/reports.service.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { Interner, summarizeReport } from '../../../server/domain/read-models/report-summary.js';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

const START = new Date('2026-01-01T00:00:00Z');
const NOW = new Date(START.getTime() + 3 * 86_400_000);
const LATEST: ReportQuery = { latest: true, days: 30 };

/** The cache port over a real ReportIndex; counts how often a whole report is read. */
class FakeCache {
  readonly reportIndex = new ReportIndex();
  readonly reports = new Map<string, RestoreReport>();
  readonly tests = new Map<string, RestoreTest>();
  readonly synced = true;
  readonly version = '1';
  reads = 0;
  private readonly interner = new Interner();

  add(report: RestoreReport): void {
    const key = `${report.metadata.namespace}/${report.metadata.name}`;
    this.reports.set(key, report);
    this.reportIndex.add(summarizeReport(report, this.interner), key);
  }

  fullReport(key: string): RestoreReport | undefined {
    this.reads += 1;
    return this.reports.get(key);
  }

  getTest(namespace: string, name: string): RestoreTest | undefined {
    return this.tests.get(`${namespace}/${name}`);
  }
}

function population(tests: number): FakeCache {
  const cache = new FakeCache();
  for (let t = 0; t < tests; t += 1) {
    const test = makeRestoreTest(`app-${t}`, [`ns-${t}`]);
    cache.tests.set(`${test.metadata.namespace}/${test.metadata.name}`, test);
    for (let day = 0; day < 2; day += 1) cache.add(makeReport(test, day, START, { result: 'pass', rtoSeconds: 300 + t }));
  }
  return cache;
}

async function latest(
  service: ReportsService,
  query: ReportQuery = LATEST,
): Promise<{ text: string; body: RestoreReport[]; etag: string; same: Promise<unknown> }> {
  const page = service.page(query);
  const answer = service.latestJson(query, page.runs);
  const prepared = await answer;
  const text = gunzipSync(await prepared.gzipped()).toString('utf8');
  return { text, body: JSON.parse(text) as RestoreReport[], etag: prepared.etag, same: answer };
}

describe('ReportsService latest list', () => {
  it(`is built once and then reused, above ${STREAMED_PAGE_REPORTS} tests too, and follows a new run`, async () => {
    const tests = STREAMED_PAGE_REPORTS + 200;
    const cache = population(tests);
    let clock = NOW.getTime();
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => new Date(clock));

    const first = await latest(service);
    expect(first.body).toHaveLength(tests);
    // The same bytes as the plain JSON of the newest report per test, newest first.
    const keys = service.page(LATEST).keys;
    expect(first.text).toBe(JSON.stringify(keys.map((key) => cache.reports.get(key))));
    const readsAfterFirst = cache.reads;
    expect(readsAfterFirst).toBe(tests);

    // Requests while nothing changed, also after the selection aged: no report read again, same answer.
    const page = service.page(LATEST);
    expect(service.latestJson(LATEST, page.runs)).toBe(first.same);
    clock += 5_000;
    const aged = service.page(LATEST);
    expect(aged.runs).not.toBe(page.runs);
    expect(service.latestJson(LATEST, aged.runs)).toBe(first.same);
    expect(cache.reads).toBe(readsAfterFirst);

    // A new run of one test: its report is read (and the chunks it touches rebuilt), not the others.
    const test = cache.tests.get('rehearsal-system/app-7')!;
    cache.add(makeReport(test, 2, START, { result: 'fail', rtoSeconds: 999 }));
    clock = NOW.getTime() + 86_400_000;
    const next = await latest(service);
    expect(next.etag).not.toBe(first.etag);
    expect(cache.reads - readsAfterFirst).toBe(1);
    expect(next.body[0]!.spec.testRef.name).toBe('app-7');
    expect(next.body[0]!.spec.result).toBe('fail');
    expect(next.body).toHaveLength(tests);
  }, 60_000);

  it('does not keep a failed build', async () => {
    const cache = population(3);
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => NOW);
    const page = service.page(LATEST);
    const fullReport = cache.fullReport.bind(cache);
    cache.fullReport = () => {
      throw new Error('inflate failed');
    };
    await expect(service.latestJson(LATEST, page.runs)).rejects.toThrow('inflate failed');
    cache.fullReport = fullReport;
    const retried = await service.latestJson(LATEST, page.runs);
    expect(JSON.parse(gunzipSync(await retried.gzipped()).toString('utf8'))).toHaveLength(3);
  });
});

/** After every run newRun() makes (day 2 + n, n < 25); WARM's window still holds days 0 and 1. */
const LATER = new Date(START.getTime() + 30 * 86_400_000);
const WARM: ReportQuery = { latest: true, days: 45 };

/** A new run of test `t`, completed after every earlier one (day 2 + n). */
function newRun(cache: FakeCache, t: number, n: number): void {
  const test = cache.tests.get(`rehearsal-system/app-${t}`)!;
  cache.add(makeReport(test, 2 + n, START, { result: n % 2 ? 'fail' : 'pass', rtoSeconds: 400 + n }));
}

describe('ReportsService latest list kept warm', () => {
  const TESTS = 300;
  const CHANGES = 20;

  it('is rebuilt in the background after each change, so the request after a quiet spell reads nothing', async () => {
    const cache = population(TESTS);
    let clock = LATER.getTime();
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => new Date(clock));
    await latest(service, WARM);

    // Runs finish while nobody asks: each background pass reads the one new report.
    for (let n = 0; n < CHANGES; n += 1) {
      clock += 1_000;
      newRun(cache, (n * 7) % TESTS, n);
      const before = cache.reads;
      await service.refreshLatest();
      expect(cache.reads - before).toBe(1);
    }
    // A pass with nothing changed reads nothing.
    const before = cache.reads;
    await service.refreshLatest();
    expect(cache.reads).toBe(before);

    // The request finds the answer built: the same promise the last pass kept, nothing read.
    clock += 30_000;
    const page = service.page(WARM);
    const answer = service.latestJson(WARM, page.runs);
    expect(cache.reads).toBe(before);
    const prepared = await answer;
    const text = gunzipSync(await prepared.gzipped()).toString('utf8');
    // And it is the current data, newest first: never older than what the request can see.
    expect(text).toBe(JSON.stringify(page.keys.map((key) => cache.reports.get(key))));
    expect((JSON.parse(text) as RestoreReport[])[0]!.spec.testRef.name).toBe(`app-${((CHANGES - 1) * 7) % TESTS}`);

    // A change after the last pass: the request rebuilds only that one (not a stale answer).
    newRun(cache, 5, CHANGES);
    const next = await latest(service, WARM);
    expect(cache.reads - before).toBe(1);
    expect(next.body[0]!.spec.testRef.name).toBe('app-5');
  }, 60_000);

  it('without the passes, the first request after the changes reads every changed report', async () => {
    const cache = population(TESTS);
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => LATER);
    await latest(service, WARM);
    for (let n = 0; n < CHANGES; n += 1) newRun(cache, (n * 7) % TESTS, n);
    const before = cache.reads;
    const answer = await latest(service, WARM);
    expect(cache.reads - before).toBe(CHANGES);
    expect(answer.text).toBe(JSON.stringify(service.page(WARM).keys.map((key) => cache.reports.get(key))));
  }, 60_000);

  it(`stops after ${LATEST_KEEP_WARM_MS / 60_000} minutes without a request, and for queries whose test is gone`, async () => {
    const cache = population(20);
    let clock = LATER.getTime();
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => new Date(clock));
    await latest(service, WARM);
    await latest(service, { ...WARM, test: 'app-3' });

    clock += LATEST_KEEP_WARM_MS - 1_000;
    newRun(cache, 3, 0);
    let before = cache.reads;
    await service.refreshLatest();
    expect(cache.reads - before).toBe(2); // both lists still warm

    clock += 2_000; // past the window since the last request
    newRun(cache, 3, 1);
    before = cache.reads;
    await service.refreshLatest();
    expect(cache.reads).toBe(before);

    // Asked again: warm again. Then the test is deleted: its query is dropped, the other kept.
    await latest(service, WARM);
    await latest(service, { ...WARM, test: 'app-3' });
    cache.tests.delete('rehearsal-system/app-3');
    newRun(cache, 4, 2);
    before = cache.reads;
    await expect(service.refreshLatest()).resolves.toBeUndefined();
    expect(cache.reads - before).toBe(1);
  });

  it(`keeps at most ${MAX_WARM_LATEST_LISTS} queries warm, the most recently asked`, async () => {
    const cache = population(20);
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => LATER);
    const queries = Array.from({ length: MAX_WARM_LATEST_LISTS + 2 }, (_, i) => ({ ...WARM, days: 45 + i }));
    for (const query of queries) await latest(service, query);
    newRun(cache, 1, 0);
    const before = cache.reads;
    await service.refreshLatest();
    expect(cache.reads - before).toBe(MAX_WARM_LATEST_LISTS);
    // The two oldest were not rebuilt: their first request reads the new report.
    const reads = cache.reads;
    await latest(service, queries[0]);
    expect(cache.reads - reads).toBe(1);
  });

  it('coalesces passes, and runs them on its own timer', async () => {
    const cache = population(20);
    const service = new ReportsService(cache as unknown as ApiCache, 'rehearsal-system', () => LATER);
    await latest(service, WARM);
    newRun(cache, 2, 0);
    expect(service.refreshLatest()).toBe(service.refreshLatest());
    await service.refreshLatest();

    newRun(cache, 6, 1);
    const before = cache.reads;
    const deadline = Date.now() + 10 * LATEST_WARM_INTERVAL_MS;
    while (cache.reads === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cache.reads - before).toBe(1);
  }, 20_000);
});
