// How a reader turns a RestoreReport as stored in etcd back into the report whose evidence digest
// was signed: the server's read path (report-codec/report-encoding.ts, with a faster inflater) and
// the plugin's `verify -f` (an export of `kubectl get rrep -o yaml`) both expand with this code, so
// what the server shows is what the verifier checked.
//
// Since issue 17 the server stores most spec fields, the evidence block included, as one string,
// spec.details: "z1:" + base64 of the JSON of those fields, raw-deflated against a preset
// dictionary (details-dictionary.ts). Every form ever stored is read back:
//   - expanded (before issue 17): no spec.details;
//   - JSON details (the first issue-17 form): details is the JSON object of the other fields;
//   - "z1:" details with testRef.name and rto.measured as nested fields;
//   - "z1:" details with the measured RTO as the top-level string spec.rtoMeasured;
//   - "z1:" details with testRef.name as the top-level string spec.test;
//   - the same with backup.name as the top-level string spec.backupName and the new field
//     spec.checkSummary beside it (issue 30, the newest form; checkSummary is a plain field).
// Where a field is both a field and in details (only a hand-made object can have that) the field
// wins — inside an object such as rto, testRef or backup too, spec.rtoMeasured counting as the
// field rto.measured, spec.test as testRef.name and spec.backupName as backup.name. Details that do
// not decode to a JSON object add nothing: the report then lacks fields its digest covers and fails
// verification.
import { inflateRawSync } from 'node:zlib';
import { DETAILS_DICTIONARY_Z1 } from './details-dictionary.js';

/** Prefix of the deflated form of spec.details (the JSON form starts with "{"). */
export const DEFLATED_DETAILS_PREFIX = 'z1:';
/** The Test printer column and selectable field: spec.testRef.name stored as the top-level string spec.test. */
export const TEST_NAME_FIELD = 'test';
/** The RTO printer column's field: spec.rto.measured stored as the top-level string spec.rtoMeasured. */
export const RTO_MEASURED_FIELD = 'rtoMeasured';
/** The Backup printer column's field: spec.backup.name stored as the top-level string spec.backupName (issue 30). */
export const BACKUP_NAME_FIELD = 'backupName';
/** Bound on an inflated spec.details: no stored string may expand into more (a deflate bomb). */
export const MAX_INFLATED_LENGTH = 1 << 20;
/** The "z1" dictionary as the bytes zlib takes. */
export const DETAILS_DICTIONARY = Buffer.from(DETAILS_DICTIONARY_Z1, 'utf8');

export type Fields = Record<string, unknown>;

/**
 * Inflates the raw-deflate bytes of a "z1:" details string against DETAILS_DICTIONARY, to at most
 * MAX_INFLATED_LENGTH bytes (throwing beyond). It may return a view that its next call reuses:
 * decodeDetails reads it at once.
 */
export type DetailsInflater = (deflated: Buffer) => Buffer;

/** The plain inflater: one zlib call per string (the server uses a reused zlib state instead). */
export const inflateDetails: DetailsInflater = (deflated) =>
  inflateRawSync(deflated, { dictionary: DETAILS_DICTIONARY, maxOutputLength: MAX_INFLATED_LENGTH });

export function isObject(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The fields in a details string (either form); {} when it is not a JSON object (tampered). */
export function decodeDetails(details: string, inflate: DetailsInflater = inflateDetails): Fields {
  try {
    const json = details.startsWith(DEFLATED_DETAILS_PREFIX)
      ? inflate(Buffer.from(details.slice(DEFLATED_DETAILS_PREFIX.length), 'base64')).toString('utf8')
      : details;
    const parsed: unknown = JSON.parse(json);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * A stored spec with spec.details expanded back into fields (see the header for the rules). A spec
 * without details (stored before packing, or already expanded) is returned as it is.
 */
export function expandStoredSpec<S extends object>(spec: S, inflate: DetailsInflater = inflateDetails): S {
  const stored = spec as Fields;
  if (typeof stored.details !== 'string') return spec;
  const {
    details,
    [RTO_MEASURED_FIELD]: rtoMeasured,
    [TEST_NAME_FIELD]: test,
    [BACKUP_NAME_FIELD]: backupName,
    ...kept
  } = stored;
  if (rtoMeasured !== undefined) kept.rto = { ...(isObject(kept.rto) ? kept.rto : {}), measured: rtoMeasured };
  if (test !== undefined) kept.testRef = { ...(isObject(kept.testRef) ? kept.testRef : {}), name: test };
  if (backupName !== undefined) kept.backup = { ...(isObject(kept.backup) ? kept.backup : {}), name: backupName };
  const packed = decodeDetails(details as string, inflate);
  const expanded: Fields = { ...packed, ...kept };
  for (const [key, value] of Object.entries(kept)) {
    if (isObject(value) && isObject(packed[key])) expanded[key] = { ...packed[key], ...value };
  }
  return expanded as S;
}

/** The report with its spec expanded (see expandStoredSpec); the same object when nothing to do. */
export function expandStoredReport<R extends { spec: object }>(report: R, inflate: DetailsInflater = inflateDetails): R {
  if (typeof (report.spec as Fields | undefined)?.details !== 'string') return report;
  return { ...report, spec: expandStoredSpec(report.spec, inflate) };
}
