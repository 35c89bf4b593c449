// The report writer: once a run says it is ready (checks done, or failed early), it builds the
// RestoreReport from what the run observed, signs it, creates it, prunes the test's history beyond
// historyLimit and announces the result (metrics and Events). It knows nothing of the run
// reconciler and does not look anything up: it is handed the facts, the previous report of the
// chain and the history (all gathered by run-gatherer.ts) and returns the stored report. Every run
// gets exactly one report: the name is deterministic and a create that answers AlreadyExists reads
// the stored one.
import type { Logger } from 'pino';
import { buildReportSpec, type RunObservations } from '../../domain/run/report-builder.js';
import { API_VERSION, type RestoreReport, type RestoreTest } from '../../domain/resources/resources.js';
import { reportName } from '../../domain/run/sandbox-names.js';
import { effectiveTargets, type ClusterDefaults } from '../../domain/run/cluster-defaults.js';
import type { ReportSigner } from '../../evidence/report-signer.js';
import { isKind } from '../../kube/errors.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { EventRecorder } from '../events.js';

/** Facts the run gathered; the writer adds the test, the run and the time. */
export type ReportFacts = Omit<RunObservations, 'test' | 'run' | 'completedAt'>;

/** Everything a report is written from (run-gatherer.ts reportInputs). */
export interface ReportInputs {
  facts: ReportFacts;
  /**
   * The newest report of the test before this run's, which the evidence chains to: proven current
   * or read from the apiserver (engine/run/report-chain.ts), never a possibly stale cache's guess.
   */
  previous: RestoreReport | undefined;
  /** Names of the test's other reports, oldest first: the history that prune trims. */
  history: readonly string[];
}

export interface ReportWriterDeps {
  client: Pick<RehearsalClient, 'createReport' | 'getReport' | 'deleteReport'> &
    Partial<Pick<RehearsalClient, 'clearReportManagedFields'>>;
  signer?: Pick<ReportSigner, 'sign'> & Partial<Pick<ReportSigner, 'recordAnchor'>>;
  metrics: Metrics;
  events: EventRecorder;
  log: Logger;
  now: () => Date;
  /** The cluster-wide defaults in effect: the RTO/RPO targets of a test without its own (issue 30). */
  clusterDefaults?: () => Readonly<ClusterDefaults>;
  /**
   * Delete reports beyond historyLimit (default). False with the evidence archive: the archiver
   * moves them out of etcd instead, so no evidence is deleted before it is archived.
   */
  pruneHistory?: boolean;
}

/** The RestoreReport object of a run, unsigned, as the writer creates it (also used by bench:footprint). */
export function reportObject(
  test: RestoreTest,
  run: RunObservations['run'],
  facts: ReportFacts,
  completedAt: Date,
): RestoreReport {
  const spec = buildReportSpec({ ...facts, test, run, completedAt }, test.spec.provider);
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreReport',
    metadata: {
      name: reportName(test.metadata.name, run.id),
      namespace: test.metadata.namespace ?? '',
      // No labels: `kubectl get rrep --field-selector spec.test=<test>` (a selectable field; reports
      // stored before issue 17's fifth cut: spec.testRef.name=<test>) selects a test's reports, and
      // the run id is in the name. A label costs the apiserver two maps per report, the object's
      // and its watch-cache index entry's (~0.7 KB, issue 17, test/bench/results/footprint.md);
      // reports written before keep theirs.
      // No ownerReferences either: the reference is one more map and six strings per report
      // (~0.5 KB of apiserver memory), and the garbage collector it invites deletes a deleted
      // test's reports unarchived, although its evidence must outlive it. The server removes
      // them itself, archiving first when the archive is on (engine/report-cascade.ts); the
      // evidence binds a report to its test through spec.testRef (evidence/evidence.ts, owner).
    },
    spec,
  };
}

type ReportStore = ReportWriterDeps['client'];

/**
 * Creates a signed report (a create that answers AlreadyExists reads the stored one: a retry after
 * a crash) and clears its managedFields (see clearReportManagedFields), also after AlreadyExists in
 * case an earlier attempt stopped before that. Failing to clear them costs apiserver memory, not
 * correctness: logged, not retried. The engine's write path; bench:footprint measures it.
 */
export async function storeReport(client: ReportStore, report: RestoreReport, log: Logger): Promise<RestoreReport> {
  const namespace = report.metadata.namespace ?? '';
  let written: RestoreReport;
  try {
    written = await client.createReport(report);
  } catch (error) {
    if (!isKind(error, 'AlreadyExists')) throw error;
    written = await client.getReport(namespace, report.metadata.name);
  }
  const metadata = written.metadata as { managedFields?: unknown[] };
  if (!client.clearReportManagedFields || !metadata.managedFields?.length) return written;
  try {
    return await client.clearReportManagedFields(namespace, report.metadata.name);
  } catch (error) {
    log.warn({ err: error, report: report.metadata.name }, "could not clear the report's managedFields");
    return written;
  }
}

export class ReportWriter {
  constructor(private readonly deps: ReportWriterDeps) {}

  async write(test: RestoreTest, run: RunObservations['run'], inputs: ReportInputs): Promise<RestoreReport> {
    let report = reportObject(this.measuredAgainst(test), run, inputs.facts, this.deps.now());
    if (this.deps.signer) report = await this.deps.signer.sign(report, inputs.previous);
    const written = await storeReport(this.deps.client, report, this.deps.log);
    // After the create, never before: the anchor must not name a report that does not exist.
    await this.deps.signer?.recordAnchor?.(written);
    if (this.deps.pruneHistory !== false) await this.prune(test, inputs.history);
    this.announce(test, written);
    return written;
  }

  /**
   * The test as the report measures it: with the cluster's RTO/RPO targets where it has none. Only
   * the report sees this copy; the RestoreTest itself is never written with them, so the test's
   * own value keeps winning and removing a cluster default takes effect from the next run.
   */
  private measuredAgainst(test: RestoreTest): RestoreTest {
    const defaults = this.deps.clusterDefaults?.();
    if (!defaults) return test;
    const targets = effectiveTargets(test.spec.sla, defaults);
    if (targets.maxRTO === test.spec.sla?.maxRTO && targets.maxRPO === test.spec.sla?.maxRPO) return test;
    return { ...test, spec: { ...test.spec, sla: { ...test.spec.sla, ...targets } } };
  }

  /** Keeps at most historyLimit reports of the test (the new one included), deleting the oldest first. */
  private async prune(test: RestoreTest, history: readonly string[]): Promise<void> {
    const limit = test.spec.historyLimit ?? 90;
    const excess = history.length + 1 - limit;
    for (const name of history.slice(0, Math.max(0, excess))) {
      try {
        await this.deps.client.deleteReport(test.metadata.namespace ?? '', name);
      } catch (error) {
        if (!isKind(error, 'NotFound')) throw error;
      }
    }
  }

  private announce(test: RestoreTest, report: RestoreReport): void {
    const spec = report.spec;
    const labels = { namespace: test.metadata.namespace ?? '', test: test.metadata.name };
    const metrics = this.deps.metrics;
    metrics.score.set(labels, spec.score);
    if (spec.rto.measuredSeconds !== undefined) metrics.rtoSeconds.set(labels, spec.rto.measuredSeconds);
    if (spec.rpo) metrics.rpoSeconds.set(labels, spec.rpo.measuredSeconds);
    if (spec.backup.completedAt) {
      const age = (new Date(spec.startedAt).getTime() - new Date(spec.backup.completedAt).getTime()) / 1000;
      metrics.backupAgeSeconds.set(labels, Math.max(0, age));
    }
    metrics.lastCompletedRun.set(labels, new Date(spec.completedAt).getTime() / 1000);
    metrics.runs.inc({ ...labels, result: spec.result });
    metrics.runDuration.observe((new Date(spec.completedAt).getTime() - new Date(spec.startedAt).getTime()) / 1000);

    const capped = spec.resultCap ? ` (capped by ${spec.resultCap.critical ? 'critical ' : ''}check ${spec.resultCap.check})` : '';
    const failure = spec.failure ? ` (${spec.failure.reason}: ${spec.failure.message})` : '';
    const summary = `run ${spec.runId}: score ${spec.score}, ${spec.result}${capped}${spec.rto.measured ? `, RTO ${spec.rto.measured}` : ''}${failure}`;
    const reason = spec.result === 'pass' ? 'RunPassed' : spec.result === 'partial' ? 'RunPartial' : 'RunFailed';
    const events = this.deps.events;
    events.record(test, spec.result === 'pass' ? 'Normal' : 'Warning', reason, summary);
    if (spec.rto.withinSLA === false) {
      events.record(test, 'Warning', 'SLAExceeded', `run ${spec.runId}: RTO ${spec.rto.measured} exceeds the target ${spec.rto.target}`);
    }
    const previous = test.status?.lastScore;
    if (previous !== undefined && test.status?.lastRunAt && spec.score < previous - 10) {
      events.record(test, 'Warning', 'ScoreRegressed', `run ${spec.runId}: score ${spec.score}, previous run ${previous}`);
    }
  }
}
