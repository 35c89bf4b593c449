// Profiling aid (not a test): where the compliance PDF's memory goes, phase by phase, in-process
// over the memory bench's population. Run with --expose-gc and the Deployment's flags:
//   node --expose-gc --optimize-for-size --max-semi-space-size=16 --import tsx test/bench/pdf-phases.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { ComplianceService } from '../../server/api/services/compliance.service.js';
import { complianceReportData } from '../../server/api/services/compliance-report-data.js';
import { periodRuns, runsFileRows } from '../../server/api/services/compliance-runs.js';
import { tailProblems } from '../../server/api/services/evidence-tails.js';
import { generateSigningKey } from '../../server/evidence/signing-key.js';
import { unpackReport } from '../../server/report-codec/packed-report.js';
import { renderComplianceReport } from '../../server/pdf/compliance-report.pdf.js';
import { buildRunsFile } from '../../server/pdf/runs-file.js';
import type { ApiCache } from '../../server/api/ports.js';
import { buildMemoryPopulation } from './memory-population.js';

const testCount = Number(process.env.BENCH_TESTS ?? 1000);
const days = Number(process.env.BENCH_DAYS ?? 90);
const now = Date.now();
const { tests, index, packed } = buildMemoryPopulation(testCount, days, now);
const cache = {
  synced: true,
  version: '1',
  reportIndex: index,
  fullReport: (key: string) => {
    const found = packed.get(key);
    return found && unpackReport(found);
  },
  listTests: () => tests,
  getTest: () => undefined,
} as unknown as ApiCache;

const gc = (globalThis as { gc?: () => void }).gc!;
function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}
function rss(): number {
  return process.memoryUsage().rss / 1048576;
}
const forceGc = !process.env.NO_GC;
let rssStart = 0;
function hwm(): number {
  return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
}
function resetHwm(): void {
  writeFileSync('/proc/self/clear_refs', '5');
  rssStart = rss();
}
const log = (label: string, base: number) => {
  const peak = hwm() - rssStart;
  const used = process.memoryUsage().heapUsed / 1048576;
  console.log(
    `${label.padEnd(40)} phase peak rss +${peak.toFixed(1)}  heapUsed(no gc) ${(used - base).toFixed(1)}  ${forceGc ? `retained +${(heap() - base).toFixed(1)} MB` : ''} rss ${rss().toFixed(0)}`,
  );
  resetHwm();
};

async function main(): Promise<void> {
  const service = new ComplianceService(cache, () => new Date(now));
  const key = generateSigningKey();
  for (let round = 0; round < 2; round += 1) {
    const base = heap();
    console.log(`round ${round}: heap ${base.toFixed(1)} MB, rss ${rss().toFixed(0)}`);
    resetHwm();
    gc();
    log('a full gc', base);
    const t0 = performance.now();
    const tails = tailProblems(cache, tests);
    const evaluation = service.evaluate('soc2', 90, new Date(now), tails);
    log(`evaluate (${Math.round(performance.now() - t0)} ms)`, base);
    const detail = evaluation.detail;
    log('detail', base);
    const runsOfPeriod = periodRuns(index, detail.period);
    const data = complianceReportData({
      evaluation,
      runs: runsOfPeriod,
      tests,
      reportOf: cache.fullReport,
      productVersion: 'x',
    });
    log('report data', base);
    const runs = await buildRunsFile(runsFileRows(runsOfPeriod));
    data.runsFile = runs.info;
    log('runs file', base);
    const pdf = await renderComplianceReport(data, key, runs.bytes);
    log(`pdf ${Math.round(pdf.length / 1024)} KiB (${Math.round(performance.now() - t0)} ms)`, base);
  }
}
void main();
