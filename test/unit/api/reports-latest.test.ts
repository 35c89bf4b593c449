// /reports?latest=true's answer is kept per list while its runs are unchanged, at any number of
// tests (issue 17's scale curve: above 1,000 tests the list was streamed, every report inflated for
// every request), equals the reports' JSON in order, and follows a new run at once.
import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import type { ApiCache } from '../../../server/api/ports.js';
import { STREAMED_PAGE_REPORTS } from '../../../server/api/reports.controller.js';
import { ReportsService } from '../../../server/api/services/reports.service.js';
import { ReportIndex } from '../../../server/domain/report-index.js';
import { Interner, summarizeReport } from '../../../server/domain/report-summary.js';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

const START = new Date('2026-01-01T00:00:00Z');
const NOW = new Date(START.getTime() + 3 * 86_400_000);

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
): Promise<{ text: string; body: RestoreReport[]; etag: string; same: Promise<unknown> }> {
  const page = service.page({ latest: true, days: 30 });
  const answer = service.latestJson('latest', page.runs);
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
    const keys = service.page({ latest: true, days: 30 }).keys;
    expect(first.text).toBe(JSON.stringify(keys.map((key) => cache.reports.get(key))));
    const readsAfterFirst = cache.reads;
    expect(readsAfterFirst).toBe(tests);

    // Requests while nothing changed, also after the selection aged: no report read again, same answer.
    const page = service.page({ latest: true, days: 30 });
    expect(service.latestJson('latest', page.runs)).toBe(first.same);
    clock += 5_000;
    const aged = service.page({ latest: true, days: 30 });
    expect(aged.runs).not.toBe(page.runs);
    expect(service.latestJson('latest', aged.runs)).toBe(first.same);
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
    const page = service.page({ latest: true, days: 30 });
    const fullReport = cache.fullReport.bind(cache);
    cache.fullReport = () => {
      throw new Error('inflate failed');
    };
    await expect(service.latestJson('latest', page.runs)).rejects.toThrow('inflate failed');
    cache.fullReport = fullReport;
    const retried = await service.latestJson('latest', page.runs);
    expect(JSON.parse(gunzipSync(await retried.gzipped()).toString('utf8'))).toHaveLength(3);
  });
});
