// Tamper evidence for RestoreReports: every report is signed, and hash-chained to the previous
// report of the same RestoreTest, so an edited, deleted or reordered report is detectable offline.
//
// WHAT IS SIGNED (scheme "rehearsal.dev/evidence/v1"; change it and you must version it):
//
//   content  C = RFC 8785 (JCS) canonical JSON of
//                { "metadata": { "name": <metadata.name>, "namespace": <metadata.namespace | null> },
//                  "owner":    { "name": <RestoreTest name>, "uid": <RestoreTest uid> } | null,
//                  "spec":     <spec without spec.evidence>,
//                  "sequence": <spec.evidence.sequence>   (only when the report has one) }
//              where owner is the report's ownerReference of kind RestoreTest (the controller one
//              if several); a report without one (written since issue 17: the server, not the
//              garbage collector, removes a deleted test's reports) takes it from spec.testRef
//              (name, uid) when testRef.uid is set — the same values the ownerReference held, so
//              either form binds the report to the test's uid, and removing an old report's
//              ownerReference does not change its digest. Otherwise null. sequence numbers a test's reports 1, 2, 3, ...; the RestoreTest's
//              status.evidenceAnchor keeps the newest (sequence, digest), so deleting the newest
//              reports — which leaves an intact, shorter chain — is detectable too. Reports signed
//              before sequences existed have none, and their C is unchanged: they still verify.
//   previous P = spec.evidence.previousDigest of this report (the digest of the previous report of
//              the same RestoreTest), or "" for the first report of a chain.
//   digest   D = "sha256:" + lowercase hex SHA-256 over the UTF-8 bytes of C followed directly by P.
//              The chain link is inside the hashed material: changing previousDigest changes D.
//   signature S = base64 Ed25519 signature over the UTF-8 bytes of the string D.
//   keyId      = first 16 hex of SHA-256 over the signer's public key (SPKI DER).
//
// NOT covered, on purpose:
//   - metadata.creationTimestamp, uid, resourceVersion, generation, managedFields: the API server
//     sets them when the report is created, after it has been signed. The run's own times
//     (scheduledAt, startedAt, completedAt, RTO phases) are in spec and are covered.
//   - labels and annotations: selectors and bookkeeping that tools may legitimately change; every
//     fact they repeat (test, run id, source namespaces) is also in spec.
//   - spec.evidence itself (it holds the result of signing).
// Storage: since issue 17 the writer stores most spec fields, spec.evidence included, as one
// string, spec.details (report-codec/report-encoding.ts). "spec" and "spec.evidence" above are always
// those of the expanded spec (details decoded back into fields), so the digest of a report does
// not depend on how it is stored, reports stored before that verify unchanged, and editing
// spec.details changes the digest (or the evidence block) like editing any field.
// JSON values that are `undefined` are absent, exactly as after a JSON round trip through the
// API server, so a report read back from the cluster verifies like the object that was signed.

import { createHash, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { expandReport, expandReportSpec } from '../report-codec/report-encoding.js';
import type { EvidenceAnchor, RestoreReport, RestoreReportSpec } from '../domain/resources/resources.js';
import type { EvidenceSigner } from './signing-key.js';
import { tailAgainstAnchor } from './evidence-anchor.js';
import { short } from '../../protocol/evidence/digest-text.js';

export type ReportEvidence = NonNullable<RestoreReportSpec['evidence']>;

export interface EvidenceContent {
  metadata: { name: string; namespace: string | null };
  owner: { name: string; uid: string } | null;
  spec: Omit<RestoreReportSpec, 'evidence'>;
  sequence?: number;
}

/** RFC 8785 canonical JSON; throws on values JSON cannot carry (NaN, Infinity, lone surrogates). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON representation');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The RestoreTest a report's chain belongs to (see "owner" in the header comment): its
 * ownerReference (reports written before issue 17's fourth cut), else spec.testRef of the
 * expanded spec when it carries a uid.
 */
export function evidenceOwner(
  metadata: Pick<RestoreReport['metadata'], 'ownerReferences'>,
  testRef: Partial<RestoreReportSpec['testRef']> | undefined,
): { name: string; uid: string } | null {
  const owners = (metadata.ownerReferences ?? []).filter((o) => o.kind === 'RestoreTest');
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  if (owner) return { name: owner.name, uid: owner.uid };
  return testRef?.name && testRef.uid ? { name: testRef.name, uid: testRef.uid } : null;
}

/** The part of a report the digest covers (see the header comment). */
export function evidenceContent(
  report: RestoreReport,
  sequence?: number,
): EvidenceContent {
  // The report's own sequence by default (inside spec.details when read as stored).
  const { evidence, ...spec } = expandReportSpec(report.spec);
  sequence ??= evidence?.sequence;
  return {
    metadata: { name: report.metadata.name, namespace: report.metadata.namespace ?? null },
    owner: evidenceOwner(report.metadata, spec.testRef),
    spec,
    ...(sequence !== undefined ? { sequence } : {}),
  };
}

/** D = "sha256:" + hex(SHA-256(C ‖ P)); the sequence defaults to the report's own. */
export function computeEvidenceDigest(
  report: RestoreReport,
  previousDigest: string | undefined,
  sequence?: number,
): string {
  return `sha256:${sha256Hex(canonicalJson(evidenceContent(report, sequence)) + (previousDigest ?? ''))}`;
}

/**
 * Signs a report that is about to be created. `previousDigest` is spec.evidence.digest of the
 * previous report of the same RestoreTest (undefined for its first report); `sequence` its place
 * in the chain (undefined only for the old, unsequenced scheme). Returns the evidence block for
 * spec.evidence; any spec.evidence already present is ignored.
 */
export function signEvidence(
  report: RestoreReport,
  previousDigest: string | undefined,
  signer: EvidenceSigner,
  sequence?: number,
): ReportEvidence {
  const digest = computeEvidenceDigest(report, previousDigest, sequence);
  const evidence: ReportEvidence = {
    ...(sequence !== undefined ? { sequence } : {}),
    digest,
    signature: signer.sign(digest),
    keyId: signer.keyId,
    algorithm: 'Ed25519',
    canonicalization: 'RFC8785',
  };
  if (previousDigest !== undefined) evidence.previousDigest = previousDigest;
  return evidence;
}

/** The report with its evidence block filled in (a copy; the input is not changed). */
export function withEvidence(
  report: RestoreReport,
  previousDigest: string | undefined,
  signer: EvidenceSigner,
  sequence?: number,
): RestoreReport {
  return {
    ...report,
    spec: { ...report.spec, evidence: signEvidence(report, previousDigest, signer, sequence) },
  };
}

/** Verifies an Ed25519 signature (base64) over a UTF-8 message. Never throws. */
export function verifySignature(message: string, signatureBase64: string, publicKey: KeyObject): boolean {
  try {
    const signature = Buffer.from(signatureBase64, 'base64');
    if (signature.length !== 64 || signature.toString('base64') !== signatureBase64) return false;
    return verify(null, Buffer.from(message, 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}

export interface ReportVerification {
  name: string;
  ok: boolean;
  problems: string[];
}

export interface ChainVerification {
  /** True when every report verifies and the links are intact. */
  ok: boolean;
  reports: ReportVerification[];
  /** Every problem, each prefixed with the name of the report concerned ("<name>: ..."). */
  problems: string[];
  /** Link problems only (deleted, reordered, forked, duplicate), prefixed the same way. */
  chainProblems: string[];
  /** Facts that are not problems, e.g. the chain starting after pruned reports. */
  notes: string[];
}

/**
 * The problems of one signed report on its own (no chain links): scheme, digest (was the content
 * edited?), key known, signature valid. [] = it verifies. A report without evidence is the
 * caller's case (verifyReportChain reports it as "not signed").
 */
export function reportEvidenceProblems(
  report: RestoreReport,
  publicKeys: ReadonlyMap<string, KeyObject>,
): string[] {
  report = expandReport(report);
  const evidence = report.spec.evidence;
  if (!evidence) return ['no evidence block: the report is not signed'];
  const problems: string[] = [];
  if (evidence.algorithm !== 'Ed25519' || evidence.canonicalization !== 'RFC8785') {
    problems.push(
      `unsupported evidence scheme (algorithm ${evidence.algorithm}, canonicalization ${evidence.canonicalization})`,
    );
  }
  let computed: string | undefined;
  try {
    computed = computeEvidenceDigest(report, evidence.previousDigest);
  } catch (error) {
    problems.push(`content cannot be canonicalized: ${(error as Error).message}`);
  }
  if (computed !== undefined && computed !== evidence.digest) {
    problems.push(
      `digest mismatch: the report was changed after signing (stored ${short(evidence.digest)}, recomputed ${short(computed)})`,
    );
  }
  const key = publicKeys.get(evidence.keyId);
  if (!key) {
    problems.push(
      `signed with unknown key ${evidence.keyId} (trusted: ${[...publicKeys.keys()].join(', ') || 'none'})`,
    );
  } else if (!verifySignature(evidence.digest, evidence.signature, key)) {
    problems.push(
      `signature does not verify with key ${evidence.keyId}: wrong key or altered evidence block`,
    );
  }
  return problems;
}

export interface ChainVerifyOptions {
  /**
   * Replaces the per-report checks (reportEvidenceProblems) for reports that carry evidence, e.g.
   * with a memoized version: the chain logic stays the same.
   */
  reportProblems?: (report: RestoreReport) => string[];
  /** The test's status.evidenceAnchor: the newest report there should be (absent: unknown). */
  anchor?: EvidenceAnchor;
}

/**
 * The order verifyReportChain expects: oldest run first (spec.startedAt, then spec.runId, then
 * name). A chain is per RestoreTest: pass the reports of one test.
 */
export function orderReportsForChain(reports: readonly RestoreReport[]): RestoreReport[] {
  return [...reports].sort(compareForChain);
}

/** What orderReportsForChain sorts by, of one report. */
export interface ChainPosition {
  spec: { startedAt: string; runId: string };
  metadata: { name: string };
}

/** orderReportsForChain's order: negative when `a` comes first. */
export function compareForChain(a: ChainPosition, b: ChainPosition): number {
  return (
    a.spec.startedAt.localeCompare(b.spec.startedAt) ||
    a.spec.runId.localeCompare(b.spec.runId) ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/**
 * Verifies the reports of one RestoreTest, oldest first, against the trusted public keys
 * (keyId → key, see publicKeyRing). Per report: evidence present, digest recomputes (else the
 * content was edited), key known and signature valid. Across reports: each report's previousDigest
 * is the digest of the report listed just before it. When it is not, the problem names the report
 * and says whether its predecessor is missing (deleted) or elsewhere in the list (reordered).
 *
 * The first report may point to a digest that is not in the list: that is what pruning by
 * historyLimit leaves behind, so it is a note, not a problem. Deleting the oldest reports is
 * therefore indistinguishable from pruning; deleting any other report is detected.
 */
export function verifyReportChain(
  stored: readonly RestoreReport[],
  publicKeys: ReadonlyMap<string, KeyObject>,
  options: ChainVerifyOptions = {},
): ChainVerification {
  const reports = stored.map(expandReport);
  const results: ReportVerification[] = reports.map((r) => ({
    name: r.metadata.name,
    ok: true,
    problems: [],
  }));
  const problems: string[] = [];
  const chainProblems: string[] = [];
  const notes: string[] = [];
  const problem = (index: number, text: string, chain = false): void => {
    const result = results[index]!;
    result.ok = false;
    result.problems.push(text);
    problems.push(`${result.name}: ${text}`);
    if (chain) chainProblems.push(`${result.name}: ${text}`);
  };

  // Which list positions carry each stored digest (for naming predecessors).
  const positionOfDigest = new Map<string, number[]>();
  reports.forEach((r, i) => {
    const d = r.spec.evidence?.digest;
    if (d) positionOfDigest.set(d, [...(positionOfDigest.get(d) ?? []), i]);
  });
  const claimedBy = new Map<string, string[]>();

  const ownProblems =
    options.reportProblems ?? ((report: RestoreReport) => reportEvidenceProblems(report, publicKeys));
  reports.forEach((report, i) => {
    const evidence = report.spec.evidence;
    if (!evidence) {
      problem(i, 'no evidence block: the report is not signed', true);
      return;
    }
    for (const text of ownProblems(report)) problem(i, text);
    if ((positionOfDigest.get(evidence.digest)?.length ?? 0) > 1) {
      problem(i, `digest ${short(evidence.digest)} appears on more than one report (duplicate)`, true);
    }

    // Link to the predecessor.
    const prev = evidence.previousDigest;
    if (prev !== undefined) claimedBy.set(prev, [...(claimedBy.get(prev) ?? []), report.metadata.name]);
    if (i === 0) {
      if (prev !== undefined && !positionOfDigest.has(prev)) {
        notes.push(
          `${report.metadata.name} links to ${short(prev)}, which is not in the set: the chain starts after older reports that were pruned (historyLimit) or not supplied`,
        );
      } else if (prev !== undefined) {
        const at = positionOfDigest.get(prev)![0]!;
        problem(
          i,
          `out of order: its predecessor ${reports[at]!.metadata.name} is listed after it (reordered)`,
          true,
        );
      }
      return;
    }
    const before = reports[i - 1]!;
    const expected = before.spec.evidence?.digest;
    if (prev === expected) return;
    if (prev === undefined) {
      problem(
        i,
        `chain broken: it has no previousDigest (starts a new chain) but follows ${before.metadata.name}`,
        true,
      );
      return;
    }
    const at = positionOfDigest.get(prev)?.[0];
    if (at === undefined) {
      problem(
        i,
        `missing predecessor: it links to ${short(prev)}, which no report in the set has; a report between ${before.metadata.name} and ${report.metadata.name} was deleted`,
        true,
      );
    } else if (at > i) {
      problem(
        i,
        `out of order: its predecessor ${reports[at]!.metadata.name} is listed after it (reordered)`,
        true,
      );
    } else {
      problem(
        i,
        `out of order: it links to ${reports[at]!.metadata.name} but is listed after ${before.metadata.name} (reordered)`,
        true,
      );
    }
  });

  for (const [digest, names] of claimedBy) {
    if (names.length > 1) {
      const text = `fork: ${names.join(' and ')} both link to ${short(digest)}`;
      problems.push(text);
      chainProblems.push(text);
    }
  }
  if (options.anchor) {
    const tail = tailAgainstAnchor(reports, options.anchor);
    problems.push(...tail.problems);
    chainProblems.push(...tail.problems);
    notes.push(...tail.notes);
  }
  return {
    ok: results.every((r) => r.ok) && problems.length === 0,
    reports: results,
    problems,
    chainProblems,
    notes,
  };
}
