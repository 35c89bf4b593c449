// How a RestoreReport is stored in etcd (issue 17, footprint). The apiserver keeps every stored
// custom resource in its watch cache as a tree of Go maps: each field costs ~100 bytes and each
// object ~300, whatever its JSON length, so a report's ~150 fields cost ~20 KB there per
// apiserver. A string costs its length. So only what kubectl and the CRD need stay fields (the
// printer columns and selectable fields, the identity of the run, the CEL-validated result, the
// evidence block); every other field of the spec is stored as one compact JSON string,
// spec.details. The report the engine, the API, the PDFs and the verifiers work with is the
// expanded one: `expandReportSpec(packReportSpec(spec))` equals `spec`, and the evidence digest is
// computed over the expanded spec (server/evidence/evidence.ts), so packing changes no signature
// and reports stored before it (no spec.details) are read and verified unchanged.
import type { RestoreReport, RestoreReportSpec } from './resources.js';

/** Spec fields stored as fields; every other top-level field goes into spec.details. */
const KEPT_FIELDS: ReadonlySet<string> = new Set([
  'testRef',
  'runId',
  'startedAt',
  'completedAt',
  'score',
  'result',
  'resultCap',
  'failure',
  'evidence',
]);
/** maxLength of spec.details in the CRD. A larger report (never seen: reports are a few KB) is stored expanded. */
export const MAX_DETAILS_LENGTH = 49_152;
/** Kept from inside `rto`: the RTO printer column (.spec.rto.measured). */
const KEPT_RTO_FIELDS: ReadonlySet<string> = new Set(['measured']);

/** A spec as stored: the kept fields, and the others as JSON in `details` (absent: stored expanded). */
export type StoredReportSpec = Partial<RestoreReportSpec> & { details?: string };

/** A report as read from the apiserver: stored packed (with spec.details) or expanded. */
export type StoredRestoreReport = Omit<RestoreReport, 'spec'> & { spec: StoredReportSpec };

/** The spec as it is stored: kept fields as fields, the rest as one JSON string (when it fits). */
export function packReportSpec(spec: RestoreReportSpec): StoredReportSpec {
  const kept: Record<string, unknown> = {};
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (value === undefined) continue;
    if (key === 'rto') {
      const rto = value as Record<string, unknown>;
      const keptRto = Object.fromEntries(Object.entries(rto).filter(([k, v]) => KEPT_RTO_FIELDS.has(k) && v !== undefined));
      const restRto = Object.fromEntries(Object.entries(rto).filter(([k, v]) => !KEPT_RTO_FIELDS.has(k) && v !== undefined));
      if (Object.keys(keptRto).length > 0) kept.rto = keptRto;
      details.rto = restRto;
    } else if (KEPT_FIELDS.has(key)) {
      kept[key] = value;
    } else {
      details[key] = value;
    }
  }
  const json = JSON.stringify(details);
  if (json.length > MAX_DETAILS_LENGTH) return spec;
  return { ...kept, details: json } as StoredReportSpec;
}

/**
 * The report's spec with spec.details expanded back into fields. A spec without details (stored
 * before packing, or already expanded) is returned as is. Where a field is both a field and in
 * details (only a hand-made object can have that) the field wins, the same rule for every reader,
 * so what the server shows is what the verifier checked. Details that are not a JSON object are
 * left out: the report then lacks fields its digest covers and fails verification.
 */
export function expandReportSpec(spec: StoredReportSpec): RestoreReportSpec {
  if (typeof spec.details !== 'string') return spec as RestoreReportSpec;
  const { details, ...kept } = spec;
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    parsed = undefined;
  }
  const packed = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const expanded: Record<string, unknown> = { ...packed, ...kept };
  const packedRto = packed.rto;
  if (packedRto !== null && typeof packedRto === 'object' && !Array.isArray(packedRto)) {
    expanded.rto = { ...packedRto, ...(kept.rto ?? {}) };
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
