// The engine's report signer (used by server/controller/report-writer.ts): fills spec.evidence of a
// RestoreReport before it is created (the CRD makes the spec immutable, so evidence cannot be added
// later), chained to the previous report of the same RestoreTest.
//
// The previous report is read from the apiserver (a LIST selecting spec.testRef.name, a selectable
// field of the CRD: unlike a label it cannot be edited after the report is written), not only
// from the informer cache the report writer passes in: a cache that has not yet seen the last report
// would fork the chain, and a fork reads as tampering to an auditor. Reports of an older
// RestoreTest with the same name (another uid) do not count, nor does a report with the name being
// written (a retry after a crash: the create then answers AlreadyExists and the stored report wins).
import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { RestoreReport } from '../domain/resources.js';
import { orderReportsForChain, withEvidence } from './evidence.js';
import type { SigningKey } from './signing-key.js';
import { kubeCall } from '../kube/errors.js';

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
}

function ownerUid(report: RestoreReport): string | undefined {
  const owners = (report.metadata.ownerReferences ?? []).filter((owner) => owner.kind === 'RestoreTest');
  return (owners.find((owner) => owner.controller === true) ?? owners[0])?.uid;
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
    return withEvidence(report, predecessor?.spec.evidence?.digest, key);
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
    const list = (await kubeCall(() =>
      this.options.custom!.listNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: report.metadata.namespace!,
        plural: 'restorereports',
        fieldSelector: `spec.testRef.name=${test}`,
      }),
    )) as { items: RestoreReport[] };
    const live = previousReportOf(report, list.items);
    if (cached && live && cached.metadata.name !== live.metadata.name) {
      this.options.log.info(
        { report: report.metadata.name, cached: cached.metadata.name, live: live.metadata.name },
        'the cache was behind: chaining to the newest report the apiserver has',
      );
    }
    return live;
  }
}
