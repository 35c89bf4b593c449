// Writes evidence anchors (protocol/evidence/anchor/checkpoint.ts) while this replica leads: one
// at start, one every interval (an hour by default) and one after every archive pass that wrote a
// segment. Each pass first reads the anchors already in the bucket and compares every chain with
// them (anchor-audit.ts): a chain rewritten since it was anchored is logged as an error and counted
// in rehearsal_evidence_anchor_disagreements, and the new anchor records the chain as it now is,
// which does not undo what the earlier anchors hold.
//
// Nothing is written to a bucket without Object Lock: an anchor that can be overwritten proves
// nothing, and saying "anchored" about it would be a lie. Retention is set on every object
// (compliance mode: nobody, the bucket owner included, can shorten it or delete the version).
// The authority's token is verified (server/evidence/timestamp/) before the anchor is stored; an
// authority that does not answer makes that anchor untimestamped, not missing.
import type { Logger } from 'pino';
import type { VerifiedTimestamp } from '../../../protocol/evidence/timestamp/timestamp-token.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import {
  anchorObjectKey,
  buildCheckpoint,
  checkpointBytes,
  checkpointDigest,
  parseAnchorDocument,
  ANCHOR_PREFIX,
  type AnchorDocument,
  type ChainHead,
  type CheckpointReason,
} from '../../../protocol/evidence/anchor/checkpoint.js';
import type { EvidenceSigner } from '../signing-key.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { AnchorBucket } from './anchor-bucket.js';
import { MAX_ANCHOR_BYTES, type AnchorAudit, type AnchorAuditResult, type AuditedChain } from './anchor-audit.js';

/** How old an audit a reader (a PDF) may be given before the bucket is read again. */
const AUDIT_MAX_AGE_MS = 5 * 60_000;
/** A new leader waits this long before its first anchor (its caches are synced; the rest can wait). */
const FIRST_ANCHOR_DELAY_MS = 10_000;

export interface AnchorWriterDeps {
  bucket: AnchorBucket;
  audit: AnchorAudit;
  /** Key prefix before anchors/. */
  prefix: string;
  /** "<cluster name>/<namespace>", recorded in every checkpoint. */
  installation: string;
  retentionSeconds: number;
  intervalSeconds: number;
  /** Every test's chain head (its status.evidenceAnchor and uid). */
  heads: () => ChainHead[];
  /** Every test's chain, for the audit. */
  chains: () => Iterable<AuditedChain>;
  signer: () => EvidenceSigner | undefined;
  /** Time-stamps the bytes with the configured authority; absent when none is configured. */
  timestamp?: (data: Buffer) => Promise<VerifiedTimestamp>;
  metrics?: Pick<Metrics, 'anchorWrites' | 'anchorLastWritten' | 'anchorDisagreements' | 'anchorInterval'>;
  log: Logger;
  now: () => Date;
}

export type AnchorWriteResult =
  | { written: true; key: string; versionId?: string; document: AnchorDocument; audit: AnchorAuditResult; timestampError?: string }
  | { written: false; reason: string; audit?: AnchorAuditResult };

export class AnchorWriter {
  private timer: NodeJS.Timeout | undefined;
  private auditTimer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** The digest of the newest anchor this installation wrote (linked from the next). */
  private previous: string | undefined;
  private previousRead = false;
  private lastAudit: AnchorAuditResult | undefined;
  private auditedAt = 0;

  constructor(private readonly deps: AnchorWriterDeps) {
    // Every replica says anchors are on: RehearsalEvidenceAnchorsStale fires when none was written
    // for two intervals, even after a restart of the replica that wrote the last one.
    deps.metrics?.anchorInterval.set(deps.intervalSeconds);
  }

  /** One write at a time, in order; errors are logged and counted, the next pass retries. */
  write(reason: CheckpointReason): Promise<AnchorWriteResult> {
    const next = this.queue.then(() => this.writeNow(reason)).catch((error: unknown): AnchorWriteResult => {
      this.deps.metrics?.anchorWrites.inc({ result: 'failed' });
      this.deps.log.error({ err: error, where: this.deps.bucket.where }, 'writing the evidence anchor failed; retried at the next pass');
      return { written: false, reason: (error as Error).message };
    });
    this.queue = next;
    return next;
  }

  /** Where anchors are written ("bucket B at ENDPOINT"), for readers. */
  get store(): string {
    return this.deps.bucket.where;
  }

  /** The last audit of the chains against the anchors (undefined before the first pass). */
  get audit(): AnchorAuditResult | undefined {
    return this.lastAudit;
  }

  /**
   * An audit no older than AUDIT_MAX_AGE_MS, for readers such as the PDFs: on a replica that does
   * not lead (no write passes) or between passes, the bucket's new anchor versions are read and
   * the chains compared again. Queued with the writes, so the two never interleave.
   */
  currentAudit(): Promise<AnchorAuditResult> {
    const fresh = this.lastAudit && this.deps.now().getTime() - this.auditedAt < AUDIT_MAX_AGE_MS;
    if (fresh) return Promise.resolve(this.lastAudit!);
    const next = this.queue.then(() => this.auditNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async auditNow(): Promise<AnchorAuditResult> {
    await this.deps.audit.refresh();
    const audit = this.deps.audit.audit(this.deps.chains());
    this.lastAudit = audit;
    this.auditedAt = this.deps.now().getTime();
    this.deps.metrics?.anchorDisagreements.set(audit.disagreeingChains);
    return audit;
  }

  /**
   * Every replica audits every AUDIT_MAX_AGE_MS (reading only new anchor versions), so that the
   * compliance answers of followers count disagreements too; the leader also audits before writing.
   */
  startAuditing(): void {
    this.stopAuditing();
    this.auditTimer = setInterval(() => void this.currentAudit().catch((error: unknown) => this.deps.log.warn({ err: error }, 'auditing the evidence anchors failed; retried later')), AUDIT_MAX_AGE_MS);
    this.auditTimer.unref();
    void this.currentAudit().catch((error: unknown) => this.deps.log.warn({ err: error }, 'auditing the evidence anchors failed; retried later'));
  }

  stopAuditing(): void {
    clearInterval(this.auditTimer);
    this.auditTimer = undefined;
  }

  startOnLeader(): void {
    this.stopOnLeader();
    this.first = setTimeout(() => void this.write('start'), FIRST_ANCHOR_DELAY_MS);
    this.first.unref();
    this.timer = setInterval(() => void this.write('scheduled'), this.deps.intervalSeconds * 1000);
    this.timer.unref();
  }

  stopOnLeader(): void {
    clearTimeout(this.first);
    clearInterval(this.timer);
    this.first = undefined;
    this.timer = undefined;
  }

  private async writeNow(reason: CheckpointReason): Promise<AnchorWriteResult> {
    const { bucket, metrics, log } = this.deps;
    if (!(await bucket.objectLockEnabled())) {
      metrics?.anchorWrites.inc({ result: 'refused' });
      const why = `${bucket.where} has no Object Lock: evidence is not anchored (an anchor there could be rewritten)`;
      log.error(why);
      return { written: false, reason: why };
    }
    const signer = this.deps.signer();
    if (!signer) return { written: false, reason: 'the signing key is not loaded yet' };

    const audit = await this.auditNow();
    if (audit.disagreements.length > 0) {
      log.error({ disagreements: audit.disagreements }, 'evidence disagrees with its anchors: reports were rewritten or deleted after they were anchored');
    }
    for (const text of audit.unusable) log.warn(text);

    const now = this.deps.now();
    const checkpoint = buildCheckpoint({
      installation: this.deps.installation,
      writtenAt: now,
      reason,
      heads: this.deps.heads(),
      ...((await this.previousDigest()) ? { previous: this.previous! } : {}),
    });
    const bytes = checkpointBytes(checkpoint);
    const document: AnchorDocument = {
      checkpoint,
      digest: checkpointDigest(checkpoint),
      signature: { keyId: signer.keyId, algorithm: 'Ed25519', value: signer.sign(canonicalJson(checkpoint)) },
    };
    let timestampError: string | undefined;
    if (this.deps.timestamp) {
      try {
        document.timestamp = { token: (await this.deps.timestamp(bytes)).tokenBase64 };
      } catch (error) {
        timestampError = (error as Error).message;
        log.error({ err: error }, 'the timestamp authority did not time-stamp the evidence anchor; it is written without a token');
      }
    }
    const key = `${this.deps.prefix}${anchorObjectKey(checkpoint)}`;
    const retainUntil = new Date(now.getTime() + this.deps.retentionSeconds * 1000);
    const versionId = await bucket.putLocked(key, Buffer.from(`${JSON.stringify(document)}\n`, 'utf8'), retainUntil);
    this.previous = document.digest;
    metrics?.anchorWrites.inc({ result: 'written' });
    metrics?.anchorLastWritten.set(now.getTime() / 1000);
    log.info({ key, versionId, heads: checkpoint.heads.length, root: checkpoint.root, reason, timestamped: !!document.timestamp, retainUntil: retainUntil.toISOString() }, 'evidence anchor written');
    return { written: true, key, ...(versionId ? { versionId } : {}), document, audit, ...(timestampError ? { timestampError } : {}) };
  }

  /** The newest anchor of this installation in the bucket, read once (a new leader links to it). */
  private async previousDigest(): Promise<string | undefined> {
    if (this.previousRead) return this.previous;
    const prefix = `${this.deps.prefix}${ANCHOR_PREFIX}`;
    const newest = (await this.deps.bucket.versions(prefix))
      .filter((version) => !version.deleteMarker && version.key.endsWith('.json'))
      .sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    for (const version of newest.slice(0, 5)) {
      const bytes = await this.deps.bucket.get(version.key, version.versionId, MAX_ANCHOR_BYTES);
      const document = bytes && parseAnchorDocument(bytes.toString('utf8'));
      if (document && document.checkpoint.installation === this.deps.installation) {
        this.previous = document.digest;
        break;
      }
    }
    this.previousRead = true;
    return this.previous;
  }
}
