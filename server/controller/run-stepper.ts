// Moves a run one stage forward: Preparing → Restoring → Validating → (report) and Finalizing for
// runs that failed early. Each step is a few idempotent API calls (deterministic names from the
// run id), so repeating a step after a crash or a status Conflict is harmless. Long work — the
// restore and the health checks — runs elsewhere: the restore in the backup tool (polled), the
// checks in a background task whose result the next reconcile picks up.
import type { AppsV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { runChecks, type RunChecksOptions } from '../checks/check-runner.js';
import { checksForRun } from '../checks/default-checks.js';
import type { SandboxReader } from '../checks/sandbox-reader.js';
import type { TargetResolver } from '../checks/target-resolver.js';
import { parseDuration } from '../domain/duration.js';
import { buildReportSpec, type RestoreFacts, type RunObservations } from '../domain/report-builder.js';
import {
  API_VERSION,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  LABEL_TEST,
  MANAGED_BY_VALUE,
  type CheckResult,
  type CurrentRun,
  type HealthCheck,
  type RestoreReport,
  type RestoreTest,
  type RunResult,
} from '../domain/resources.js';
import { reportName, restoreObjectName, sandboxNamespaceName } from '../domain/sandbox-names.js';
import { isKind, kubeCall } from '../kube/errors.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { Metrics } from '../metrics.js';
import {
  buildNamespaceMapping,
  ProviderError,
  type BackupProvider,
  type RestoreProgress,
} from '../providers/provider.js';
import type { EventRecorder } from './events.js';
import { SandboxManager, SandboxTakenError, sandboxLabels, type CreatedSandbox } from './sandbox.js';

export type StepOutcome =
  | { kind: 'progress'; run?: CurrentRun; requeueAfterMs: number }
  | { kind: 'done'; result: RunResult; score: number; completedAt: string; reportName: string };

export interface EvidenceSigner {
  /** Adds spec.evidence (digest chained to the previous report, signature, key id). */
  /** `previous`: the newest cached report of the test (the signer may find a newer one live). */
  sign(report: RestoreReport, previous: RestoreReport | undefined): Promise<RestoreReport>;
  /** Records a created report as its test's evidence anchor (status.evidenceAnchor, metrics). */
  recordAnchor?(report: RestoreReport): Promise<void>;
}

export interface RunStepperDeps {
  cache: RehearsalCache;
  client: RehearsalClient;
  providers: Partial<Record<string, BackupProvider>>;
  sandboxes: SandboxManager;
  apps: AppsV1Api;
  reader: SandboxReader;
  targets: TargetResolver;
  events: EventRecorder;
  metrics: Metrics;
  log: Logger;
  now: () => Date;
  enqueue: (key: string) => void;
  pollIntervalMs: number;
  podReadyTimeoutSeconds: number;
  proberNamespace: string;
  proberPodLabels: Record<string, string>;
  signer?: EvidenceSigner;
  /** Hook for tests that stop the process at a chosen point ("crash tests"). */
  onStage?: (stage: string, test: RestoreTest, run: CurrentRun) => void;
  /** HOOK (issue 16, failure triage): awaited before a failed/partial run's sandbox may go. */
  beforeSandboxRelease?: (report: RestoreReport) => Promise<void>;
}

interface CheckTask {
  runId: string;
  done: boolean;
  results?: CheckResult[];
  completedAt?: Date;
  controller: AbortController;
}

const DEFAULT_TTL_SECONDS = 3600;

function ttlSeconds(test: RestoreTest): number {
  return parseDuration(test.spec.sandbox?.ttl ?? '1h') ?? DEFAULT_TTL_SECONDS;
}

function keyOf(test: RestoreTest): string {
  return `${test.metadata.namespace}/${test.metadata.name}`;
}

export class RunStepper {
  private readonly checkTasks = new Map<string, CheckTask>();

  constructor(private readonly deps: RunStepperDeps) {}

  /** Drops in-memory work of a test (deleted, or its run finished). */
  forget(key: string): void {
    const task = this.checkTasks.get(key);
    task?.controller.abort();
    this.checkTasks.delete(key);
  }

  async step(test: RestoreTest, run: CurrentRun, now: Date): Promise<StepOutcome> {
    this.deps.onStage?.(run.stage, test, run);
    const startedAt = new Date(run.startedAt ?? run.queuedAt);
    const deadline = startedAt.getTime() + ttlSeconds(test) * 1000;
    if (run.stage !== 'Finalizing' && now.getTime() > deadline) {
      return this.fail(
        run,
        'TTLExceeded',
        `the run did not finish within the sandbox ttl (${test.spec.sandbox?.ttl ?? '1h'})`,
      );
    }
    switch (run.stage) {
      case 'Queued':
        return { kind: 'progress', requeueAfterMs: this.deps.pollIntervalMs };
      case 'Preparing':
        return this.prepare(test, run, now);
      case 'Restoring':
        return this.pollRestore(test, run, now);
      case 'Validating':
        return this.validate(test, run, now);
      case 'Finalizing':
        return this.finish(test, run, now, undefined);
    }
  }

  private fail(run: CurrentRun, reason: string, message: string): StepOutcome {
    return {
      kind: 'progress',
      run: { ...run, stage: 'Finalizing', failure: { reason, message } },
      requeueAfterMs: 0,
    };
  }

  private provider(test: RestoreTest): BackupProvider | undefined {
    return this.deps.providers[test.spec.provider];
  }

  // ---------------------------------------------------------------- Preparing

  private async prepare(test: RestoreTest, run: CurrentRun, now: Date): Promise<StepOutcome> {
    const provider = this.provider(test);
    if (!provider) {
      return this.fail(
        run,
        'ProviderUnsupported',
        `provider ${test.spec.provider} is not available in this installation`,
      );
    }
    const sources = test.spec.backupSource.namespaces.map((namespace) => namespace.name);
    const providerNamespace = test.spec.backupSource.providerNamespace;
    let backup;
    try {
      backup = await provider.selectBackup(
        sources,
        test.spec.backupSource.backupName ?? 'latest',
        providerNamespace,
      );
    } catch (error) {
      if (error instanceof ProviderError && error.reason !== 'ProviderUnavailable') {
        return this.fail(run, error.reason, error.message);
      }
      throw error;
    }
    const prefix = test.spec.sandbox?.namespacePrefix ?? 'rehearsal';
    const entries = sources.map((source, index) => ({
      source,
      sandbox: sandboxNamespaceName(prefix, test.metadata.name, run.id, sources.length > 1 ? index : 0),
    }));
    // Built before anything is written: an incomplete mapping throws here, never reaching the tool.
    const mapping = buildNamespaceMapping(
      sources,
      (source) => entries.find((entry) => entry.source === source)?.sandbox,
    );
    const startedAt = new Date(run.startedAt ?? run.queuedAt);
    let sandboxes: CreatedSandbox[];
    try {
      sandboxes = await this.deps.sandboxes.create({
        test,
        runId: run.id,
        entries,
        expiresAt: new Date(startedAt.getTime() + ttlSeconds(test) * 1000),
        proberNamespace: this.deps.proberNamespace,
        proberPodLabels: this.deps.proberPodLabels,
        recordedUids: Object.fromEntries((run.sandboxNamespaces ?? []).flatMap((entry) => (entry.uid ? [[entry.sandbox, entry.uid]] : []))),
      });
    } catch (error) {
      // Decisions §9: a namespace Rehearsal did not create is never restored into.
      if (error instanceof SandboxTakenError) {
        return this.fail({ ...run, sandboxNamespaces: error.created }, error.reason, error.message);
      }
      throw error;
    }
    const restore = await provider.startRestore(
      {
        name: restoreObjectName(test.metadata.name, run.id),
        backup,
        mapping,
        labels: sandboxLabels(test, run.id),
      },
      providerNamespace,
    );
    this.deps.onStage?.('RestoreRequested', test, run);
    return {
      kind: 'progress',
      run: {
        ...run,
        stage: 'Restoring',
        sandboxNamespaces: sandboxes,
        backup: {
          name: backup.name,
          ...(backup.completedAt ? { completedAt: backup.completedAt } : {}),
          ...(backup.totalItems !== undefined ? { totalItems: backup.totalItems } : {}),
        },
        restore,
        restoreRequestedAt: run.restoreRequestedAt ?? now.toISOString(),
      },
      requeueAfterMs: this.deps.pollIntervalMs,
    };
  }

  // ---------------------------------------------------------------- Restoring

  private async pollRestore(test: RestoreTest, run: CurrentRun, now: Date): Promise<StepOutcome> {
    const provider = this.provider(test);
    if (!provider || !run.restore) return this.fail(run, 'RestoreLost', 'the run has no restore to follow');
    let progress: RestoreProgress;
    try {
      progress = await provider.getRestoreProgress(run.restore);
    } catch (error) {
      if (error instanceof ProviderError && error.reason === 'RestoreNotFound') {
        return this.fail(
          run,
          'RestoreLost',
          `the restore ${run.restore.name} disappeared before it finished`,
        );
      }
      throw error;
    }
    if (progress.state === 'pending' || progress.state === 'running') {
      return { kind: 'progress', requeueAfterMs: this.deps.pollIntervalMs };
    }
    if (progress.state === 'failed') {
      return {
        kind: 'progress',
        run: {
          ...run,
          stage: 'Finalizing',
          restorePhase: progress.phase,
          failure: {
            reason: 'RestoreFailed',
            message: progress.message ?? `the restore ended ${progress.phase}`,
          },
        },
        requeueAfterMs: 0,
      };
    }
    this.deps.events.record(
      test,
      progress.state === 'succeeded' ? 'Normal' : 'Warning',
      'RestoreDone',
      `run ${run.id}: restore ${run.restore.name} ${progress.phase} (${progress.itemsRestored ?? '?'} items, ${progress.warnings} warnings)`,
    );
    return {
      kind: 'progress',
      run: {
        ...run,
        stage: 'Validating',
        restorePhase: progress.phase,
        restoreCompletedAt: progress.completedAt ?? now.toISOString(),
      },
      requeueAfterMs: 0,
    };
  }

  // ---------------------------------------------------------------- Validating

  private async validate(test: RestoreTest, run: CurrentRun, now: Date): Promise<StepOutcome> {
    const existing = await this.existingReport(test, run);
    if (existing) return this.settle(test, run, existing);

    if (!run.podsReadyAt) {
      const pods = await this.countPods(run);
      const restoredAt = new Date(run.restoreCompletedAt ?? run.restoreRequestedAt ?? now.toISOString());
      const waited = (now.getTime() - restoredAt.getTime()) / 1000;
      if (pods.ready >= pods.expected) {
        return { kind: 'progress', run: { ...run, podsReadyAt: now.toISOString() }, requeueAfterMs: 0 };
      }
      if (waited < this.deps.podReadyTimeoutSeconds) {
        return { kind: 'progress', requeueAfterMs: this.deps.pollIntervalMs };
      }
      // Pods never all became Ready: validate anyway, the score will say so.
    }

    const key = keyOf(test);
    const task = this.checkTasks.get(key);
    if (!task || task.runId !== run.id) {
      this.startChecks(key, test, run);
      return { kind: 'progress', requeueAfterMs: 30_000 };
    }
    if (!task.done) return { kind: 'progress', requeueAfterMs: 30_000 };
    return this.finish(test, run, now, { results: task.results ?? [], completedAt: task.completedAt ?? now });
  }

  private startChecks(key: string, test: RestoreTest, run: CurrentRun): void {
    this.deps.onStage?.('ChecksStarted', test, run);
    const controller = new AbortController();
    const task: CheckTask = { runId: run.id, done: false, controller };
    this.checkTasks.set(key, task);
    const namespaces = run.sandboxNamespaces ?? [];
    const configured = this.configuredChecks(test);
    const options: RunChecksOptions = {
      reader: this.deps.reader,
      targets: this.deps.targets,
      namespaces,
      signal: controller.signal,
    };
    void runChecks(checksForRun(configured, namespaces), options)
      .then((results) => {
        task.results = results;
      })
      .catch((error: unknown) => {
        this.deps.log.error({ err: error, test: key }, 'check runner failed');
        task.results = [];
      })
      .finally(() => {
        task.done = true;
        task.completedAt = this.deps.now();
        this.deps.enqueue(key);
      });
  }

  private configuredChecks(test: RestoreTest): HealthCheck[] | undefined {
    if (test.spec.healthChecks?.checks?.length) return test.spec.healthChecks.checks;
    if (test.spec.healthCheckPolicy) {
      const policy = this.deps.cache.getPolicy(test.metadata.namespace ?? '', test.spec.healthCheckPolicy);
      // A missing policy must not silently fall back to the lenient default checks.
      if (!policy) {
        return [
          {
            name: `policy/${test.spec.healthCheckPolicy}`,
            kind: 'resourceExists',
            resourceExists: {
              apiVersion: API_VERSION,
              kind: 'HealthCheckPolicy',
              name: test.spec.healthCheckPolicy,
            },
          },
        ];
      }
      return policy.spec.checks;
    }
    return undefined;
  }

  private async countPods(run: CurrentRun): Promise<{ expected: number; ready: number }> {
    let expected = 0;
    let ready = 0;
    for (const { sandbox } of run.sandboxNamespaces ?? []) {
      const [pods, deployments, statefulSets] = await Promise.all([
        this.deps.reader.listPods(sandbox),
        kubeCall(() => this.deps.apps.listNamespacedDeployment({ namespace: sandbox })),
        kubeCall(() => this.deps.apps.listNamespacedStatefulSet({ namespace: sandbox })),
      ]);
      const desired =
        deployments.items.reduce((sum, item) => sum + (item.spec?.replicas ?? 1), 0) +
        statefulSets.items.reduce((sum, item) => sum + (item.spec?.replicas ?? 1), 0);
      const live = pods.filter((pod) => !pod.terminating && pod.phase !== 'Succeeded');
      expected += Math.max(desired, live.length);
      ready += live.filter((pod) => pod.ready).length;
    }
    return { expected, ready };
  }

  // ---------------------------------------------------------------- the report

  private async existingReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport | undefined> {
    const name = reportName(test.metadata.name, run.id);
    const cached = this.deps.cache.getReport(test.metadata.namespace ?? '', name);
    if (cached) return cached;
    try {
      return await this.deps.client.getReport(test.metadata.namespace ?? '', name);
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  private async restoreFacts(test: RestoreTest, run: CurrentRun): Promise<RestoreFacts | undefined> {
    const provider = this.provider(test);
    if (!provider || !run.restore) return undefined;
    try {
      const progress = await provider.getRestoreProgress(run.restore);
      return {
        phase: progress.phase,
        succeeded: progress.state === 'succeeded' || progress.state === 'partiallyFailed',
        partiallyFailed: progress.state === 'partiallyFailed',
        warnings: progress.warnings,
        errors: progress.errors,
        ...(progress.itemsRestored !== undefined ? { itemsRestored: progress.itemsRestored } : {}),
        ...(progress.totalItems !== undefined ? { totalItems: progress.totalItems } : {}),
      };
    } catch (error) {
      if (error instanceof ProviderError && error.reason === 'RestoreNotFound') {
        return {
          phase: run.restorePhase ?? 'Unknown',
          succeeded: false,
          partiallyFailed: false,
          warnings: 0,
          errors: 0,
        };
      }
      throw error;
    }
  }

  private async finish(
    test: RestoreTest,
    run: CurrentRun,
    now: Date,
    checks: { results: CheckResult[]; completedAt: Date } | undefined,
  ): Promise<StepOutcome> {
    const existing = await this.existingReport(test, run);
    if (existing) return this.settle(test, run, existing);

    const restore = await this.restoreFacts(test, run);
    const restored = restore?.succeeded === true && run.failure === undefined;
    const pods = restored ? await this.countPods(run) : undefined;
    const results = checks?.results ?? [];
    const sandboxesHealthy = restored
      ? (run.sandboxNamespaces ?? []).map((entry) => ({
          sandbox: entry.sandbox,
          healthy: results
            .filter((result) => this.checkSource(test, result.name, entry.source, run))
            .every((result) => result.status === 'pass' || result.status === 'skip'),
        }))
      : undefined;
    const observations: RunObservations = {
      test,
      run,
      completedAt: now,
      ...(restore ? { restore } : {}),
      ...(pods ? { pods } : {}),
      checks: results,
      ...(sandboxesHealthy ? { sandboxesHealthy } : {}),
      ...(checks ? { checksCompletedAt: checks.completedAt } : {}),
      ...(run.failure ? { failure: run.failure } : {}),
    };
    const spec = buildReportSpec(observations, test.spec.provider);
    let report: RestoreReport = {
      apiVersion: API_VERSION,
      kind: 'RestoreReport',
      metadata: {
        name: reportName(test.metadata.name, run.id),
        namespace: test.metadata.namespace,
        labels: {
          [LABEL_TEST]: test.metadata.name,
          [LABEL_RUN]: run.id,
          [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
        },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'RestoreTest',
            name: test.metadata.name,
            uid: test.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec,
    };
    if (this.deps.signer) {
      const namespace = test.metadata.namespace ?? '';
      const newest = this.deps.cache.reportsOfTest(namespace, test.metadata.name).at(-1);
      // The summary has no evidence: the whole newest report carries the digest to chain to.
      const previous = newest && this.deps.cache.getReport(namespace, newest.metadata.name);
      report = await this.deps.signer.sign(report, previous);
    }
    this.deps.onStage?.('ReportWriting', test, run);
    let written: RestoreReport;
    try {
      written = await this.deps.client.createReport(report);
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
      written = await this.deps.client.getReport(test.metadata.namespace ?? '', report.metadata.name);
    }
    // After the create, never before: the anchor must not name a report that does not exist.
    await this.deps.signer?.recordAnchor?.(written);
    this.announce(test, written);
    return this.settle(test, run, written);
  }

  /** Which source namespace a check result belongs to (for the cross-namespace level). */
  private checkSource(test: RestoreTest, checkName: string, source: string, run: CurrentRun): boolean {
    const configured = this.configuredChecks(test);
    const first = run.sandboxNamespaces?.[0]?.source;
    if (!configured) return checkName.endsWith(`/${source}`);
    const check = configured.find((candidate) => candidate.name === checkName);
    const target = check?.resourceExists?.sourceNamespace ?? check?.sourceNamespace ?? first;
    return target === source;
  }

  /** After the report exists: clean up and tell the reconciler the run is over. */
  private async settle(test: RestoreTest, run: CurrentRun, report: RestoreReport): Promise<StepOutcome> {
    const provider = this.provider(test);
    if (provider && run.restore) {
      try {
        await provider.deleteRestore(run.restore);
      } catch (error) {
        if (!(error instanceof ProviderError && error.reason === 'RestoreNotFound')) throw error;
      }
    }
    const startedAt = new Date(run.startedAt ?? run.queuedAt);
    // HOOK (issue 16): diagnose a failed/partial run while its sandbox still exists.
    if (report.spec.result !== 'pass') await this.deps.beforeSandboxRelease?.(report);
    for (const { sandbox } of run.sandboxNamespaces ?? []) {
      // A passing sandbox has nothing left to show; others stay for inspection until the ttl.
      if (report.spec.result === 'pass') await this.deps.sandboxes.delete(sandbox);
      else
        await this.deps.sandboxes.keepUntil(sandbox, new Date(startedAt.getTime() + ttlSeconds(test) * 1000));
    }
    await this.prune(test, report);
    return {
      kind: 'done',
      result: report.spec.result,
      score: report.spec.score,
      completedAt: report.spec.completedAt,
      reportName: report.metadata.name,
    };
  }

  /** Keeps at most historyLimit reports of the test, deleting the oldest first. */
  private async prune(test: RestoreTest, newest: RestoreReport): Promise<void> {
    const limit = test.spec.historyLimit ?? 90;
    const history = this.deps.cache
      .reportsOfTest(test.metadata.namespace ?? '', test.metadata.name)
      .filter((report) => report.metadata.name !== newest.metadata.name);
    history.push(newest);
    const excess = history.length - limit;
    for (const report of history.slice(0, Math.max(0, excess))) {
      try {
        await this.deps.client.deleteReport(report.metadata.namespace ?? '', report.metadata.name);
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
    const age = spec.backup.completedAt
      ? (new Date(spec.startedAt).getTime() - new Date(spec.backup.completedAt).getTime()) / 1000
      : undefined;
    if (age !== undefined) metrics.backupAgeSeconds.set(labels, Math.max(0, age));
    metrics.lastCompletedRun.set(labels, new Date(spec.completedAt).getTime() / 1000);
    metrics.runs.inc({ ...labels, result: spec.result });
    metrics.runDuration.observe(
      (new Date(spec.completedAt).getTime() - new Date(spec.startedAt).getTime()) / 1000,
    );

    const summary = `run ${spec.runId}: score ${spec.score}, ${spec.result}${spec.rto.measured ? `, RTO ${spec.rto.measured}` : ''}${spec.failure ? ` (${spec.failure.reason}: ${spec.failure.message})` : ''}`;
    const reason =
      spec.result === 'pass' ? 'RunPassed' : spec.result === 'partial' ? 'RunPartial' : 'RunFailed';
    this.deps.events.record(test, spec.result === 'pass' ? 'Normal' : 'Warning', reason, summary);
    if (spec.rto.withinSLA === false) {
      this.deps.events.record(
        test,
        'Warning',
        'SLAExceeded',
        `run ${spec.runId}: RTO ${spec.rto.measured} exceeds the target ${spec.rto.target}`,
      );
    }
    const previous = test.status?.lastScore;
    if (previous !== undefined && test.status?.lastRunAt && spec.score < previous - 10) {
      this.deps.events.record(
        test,
        'Warning',
        'ScoreRegressed',
        `run ${spec.runId}: score ${spec.score}, previous run ${previous}`,
      );
    }
  }
}
