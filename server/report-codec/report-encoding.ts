// How a RestoreReport is stored in etcd (issue 17, footprint). The apiserver keeps every stored
// custom resource in its watch cache as a tree of Go maps: each object (map) costs ~340 bytes,
// each field ~50 plus its string, whatever its JSON length. So only what kubectl and the CRD need
// stay fields — the printer columns and selectable fields (the test's name as the top-level string
// test, result, score, the measured RTO as the top-level string rtoMeasured, completedAt) and what
// the CRD's CEL rules check (startedAt, completedAt, score, result, resultCap, failure) — and every
// other field of the spec (runId too: it is in the report's name), the evidence block included, is
// stored as one string, spec.details, deflated against
// a preset dictionary (report-dictionary.ts) and base64-encoded: "z1:<base64>". bench:footprint
// measured it (test/bench/README.md "Footprint").
//
// The report the engine, the API, the PDFs and the verifiers work with is the expanded one:
// `expandReportSpec(packReportSpec(spec))` equals `spec`, and the evidence digest is computed over
// the expanded spec (server/evidence/evidence.ts), so the stored form changes no signature. Every
// form ever stored is read back:
//   - expanded (before issue 17): no spec.details;
//   - JSON details (first issue-17 form): details is the JSON object of the other fields, the
//     evidence block and the whole testRef are fields;
//   - "z1:" details with testRef.name and rto.measured as nested fields (second issue-17 form);
//   - "z1:" details with the measured RTO as spec.rtoMeasured (one map less per report);
//   - "z1:" details with testRef.name as the top-level string spec.test and runId inside details
//     (this form: no testRef map, one field less per report).
import { RawDeflater, RawInflater } from './raw-zlib.js';
import { DETAILS_DICTIONARY_Z1 } from '../../protocol/stored-report/details-dictionary.js';
import type { RestoreReport, RestoreReportSpec } from '../domain/resources/resources.js';

/** Spec fields stored as fields; every other top-level field goes into spec.details. */
const KEPT_FIELDS: ReadonlySet<string> = new Set(['startedAt', 'completedAt', 'score', 'result', 'resultCap', 'failure']);
/**
 * The Test printer column and selectable field: spec.testRef.name stored as the top-level string
 * spec.test, so the stored spec has no testRef map (fifth cut). testRef's namespace and uid go into
 * details. Forms before kept testRef.name as a nested field (and the second one rto.measured too);
 * still read: a field inside an object wins over details there (expandReportSpec).
 */
export const TEST_NAME_FIELD = 'test';
/**
 * The RTO printer column's field: spec.rto.measured stored as the top-level string
 * spec.rtoMeasured, so the stored spec has no `rto` map (each map costs the apiserver ~340 bytes
 * per report). The rest of rto goes into details.
 */
export const RTO_MEASURED_FIELD = 'rtoMeasured';
/** maxLength of spec.details in the CRD. A larger report (never seen: reports are a few KB) is stored expanded. */
export const MAX_DETAILS_LENGTH = 49_152;
/** Prefix of the deflated form of spec.details (the JSON form starts with "{"). */
export const DEFLATED_DETAILS_PREFIX = 'z1:';
/** Bound on an inflated spec.details: no stored string may expand into more (a deflate bomb). */
const MAX_INFLATED_LENGTH = 1 << 20;
const DICTIONARY = Buffer.from(DETAILS_DICTIONARY_Z1, 'utf8');
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

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

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
  deflater ??= new RawDeflater({ level: 9, dictionary: DICTIONARY });
  return DEFLATED_DETAILS_PREFIX + deflater.view(Buffer.from(JSON.stringify(fields), 'utf8')).toString('base64');
}

/** The fields in a details string (either form); {} when it is not a JSON object (tampered). */
export function decodeDetails(details: string): Fields {
  let json: string;
  try {
    json = details.startsWith(DEFLATED_DETAILS_PREFIX)
      ? (inflater ??= new RawInflater({ dictionary: DICTIONARY, maxOutputLength: MAX_INFLATED_LENGTH }))
          .view(Buffer.from(details.slice(DEFLATED_DETAILS_PREFIX.length), 'base64'))
          .toString('utf8')
      : details;
    const parsed: unknown = JSON.parse(json);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
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
  const details = encodeDetails(rest);
  if (details.length > MAX_DETAILS_LENGTH) return spec;
  return { ...kept, details } as StoredReportSpec;
}

/**
 * The report's spec with spec.details expanded back into fields. A spec without details (stored
 * before packing, or already expanded) is returned as is. Where a field is both a field and in
 * details (only a hand-made object can have that) the field wins — inside an object such as rto
 * or testRef too, spec.rtoMeasured counts as the field rto.measured and spec.test as the field
 * testRef.name — the same rule for every
 * reader (cmd/kubectl-restoretest/verify/evidence.ts), so what the server shows is what the
 * verifier checked. Details that do not decode to a JSON object add nothing: the report then lacks
 * fields its digest covers and fails verification.
 */
export function expandReportSpec(spec: StoredReportSpec): RestoreReportSpec {
  if (typeof spec.details !== 'string') return spec as RestoreReportSpec;
  const { details, [RTO_MEASURED_FIELD]: rtoMeasured, [TEST_NAME_FIELD]: test, ...kept } = spec as Fields;
  if (rtoMeasured !== undefined) kept.rto = { ...(isObject(kept.rto) ? kept.rto : {}), measured: rtoMeasured };
  if (test !== undefined) kept.testRef = { ...(isObject(kept.testRef) ? kept.testRef : {}), name: test };
  const packed = decodeDetails(details as string);
  const expanded: Fields = { ...packed, ...kept };
  for (const [key, value] of Object.entries(kept)) {
    if (isObject(value) && isObject(packed[key])) expanded[key] = { ...packed[key], ...value };
  }
  return expanded as unknown as RestoreReportSpec;
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
