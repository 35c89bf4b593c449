// What the first /reports?latest=true request pays after a quiet spell while runs kept finishing,
// with and without the background rebuild of warm answers (server/api/services/latest-lists.ts).
// In-process, no HTTP, no cluster: the bench population (memory-population.ts) in a ReportIndex,
// ReportsService as the API runs it. Per round: a fresh service answers once (the whole build),
// then `--changes` runs finish one simulated second apart (a new report of a random test, as
// bench:api's background runs); "cold" does nothing in between, "warm" runs one background pass
// after each (what the 1-s timer does; `--real-timer` waits for the timer instead, 1 s per change).
// Then the first request is timed: selection, build, gzip answer. Also the longest event-loop
// gap (1-ms ticker) during the passes and during the request.
//
//   node --import tsx test/bench/latest-warm.ts [--tests 1000] [--days 7] [--changes 40] [--rounds 5] [--real-timer]
import { parseArgs } from 'node:util';
import type { ApiCache } from '../../server/api/ports.js';
import { ReportsService, type ReportQuery } from '../../server/api/services/reports.service.js';
import { reportKeyOf } from '../../server/domain/read-models/report-index.js';
import { flatString, Interner, summarizeReport } from '../../server/domain/read-models/report-summary.js';
import { packReport } from '../../server/report-codec/packed-report.js';
import { BENCH_NAMESPACE, restoreReport, testShape } from './bench-data.js';
import { eventLoopGapsDuring } from './event-loop-gaps.js';
import { summarize } from './load-generator.js';
import { buildMemoryPopulation, populationCache } from './memory-population.js';

const { values: args } = parseArgs({
  options: {
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '7' },
    changes: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '5' },
    'real-timer': { type: 'boolean', default: false },
  },
});
const testCount = Number(args.tests);
const changes = Number(args.changes);
const rounds = Number(args.rounds);
const QUERY: ReportQuery = { latest: true, days: 30 };

const start = Date.now();
let clock = start;
const { tests, index, packed } = buildMemoryPopulation(testCount, Number(args.days), start);
const interner = new Interner();
const cache: ApiCache = populationCache({ tests, index, packed });

let sequence = 0;
/** One run finishes now: a new report of a random test (as the informer adds it). */
function finishRun(): void {
  sequence += 1;
  const shape = testShape(Math.floor(Math.random() * testCount), testCount);
  const report = restoreReport(shape, 0, clock, { uid: `uid-${shape.index}` });
  report.metadata.name = `${report.metadata.name}-bg${sequence}`;
  report.spec.completedAt = new Date(clock).toISOString();
  const key = flatString(reportKeyOf(report));
  index.add(summarizeReport(report, interner), key);
  packed.set(key, packReport(report));
}

async function request(service: ReportsService): Promise<number> {
  const page = service.page(QUERY);
  const prepared = await service.latestJson(QUERY, page.runs);
  await prepared.gzipped();
  return prepared.etag.length;
}

async function round(warm: boolean): Promise<{ firstMs: number; firstGapMs: number; passGapMs: number[]; passMs: number[] }> {
  const service = new ReportsService(cache, BENCH_NAMESPACE, () => new Date(clock));
  await request(service);
  const passMs: number[] = [];
  const passGapMs: number[] = [];
  for (let i = 0; i < changes; i += 1) {
    clock += 1_000;
    finishRun();
    if (!warm) continue;
    if (args['real-timer']) {
      const gaps = await eventLoopGapsDuring(() => new Promise((resolve) => setTimeout(resolve, 1_000)));
      passGapMs.push(gaps.maxGapMs);
    } else {
      const gaps = await eventLoopGapsDuring(() => service.refreshLatest());
      passMs.push(gaps.wallMs);
      passGapMs.push(gaps.maxGapMs);
    }
  }
  clock += 1_000;
  const first = await eventLoopGapsDuring(() => request(service));
  return { firstMs: first.wallMs, firstGapMs: first.maxGapMs, passGapMs, passMs };
}

console.log(`${testCount} tests, ${index.size} reports; ${changes} runs finish before the first request; ${rounds} rounds each`);
console.log('mode   first request ms (each round)            p50    max   longest gap in request   in a pass p50 / max ms   pass wall ms p50 / max');
for (const warm of [false, true]) {
  const results = [];
  for (let r = 0; r < rounds; r += 1) results.push(await round(warm));
  const first = results.map((result) => result.firstMs);
  const stats = summarize(first);
  const passes = results.flatMap((result) => result.passMs);
  const passStats = passes.length > 0 ? summarize(passes) : undefined;
  const gaps = results.flatMap((result) => result.passGapMs);
  const gapStats = gaps.length > 0 ? summarize(gaps) : undefined;
  console.log(
    `${(warm ? 'warm' : 'cold').padEnd(6)} ${first.map((ms) => ms.toFixed(1)).join(' ').padEnd(40)} ${stats.p50.toFixed(1).padStart(6)} ${stats.max.toFixed(1).padStart(6)}   ${Math.max(...results.map((result) => result.firstGapMs)).toFixed(1).padStart(22)}` +
      (gapStats ? `   ${`${gapStats.p50.toFixed(1)} / ${gapStats.max.toFixed(1)}`.padStart(22)}` : '') +
      (passStats ? `   ${passStats.p50.toFixed(1)} / ${passStats.max.toFixed(1)}` : ''),
  );
}
