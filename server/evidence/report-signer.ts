// The engine's report signer (used by server/engine/run/report-writer.ts): fills spec.evidence of a
// RestoreReport before it is created (the CRD makes the spec immutable, so evidence cannot be added
// later), chained to the previous report of the same RestoreTest.
//
// The previous report is read from the apiserver (LISTs selecting spec.test and spec.testRef.name,
// selectable fields of the CRD: unlike a label they cannot be edited after the report is written;
// reports stored since issue 17's fifth cut carry the first, older ones the second), not only
// from the informer cache the report writer passes in: a cache that has not yet seen the last report
// would fork the chain, and a fork reads as tampering to an auditor. Reports of an older
// RestoreTest with the same name (another uid) do not count, nor does a report with the name being
// written (a retry after a crash: the create then answers AlreadyExists and the stored report wins).
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { expandReport } from '../report-codec/report-encoding.js';
import { TEST_NAME_FIELD } from '../../protocol/stored-report/stored-report.js';
import type { RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import { evidenceOwner } from '../../protocol/evidence/report-digest.js';
import { orderReportsForChain } from '../../protocol/evidence/report-chain.js';
import { withEvidence } from './evidence.js';
import { evidenceAnchorOf } from './evidence-anchor.js';
import type { SigningKey } from './signing-key.js';
import { isKind, kubeCall } from '../kube/errors.js';
import type { Metrics } from '../metrics/metrics.js';

export interface SigningKeySource {
  ready(): Promise<{ key: SigningKey }>;
}

export interface ReportSignerOptions {
  keys: SigningKeySource;
  /** Live reads of a test's reports; absent = trust the `previous` the caller passes. */
  custom?: CustomObjectsApi;
  log: Logger;
  /** How long sign() waits for a key before failing (the run step is retried later). */
  keyWaitMs?: number;
  /** rehearsal_evidence_sequence and rehearsal_evidence_anchor_info, set by recordAnchor. */
  metrics?: Pick<Metrics, 'setEvidenceAnchor'>;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Expanded reports: the owner's uid (ownerReference, else spec.testRef; see evidenceOwner). */
function ownerUid(report: RestoreReport): string | undefined {
  return evidenceOwner(report.metadata, report.spec.testRef)?.uid;
}

/** The newest report of the same RestoreTest (same owner uid), other than `report` itself. */
export function previousReportOf(
  report: RestoreReport,
  candidates: readonly RestoreReport[],
): RestoreReport | undefined {
  const uid = ownerUid(report);
  const sameChain = candidates.filter(
    (candidate) =>
      candidate.metadata.name !== report.metadata.name &&
      candidate.spec.testRef.name === report.spec.testRef.name &&
      (uid === undefined || ownerUid(candidate) === uid) &&
      candidate.spec.startedAt <= report.spec.startedAt,
  );
  return orderReportsForChain(sameChain).at(-1);
}

export class ReportSigner {
  constructor(private readonly options: ReportSignerOptions) {}

  async sign(report: RestoreReport, previous: RestoreReport | undefined): Promise<RestoreReport> {
    const { key } = await this.keyOrTimeout();
    const predecessor = this.options.custom ? await this.livePrevious(report, previous) : previous;
    // A predecessor signed before sequences existed restarts the count at 1.
    const sequence = (predecessor?.spec.evidence?.sequence ?? 0) + 1;
    return withEvidence(report, predecessor?.spec.evidence?.digest, key, sequence);
  }

  /**
   * Records a created report as its test's evidence anchor (status.evidenceAnchor + metrics).
   * The engine calls this once the report exists (also when its create answered AlreadyExists).
   * Only moves forward: an older report (a late retry) never replaces a newer anchor. Throws
   * when the status cannot be written, so the step is retried rather than the anchor lost.
   */
  async recordAnchor(report: RestoreReport): Promise<void> {
    const anchor = evidenceAnchorOf(report);
    const custom = this.options.custom;
    if (!anchor || !custom) return;
    const namespace = report.metadata.namespace!;
    const name = report.spec.testRef.name;
    const target = { group: 'rehearsal.dev', version: 'v1alpha1', namespace, plural: 'restoretests', name };
    for (let attempt = 1; ; attempt++) {
      let test: RestoreTest;
      try {
        test = (await kubeCall(() => custom.getNamespacedCustomObject(target))) as RestoreTest;
      } catch (error) {
        if (isKind(error, 'NotFound')) return; // the test is gone, and its reports with it
        throw error;
      }
      const current = test.status?.evidenceAnchor;
      const newest = current && current.sequence >= anchor.sequence ? current : anchor;
      this.options.metrics?.setEvidenceAnchor(namespace, name, newest);
      if (newest === current) return;
      try {
        await kubeCall(() =>
          custom.patchNamespacedCustomObjectStatus(
            {
              ...target,
              // resourceVersion: a concurrent writer makes this a Conflict, never a step back.
              body: {
                metadata: { resourceVersion: test.metadata.resourceVersion },
                status: { evidenceAnchor: anchor },
              },
              fieldManager: 'rehearsal-evidence',
            },
            mergePatch,
          ),
        );
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

  private async livePrevious(
    report: RestoreReport,
    cached: RestoreReport | undefined,
  ): Promise<RestoreReport | undefined> {
    const test = report.spec.testRef.name;
    // Field selectors only AND: one LIST per stored form of the test's name (a report is in one).
    const lists = await Promise.all(
      [`spec.${TEST_NAME_FIELD}`, 'spec.testRef.name'].map(
        async (field) =>
          (await kubeCall(() =>
            this.options.custom!.listNamespacedCustomObject({
              group: 'rehearsal.dev',
              version: 'v1alpha1',
              namespace: report.metadata.namespace!,
              plural: 'restorereports',
              fieldSelector: `${field}=${test}`,
            }),
          )) as { items: RestoreReport[] },
      ),
    );
    const items = lists.flatMap((list) => list.items);
    const live = previousReportOf(report, items.map(expandReport));
    if (cached && live && cached.metadata.name !== live.metadata.name) {
      this.options.log.info(
        { report: report.metadata.name, cached: cached.metadata.name, live: live.metadata.name },
        'the cache was behind: chaining to the newest report the apiserver has',
      );
    }
    return live;
  }
}
