// RunReads against the real cluster: the backup provider, the sandbox readers, the check tasks, the
// informer cache and, where the cache cannot be trusted, the apiserver. Reads only: whatever the
// run reconciler writes goes through kube-run-actions.ts.
import type { DependencyReader } from '../../checks/dependency-reader.js';
import type { SandboxReader } from '../../checks/sandbox-reader.js';
import type { Dependency } from '../../domain/run/dependencies.js';
import type { BackupChoice, BackupObservation, ChecksObservation, ClaimObservation } from '../../domain/run/run-observations.js';
import type { CurrentRun, HealthCheck, RestoreReport, RestoreTest } from '../../domain/resources/resources.js';
import { reportName } from '../../domain/run/sandbox-names.js';
import { isKind, KubeError } from '../../kube/errors.js';
import type { ClaimReader } from './claim-reader.js';
import type { RehearsalCache } from '../../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';
import { ProviderError, type BackupInfo, type BackupProvider } from '../../providers/provider.js';
import { isLatest } from '../../providers/velero/backup-selection.js';
import { sampleBackup, samplingSeed } from '../../domain/run/backup-sampling.js';
import { parseDuration } from '../../domain/common/duration.js';
import { configuredChecks, type CheckTaskResult, type CheckTasks } from './check-tasks.js';
import { observeDependencies } from './dependency-scan.js';
import { observeKinds, type KindLister, type KindObservation } from './kind-completeness.js';
import { observeTransforms } from './transform-observation.js';
import type { RestoreTransforms } from '../../domain/run/restore-transforms.js';
import type { ExcludedObject } from '../../domain/run/transforms-report.js';
import type { PodSecurityReport, RestoreTransformsReport, VolumeRestoreReport } from '../../domain/resources/resources.js';
import type { PodSecurityPlanner } from '../sandbox/pod-security.js';
import { readReportChain, type ReportChainDeps } from './report-chain.js';
import type { ReportChain, RestoreRead, RunReads } from './run-gatherer.js';
import type { Admission, RunAdmission } from './run-slots.js';
import type { AuthorReview } from './author-review.js';
import type { AdmissionGuard } from '../admission-guard.js';
import { foreignSources, uncoveredSources } from '../../domain/permissions/health-check-policy-permissions.js';
import { decideRunPermission, decideWithoutAuthor, type RunPermission, type RunPermissionFacts } from '../../domain/permissions/run-permission.js';

/** The sandbox reads the engine needs besides the checks' (pods expected from the workloads). */
export interface RunSandboxReader extends Pick<SandboxReader, 'listPods'>, KindLister {
  desiredPods(namespace: string): Promise<number>;
}

export interface KubeRunReadsDeps {
  cache: Pick<RehearsalCache, 'getPolicy' | 'getReport'> & ReportChainDeps['cache'];
  client: Pick<RehearsalClient, 'getReport' | 'listReportsOfTest'>;
  providers: Partial<Record<string, BackupProvider>>;
  reader: RunSandboxReader;
  /** The sandboxes' claims (issue 27). */
  claims: ClaimReader;
  dependencyReader: DependencyReader;
  /** For `<service>.<namespace>.svc.<clusterDomain>` references. */
  clusterDomain?: string;
  checkTasks: CheckTasks;
  /** The Pod Security level each sandbox enforces, read back for the report. */
  podSecurity: Pick<PodSecurityPlanner, 'observe'>;
  admission: RunAdmission;
  /** Decision 0018: the installed admission policies, and the recorded author's rights now. */
  admissionGuard: Pick<AdmissionGuard, 'missing'>;
  authorReview: Pick<AuthorReview, 'review'>;
  /** The current leadership term; aborted when it ends. */
  term: () => AbortSignal;
  log: ReportChainDeps['log'];
}

export class KubeRunReads implements RunReads {
  constructor(private readonly deps: KubeRunReadsDeps) {}

  leading(): boolean {
    return !this.deps.term().aborted;
  }

  admit(test: RestoreTest): Admission {
    return this.deps.admission.admit(test);
  }

  /** Gathers what decideRunPermission needs, the author's reviews only when they decide. */
  async runPermission(test: RestoreTest): Promise<RunPermission> {
    const namespace = test.metadata.namespace ?? '';
    const foreign = foreignSources(namespace, test.spec);
    if (foreign.length === 0) return decideRunPermission({ foreignSources: [], missingAdmission: [] });
    const policyName = test.spec.healthChecks?.checks?.length ? undefined : test.spec.healthCheckPolicy;
    const policy = policyName ? this.deps.cache.getPolicy(namespace, policyName) : undefined;
    const facts: RunPermissionFacts = {
      foreignSources: foreign,
      missingAdmission: await this.deps.admissionGuard.missing(),
      ...(policyName && policy ? { policy: { name: policyName, uncovered: uncoveredSources(namespace, test.spec, policy.spec) } } : {}),
    };
    return decideWithoutAuthor(facts) ?? decideRunPermission({ ...facts, author: await this.deps.authorReview.review(test) });
  }

  async selectBackup(test: RestoreTest, run: CurrentRun): Promise<BackupObservation> {
    const provider = this.deps.providers[test.spec.provider];
    if (!provider) {
      return { state: 'rejected', reason: 'ProviderUnsupported', message: `provider ${test.spec.provider} is not available in this installation` };
    }
    const source = test.spec.backupSource;
    const sources = source.namespaces.map((entry) => entry.name);
    try {
      // Issue 32: a run queued by a new backup restores exactly that backup (not a newer one
      // completed since, nor a random draw); gone by now, it fails BackupNotFound like a named one.
      if (run.trigger === 'backup' && run.triggerBackup) {
        const backup = await provider.selectBackup(sources, run.triggerBackup, source.providerNamespace);
        return { state: 'found', backup: backupChoice(backup) };
      }
      const select = source.select;
      if (select?.strategy === 'randomWithin' && isLatest(source.backupName)) {
        return await this.sampleBackup(provider, test, run, sources, select.within ?? '');
      }
      const backup = await provider.selectBackup(sources, source.backupName ?? 'latest', source.providerNamespace);
      return { state: 'found', backup: backupChoice(backup) };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.reason === 'ProviderUnavailable') return { state: 'unavailable', message: error.message };
      return { state: 'rejected', reason: error.reason, message: error.message };
    }
  }

  /**
   * Issue 32: a seeded draw among the restorable backups completed within the window before the
   * run's start. The seed (test uid, run id) and the window's end (status.currentRun.startedAt) are
   * durable, so a restarted engine draws the same backup for the same run.
   */
  private async sampleBackup(provider: BackupProvider, test: RestoreTest, run: CurrentRun, sources: string[], within: string): Promise<BackupObservation> {
    const withinSeconds = parseDuration(within);
    if (withinSeconds === null || withinSeconds <= 0) {
      return { state: 'rejected', reason: 'InvalidSpec', message: `spec.backupSource.select.within ${JSON.stringify(within)} is not a duration such as 720h` };
    }
    if (!provider.listRestorableBackups) {
      return { state: 'rejected', reason: 'BackupNotFound', message: `provider ${provider.name} cannot list its backups for randomWithin` };
    }
    const restorable = await provider.listRestorableBackups(sources, test.spec.backupSource.providerNamespace);
    const sampled = sampleBackup({
      restorable,
      within,
      withinSeconds,
      runStartedAt: new Date(run.startedAt ?? run.scheduledAt),
      seed: samplingSeed(test.metadata.uid ?? test.metadata.name, run.id),
    });
    if (!sampled) {
      return { state: 'rejected', reason: 'BackupNotFound', message: `no restorable ${provider.name} backup covers ${sources.join(', ')}` };
    }
    return { state: 'found', backup: { ...backupChoice(sampled.backup), selection: sampled.selection } };
  }

  async readRestore(test: RestoreTest, run: CurrentRun): Promise<RestoreRead> {
    const provider = this.deps.providers[test.spec.provider];
    if (!provider) return { state: 'no-provider' };
    if (!run.restore) return { state: 'missing' };
    try {
      return { state: 'read', progress: await provider.getRestoreProgress(run.restore) };
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

  /**
   * A claim that cannot bind only makes a run fail sooner: when the claims cannot be read (an
   * apiserver hiccup), the run goes on as before and the next step looks again.
   */
  async readClaims(run: CurrentRun): Promise<ClaimObservation[] | undefined> {
    try {
      const lists = await Promise.all((run.sandboxNamespaces ?? []).map(({ sandbox }) => this.deps.claims.listClaims(sandbox)));
      return lists.flat();
    } catch (error) {
      if (!(error instanceof KubeError)) throw error;
      this.deps.log.warn({ err: error, run: run.id }, 'could not read the sandboxes\' claims; looking again at the next step');
      return undefined;
    }
  }

  checks(test: RestoreTest, run: CurrentRun): ChecksObservation {
    return this.deps.checkTasks.state(test, run);
  }

  checkResults(test: RestoreTest, run: CurrentRun): CheckTaskResult | undefined {
    return this.deps.checkTasks.result(test, run);
  }

  configuredChecks(test: RestoreTest): HealthCheck[] | undefined {
    return configuredChecks(test, (namespace, name) => this.deps.cache.getPolicy(namespace, name));
  }

  /** The run's report if it exists already (cache first, then the apiserver). */
  async findReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport | undefined> {
    const namespace = test.metadata.namespace ?? '';
    const name = reportName(test.metadata.name, run.id);
    const cached = this.deps.cache.getReport(namespace, name);
    if (cached) return cached;
    try {
      return await this.deps.client.getReport(namespace, name);
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  async kinds(test: RestoreTest, run: CurrentRun, transforms: RestoreTransforms, volumes?: readonly VolumeRestoreReport[]): Promise<KindObservation> {
    const provider = this.deps.providers[test.spec.provider];
    return provider ? observeKinds(provider, this.deps.reader, test, run, transforms, volumes) : { kinds: undefined };
  }

  async transforms(test: RestoreTest, run: CurrentRun, transforms: RestoreTransforms, excluded: ExcludedObject[] | undefined): Promise<RestoreTransformsReport | undefined> {
    const provider = this.deps.providers[test.spec.provider];
    return provider ? observeTransforms(provider, this.deps.reader, run, transforms, excluded) : undefined;
  }

  podSecurity(test: RestoreTest, run: CurrentRun): Promise<PodSecurityReport | undefined> {
    return this.deps.podSecurity.observe(test, run);
  }

  dependencies(test: RestoreTest, run: CurrentRun): Promise<Dependency[] | null> {
    const isolation = test.spec.sandbox?.networkIsolation ?? 'strict';
    return observeDependencies(this.deps.dependencyReader, run.sandboxNamespaces ?? [], this.deps.clusterDomain, isolation);
  }

  reportChain(test: RestoreTest, run: CurrentRun): Promise<ReportChain> {
    return readReportChain(this.deps, test, run);
  }
}

function backupChoice(backup: Pick<BackupInfo, 'name' | 'completedAt' | 'totalItems'>): BackupChoice {
  return {
    name: backup.name,
    ...(backup.completedAt ? { completedAt: backup.completedAt } : {}),
    ...(backup.totalItems !== undefined ? { totalItems: backup.totalItems } : {}),
  };
}
