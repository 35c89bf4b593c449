// Checks stored anchors (checkpoint.ts) and compares one test's chain with every anchor that
// recorded it: the check that names a history rewritten after it was anchored, with the anchor's
// time. Run by `kubectl restoretest verify --anchors` and by the server's anchor writer before it
// writes the next anchor; both print the same texts.
//
// The time of an anchor is its authority's genTime when its RFC 3161 token verifies against the
// trusted authority certificates; otherwise the server's own claim (writtenAt), said as such. An
// anchor that is itself broken (edited, unknown key, bad token) is not used, and is named.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { short } from '../digest-text.js';
import { verifyTimestampToken } from '../timestamp/timestamp-token.js';
import { anchorDocumentProblems, checkpointBytes, type AnchorDocument, type ChainHead } from './checkpoint.js';

export interface CheckedAnchor {
  /** Where it was read from (object key and version, or a file). */
  source: string;
  document: AnchorDocument;
  /** Why it cannot be used; [] when it can. */
  problems: string[];
  /** The authority's time when the token verified. */
  timestampedAt?: Date;
  /** The authority that signed the token (subject of its certificate). */
  authority?: string;
  /** Why the token was not checked or did not verify, when it was not used. */
  timestampNote?: string;
}

/** Checks an anchor's own integrity and its token (when authority certificates are given). */
export function checkAnchor(
  source: string,
  document: AnchorDocument,
  publicKeys: ReadonlyMap<string, KeyObject>,
  authorities: readonly X509Certificate[],
): CheckedAnchor {
  const problems = anchorDocumentProblems(document, publicKeys);
  const checked: CheckedAnchor = { source, document, problems };
  if (!document.timestamp) {
    checked.timestampNote = 'not time-stamped (no authority was configured when it was written)';
  } else if (authorities.length === 0) {
    checked.timestampNote = 'time-stamp not checked: no authority certificate given';
  } else {
    try {
      const verified = verifyTimestampToken(document.timestamp.token, checkpointBytes(document.checkpoint), authorities);
      checked.timestampedAt = verified.genTime;
      checked.authority = verified.signer;
    } catch (error) {
      problems.push(`its time-stamp does not verify: ${(error as Error).message}`);
    }
  }
  return checked;
}

/** "2026-12-07T10:00:00.000Z (time-stamped by CN=…)" or "… (the server's claim, not time-stamped)". */
export function anchorTime(anchor: CheckedAnchor): string {
  if (anchor.timestampedAt) return `${anchor.timestampedAt.toISOString()} (time-stamped by ${anchor.authority ?? 'the authority'})`;
  return `${anchor.document.checkpoint.writtenAt} (the server's claim, not time-stamped)`;
}

function anchorInstant(anchor: CheckedAnchor): number {
  return anchor.timestampedAt?.getTime() ?? Date.parse(anchor.document.checkpoint.writtenAt);
}

/** The fields of a report this check reads. */
export interface AnchoredMember {
  metadata: { name: string };
  spec: { evidence?: { digest: string; sequence?: number } };
}

export interface ChainAnchorResult {
  problems: string[];
  notes: string[];
  /** The usable anchors that recorded this chain. */
  anchors: number;
  /** When the newest anchor that agrees with the chain was written (anchorTime), if any. */
  newestAgreeing?: string;
}

/** One distinct head an anchor recorded for a chain, with the earliest anchor that recorded it. */
export interface AnchoredHead {
  head: ChainHead;
  /** anchorTime of that earliest anchor. */
  when: string;
  /** Its instant (ms), to compare anchors. */
  at: number;
}

/** The distinct heads usable anchors recorded for `testUid`, each with its earliest anchor; and how many anchors did. */
export function anchoredHeads(testUid: string, anchors: readonly CheckedAnchor[]): { heads: AnchoredHead[]; anchors: number } {
  const heads = new Map<string, AnchoredHead>();
  let count = 0;
  for (const anchor of anchors) {
    if (anchor.problems.length > 0) continue;
    const head = anchor.document.checkpoint.heads.find((candidate) => candidate.testUid === testUid);
    if (!head) continue;
    count += 1;
    mergeAnchoredHead(heads, head, anchor);
  }
  return { heads: [...heads.values()], anchors: count };
}

/** Adds what `anchor` recorded of `head` to a map keyed by head, keeping the earliest anchor. */
export function mergeAnchoredHead(heads: Map<string, AnchoredHead>, head: ChainHead, anchor: CheckedAnchor): void {
  const key = `${head.sequence} ${head.digest}`;
  const at = anchorInstant(anchor);
  const known = heads.get(key);
  if (!known || at < known.at) heads.set(key, { head: { testUid: head.testUid, sequence: head.sequence, digest: head.digest }, when: anchorTime(anchor), at });
}

/**
 * Compares one test's reports (any order) with every usable anchor that recorded its chain. One
 * problem per disagreeing head, named with the EARLIEST anchor that recorded it (the strongest
 * proof of when the history was as anchored).
 */
export function chainAgainstAnchors(reports: readonly AnchoredMember[], testUid: string, anchors: readonly CheckedAnchor[]): ChainAnchorResult {
  const { heads, anchors: count } = anchoredHeads(testUid, anchors);
  return { ...chainAgainstHeads(reports, heads), anchors: count };
}

/** The comparison itself, over the distinct anchored heads of one chain. */
export function chainAgainstHeads(reports: readonly AnchoredMember[], heads: readonly AnchoredHead[]): ChainAnchorResult {
  const result: ChainAnchorResult = { problems: [], notes: [], anchors: 0 };
  const byDigest = new Map<string, AnchoredMember>();
  const bySequence = new Map<number, AnchoredMember>();
  for (const report of reports) {
    const evidence = report.spec.evidence;
    if (!evidence) continue;
    byDigest.set(evidence.digest, report);
    if (evidence.sequence !== undefined) bySequence.set(evidence.sequence, report);
  }
  const sequences = [...bySequence.keys()];
  const newest = sequences.length > 0 ? Math.max(...sequences) : undefined;
  const oldest = sequences.length > 0 ? Math.min(...sequences) : undefined;
  let newestAgreeingAt = -Infinity;

  for (const { head, when: time, at } of [...heads].sort((a, b) => a.head.sequence - b.head.sequence || a.at - b.at)) {
    const recorded = `sequence ${head.sequence}, ${short(head.digest)}`;
    const when = `the anchor written ${time}`;
    const present = byDigest.get(head.digest);
    if (present) {
      const sequence = present.spec.evidence!.sequence;
      if (sequence !== undefined && sequence !== head.sequence) {
        result.problems.push(`reordered: ${present.metadata.name} has the anchored digest ${short(head.digest)} at sequence ${sequence}, but ${when} recorded it at sequence ${head.sequence}`);
      } else if (at > newestAgreeingAt) {
        newestAgreeingAt = at;
        result.newestAgreeing = time;
      }
      continue;
    }
    const atSequence = bySequence.get(head.sequence);
    if (atSequence) {
      result.problems.push(
        `rewritten after it was anchored: ${atSequence.metadata.name} (sequence ${head.sequence}) has digest ${short(atSequence.spec.evidence!.digest)}, but ${when} recorded ${recorded}: this report or one before it was changed after that time`,
      );
    } else if (newest === undefined || head.sequence > newest) {
      result.problems.push(
        `missing tail: ${when} recorded ${recorded}; the newest report present is ${newest === undefined ? 'none' : `sequence ${newest}`}: reports were deleted after that time`,
      );
    } else if (oldest !== undefined && head.sequence < oldest) {
      result.notes.push(`${when} recorded ${recorded}, older than the oldest report present (sequence ${oldest}): pruned or archived elsewhere`);
    } else {
      result.problems.push(`deleted after it was anchored: ${when} recorded ${recorded}, and no report has that sequence`);
    }
  }
  return result;
}

/** Notes for anchors that cannot be used, named by source. */
export function unusableAnchorTexts(anchors: readonly CheckedAnchor[]): string[] {
  return anchors.filter((anchor) => anchor.problems.length > 0).map((anchor) => `anchor ${anchor.source} is not used: ${anchor.problems.join('; ')}`);
}
