// The server's side of "verification uses the anchors": every anchor version in the bucket is read
// once (anchors never change; new versions are read as they appear), checked (its own digest,
// root, signature and time-stamp), and folded into one index of the distinct heads each chain was
// anchored at, with the earliest anchor of each. A document is not kept: 400 days of hourly
// anchors of thousands of tests would be gigabytes, while the distinct heads are one per run.
//
// audit() then compares every RestoreTest's chain with its anchored heads. Cheap in the common
// case: when every anchored digest of a test is among its stored reports' digests (the summaries
// hold them), the chain agrees and nothing is unpacked; only a test missing an anchored digest has
// its whole reports read, to say what happened (rewritten, deleted, cut, or merely pruned).
import type { KeyObject, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import {
  anchorTime,
  checkAnchor,
  chainAgainstHeads,
  mergeAnchoredHead,
  type AnchoredHead,
  type AnchoredMember,
  type CheckedAnchor,
} from '../../../protocol/evidence/anchor/anchor-check.js';
import { ANCHOR_PREFIX, parseAnchorDocument } from '../../../protocol/evidence/anchor/checkpoint.js';
import type { AnchorBucket } from './anchor-bucket.js';

/** An anchor lists every chain's head (~150 bytes each): 16 MiB is ~100,000 tests. */
export const MAX_ANCHOR_BYTES = 16 * 1024 * 1024;

/** One RestoreTest's chain as the audit reads it. */
export interface AuditedChain {
  /** "namespace/name", for messages. */
  test: string;
  uid: string;
  /** spec.evidence.digest of every stored report (live and archived), cheaply. */
  digests: () => Iterable<string | undefined>;
  /** The whole reports, read only when an anchored digest is missing. */
  reports: () => readonly AnchoredMember[];
}

export interface AnchorAuditResult {
  /** Anchor versions read and usable. */
  anchors: number;
  /** Anchor versions that cannot be used, each named with why. */
  unusable: string[];
  /** What disagrees with an anchor, each problem naming its test. */
  disagreements: string[];
  /** How many chains (tests) those problems are about. */
  disagreeingChains: number;
  /** The same problems by test ("namespace/name"), without the test's name in front. */
  byTest: Array<{ test: string; problems: string[] }>;
  notes: string[];
  /** anchorTime of the newest usable anchor. */
  newest?: string;
  /** The newest usable anchors (at most RECENT_ANCHORS), newest first: where each is and when it was written. */
  recent: Array<{ source: string; when: string }>;
}

/** How many of the newest anchors an audit names (the PDFs list them). */
export const RECENT_ANCHORS = 12;

export interface AnchorAuditDeps {
  bucket: AnchorBucket;
  /** Key prefix before anchors/. */
  prefix: string;
  keyRing: () => ReadonlyMap<string, KeyObject>;
  authorities: readonly X509Certificate[];
  log: Logger;
}

export class AnchorAudit {
  /** object key + version id → read (usable or not). */
  private readonly seen = new Set<string>();
  private readonly unusable = new Map<string, string>();
  /** test uid → "sequence digest" → the earliest anchor of that head. */
  private readonly heads = new Map<string, Map<string, AnchoredHead>>();
  private usable = 0;
  private newest: { at: number; when: string } | undefined;
  /** The newest usable anchors, newest first (at most RECENT_ANCHORS). */
  private recent: Array<{ at: number; source: string; when: string }> = [];
  private ringIds = '';

  constructor(private readonly deps: AnchorAuditDeps) {}

  /** Reads anchor versions not read before (all of them after a change of trusted keys). */
  async refresh(): Promise<void> {
    const ring = this.deps.keyRing();
    const ids = [...ring.keys()].sort().join(',');
    if (ids !== this.ringIds) this.reset(ids);
    const prefix = `${this.deps.prefix}${ANCHOR_PREFIX}`;
    // Newest first (keys begin with the time): after a start, the anchors that matter most are
    // folded first. One anchor per macrotask: checking one costs ~50 ms at 3,000 tests (parse,
    // canonical digest, signature, root), and requests must not wait behind hundreds of them.
    const versions = (await this.deps.bucket.versions(prefix)).sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    for (const version of versions) {
      if (version.deleteMarker || !version.key.endsWith('.json')) continue;
      const source = `${version.key}${version.versionId ? `?versionId=${version.versionId}` : ''}`;
      if (this.seen.has(source)) continue;
      const bytes = await this.deps.bucket.get(version.key, version.versionId, MAX_ANCHOR_BYTES);
      this.seen.add(source);
      if (!bytes) continue;
      const document = parseAnchorDocument(bytes.toString('utf8'));
      if (!document) {
        this.unusable.set(source, `anchor ${source} is not used: not an anchor document`);
        continue;
      }
      this.fold(checkAnchor(source, document, ring, this.deps.authorities));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Compares every chain with what the anchors recorded of it. */
  audit(chains: Iterable<AuditedChain>): AnchorAuditResult {
    const result: AnchorAuditResult = { anchors: this.usable, unusable: [...this.unusable.values()], disagreements: [], disagreeingChains: 0, byTest: [], notes: [], recent: this.recent.map(({ source, when }) => ({ source, when })) };
    if (this.newest) result.newest = this.newest.when;
    for (const chain of chains) {
      const heads = this.heads.get(chain.uid);
      if (!heads || heads.size === 0) continue;
      const present = new Set<string | undefined>(chain.digests());
      if ([...heads.values()].every(({ head }) => present.has(head.digest))) continue;
      const compared = chainAgainstHeads(chain.reports(), [...heads.values()]);
      if (compared.problems.length > 0) {
        result.disagreeingChains += 1;
        result.byTest.push({ test: chain.test, problems: compared.problems });
      }
      result.disagreements.push(...compared.problems.map((problem) => `${chain.test}: ${problem}`));
      result.notes.push(...compared.notes.map((note) => `${chain.test}: ${note}`));
    }
    return result;
  }

  private fold(anchor: CheckedAnchor): void {
    if (anchor.problems.length > 0) {
      this.unusable.set(anchor.source, `anchor ${anchor.source} is not used: ${anchor.problems.join('; ')}`);
      return;
    }
    this.usable += 1;
    for (const head of anchor.document.checkpoint.heads) {
      let heads = this.heads.get(head.testUid);
      if (!heads) this.heads.set(head.testUid, (heads = new Map()));
      mergeAnchoredHead(heads, head, anchor);
    }
    const at = anchor.timestampedAt?.getTime() ?? Date.parse(anchor.document.checkpoint.writtenAt);
    if (!this.newest || at > this.newest.at) this.newest = { at, when: anchorTime(anchor) };
    this.recent = [...this.recent, { at, source: anchor.source, when: anchorTime(anchor) }].sort((a, b) => b.at - a.at).slice(0, RECENT_ANCHORS);
  }

  private reset(ids: string): void {
    this.ringIds = ids;
    this.seen.clear();
    this.unusable.clear();
    this.heads.clear();
    this.usable = 0;
    this.newest = undefined;
    this.recent = [];
  }
}
