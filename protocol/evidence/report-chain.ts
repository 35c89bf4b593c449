// Verifying signed RestoreReports (scheme report-digest.ts): each report on its own (digest,
// key, signature) and the links between the reports of one RestoreTest, oldest first. One
// implementation for the server (compliance, PDFs, the API) and the plugin's `verify`, so both
// name the same problems in the same words.
import type { KeyObject } from 'node:crypto';
import { expandStoredReport } from '../stored-report/stored-report.js';
import { short } from './digest-text.js';
import { tailAgainstAnchor, type EvidenceAnchor } from './evidence-anchor.js';
import { computeEvidenceDigest, type SignedReport } from './report-digest.js';
import { verifySignature } from './signature.js';

export interface ReportVerification {
  name: string;
  ok: boolean;
  problems: string[];
}

export interface ChainVerification {
  /** True when every report verifies and the links are intact. */
  ok: boolean;
  /** One per report, in the order given. */
  reports: ReportVerification[];
  /** Every problem, those of one report prefixed with its name ("<name>: ..."). */
  problems: string[];
  /** Link problems only (deleted, reordered, forked, duplicate, missing tail), prefixed the same way. */
  chainProblems: string[];
  /** Problems of the chain as a whole, not of one report (forks, a missing tail). */
  wholeChainProblems: string[];
  /** Facts that are not problems, e.g. the chain starting after pruned reports. */
  notes: string[];
}

/**
 * The problems of one signed report on its own (no chain links): scheme, digest (was the content
 * edited?), key known, signature valid. [] = it verifies.
 */
export function reportEvidenceProblems(stored: SignedReport, publicKeys: ReadonlyMap<string, KeyObject>): string[] {
  const report = expandStoredReport(stored);
  const evidence = report.spec.evidence;
  if (!evidence) return ['no evidence block: the report is not signed'];
  const problems: string[] = [];
  if (evidence.algorithm !== 'Ed25519' || evidence.canonicalization !== 'RFC8785') {
    problems.push(`unsupported evidence scheme (algorithm ${evidence.algorithm}, canonicalization ${evidence.canonicalization})`);
  }
  let computed: string | undefined;
  try {
    computed = computeEvidenceDigest(report, evidence.previousDigest);
  } catch (error) {
    problems.push(`content cannot be canonicalized: ${(error as Error).message}`);
  }
  if (computed !== undefined && computed !== evidence.digest) {
    problems.push(`digest mismatch: the report was changed after signing (stored ${short(evidence.digest)}, recomputed ${short(computed)})`);
  }
  const key = publicKeys.get(evidence.keyId);
  if (!key) {
    problems.push(`signed with unknown key ${evidence.keyId} (trusted: ${[...publicKeys.keys()].join(', ') || 'none'})`);
  } else if (!verifySignature(evidence.digest, evidence.signature, key)) {
    problems.push(`signature does not verify with key ${evidence.keyId}: wrong key or altered evidence block`);
  }
  return problems;
}

/** What the chain order sorts by, of one report. */
export interface ChainPosition {
  spec: { startedAt?: string; runId?: string };
  metadata: { name: string };
}

/** The chain order (oldest run first: spec.startedAt, then spec.runId, then name): negative when `a` comes first. */
export function compareForChain(a: ChainPosition, b: ChainPosition): number {
  return (
    (a.spec.startedAt ?? '').localeCompare(b.spec.startedAt ?? '') ||
    (a.spec.runId ?? '').localeCompare(b.spec.runId ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/** The order verifyReportChain expects. A chain is per RestoreTest: pass the reports of one test. */
export function orderReportsForChain<R extends ChainPosition>(reports: readonly R[]): R[] {
  return [...reports].sort(compareForChain);
}

export interface ChainVerifyOptions<R extends SignedReport> {
  /**
   * Replaces the per-report checks (reportEvidenceProblems) for reports that carry evidence, e.g.
   * with a memoized version: the chain logic stays the same.
   */
  reportProblems?: (report: R) => string[];
  /** The test's status.evidenceAnchor: the newest report there should be (absent: unknown). */
  anchor?: EvidenceAnchor;
}

/**
 * Verifies the reports of one RestoreTest, oldest first (orderReportsForChain), against the
 * trusted public keys (keyId → key). Per report: evidence present, digest recomputes (else the
 * content was edited), key known and signature valid. Across reports: each report's
 * previousDigest is the digest of the report listed just before it. When it is not, the problem
 * names the report and says whether its predecessor is missing (deleted) or elsewhere in the list
 * (reordered).
 *
 * The first report may point to a digest that is not in the list: that is what pruning by
 * historyLimit leaves behind, so it is a note, not a problem. Deleting the oldest reports is
 * therefore indistinguishable from pruning; deleting any other report is detected, and deleting
 * the newest ones when the test's anchor is given.
 */
export function verifyReportChain<R extends SignedReport>(
  stored: readonly R[],
  publicKeys: ReadonlyMap<string, KeyObject>,
  options: ChainVerifyOptions<R> = {},
): ChainVerification {
  const reports = stored.map((report) => expandStoredReport(report));
  const results: ReportVerification[] = reports.map((r) => ({ name: r.metadata.name, ok: true, problems: [] }));
  const problems: string[] = [];
  const chainProblems: string[] = [];
  const wholeChainProblems: string[] = [];
  const notes: string[] = [];
  const problem = (index: number, text: string, chain = false): void => {
    const result = results[index]!;
    result.ok = false;
    result.problems.push(text);
    problems.push(`${result.name}: ${text}`);
    if (chain) chainProblems.push(`${result.name}: ${text}`);
  };
  const chainWide = (text: string): void => {
    problems.push(text);
    chainProblems.push(text);
    wholeChainProblems.push(text);
  };

  // Which list positions carry each stored digest (for naming predecessors).
  const positionOfDigest = new Map<string, number[]>();
  reports.forEach((r, i) => {
    const d = r.spec.evidence?.digest;
    if (d) positionOfDigest.set(d, [...(positionOfDigest.get(d) ?? []), i]);
  });
  const claimedBy = new Map<string, string[]>();

  const ownProblems = options.reportProblems ?? ((report: R) => reportEvidenceProblems(report, publicKeys));
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
        problem(i, `out of order: its predecessor ${reports[at]!.metadata.name} is listed after it (reordered)`, true);
      }
      return;
    }
    const before = reports[i - 1]!;
    if (prev === before.spec.evidence?.digest) return;
    if (prev === undefined) {
      problem(i, `chain broken: it has no previousDigest (starts a new chain) but follows ${before.metadata.name}`, true);
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
      problem(i, `out of order: its predecessor ${reports[at]!.metadata.name} is listed after it (reordered)`, true);
    } else {
      problem(i, `out of order: it links to ${reports[at]!.metadata.name} but is listed after ${before.metadata.name} (reordered)`, true);
    }
  });

  for (const [digest, names] of claimedBy) {
    if (names.length > 1) chainWide(`fork: ${names.join(' and ')} both link to ${short(digest)}`);
  }
  if (options.anchor) {
    const tail = tailAgainstAnchor(reports, options.anchor);
    for (const text of tail.problems) chainWide(text);
    notes.push(...tail.notes);
  }
  return {
    ok: results.every((r) => r.ok) && problems.length === 0,
    reports: results,
    problems,
    chainProblems,
    wholeChainProblems,
    notes,
  };
}
