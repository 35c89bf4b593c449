// The engine's report signer (used by server/engine/run/report-writer.ts): fills spec.evidence of a
// RestoreReport before it is created (the CRD makes the spec immutable, so evidence cannot be added
// later), chained to the previous report of the same RestoreTest, and afterwards records the new
// report as the test's evidence anchor.
//
// The previous report is passed in: the engine's gatherer finds it once (engine/run/report-chain.ts)
// and guarantees what the signer's own LISTs used to — it is the newest report the apiserver has,
// never an older one from a cache that has not seen the last report yet (that would fork the chain,
// and a fork reads as tampering to an auditor). previousReportOf says which report that is: not one
// of an older RestoreTest with the same name (another uid), nor one with the name being written (a
// retry after a crash: the create then answers AlreadyExists and the stored report wins).
import type { Logger } from 'pino';
import type { RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import { evidenceOwner } from '../../protocol/evidence/report-digest.js';
import { orderReportsForChain } from '../../protocol/evidence/report-chain.js';
import { withEvidence } from './evidence.js';
import { evidenceAnchorOf } from './evidence-anchor.js';
import type { SigningKey } from './signing-key.js';
import { isKind } from '../kube/errors.js';
import type { TestStatusWriter } from '../kube/test-status.js';
import type { Metrics } from '../metrics/metrics.js';

export interface SigningKeySource {
  ready(): Promise<{ key: SigningKey }>;
}

export interface ReportSignerOptions {
  keys: SigningKeySource;
  /** Live reads and the status writes of the anchor; absent = no anchor is recorded. */
  tests?: Pick<TestStatusWriter, 'get' | 'apply'>;
  log: Logger;
  /** How long sign() waits for a key before failing (the run step is retried later). */
  keyWaitMs?: number;
  /** rehearsal_evidence_sequence and rehearsal_evidence_anchor_info, set by recordAnchor. */
  metrics?: Pick<Metrics, 'setEvidenceAnchor'>;
}

/** Expanded reports: the owner's uid (ownerReference, else spec.testRef; see evidenceOwner). */
export function ownerUid(report: RestoreReport): string | undefined {
  return evidenceOwner(report.metadata, report.spec.testRef)?.uid;
}

/** Where a report being written sits: its name, its test (name and uid) and its start. */
export interface ChainSlot {
  name: string;
  test: string;
  /** Undefined: any uid (a test object without one). */
  uid: string | undefined;
  startedAt: string;
}

/** The newest report of the same RestoreTest (same owner uid) before `slot`, other than its own. */
export function previousInChain(slot: ChainSlot, candidates: readonly RestoreReport[]): RestoreReport | undefined {
  const sameChain = candidates.filter(
    (candidate) =>
      candidate.metadata.name !== slot.name &&
      candidate.spec.testRef.name === slot.test &&
      (slot.uid === undefined || ownerUid(candidate) === slot.uid) &&
      candidate.spec.startedAt <= slot.startedAt,
  );
  return orderReportsForChain(sameChain).at(-1);
}

/** previousInChain for a report already built. */
export function previousReportOf(
  report: RestoreReport,
  candidates: readonly RestoreReport[],
): RestoreReport | undefined {
  const slot = { name: report.metadata.name, test: report.spec.testRef.name, uid: ownerUid(report), startedAt: report.spec.startedAt };
  return previousInChain(slot, candidates);
}

export class ReportSigner {
  constructor(private readonly options: ReportSignerOptions) {}

  /** `previous`: the newest report of the test before this one, as the apiserver has it. */
  async sign(report: RestoreReport, previous: RestoreReport | undefined): Promise<RestoreReport> {
    const { key } = await this.keyOrTimeout();
    // A predecessor signed before sequences existed restarts the count at 1.
    const sequence = (previous?.spec.evidence?.sequence ?? 0) + 1;
    return withEvidence(report, previous?.spec.evidence?.digest, key, sequence);
  }

  /**
   * Records a created report as its test's evidence anchor (status.evidenceAnchor + metrics).
   * The engine calls this once the report exists (also when its create answered AlreadyExists).
   * Only moves forward: an older report (a late retry) never replaces a newer anchor. Throws
   * when the status cannot be written, so the step is retried rather than the anchor lost.
   */
  async recordAnchor(report: RestoreReport): Promise<void> {
    const anchor = evidenceAnchorOf(report);
    const tests = this.options.tests;
    if (!anchor || !tests) return;
    const namespace = report.metadata.namespace!;
    const name = report.spec.testRef.name;
    for (let attempt = 1; ; attempt++) {
      let test: RestoreTest;
      try {
        test = await tests.get(namespace, name);
      } catch (error) {
        if (isKind(error, 'NotFound')) return; // the test is gone, and its reports with it
        throw error;
      }
      const current = test.status?.evidenceAnchor;
      const newest = current && current.sequence >= anchor.sequence ? current : anchor;
      this.options.metrics?.setEvidenceAnchor(namespace, name, newest);
      if (newest === current) return;
      try {
        // The evidence owner's one field; the resourceVersion read above makes a concurrent
        // writer a Conflict (read again, retry), never a step back.
        await tests.apply('evidence', test, { evidenceAnchor: anchor });
        return;
      } catch (error) {
        if (!isKind(error, 'Conflict') || attempt >= 5) throw error;
      }
    }
  }

  private async keyOrTimeout(): Promise<{ key: SigningKey }> {
    const waitMs = this.options.keyWaitMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.options.keys.ready(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error('the evidence signing key is not available yet')),
            waitMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
