// What a server start pays per archived report to load the evidence archive into its report cache,
// at a given size — to see whether it grows faster than the archive (issue 17's scale curve: 1.11
// per test from 1,000 to 3,000 tests). In-process, no S3 server and no control plane: the
// segments are built as bench:scale --archive builds them (archive-history.ts: one signed segment
// per test of the bench's reports) and kept in memory behind the store's S3 port, so only the
// server's own work is timed: ArchiveStore.load (gunzip, parse, manifest check) into
// RehearsalCache.addArchived (summary, packed report, index). Optionally the live window first
// (`--live N` runs per test added as the informer would, before the archive, as at a real start).
// Prints load time and CPU time (this process, all threads: GC helpers included) per report, the
// part spent in addArchived and in GC, heap after.
//
//   node --optimize-for-size --no-memory-reducer --max-semi-space-size=16 --heap-growing-percent=20 \
//     --expose-gc --import tsx test/bench/archive-load.ts --tests 1000 [--days 90] [--live 14]
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { ArchiveStore } from '../../server/archive/archive-store.js';
import type { S3Client } from '../../server/archive/s3-client.js';
import { buildSegment } from '../../server/archive/segment.js';
import { reportKeyOf } from '../../server/domain/read-models/report-index.js';
import { Interner, summarizeReport } from '../../server/domain/read-models/report-summary.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { generateSigningKey, publicKeyRing } from '../../server/evidence/signing-key.js';
import { RehearsalCache } from '../../server/kube/rehearsal-cache.js';
import { ARCHIVE_PREFIX, sequencedReport } from './archive-history.js';
import { BENCH_NAMESPACE, testShape } from './bench-data.js';

const { values } = parseArgs({
  options: {
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    live: { type: 'string', default: '14' },
  },
});
const tests = Number(values.tests);
const days = Number(values.days);
const live = Number(values.live);
const now = Date.now();
const key = generateSigningKey();

const objects = new Map<string, Buffer>();
const liveReports: RestoreReport[][] = [];
let mark = performance.now();
for (let i = 0; i < tests; i += 1) {
  const shape = testShape(i, tests);
  const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const reports: RestoreReport[] = [];
  for (let run = days - 1; run >= live; run -= 1) reports.push(sequencedReport(shape, run, days, now, { uid }));
  const segment = buildSegment(ARCHIVE_PREFIX, { namespace: BENCH_NAMESPACE, name: shape.name, uid }, reports, null, key, new Date(now));
  objects.set(segment.key, segment.body);
  const window: RestoreReport[] = [];
  for (let run = live - 1; run >= 0; run -= 1) window.push(sequencedReport(shape, run, days, now, { uid }));
  liveReports.push(window);
}
console.log(`${tests} tests: ${objects.size} segments built in ${((performance.now() - mark) / 1000).toFixed(1)} s`);

const s3 = {
  listObjects: (prefix: string) =>
    Promise.resolve([...objects].filter(([name]) => name.startsWith(prefix)).map(([name, body]) => ({ key: name, size: body.length }))),
  getObject: (name: string) => Promise.resolve(objects.get(name)),
} as unknown as S3Client;

const kubeConfig = new KubeConfig();
kubeConfig.loadFromOptions({
  clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
  users: [{ name: 'none' }],
  contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
  currentContext: 'none',
});
const cache = new RehearsalCache(kubeConfig, pino({ level: 'silent' }));
// The live window as the informer leaves it before the archive loads: in the index (its packed
// copies, held by the informer's store, are left out).
const interner = new Interner();
for (const window of liveReports) {
  for (const report of window) cache.reportIndex.add(summarizeReport(report, interner), reportKeyOf(report));
}
liveReports.length = 0;
global.gc?.();

let gcMs = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
});
observer.observe({ entryTypes: ['gc'] });
const heapBefore = process.memoryUsage().heapUsed;
const store = new ArchiveStore(s3, ARCHIVE_PREFIX, () => publicKeyRing([key.publicKey]), pino({ level: 'silent' }));
let addMs = 0;
const cpuBefore = process.cpuUsage();
mark = performance.now();
// CPU µs per report in each tenth of the load, in one process: whether a report costs more the
// more are loaded already, free of the run-to-run noise of a shared machine.
const tenth = Math.ceil((tests * (days - live)) / 10);
const tenths: string[] = [];
let added = 0;
let tenthCpu = process.cpuUsage();
const loaded = await store.load((report) => {
  const t0 = performance.now();
  cache.addArchived(report);
  addMs += performance.now() - t0;
  if (++added % tenth === 0) {
    const used = process.cpuUsage(tenthCpu);
    tenths.push((((used.user + used.system) / tenth)).toFixed(0));
    tenthCpu = process.cpuUsage();
  }
});
const loadMs = performance.now() - mark;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
await new Promise((resolve) => setTimeout(resolve, 100));
observer.disconnect();
global.gc?.();
const heapAfter = process.memoryUsage().heapUsed;
const us = (ms: number) => ((ms * 1000) / loaded.reports).toFixed(1);
console.log(
  `loaded ${loaded.reports} archived reports (${loaded.problems.length} problems) in ${(loadMs / 1000).toFixed(2)} s: ` +
    `${us(loadMs)} µs/report, CPU ${us(cpuMs)} µs/report (all threads) (addArchived ${us(addMs)}, GC ${us(gcMs)}, rest ${us(loadMs - addMs)} incl. GC in it); ` +
    `heap +${((heapAfter - heapBefore) / 1048576).toFixed(0)} MB (${((heapAfter - heapBefore) / loaded.reports).toFixed(0)} B/report)`,
);
console.log(`CPU µs/report by tenth of the load: ${tenths.join(' ')}`);
