// `npx tsx test/bench/stored-form-size.ts [--tests 100] [--runs 100]` — what issue 30's readable
// fields (spec.backupName, spec.checkSummary) add to a stored RestoreReport, without a control
// plane: the same signed reports as bench:footprint (footprint-data.ts, built by the engine's own
// code), packed as the writer stores them now and as it stored them before issue 30 (the whole
// backup inside details, no summary). Prints the stored spec's JSON bytes (what etcd keeps), the
// details string, and how many entries the spec map has: the apiserver keeps a map of up to 8
// entries in one 8-slot group, and a ninth grows it (test/bench/results/footprint.md, "what it
// costs"). A calculation, not a measurement of the apiserver: bench:footprint measures that.
import { parseArgs } from 'node:util';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { generateSigningKey } from '../../server/evidence/signing-key.js';
import { encodeDetails, packReportSpec } from '../../server/report-codec/report-encoding.js';
import { decodeDetails } from '../../protocol/stored-report/stored-report.js';
import { restoreTest, testShape } from './bench-data.js';
import { ChainSigner } from './footprint-data.js';

const { values: args } = parseArgs({
  options: { tests: { type: 'string', default: '100' }, runs: { type: 'string', default: '100' } },
  strict: true,
});
const testCount = Number(args.tests);
const runCount = Number(args.runs);

type Stored = Record<string, unknown>;

/** The stored spec as the writer made it before issue 30: no checkSummary, the backup's name in details. */
function beforeIssue30(report: RestoreReport): Stored {
  const { checkSummary: _summary, ...spec } = report.spec;
  const { backupName, details, ...kept } = packReportSpec(spec) as Stored;
  const packed = decodeDetails(details as string);
  return { ...kept, details: encodeDetails({ ...packed, backup: { ...(packed.backup as object), name: backupName } }) };
}

interface Tally {
  json: number;
  details: number;
  entries: Map<number, number>;
}

const tally = (): Tally => ({ json: 0, details: 0, entries: new Map() });
function add(into: Tally, spec: Stored): void {
  into.json += Buffer.byteLength(JSON.stringify(spec));
  into.details += (spec.details as string).length;
  const entries = Object.keys(spec).length;
  into.entries.set(entries, (into.entries.get(entries) ?? 0) + 1);
}

const key = generateSigningKey();
const start = Date.UTC(2026, 0, 1);
const now = tally();
const before = tally();
let summaryBytes = 0;
let backupNameBytes = 0;
let reports = 0;
for (let index = 0; index < testCount; index++) {
  const shape = testShape(index, testCount);
  const test = restoreTest(shape);
  test.metadata.uid = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
  const signer = new ChainSigner(key);
  for (let run = 0; run < runCount; run++) {
    const report = signer.next(test, shape, run, start);
    const stored = packReportSpec(report.spec) as Stored;
    add(now, stored);
    add(before, beforeIssue30(report));
    summaryBytes += Buffer.byteLength(stored.checkSummary as string);
    backupNameBytes += Buffer.byteLength(stored.backupName as string);
    reports++;
  }
}

const per = (total: number): string => (total / reports).toFixed(1);
const entries = (t: Tally): string =>
  [...t.entries.entries()]
    .sort(([a], [b]) => a - b)
    .map(([count, n]) => `${count} entries: ${n}`)
    .join(', ');
console.log(`${reports} reports (${testCount} tests × ${runCount} runs), per report:`);
console.log(`  stored spec JSON  before ${per(before.json)} B, now ${per(now.json)} B, +${per(now.json - before.json)} B`);
console.log(`  spec.details      before ${per(before.details)} B, now ${per(now.details)} B, ${per(now.details - before.details)} B`);
console.log(`  new strings       backupName ${per(backupNameBytes)} B, checkSummary ${per(summaryBytes)} B`);
console.log(`  spec map before   ${entries(before)}`);
console.log(`  spec map now      ${entries(now)}`);
