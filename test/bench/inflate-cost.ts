// `npm run bench:inflate` — what packing and unpacking the benchmark's reports costs per report
// (issue 12): a zlib stream per report (zlib.inflateRawSync / deflateRawSync, "before") against
// the one reused zlib state of server/report-codec/raw-zlib.ts ("after"), and the list writer as the API
// runs it. CPU (user+system) per report, the longest event-loop delay, and what the V8 heap and
// external memory rose by (no forced GC while measuring; the native dictionary copies the old path
// left behind are outside both: bench:memory shows them in the server's RSS).
//
//   npm run bench:inflate -- [inflate-before|inflate-after|list|deflate-before|deflate-after] [reports]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { RawDeflater, RawInflater } from '../../server/report-codec/raw-zlib.js';
import { packedReportDictionary, unpackReport, writePackedReportsJson } from '../../server/report-codec/packed-report.js';
import { buildMemoryPopulation } from './memory-population.js';

const variant = process.argv[2] ?? 'inflate-after';
const count = Number(process.argv[3] ?? 5000);
const { packed } = buildMemoryPopulation(Math.min(1000, count), Math.ceil(count / 1000), Date.now());
const reports = [...packed.values()].slice(0, count);
const jsons = variant.startsWith('deflate') ? reports.map((report) => JSON.stringify(unpackReport(report))) : [];
const dictionary = packedReportDictionary();
const inflater = new RawInflater({ dictionary });
const deflateOptions = { dictionary, level: 3, strategy: constants.Z_DEFAULT_STRATEGY };
const deflater = new RawDeflater(deflateOptions);

/** Runs `each` on every item, a slice of 100 per turn of the event loop (as the list writer does); the bytes out. */
async function sliced<T>(items: readonly T[], each: (item: T) => Buffer): Promise<number> {
  let bytes = 0;
  for (let start = 0; start < items.length; start += 100) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const item of items.slice(start, start + 100)) bytes += each(item).length;
  }
  return bytes;
}

const variants: Record<string, () => Promise<number>> = {
  'inflate-before': () => sliced(reports, (report) => inflateRawSync(Buffer.from(report, 'latin1'), { dictionary, chunkSize: 4 * 1024 })),
  'inflate-after': () => sliced(reports, (report) => inflater.view(Buffer.from(report, 'latin1'))),
  list: async () => {
    let bytes = 0;
    await writePackedReportsJson(reports, async (chunk) => {
      bytes += chunk.length;
      await new Promise((resolve) => setImmediate(resolve)); // the socket drained
      return true;
    });
    return bytes;
  },
  'deflate-before': () => sliced(jsons, (json) => deflateRawSync(json, deflateOptions)),
  'deflate-after': () => sliced(jsons, (json) => deflater.view(Buffer.from(json, 'utf8'))),
};

async function main(): Promise<void> {
  const run = variants[variant];
  if (!run) throw new Error(`variant: one of ${Object.keys(variants).join(', ')}`);
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const before = process.memoryUsage();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const bytes = await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  loop.disable();
  const after = process.memoryUsage();
  const mb = (value: number) => (value / 1048576).toFixed(1);
  console.log(
    `${variant.padEnd(14)} ${reports.length} reports (${Math.round(bytes / reports.length)} B out each): ` +
      `CPU ${((used.user + used.system) / reports.length).toFixed(1)} µs/report, wall ${ms.toFixed(0)} ms, ` +
      `longest event-loop delay ${(loop.max / 1e6).toFixed(1)} ms, ` +
      `external +${mb(after.external - before.external)} MB, heap +${mb(after.heapUsed - before.heapUsed)} MB`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
