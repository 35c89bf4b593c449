// Collects the diagnosis of every failed or partial run while its sandbox still exists (issue 16).
// Two ways in, both idempotent (one diagnosis per run; a second attempt finds it stored):
//  - the report cache: a new fail/partial report with sandboxes starts a collection at once (the
//    engine keeps such sandboxes until their ttl, so they are there);
//  - ENGINE HOOK beforeSandboxRelease(report): awaited by the engine before it may delete or expire
//    a failed/partial run's sandbox, so even a run that ended at its ttl is diagnosed first.
// Runs on the leader only, like the engine. It also keeps the stored diagnoses in step with the
// reports (they live in the server's namespace, where no ownerReference can reach a report): a
// report's delete deletes its diagnosis, and each start as leader sweeps those whose report is gone.
import type { Logger } from 'pino';
import { diagnose } from '../domain/diagnosis/diagnosis.js';
import type { RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import { resolveLogCollection } from '../domain/run/log-collection.js';
import type { ReportSummary } from '../domain/read-models/report-summary.js';
import type { InformerHandler } from '../kube/informer.js';
import { DiagnosisUnreadableError, type DiagnosedRun, type DiagnosisStore } from './diagnosis-store.js';
import type { SandboxObserver } from './sandbox-observer.js';

export interface DiagnosticsCollectorDeps {
  observer: Pick<SandboxObserver, 'observe'>;
  store: Pick<DiagnosisStore, 'save' | 'load' | 'remove' | 'sweep'>;
  cache: {
    onReportChange(handler: InformerHandler<ReportSummary>): void;
    /** Whether the report is in etcd (an archived or deleted one has no diagnosis any more). */
    isLiveReport(namespace: string, name: string): boolean;
  };
  reports: { getReport(namespace: string, name: string): Promise<RestoreReport> };
  /** The run's RestoreTest, for its spec.logCollection (absent or gone: the defaults). */
  tests?: { getTest(namespace: string, name: string): RestoreTest | undefined };
  log: Logger;
  now: () => Date;
  /** Reports older than this are not diagnosed (their sandboxes are gone). */
  maxReportAgeMs: number;
}

/** A diagnosis younger than this survives a sweep (its report may not be in the cache yet). */
const SWEEP_MIN_AGE_MS = 10 * 60_000;

export class DiagnosticsCollector {
  private running = false;
  private subscribed = false;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: DiagnosticsCollectorDeps) {}

  start(): void {
    this.running = true;
    this.deps.store
      .sweep((namespace, name) => this.deps.cache.isLiveReport(namespace, name), this.deps.now(), SWEEP_MIN_AGE_MS)
      .then((removed) => {
        if (removed > 0) this.deps.log.info({ removed }, 'deleted the diagnoses of reports that are gone');
      })
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'sweeping diagnoses failed'));
    if (this.subscribed) return;
    this.subscribed = true;
    this.deps.cache.onReportChange((event, _key, current, previous) => {
      if (event === 'delete' && previous && this.running) {
        this.deps.store
          .remove(previous.metadata.namespace ?? '', previous.metadata.name)
          .catch((error: unknown) => this.deps.log.warn({ err: error, report: previous.metadata.name }, 'deleting a diagnosis failed'));
        return;
      }
      if (event !== 'add' || !current || !this.running || current.spec.result === 'pass') return;
      if (Date.parse(current.spec.completedAt) < this.deps.now().getTime() - this.deps.maxReportAgeMs) return;
      const namespace = current.metadata.namespace ?? '';
      this.deps.reports
        .getReport(namespace, current.metadata.name)
        .then((report) => this.beforeSandboxRelease(report))
        .catch((error: unknown) => this.deps.log.warn({ err: error, report: current.metadata.name }, 'diagnosing a run failed'));
    });
  }

  stop(): void {
    this.running = false;
  }

  /** ENGINE HOOK: call (and await) before a failed or partial run's sandbox may be deleted. */
  beforeSandboxRelease(report: RestoreReport): Promise<void> {
    if (report.spec.result === 'pass' || report.spec.sandboxNamespaces.length === 0) return Promise.resolve();
    const key = `${report.metadata.namespace}/${report.metadata.name}`;
    let job = this.inFlight.get(key);
    if (!job) {
      job = this.collect(report)
        .catch((error: unknown) => this.deps.log.warn({ err: error, report: key }, 'diagnosing a run failed'))
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, job);
    }
    return job;
  }

  private async collect(report: RestoreReport): Promise<void> {
    const namespace = report.metadata.namespace ?? '';
    const run: DiagnosedRun = { namespace, name: report.metadata.name, runId: report.spec.runId };
    try {
      if (await this.deps.store.load(run)) return;
    } catch (error) {
      if (!(error instanceof DiagnosisUnreadableError)) throw error;
      // Not ours, or not of this run: replaced by what this run's sandboxes show.
      this.deps.log.warn({ report: run.name, problem: error.message }, 'replacing an unreadable diagnosis');
      await this.deps.store.remove(namespace, run.name);
    }
    // The report lists sandboxes in the order of its source namespaces (one sandbox per source).
    const sandboxes = report.spec.sandboxNamespaces.map((sandbox, position) => ({
      source: report.spec.sourceNamespaces[position] ?? '',
      sandbox,
    }));
    const logCollection = resolveLogCollection(this.deps.tests?.getTest(namespace, report.spec.testRef.name)?.spec.logCollection);
    const observation = await this.deps.observer.observe(sandboxes, logCollection);
    // A claim the apiserver refused (the sandbox storage quota) is no object to observe: the
    // report's completeness is what counts it.
    const claims = report.spec.completeness.find((entry) => entry.kind === 'PersistentVolumeClaim');
    if (claims && claims.restored < claims.backedUp) observation.missingClaims = claims.backedUp - claims.restored;
    const diagnosis = diagnose(observation, {
      test: { name: report.spec.testRef.name, namespace },
      runId: report.spec.runId,
      report: report.metadata.name,
      result: report.spec.result,
      collectedAt: this.deps.now(),
      logCollection,
    });
    const saved = await this.deps.store.save(report, diagnosis);
    this.deps.log.info(
      { report: report.metadata.name, hints: diagnosis.hints.map((hint) => hint.code), bytes: saved.bytes },
      'run diagnosed',
    );
  }

  /** Resolves when no collection is running (tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }
}
