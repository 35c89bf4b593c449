// What the harness sees of the cluster, through the server's own resilient informer
// (server/kube/informer.ts: relists and rewatches with backoff, so it survives every fault the soak
// injects): the RestoreTests (whose status.currentRun records each run) and the RestoreReports,
// reduced to the fields the driver and the invariants read. Watched as the administrator, apart
// from any replica: the servers' own caches are what is under test.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import {
  ANNOTATION_TRIGGER,
  API_VERSION,
  type RestoreReport,
  type RestoreTest,
  type RunStage,
} from '../../server/domain/resources/resources.js';
import { ResilientInformer } from '../../server/kube/informer.js';
import { expandReport } from '../../server/report-codec/report-encoding.js';
import type { RunPermissionReason } from '../../server/domain/permissions/run-permission.js';

export interface TestView {
  namespace: string;
  name: string;
  run?: { id: string; stage: RunStage; trigger: string; queuedAt: string };
  /** The trigger-request annotation, and the last value the engine acted on. */
  triggerRequest?: string;
  handledTrigger?: string;
  suspended: boolean;
}

export interface ReportView {
  namespace: string;
  name: string;
  test: string;
  runId: string;
  trigger: string;
  startedAt: string;
  completedAt: string;
  result: string;
  /** Why a run that did not pass did not: its failure reason, else its checks in one line. */
  why?: string;
  /**
   * The run was refused before it started (a run-permission reason): it never held a slot, and its
   * report's startedAt is when it was queued (report-builder.ts: startedAt ?? queuedAt).
   */
  refusedBeforeStart?: boolean;
}

/** The failure reasons of a run refused in the Queued stage (domain/permissions/run-permission.ts). */
const REFUSED_BEFORE_START: ReadonlySet<string> = new Set<RunPermissionReason>([
  'AdmissionPoliciesMissing',
  'HealthCheckPolicyNotAllowed',
  'NoRecordedAuthor',
  'AuthorLacksRights',
  'AuthorCheckFailed',
]);

export class ClusterView {
  readonly tests: ResilientInformer<TestView>;
  readonly reports: ResilientInformer<ReportView>;

  constructor(admin: KubeConfig, namespace: string) {
    const log = pino({ level: 'silent' });
    this.tests = new ResilientInformer<TestView>(
      admin,
      {
        name: 'soak-tests',
        apiVersion: API_VERSION,
        kind: 'RestoreTest',
        collectionPath: `/apis/${API_VERSION}/namespaces/${namespace}/restoretests`,
        namespace,
        project: (object) => testView(object as unknown as RestoreTest),
        watchList: false,
      },
      log,
    );
    this.reports = new ResilientInformer<ReportView>(
      admin,
      {
        name: 'soak-reports',
        apiVersion: API_VERSION,
        kind: 'RestoreReport',
        collectionPath: `/apis/${API_VERSION}/namespaces/${namespace}/restorereports`,
        namespace,
        project: (object) => reportView(object),
        watchList: false,
      },
      log,
    );
  }

  async start(): Promise<void> {
    await Promise.all([this.tests.start(), this.reports.start()]);
  }

  stop(): void {
    this.tests.stop();
    this.reports.stop();
  }

  test(name: string): TestView | undefined {
    for (const test of this.tests.values()) if (test.name === name) return test;
    return undefined;
  }
}

function testView(test: RestoreTest): TestView {
  const run = test.status?.currentRun;
  return {
    namespace: test.metadata.namespace ?? '',
    name: test.metadata.name,
    ...(run ? { run: { id: run.id, stage: run.stage, trigger: run.trigger, queuedAt: run.queuedAt } } : {}),
    ...(test.metadata.annotations?.[ANNOTATION_TRIGGER] ? { triggerRequest: test.metadata.annotations[ANNOTATION_TRIGGER] } : {}),
    ...(test.status?.handledTrigger ? { handledTrigger: test.status.handledTrigger } : {}),
    suspended: test.spec.schedule?.suspend === true,
  };
}

function reportView(object: KubernetesObject): ReportView {
  const report: RestoreReport = expandReport(object as unknown as RestoreReport);
  return {
    namespace: report.metadata.namespace ?? '',
    name: report.metadata.name,
    test: report.spec.testRef?.name ?? '',
    runId: report.spec.runId,
    trigger: report.spec.trigger,
    startedAt: report.spec.startedAt,
    completedAt: report.spec.completedAt,
    result: report.spec.result,
    ...(report.spec.result === 'pass' ? {} : { why: whyNotPassed(report) }),
    ...(REFUSED_BEFORE_START.has(report.spec.failure?.reason ?? '') ? { refusedBeforeStart: true } : {}),
  };
}

/** The failure, else the checks and the score levels that lost points. */
function whyNotPassed(report: RestoreReport): string {
  if (report.spec.failure) return `${report.spec.failure.reason}: ${report.spec.failure.message}`;
  const lost = (report.spec.levels ?? [])
    .filter((level) => level.points < level.maxPoints)
    .map((level) => `${level.name} ${level.points}/${level.maxPoints} (${level.detail})`);
  return [`score ${report.spec.score}`, report.spec.checkSummary ?? '', ...lost].filter(Boolean).join('; ');
}
