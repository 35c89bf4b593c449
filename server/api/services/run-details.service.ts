// Details of one run of a test beyond its report: the diagnosis of a failed or partial run
// (failure triage) and the notification its events produce (issue 16). The diagnosis's restored
// text is shown only to a caller who may get secrets in every source namespace (issue 26).
import type { RunDiagnosis } from '../../domain/diagnosis/diagnosis.js';
import { redactDiagnosis } from '../../domain/diagnosis/redaction.js';
import { buildRunNotification, type NotificationEvent, type RunNotification } from '../../domain/notifications/run-notification.js';
import type { IndexedRun } from '../../domain/read-models/report-index.js';
import type { RestoreReport } from '../../domain/resources/resources.js';
import type { ApiUser } from '../auth/authorizer.js';
import { ProblemError } from '../problem.js';
import type { ApiCache, DiagnosisSource } from '../ports.js';
import { requireSynced } from './readiness.js';

export class RunDetailsService {
  constructor(
    private readonly cache: ApiCache,
    private readonly serverNamespace: string,
    private readonly diagnoses: DiagnosisSource | undefined,
    /**
     * Whether a caller may read the restored data of these namespaces; absent = no callers to tell
     * apart (auth mode none, development only), and the diagnosis is shown whole.
     */
    private readonly readsSources?: (caller: ApiUser | undefined, namespaces: readonly string[]) => Promise<boolean>,
  ) {}

  /** The diagnosis of a run (default: the newest run that did not pass). */
  async diagnosis(name: string, namespace: string | undefined, runId: string | undefined, caller?: ApiUser): Promise<RunDiagnosis> {
    const { ns, runs } = this.runsOf(name, namespace);
    const run = runId
      ? this.runById(runs, ns, name, runId)
      : [...runs].reverse().find((candidate) => candidate.report.spec.result !== 'pass');
    if (!run) throw new ProblemError('not-found', `RestoreTest "${name}" in namespace "${ns}" has no failed or partial run.`);
    if (run.report.spec.result === 'pass') {
      throw new ProblemError('not-found', `Run ${run.report.spec.runId} of "${name}" passed: only failed and partial runs are diagnosed.`);
    }
    const diagnosis =
      this.diagnoses && (await this.diagnoses.load({ namespace: ns, name: run.report.metadata.name, runId: run.report.spec.runId }));
    if (!diagnosis) {
      throw new ProblemError(
        'not-found',
        `Run ${run.report.spec.runId} of "${name}" has no diagnosis (it had no sandbox, or it ended before diagnostics were collected).`,
      );
    }
    const sources = run.report.spec.sourceNamespaces;
    if (!this.readsSources || (await this.readsSources(caller, sources))) return diagnosis;
    return redactDiagnosis(diagnosis, sources);
  }

  /** What the receivers of `event` get for a run (default: the newest run). */
  notificationPreview(
    name: string,
    namespace: string | undefined,
    event: NotificationEvent,
    runId: string | undefined,
  ): RunNotification {
    const { ns, runs } = this.runsOf(name, namespace);
    const run = runId ? this.runById(runs, ns, name, runId) : runs.at(-1);
    if (!run) throw new ProblemError('not-found', `RestoreTest "${name}" in namespace "${ns}" has no run yet.`);
    const report = this.cache.fullReport(run.key) as RestoreReport | undefined;
    if (!report) throw new ProblemError('not-found', `The report of run ${run.report.spec.runId} is gone.`);
    const previous = this.cache.reportIndex.previousRun(run);
    return buildRunNotification(report, event, previous?.report.spec.score);
  }

  private runsOf(name: string, namespace: string | undefined): { ns: string; runs: readonly IndexedRun[] } {
    requireSynced(this.cache);
    const ns = namespace || this.serverNamespace;
    if (!this.cache.getTest(ns, name)) {
      throw new ProblemError('not-found', `RestoreTest "${name}" not found in namespace "${ns}".`);
    }
    return { ns, runs: this.cache.reportIndex.runsOfTest(`${ns}/${name}`) };
  }

  private runById(runs: readonly IndexedRun[], ns: string, name: string, runId: string): IndexedRun {
    const run = runs.find((candidate) => candidate.report.spec.runId === runId);
    if (!run) throw new ProblemError('not-found', `RestoreTest "${name}" in namespace "${ns}" has no run "${runId}".`);
    return run;
  }
}
