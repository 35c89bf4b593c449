// How the server stores a RestoreReport in etcd (issue 17, footprint), and reads it back fast. The
// apiserver keeps every stored custom resource in its watch cache as a tree of Go maps: each object
// (map) costs ~340 bytes, each field ~50 plus its string, whatever its JSON length. So only what
// kubectl and the CRD need stay fields — the printer columns and selectable fields (the test's name
// as the top-level string test, result, score, the measured RTO as the top-level string
// rtoMeasured, completedAt, and since issue 30 the backup's name as the top-level string backupName
// and the one-line checkSummary, so an auditor with only kubectl reads which backup was restored
// and which checks failed) and what the CRD's CEL rules check (startedAt, completedAt, score,
// result, resultCap, failure) — and every other field of the spec (runId too: it is in the
// report's name), the evidence block included, is stored as one string, spec.details, deflated
// against a preset dictionary and base64-encoded: "z1:<base64>". bench:footprint measured it
// (test/bench/results/footprint.md). A stored field is a top-level string, never a map: each map
// costs the apiserver ~340 bytes per report.
//
// The forms and how a reader expands them are the protocol's (protocol/stored-report/), shared
// with the plugin's verifier; this module is the server's side: packing (only the server writes)
// and one reused zlib state each way (raw-zlib.ts) instead of a zlib stream per report.
// `expandReportSpec(packReportSpec(spec))` equals `spec`, and the evidence digest is computed over
// the expanded spec, so the stored form changes no signature.
import { RawDeflater, RawInflater } from './raw-zlib.js';
import {
  BACKUP_NAME_FIELD,
  DEFLATED_DETAILS_PREFIX,
  DETAILS_DICTIONARY,
  expandStoredSpec,
  isObject,
  MAX_INFLATED_LENGTH,
  RTO_MEASURED_FIELD,
  TEST_NAME_FIELD,
  type DetailsInflater,
  type Fields,
} from '../../protocol/stored-report/stored-report.js';
import type { RestoreReport, RestoreReportSpec } from '../domain/resources/resources.js';

/** Spec fields stored as fields; every other top-level field goes into spec.details. */
const KEPT_FIELDS: ReadonlySet<string> = new Set([
  'startedAt',
  'completedAt',
  'score',
  'result',
  'resultCap',
  'failure',
  'checkSummary',
]);
/** maxLength of spec.details in the CRD. A larger report (never seen: reports are a few KB) is stored expanded. */
export const MAX_DETAILS_LENGTH = 49_152;
/**
 * One zlib state each way for every details string (raw-zlib.ts): the informer expands each report
 * it ingests (90,000 at start-up), and a zlib stream per report left a native copy of the
 * dictionary behind each call until a full GC.
 */
let inflater: RawInflater | undefined;
let deflater: RawDeflater | undefined;

/** A spec as stored: the kept fields, and the others in `details` (absent: stored expanded). */
export type StoredReportSpec = Partial<RestoreReportSpec> & { details?: string };

/** A report as read from the apiserver: stored packed (with spec.details) or expanded. */
export type StoredRestoreReport = Omit<RestoreReport, 'spec'> & { spec: StoredReportSpec };

/** The protocol's inflater, on the one reused zlib state. */
const inflateFast: DetailsInflater = (deflated) =>
  (inflater ??= new RawInflater({ dictionary: DETAILS_DICTIONARY, maxOutputLength: MAX_INFLATED_LENGTH })).view(deflated);

function split(value: Fields, keep: (key: string) => boolean): [Fields, Fields] {
  const kept: Fields = {};
  const rest: Fields = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    (keep(key) ? kept : rest)[key] = field;
  }
  return [kept, rest];
}

/** The details string of the fields not kept: JSON deflated against the dictionary, base64. */
export function encodeDetails(fields: Fields): string {
  deflater ??= new RawDeflater({ level: 9, dictionary: DETAILS_DICTIONARY });
  return DEFLATED_DETAILS_PREFIX + deflater.view(Buffer.from(JSON.stringify(fields), 'utf8')).toString('base64');
}

/** The spec as it is stored: kept fields as fields, the rest as spec.details (when it fits). */
export function packReportSpec(spec: RestoreReportSpec): StoredReportSpec {
  const [kept, rest] = split(spec as unknown as Fields, (key) => KEPT_FIELDS.has(key));
  if (isObject(rest.testRef) && typeof rest.testRef.name === 'string') {
    const { name, ...testRef } = rest.testRef;
    kept[TEST_NAME_FIELD] = name;
    if (Object.keys(testRef).length > 0) rest.testRef = testRef;
    else delete rest.testRef;
  }
  if (isObject(rest.rto) && typeof rest.rto.measured === 'string') {
    const { measured, ...rto } = rest.rto;
    kept[RTO_MEASURED_FIELD] = measured;
    rest.rto = rto;
  }
  if (isObject(rest.backup) && typeof rest.backup.name === 'string') {
    const { name, ...backup } = rest.backup;
    kept[BACKUP_NAME_FIELD] = name;
    rest.backup = backup;
  }
  const details = encodeDetails(rest);
  if (details.length > MAX_DETAILS_LENGTH) return spec;
  return { ...kept, details } as StoredReportSpec;
}

/** The report's spec with spec.details expanded back into fields (protocol/stored-report/). */
export function expandReportSpec(spec: StoredReportSpec): RestoreReportSpec {
  return expandStoredSpec(spec, inflateFast) as RestoreReportSpec;
}

/** The report with its spec packed for storage. */
export function packReport(report: RestoreReport): StoredRestoreReport {
  return { ...report, spec: packReportSpec(report.spec) };
}

/** The report with its spec expanded (see expandReportSpec); the same object when nothing to do. */
export function expandReport(report: StoredRestoreReport | RestoreReport): RestoreReport {
  const spec = report.spec as StoredReportSpec | undefined;
  if (typeof spec?.details !== 'string') return report as RestoreReport;
  return { ...report, spec: expandReportSpec(spec) } as RestoreReport;
}
