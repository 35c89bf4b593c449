// `npm run bench:memory-breakdown` — bytes of heap per report, per structure the server holds (issue
// 17: the server's own memory at 1,000 tests × 90 days). Builds the population the way the informer
// cache does (rehearsal-cache.ts: a store entry per report with its key, summary and packed form;
// the report index), then what the first compliance evaluation keeps (the per-run facts) and what
// the evidence verifier keeps once every chain was checked, measuring the heap after a full GC
// between steps. Run under the Deployment's Node flags (see the npm script).
//
//   npm run bench:memory-breakdown -- [--tests 1000] [--days 90]
import { parseArgs } from 'node:util';
import { evaluateCompliance } from '../../server/domain/compliance/evaluation.js';
import { ReportIndex, reportKeyOf } from '../../server/domain/read-models/report-index.js';
import { flatString, Interner, summarizeReport, type ReportSummary } from '../../server/domain/read-models/report-summary.js';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import { EvidenceVerifier } from '../../server/evidence/evidence-verifier.js';
import { generateSigningKey, publicKeyRing } from '../../server/evidence/signing-key.js';
import { packReport, unpackReport, type PackedReport } from '../../server/report-codec/packed-report.js';
import { restoreReport, restoreTest, testShape, testStatus } from './bench-data.js';

const { values: args } = parseArgs({
  options: { tests: { type: 'string', default: '1000' }, days: { type: 'string', default: '90' } },
});
const testCount = Number(args.tests);
const days = Number(args.days);
const now = Date.now();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

/** After a turn of the event loop: values held in the current frame's registers are let go. */
async function heapUsed(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}


interface Stored {
  readonly key: string;
  readonly summary: ReportSummary;
  readonly packed: PackedReport;
}

const tests: RestoreTest[] = [];
for (let i = 0; i < testCount; i += 1) {
  const shape = testShape(i, testCount);
  tests.push(JSON.parse(JSON.stringify({ ...restoreTest(shape), status: testStatus(shape, now) })) as RestoreTest);
}
const baseline = await heapUsed();

const started = performance.now();
let store: Map<string, Stored> | undefined = new Map<string, Stored>();
let index: ReportIndex | undefined = new ReportIndex();
const interner = new Interner();
let packedChars = 0;
for (let run = days - 1; run >= 0; run -= 1) {
  for (let i = 0; i < testCount; i += 1) {
    // The informer's path: a parsed object, its key, the summary, the packed form.
    const report = JSON.parse(JSON.stringify(restoreReport(testShape(i, testCount), run, now, { uid: `uid-${i}` }))) as RestoreReport;
    const key = flatString(reportKeyOf(report));
    const stored = { key, summary: summarizeReport(report, interner), packed: packReport(report) };
    packedChars += stored.packed.length;
    store.set(key, stored);
  }
}
const storeMs = performance.now() - started;
const storedHeap = await heapUsed();
const indexStarted = performance.now();
for (const [key, { summary }] of store) index.add(summary, key);
const buildMs = storeMs + performance.now() - indexStarted;
const total = store.size;

const built = await heapUsed();
const ring = publicKeyRing([generateSigningKey().publicKey]);
let verifier: EvidenceVerifier | undefined = new EvidenceVerifier(() => ring, {
  reportsOfTest: (testKey) => index!.runsOfTest(testKey).map((run) => unpackReport(store!.get(run.key)!.packed)),
  sharedKey: (key) => index!.runOf(key)?.key,
});
for (const run of index.runsBetween(0, now)) verifier.verify(run.report, run);
const verified = await heapUsed();
let evaluation: unknown = evaluateCompliance({
  framework: 'soc2',
  periodDays: days,
  now: new Date(now),
  tests,
  reports: index,
  verify: (report, keys) => verifier!.verify(report, keys),
});
const loaded = await heapUsed();
const loadedRssMb = process.memoryUsage().rss / 1e6;

// Measured by taking the structures away again, newest first: each step frees exactly its part.
// The index, the verifier's state and the facts are measured as they grow (the facts live as
// long as the runs they describe); the summaries and the store as they are taken away again.
const rows: [string, number][] = [
  ['compliance: per-run facts + a 90-day evaluation held', loaded - verified],
  ['evidence verifier state (every chain checked)', verified - built],
  ['report index (runs, by key/test/day)', built - storedHeap],
];
let last = storedHeap;
async function freed(name: string): Promise<void> {
  const used = await heapUsed();
  rows.push([name, last - used]);
  last = used;
}
evaluation = undefined;
verifier = undefined;
index = undefined;
await heapUsed();
for (const stored of store.values()) (stored as { summary: unknown }).summary = undefined;
await freed('summaries');
store = undefined;
await freed('store: entries, keys, Map + packed (~405 B of it)');
void evaluation;
rows.push(['(total)', loaded - last]);
void index;

const perReport = (bytes: number) => Math.round(bytes / total);
console.log(`${total} reports, ${testCount} tests; store, summaries and index built in ${Math.round(buildMs)} ms; heap after load ${((loaded - baseline) / 1e6).toFixed(1)} MB over the baseline; packed strings ${perReport(packedChars)} chars/report`);
console.log(`${'structure'.padEnd(58)}  heap MB  B/report`);
for (const [name, bytes] of rows) {
  console.log(`${name.padEnd(58)}  ${(bytes / 1e6).toFixed(1).padStart(7)}  ${String(perReport(bytes)).padStart(8)}`);
}
console.log(`after load: heap used ${(loaded / 1e6).toFixed(1)} MB, RSS ${loadedRssMb.toFixed(1)} MB (this process, tsx included)`);
