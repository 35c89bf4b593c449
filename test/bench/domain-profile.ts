// `npm run bench:domain` — the read API's per-request work without HTTP or a cluster: the
// benchmark's population (bench-data.ts) in a ReportIndex fed the way the informer feeds it, then
// each endpoint's service call and its JSON serialisation, timed. Finds which domain function a
// slow endpoint spends its time in; prints a table, exits 0. Last, how long a compliance
// re-evaluation (after a data change) holds up the event loop: in one go, and in steps as the API
// runs it (the longest gap between 1 ms timer ticks while it runs).
//
//   npm run bench:domain -- [--tests 1000] [--days 90] [--iterations 20] [--unverified]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  packedReportsJson,
  writePackedReportsJson,
  unpackReport,
} from '../../server/report-codec/packed-report.js';
import { ComplianceService } from '../../server/api/services/compliance.service.js';
import { DashboardService } from '../../server/api/services/dashboard.service.js';
import { ReportsService } from '../../server/api/services/reports.service.js';
import { testResponse } from '../../server/domain/read-models/aggregates.js';
import type { ApiCache } from '../../server/api/ports.js';
import { BENCH_NAMESPACE } from './bench-data.js';
import { eventLoopGapsDuring } from './event-loop-gaps.js';
import { summarize } from './load-generator.js';
import { buildMemoryPopulation } from './memory-population.js';

const { values: args } = parseArgs({
  options: {
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    iterations: { type: 'string', default: '20' },
    // Every report's evidence fails, as in bench:api (its evidence blocks are illustrative).
    unverified: { type: 'boolean', default: false },
  },
});
const testCount = Number(args.tests);
const days = Number(args.days);
const iterations = Number(args.iterations);
const verify = args.unverified ? (): boolean => false : undefined;

function megabytes(bytes: number): number {
  return Math.round(bytes / 1024 / 102.4) / 10;
}

async function main(): Promise<void> {
  const now = Date.now();
  const heapBefore = process.memoryUsage().heapUsed;
  const tBuild = performance.now();
  const { tests, index, packed } = buildMemoryPopulation(testCount, days, now);
  const buildMs = performance.now() - tBuild;
  global.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;

  const cache: ApiCache = {
    synced: true,
    version: '1',
    reportIndex: index,
    fullReport: (key) => {
      const found = packed.get(key);
      return found && unpackReport(found);
    },
    reportsJson: (keys) => packedReportsJson(keys.map((key) => packed.get(key)!)),
    writeReportsJson: (keys, write) => writePackedReportsJson(keys.map((key) => packed.get(key)!), write),
    listTests: () => tests,
    getTest: (namespace, name) =>
      tests.find((test) => test.metadata.namespace === namespace && test.metadata.name === name),
    onTestChange: () => undefined,
  };
  const clock = () => new Date(now);
  const dashboard = new DashboardService(cache, clock);
  const reports = new ReportsService(cache, BENCH_NAMESPACE, clock);
  const compliance = new ComplianceService(cache, clock, verify);

  const cases: [string, () => unknown][] = [
    ['summary', () => dashboard.summary()],
    ['summary/daily', () => dashboard.daily(30)],
    ['tests', () => cache.listTests().map(testResponse)],
    ['reports?latest=true (select)', () => reports.keys({ days: 30, latest: true })],
    ['alerts', () => dashboard.alerts(48)],
    ['compliance soc2 90', () => compliance.evaluate('soc2', 90, clock()).response],
    ['upcoming', () => dashboard.upcoming()],
  ];
  console.log(
    `${testCount} tests, ${index.size} reports indexed in ${Math.round(buildMs)} ms; heap +${megabytes(heapAfter - heapBefore)} MB`,
  );
  console.log(
    'case                   first call ms  compute p50 ms  compute max ms  stringify p50 ms  response KiB',
  );
  for (const [name, compute] of cases) {
    const computeMs: number[] = [];
    const stringifyMs: number[] = [];
    let size = 0;
    for (let i = 0; i < iterations; i += 1) {
      const t0 = performance.now();
      const value = compute();
      const t1 = performance.now();
      size = JSON.stringify(value).length;
      const t2 = performance.now();
      computeMs.push(t1 - t0);
      stringifyMs.push(t2 - t1);
    }
    const compute50 = summarize(computeMs);
    // The first call is the one a memoised read model pays after each change of the data.
    console.log(
      `${name.padEnd(22)} ${computeMs[0]!.toFixed(2).padStart(13)}  ${compute50.p50.toFixed(2).padStart(14)}  ${compute50.max.toFixed(2).padStart(14)}  ${summarize(stringifyMs).p50.toFixed(2).padStart(16)}  ${(size / 1024).toFixed(1).padStart(12)}`,
    );
  }

  // A fresh service has an empty memo: each call below is a re-evaluation, as after a new report.
  console.log('\ncompliance re-evaluation (soc2, 90 days)   wall ms  longest event-loop gap ms');
  for (let i = 0; i < 3; i += 1) {
    const oneGo = await eventLoopGapsDuring(() =>
      new ComplianceService(cache, clock, verify).evaluate('soc2', 90, clock()),
    );
    const steps = await eventLoopGapsDuring(() => new ComplianceService(cache, clock, verify).framework('soc2', 90));
    console.log(
      `  in one go (PDF path)                    ${oneGo.wallMs.toFixed(0).padStart(7)}  ${oneGo.maxGapMs.toFixed(1).padStart(25)}`,
    );
    console.log(
      `  in steps (the API's path)               ${steps.wallMs.toFixed(0).padStart(7)}  ${steps.maxGapMs.toFixed(1).padStart(25)}`,
    );
  }
}


await main();
