// A self-contained verifier of signed RestoreReports (scheme rehearsal.dev/evidence/v1), written
// from the scheme documented in server/evidence/evidence.ts (cmd/ may not import server/; a unit
// test checks that both agree):
//   C = RFC 8785 JSON of { metadata: {name, namespace|null}, owner: {name, uid}|null, spec without
//       evidence, sequence (only when spec.evidence.sequence is set; older reports have none) }
//   D = "sha256:" + hex SHA-256(C ‖ previousDigest-or-"");  S = base64 Ed25519 over D;
//   keyId = first 16 hex of SHA-256 over the public key's SPKI DER.
// Across reports of one test (oldest first), each previousDigest must be the digest of the report
// before it; the first may link to a pruned report (a note, not a problem). The test's
// status.evidenceAnchor (sequence + digest of its newest report), when known, must be the newest
// report of the set: deleting the newest reports leaves a chain that links, but is too short.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import canonicalize from 'canonicalize';
import { DETAILS_DICTIONARY_Z1 } from './report-dictionary.js';

export interface Evidence {
  digest: string;
  previousDigest?: string;
  sequence?: number;
  signature: string;
  keyId: string;
  algorithm: string;
  canonicalization: string;
}

/** The parts of a RestoreReport the verifier reads. */
export interface SignedReport {
  metadata: {
    name: string;
    namespace?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
    /** Unsigned; the server marks reports it serves from its evidence archive (segment, problems). */
    annotations?: Record<string, string>;
  };
  spec: { startedAt?: string; runId?: string; evidence?: Evidence; [key: string]: unknown };
}

/** RestoreTest status.evidenceAnchor: the newest report its chain had when last recorded. */
export interface EvidenceAnchor {
  sequence: number;
  digest: string;
  report: string;
}

export interface ReportResult {
  name: string;
  ok: boolean;
  problems: string[];
}

export interface ChainResult {
  ok: boolean;
  reports: ReportResult[];
  /** Problems not tied to one report (forks). */
  problems: string[];
  notes: string[];
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON representation');
  return text;
}

/** keyId of a public key: first 16 hex of SHA-256 over its SPKI DER. */
export function keyIdOf(key: KeyObject): string {
  return sha256Hex(key.export({ type: 'spki', format: 'der' })).slice(0, 16);
}

/** Every public key in a PEM text (one or several PUBLIC KEY blocks), by key id. */
export function keysFromPem(pem: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const block of pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? []) {
    const key = createPublicKey(block);
    keys.set(keyIdOf(key), key);
  }
  return keys;
}

const DEFLATED_DETAILS_PREFIX = 'z1:';
const DICTIONARY = Buffer.from(DETAILS_DICTIONARY_Z1, 'utf8');

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The fields in spec.details: JSON, or "z1:" + base64 of that JSON deflated against the dictionary. */
function detailsFields(details: string): Record<string, unknown> {
  try {
    const json = details.startsWith(DEFLATED_DETAILS_PREFIX)
      ? inflateRawSync(Buffer.from(details.slice(DEFLATED_DETAILS_PREFIX.length), 'base64'), { dictionary: DICTIONARY, maxOutputLength: 1 << 20 }).toString('utf8')
      : details;
    const parsed: unknown = JSON.parse(json);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The spec a digest covers: a report stored packed (since issue 17: the fields not needed by
 * kubectl, the evidence block included, in one string, spec.details) expanded back into fields,
 * as the server's report-codec/report-encoding.ts does (a field outside details wins over the same one
 * inside, inside an object such as rto or testRef too; spec.rtoMeasured is the field rto.measured,
 * spec.test the field testRef.name;
 * details that do not decode to a JSON object add nothing). Reports without details are used as
 * they are.
 */
export function expandedSpec(spec: SignedReport['spec']): SignedReport['spec'] {
  if (typeof spec.details !== 'string') return spec;
  const { details, rtoMeasured, test, ...kept } = spec;
  if (rtoMeasured !== undefined) kept.rto = { ...(isObject(kept.rto) ? kept.rto : {}), measured: rtoMeasured };
  if (test !== undefined) kept.testRef = { ...(isObject(kept.testRef) ? kept.testRef : {}), name: test };
  const packed = detailsFields(details);
  const expanded: Record<string, unknown> = { ...packed, ...kept };
  for (const [key, value] of Object.entries(kept)) {
    if (isObject(value) && isObject(packed[key])) expanded[key] = { ...packed[key], ...value };
  }
  return expanded as SignedReport['spec'];
}

/** The report with its spec expanded (see expandedSpec): every check reads the expanded report. */
export function expandedReport<R extends SignedReport>(report: R): R {
  return typeof report.spec.details === 'string' ? { ...report, spec: expandedSpec(report.spec) } : report;
}

/**
 * The RestoreTest the digest binds a report to: its ownerReference (reports written before issue
 * 17's fourth cut), else spec.testRef (name, uid) when it has a uid; the server's evidenceOwner.
 */
export function ownerOf(metadata: SignedReport['metadata'], testRef: unknown): { name: string; uid: string } | null {
  const owners = (metadata.ownerReferences ?? []).filter((o) => o.kind === 'RestoreTest');
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  if (owner) return { name: owner.name, uid: owner.uid };
  if (!isObject(testRef)) return null;
  const { name, uid } = testRef;
  return typeof name === 'string' && name && typeof uid === 'string' && uid ? { name, uid } : null;
}

export function computeDigest(report: SignedReport, previousDigest: string | undefined): string {
  const { evidence, ...spec } = expandedSpec(report.spec);
  const owner = ownerOf(report.metadata, spec.testRef);
  const sequence = evidence?.sequence;
  const content = {
    metadata: { name: report.metadata.name, namespace: report.metadata.namespace ?? null },
    owner,
    spec,
    ...(sequence !== undefined ? { sequence } : {}),
  };
  return `sha256:${sha256Hex(canonicalJson(content) + (previousDigest ?? ''))}`;
}

export function signatureValid(message: string, signatureBase64: string, key: KeyObject): boolean {
  try {
    const signature = Buffer.from(signatureBase64, 'base64');
    if (signature.length !== 64 || signature.toString('base64') !== signatureBase64) return false;
    return verify(null, Buffer.from(message, 'utf8'), key, signature);
  } catch {
    return false;
  }
}

export function short(digest: string): string {
  return digest.startsWith('sha256:') ? `sha256:${digest.slice(7, 19)}` : digest.slice(0, 19);
}

function ownProblems(report: SignedReport, evidence: Evidence, keys: ReadonlyMap<string, KeyObject>): string[] {
  const problems: string[] = [];
  if (evidence.algorithm !== 'Ed25519' || evidence.canonicalization !== 'RFC8785') {
    problems.push(`unsupported evidence scheme (algorithm ${evidence.algorithm}, canonicalization ${evidence.canonicalization})`);
  }
  let computed: string | undefined;
  try {
    computed = computeDigest(report, evidence.previousDigest);
  } catch (error) {
    problems.push(`content cannot be canonicalized: ${(error as Error).message}`);
  }
  if (computed !== undefined && computed !== evidence.digest) {
    problems.push(`digest mismatch: the report was changed after signing (stored ${short(evidence.digest)}, recomputed ${short(computed)})`);
  }
  const key = keys.get(evidence.keyId);
  if (!key) problems.push(`signed with unknown key ${evidence.keyId} (trusted: ${[...keys.keys()].join(', ') || 'none'})`);
  else if (!signatureValid(evidence.digest, evidence.signature, key)) {
    problems.push(`signature does not verify with key ${evidence.keyId}: wrong key or altered evidence block`);
  }
  return problems;
}

/** Oldest run first: spec.startedAt, then spec.runId, then name. */
export function chainOrder<R extends SignedReport>(reports: readonly R[]): R[] {
  return [...reports].sort(
    (a, b) =>
      (a.spec.startedAt ?? '').localeCompare(b.spec.startedAt ?? '') ||
      (a.spec.runId ?? '').localeCompare(b.spec.runId ?? '') ||
      a.metadata.name.localeCompare(b.metadata.name),
  );
}

/** Problems and notes from comparing the newest report (last of an oldest-first list) with the anchor. */
export function checkTail(reports: readonly SignedReport[], anchor: EvidenceAnchor): { problems: string[]; notes: string[] } {
  const anchored = `${anchor.report} (sequence ${anchor.sequence}, ${short(anchor.digest)})`;
  const newest = reports.at(-1);
  if (!newest) return { problems: [`missing tail: no reports, but the test's evidence anchor names ${anchored}: the reports were deleted`], notes: [] };
  const position = reports.findIndex((report) => report.spec.evidence?.digest === anchor.digest);
  if (position === reports.length - 1) return { problems: [], notes: [] };
  if (position >= 0) {
    return { problems: [], notes: [`the evidence anchor names ${anchored}; ${reports.length - 1 - position} newer report(s) were written after it was recorded`] };
  }
  const sequence = newest.spec.evidence?.sequence;
  const present = `${newest.metadata.name}${sequence === undefined ? '' : ` (sequence ${sequence})`}`;
  if (sequence !== undefined && sequence > anchor.sequence) {
    return { problems: [], notes: [`the evidence anchor (${anchored}) is older than the newest report ${present}`] };
  }
  if (sequence === anchor.sequence) {
    return { problems: [`replaced: the newest report ${present} has the anchor's sequence but not its digest; the test's evidence anchor names ${anchored}`], notes: [] };
  }
  const deleted = sequence === undefined ? 'the newest report(s)' : `${anchor.sequence - sequence} newest report(s)`;
  return { problems: [`missing tail: the test's evidence anchor names ${anchored}, which is not in the set; the newest report present is ${present}: ${deleted} were deleted`], notes: [] };
}

/** Verifies the reports of one RestoreTest in the order given (oldest first), and its anchor if known. */
export function verifyChain(
  stored: readonly SignedReport[],
  keys: ReadonlyMap<string, KeyObject>,
  anchor?: EvidenceAnchor,
): ChainResult {
  const reports = stored.map(expandedReport);
  const results: ReportResult[] = reports.map((r) => ({ name: r.metadata.name, ok: true, problems: [] }));
  const problems: string[] = [];
  const notes: string[] = [];
  const problem = (i: number, text: string): void => {
    results[i]!.ok = false;
    results[i]!.problems.push(text);
  };
  const positions = new Map<string, number[]>();
  reports.forEach((r, i) => {
    const d = r.spec.evidence?.digest;
    if (d) positions.set(d, [...(positions.get(d) ?? []), i]);
  });
  const claimedBy = new Map<string, string[]>();
  reports.forEach((report, i) => {
    const evidence = report.spec.evidence;
    if (!evidence) {
      problem(i, 'no evidence block: the report is not signed');
      return;
    }
    for (const text of ownProblems(report, evidence, keys)) problem(i, text);
    if ((positions.get(evidence.digest)?.length ?? 0) > 1) {
      problem(i, `digest ${short(evidence.digest)} appears on more than one report (duplicate)`);
    }
    const prev = evidence.previousDigest;
    if (prev !== undefined) claimedBy.set(prev, [...(claimedBy.get(prev) ?? []), report.metadata.name]);
    if (i === 0) {
      if (prev !== undefined && !positions.has(prev)) {
        notes.push(`${report.metadata.name} links to ${short(prev)}, which is not in the set: the chain starts after older reports that were pruned (historyLimit) or not supplied`);
      } else if (prev !== undefined) {
        problem(i, `out of order: its predecessor ${reports[positions.get(prev)![0]!]!.metadata.name} is listed after it (reordered)`);
      }
      return;
    }
    const before = reports[i - 1]!;
    if (prev === before.spec.evidence?.digest) return;
    if (prev === undefined) {
      problem(i, `chain broken: it has no previousDigest (starts a new chain) but follows ${before.metadata.name}`);
      return;
    }
    const at = positions.get(prev)?.[0];
    if (at === undefined) {
      problem(i, `missing predecessor: it links to ${short(prev)}, which no report in the set has; a report between ${before.metadata.name} and ${report.metadata.name} was deleted`);
    } else if (at > i) {
      problem(i, `out of order: its predecessor ${reports[at]!.metadata.name} is listed after it (reordered)`);
    } else {
      problem(i, `out of order: it links to ${reports[at]!.metadata.name} but is listed after ${before.metadata.name} (reordered)`);
    }
  });
  for (const [digest, names] of claimedBy) {
    if (names.length > 1) problems.push(`fork: ${names.join(' and ')} both link to ${short(digest)}`);
  }
  if (anchor) {
    const tail = checkTail(reports, anchor);
    problems.push(...tail.problems);
    notes.push(...tail.notes);
  }
  return { ok: results.every((r) => r.ok) && problems.length === 0, reports: results, problems, notes };
}
