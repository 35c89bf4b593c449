// RunActions against the real cluster: the backup provider, the sandbox manager, the sandbox
// reader, the status subresource, Events and the report writer. Every write first checks that the
// leadership term is still current: a reconcile that was in flight when leadership was lost stops
// at its next write instead of racing the new leader.
import type { DependencyReader } from '../../checks/dependency-reader.js';
import type { SandboxReader } from '../../checks/sandbox-reader.js';
import type { BackupChoice, BackupObservation, ChecksObservation, RestoreObservation } from '../../domain/run/run-policy.js';
import { runDeadline, type RunBounds } from '../../domain/run/run-policy.js';
import type { CurrentRun, RestoreReport, RestoreTest, RestoreTestStatus } from '../../domain/resources/resources.js';
import { restoreObjectName, sandboxNamespaceName } from '../../domain/run/sandbox-names.js';
import { isKind } from '../../kube/errors.js';
import type { RehearsalCache } from '../../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';
import { buildNamespaceMapping, ProviderError, type BackupProvider } from '../../providers/provider.js';
import { configuredChecks, type CheckTasks } from './check-tasks.js';
import { observeDependencies } from './dependency-scan.js';
import { observeKinds, type KindLister } from './kind-completeness.js';
import { observeTransforms } from './transform-observation.js';
import { resolveTransforms } from '../../domain/run/restore-transforms.js';
import type { PodSecurityPlanner } from '../sandbox/pod-security.js';
import type { EventRecorder, EventType } from '../events.js';
import type { ReportWriter } from './report-writer.js';
import type { RunActions } from './run-actions.js';
import type { Admission, RunAdmission } from './run-slots.js';
import { SandboxManager, SandboxTakenError, sandboxLabels, type CreatedSandbox } from '../sandbox/sandbox.js';

/** The sandbox reads the engine needs besides the checks' (pods expected from the workloads). */
export interface RunSandboxReader extends Pick<SandboxReader, 'listPods'>, KindLister {
  desiredPods(namespace: string): Promise<number>;
}

export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

export interface KubeRunActionsDeps {
  cache: Pick<RehearsalCache, 'getPolicy'>;
  client: Pick<RehearsalClient, 'replaceTestStatus'>;
  providers: Partial<Record<string, BackupProvider>>;
  sandboxes: SandboxManager;
  /** The sandboxes' Pod Security profiles (never looser than their sources). */
  podSecurity: PodSecurityPlanner;
  reader: RunSandboxReader;
  dependencyReader: DependencyReader;
  /** For `<service>.<namespace>.svc.<clusterDomain>` references. */
  clusterDomain?: string;
  checkTasks: CheckTasks;
  admission: RunAdmission;
  writer: ReportWriter;
  events: EventRecorder;
  /** The current leadership term; aborted when it ends. */
  term: () => AbortSignal;
  enqueue: (key: string) => void;
  bounds: (test: RestoreTest) => RunBounds;
  now: () => Date;
  /** HOOK (issue 16, failure triage): awaited before a failed/partial run's sandbox may go. */
  beforeSandboxRelease?: (report: RestoreReport) => Promise<void>;
  proberNamespace: string;
  proberPodLabels: Record<string, string>;
}

export class KubeRunActions implements RunActions {
  constructor(private readonly deps: KubeRunActionsDeps) {}

  leading(): boolean {
    return !this.deps.term().aborted;
  }

  admit(test: RestoreTest): Admission {
    return this.deps.admission.admit(test);
  }

  async selectBackup(test: RestoreTest): Promise<BackupObservation> {
    const provider = this.deps.providers[test.spec.provider];
    if (!provider) {
      return { state: 'rejected', reason: 'ProviderUnsupported', message: `provider ${test.spec.provider} is not available in this installation` };
    }
    const source = test.spec.backupSource;
    try {
      const backup = await provider.selectBackup(source.namespaces.map((entry) => entry.name), source.backupName ?? 'latest', source.providerNamespace);
      return {
        state: 'found',
        backup: {
          name: backup.name,
          ...(backup.completedAt ? { completedAt: backup.completedAt } : {}),
          ...(backup.totalItems !== undefined ? { totalItems: backup.totalItems } : {}),
        },
      };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.reason === 'ProviderUnavailable') return { state: 'unavailable', message: error.message };
      return { state: 'rejected', reason: error.reason, message: error.message };
    }
  }

  async restoreProgress(test: RestoreTest, run: CurrentRun): Promise<RestoreObservation> {
    const provider = this.deps.providers[test.spec.provider];
    if (!provider || !run.restore) return { state: 'missing' };
    try {
      const progress = await provider.getRestoreProgress(run.restore);
      switch (progress.state) {
        case 'pending':
        case 'running':
          return { state: progress.state, phase: progress.phase };
        case 'failed':
          return { state: 'failed', phase: progress.phase, ...(progress.message ? { message: progress.message } : {}) };
        default:
          return {
            state: progress.state,
            phase: progress.phase,
            warnings: progress.warnings,
            ...(progress.completedAt ? { completedAt: progress.completedAt } : {}),
            ...(progress.itemsRestored !== undefined ? { itemsRestored: progress.itemsRestored } : {}),
          };
      }
    } catch (error) {
      if (error instanceof ProviderError && error.reason === 'RestoreNotFound') return { state: 'missing' };
      if (error instanceof ProviderError && error.reason === 'ProviderUnavailable') return { state: 'unavailable', message: error.message };
      throw error;
    }
  }

  async countPods(run: CurrentRun): Promise<{ expected: number; ready: number }> {
    let expected = 0;
    let ready = 0;
    for (const { sandbox } of run.sandboxNamespaces ?? []) {
      const [pods, desired] = await Promise.all([this.deps.reader.listPods(sandbox), this.deps.reader.desiredPods(sandbox)]);
      // Restored Pods of a Job are held on purpose (restore transforms): never expected to start.
      const live = pods.filter((pod) => !pod.terminating && pod.phase !== 'Succeeded' && !pod.held);
      expected += Math.max(desired, live.length);
      ready += live.filter((pod) => pod.ready).length;
    }
    return { expected, ready };
  }

  checks(test: RestoreTest, run: CurrentRun): ChecksObservation {
    return this.deps.checkTasks.state(test, run);
  }

  findReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport | undefined> {
    return this.deps.writer.find(test, run.id);
  }

  async prepare(test: RestoreTest, run: CurrentRun, backup: BackupChoice): Promise<CurrentRun> {
    this.assertLeading();
    const provider = this.deps.providers[test.spec.provider];
    if (!provider) throw new ProviderError('ProviderUnavailable', `provider ${test.spec.provider} is not available`);
    const sources = test.spec.backupSource.namespaces.map((namespace) => namespace.name);
    const prefix = test.spec.sandbox?.namespacePrefix ?? 'rehearsal';
    const entries = sources.map((source, index) => ({
      source,
      sandbox: sandboxNamespaceName(prefix, test.metadata.name, run.id, sources.length > 1 ? index : 0),
    }));
    // Built before anything is written: an incomplete mapping throws here, never reaching the tool.
    const mapping = buildNamespaceMapping(sources, (source) => entries.find((entry) => entry.source === source)?.sandbox);
    // Decided before the sandboxes exist: they are created with their Pod Security labels.
    const podSecurity = await this.deps.podSecurity.plan(test, entries);
    let sandboxes: CreatedSandbox[];
    try {
      sandboxes = await this.deps.sandboxes.create({
        test,
        runId: run.id,
        entries,
        expiresAt: runDeadline(run, this.deps.bounds(test)),
        proberNamespace: this.deps.proberNamespace,
        proberPodLabels: this.deps.proberPodLabels,
        recordedUids: Object.fromEntries((run.sandboxNamespaces ?? []).flatMap((entry) => (entry.uid ? [[entry.sandbox, entry.uid]] : []))),
        podSecurity: Object.fromEntries(podSecurity.map((entry) => [entry.sandbox, entry.level])),
      });
    } catch (error) {
      // Decisions §9: a namespace Rehearsal did not create is never restored into. The run ends
      // here (Finalizing, then its report), keeping only the sandboxes it did create.
      if (!(error instanceof SandboxTakenError)) throw error;
      return { ...run, sandboxNamespaces: error.created, stage: 'Finalizing', failure: { reason: error.reason, message: error.message } };
    }
    this.assertLeading();
    // selectBackup has just checked that the backup covers every source; the request uses its name.
    const owner = sandboxes[0];
    const restore = await provider.startRestore(
      {
        name: restoreObjectName(test.metadata.name, run.id),
        backup: { ...backup, includedNamespaces: sources },
        mapping,
        labels: sandboxLabels(test, run.id),
        transforms: resolveTransforms(test.spec.restore),
        ...(owner?.uid ? { owner: { name: owner.sandbox, uid: owner.uid } } : {}),
      },
      test.spec.backupSource.providerNamespace,
    );
    return { ...run, stage: 'Restoring', sandboxNamespaces: sandboxes, backup, restore, restoreRequestedAt: run.restoreRequestedAt ?? this.deps.now().toISOString() };
  }

  startChecks(test: RestoreTest, run: CurrentRun): void {
    if (!this.leading()) return;
    this.deps.checkTasks.start(test, run, configuredChecks(test, (namespace, name) => this.deps.cache.getPolicy(namespace, name)));
  }

  async writeReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport> {
    this.assertLeading();
    const checks = this.deps.checkTasks.result(test, run);
    const restore = await this.restoreFacts(test, run);
    const restored = restore?.succeeded === true && run.failure === undefined;
    const pods = restored ? await this.countPods(run) : undefined;
    const provider = this.deps.providers[test.spec.provider];
    const transforms = resolveTransforms(test.spec.restore);
    const observedKinds = restored && provider ? await observeKinds(provider, this.deps.reader, test, run, transforms) : undefined;
    const kinds = observedKinds?.kinds;
    const transformed = restored && provider ? await observeTransforms(provider, this.deps.reader, run, transforms, observedKinds?.excluded) : undefined;
    const podSecurity = await this.deps.podSecurity.observe(test, run);
    const configured = configuredChecks(test, (namespace, name) => this.deps.cache.getPolicy(namespace, name));
    const results = checks?.results ?? [];
    const dependencies = restored ? await observeDependencies(this.deps.dependencyReader, run.sandboxNamespaces ?? [], this.deps.clusterDomain, test.spec.sandbox?.networkIsolation ?? 'strict') : undefined;
    this.assertLeading();
    return this.deps.writer.write(test, run, {
      ...(restore ? { restore } : {}),
      ...(pods ? { pods } : {}),
      ...(kinds ? { kinds } : {}),
      checks: results,
      ...(dependencies !== undefined ? { dependencies } : {}),
      ...(transformed ? { transforms: transformed } : {}),
      ...(podSecurity ? { podSecurity } : {}),
      ...(checks ? { checksCompletedAt: checks.completedAt } : {}),
      ...(run.failure ? { failure: run.failure } : {}),
      criticalChecks: (configured ?? []).filter((check) => check.critical === true).map((check) => check.name),
      // The same instant cleanUp keeps a sandbox of a run that did not pass until.
      sandboxExpiresAt: runDeadline(run, this.deps.bounds(test)),
    });
  }

  /** What the provider says about the finished restore; the recorded phase when it cannot say. */
  private async restoreFacts(test: RestoreTest, run: CurrentRun) {
    const provider = this.deps.providers[test.spec.provider];
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
      // Gone, or a provider that stopped answering (the run may have failed for exactly that):
      // the report records what the run saw last rather than waiting forever.
      if (!(error instanceof ProviderError) || (error.reason !== 'RestoreNotFound' && error.reason !== 'ProviderUnavailable')) throw error;
      return { phase: run.restorePhase ?? 'Unknown', succeeded: false, partiallyFailed: false, warnings: 0, errors: 0 };
    }
  }

  async cleanUp(test: RestoreTest, run: CurrentRun, report: RestoreReport): Promise<void> {
    this.assertLeading();
    const provider = this.deps.providers[test.spec.provider];
    if (provider && run.restore) {
      try {
        await provider.deleteRestore(run.restore);
      } catch (error) {
        // An unreachable provider keeps its restore object; its labels name the run for an operator.
        if (!(error instanceof ProviderError && (error.reason === 'RestoreNotFound' || error.reason === 'ProviderUnavailable'))) throw error;
      }
    }
    // HOOK (issue 16): diagnose a failed/partial run while its sandbox still exists.
    if (report.spec.result !== 'pass') await this.deps.beforeSandboxRelease?.(report);
    const expiresAt = runDeadline(run, this.deps.bounds(test));
    for (const { sandbox } of run.sandboxNamespaces ?? []) {
      // A passing sandbox has nothing left to show; others stay for inspection until the ttl.
      if (report.spec.result === 'pass') await this.deps.sandboxes.delete(sandbox);
      else await this.deps.sandboxes.keepUntil(sandbox, expiresAt);
    }
  }

  async writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined> {
    this.assertLeading();
    try {
      return await this.deps.client.replaceTestStatus(test, status);
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined; // deleted meanwhile
      throw error; // Conflict included: the queue retries with the fresher cached object
    }
  }

  record(test: RestoreTest, type: EventType, reason: string, message: string): void {
    if (this.leading()) this.deps.events.record(test, type, reason, message);
  }

  enqueue(key: string): void {
    this.deps.enqueue(key);
  }

  forget(key: string): void {
    this.deps.checkTasks.forget(key);
  }

  private assertLeading(): void {
    if (!this.leading()) throw new LeadershipLostError('this replica no longer leads: the write is left to the new leader');
  }
}
