// RunActions against the real cluster: the backup provider, the sandbox manager, the check tasks,
// the status writer, Events and the report writer. Every write first checks that the leadership
// term is still current: a reconcile that was in flight when leadership was lost stops at its next
// write instead of racing the new leader. Nothing here reads what the gatherer reads, and nothing
// here decides what a run does next (domain/run/run-policy.ts does).
import type { RunEnding } from '../../domain/run/run-policy.js';
import type { BackupChoice, PreparationObservation } from '../../domain/run/run-observations.js';
import type { CurrentRun, HealthCheck, RestoreReport, RestoreTest, RestoreTestStatus } from '../../domain/resources/resources.js';
import { restoreObjectName, sandboxNamespaceName } from '../../domain/run/sandbox-names.js';
import { isKind } from '../../kube/errors.js';
import type { StatusOwner, TestStatusWriter } from '../../kube/test-status.js';
import { buildNamespaceMapping, ProviderError, type BackupProvider } from '../../providers/provider.js';
import type { CheckTasks } from './check-tasks.js';
import type { EventRecorder, EventType } from '../events.js';
import type { ReportInputs, ReportWriter } from './report-writer.js';
import type { RunActions } from './run-actions.js';
import {
  SandboxManager,
  SandboxQuotaNotSyncedError,
  SandboxTakenError,
  sandboxLabels,
  type CreatedSandbox,
} from '../sandbox/sandbox.js';
import type { PodSecurityPlanner } from '../sandbox/pod-security.js';
import { resolveTransforms } from '../../domain/run/restore-transforms.js';
import { resolveSubset } from '../../domain/run/restore-subset.js';

export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

export interface KubeRunActionsDeps {
  status: Pick<TestStatusWriter, 'apply'>;
  providers: Partial<Record<string, BackupProvider>>;
  sandboxes: SandboxManager;
  /** The sandboxes' Pod Security profiles (never looser than their sources). */
  podSecurity: Pick<PodSecurityPlanner, 'plan'>;
  checkTasks: CheckTasks;
  writer: ReportWriter;
  events: EventRecorder;
  /** The current leadership term; aborted when it ends. */
  term: () => AbortSignal;
  enqueue: (key: string) => void;
  now: () => Date;
  /** HOOK (issue 16, failure triage): awaited before a failed/partial run's sandbox may go. */
  beforeSandboxRelease?: (report: RestoreReport) => Promise<void>;
  proberNamespace: string;
  proberPodLabels: Record<string, string>;
}

export class KubeRunActions implements RunActions {
  constructor(private readonly deps: KubeRunActionsDeps) {}

  async prepare(test: RestoreTest, run: CurrentRun, backup: BackupChoice, sandboxExpiresAt: Date): Promise<PreparationObservation> {
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
    // Decided before the sandboxes exist (they are created with their Pod Security labels), from the
    // sources' labels read now: part of building the create request, not an observation of the run.
    const podSecurity = await this.deps.podSecurity.plan(test, entries);
    let sandboxNamespaces: CreatedSandbox[];
    try {
      sandboxNamespaces = await this.deps.sandboxes.create({
        test,
        runId: run.id,
        entries,
        expiresAt: sandboxExpiresAt,
        proberNamespace: this.deps.proberNamespace,
        proberPodLabels: this.deps.proberPodLabels,
        recordedUids: Object.fromEntries((run.sandboxNamespaces ?? []).flatMap((entry) => (entry.uid ? [[entry.sandbox, entry.uid]] : []))),
        podSecurity: Object.fromEntries(podSecurity.map((entry) => [entry.sandbox, entry.level])),
      });
    } catch (error) {
      // Decision 0009: a namespace Rehearsal did not create is never restored into. The policy
      // ends the run (SandboxTaken), keeping only the sandboxes it did create.
      if (error instanceof SandboxTakenError) {
        return { state: 'sandbox-taken', sandboxNamespaces: error.created, reason: error.reason, message: error.message };
      }
      // Issue 27: a restore requested before the storage quota is synced would escape it (or lose
      // its claims): the run fails instead, its sandboxes recorded so they are cleaned up.
      if (error instanceof SandboxQuotaNotSyncedError) {
        return { state: 'sandbox-unready', sandboxNamespaces: error.created, reason: error.reason, message: error.message };
      }
      throw error;
    }
    this.assertLeading();
    // The gatherer's selectBackup has just checked that the backup covers every source; the request uses its name.
    // The restore's own objects (Velero's resource modifiers) are owned by the first sandbox, so
    // they go with it.
    const owner = sandboxNamespaces[0];
    const restore = await provider.startRestore(
      {
        name: restoreObjectName(test.metadata.name, run.id),
        backup: { ...backup, includedNamespaces: sources },
        mapping,
        labels: sandboxLabels(test, run.id),
        transforms: resolveTransforms(test.spec.restore),
        ...subsetOf(test),
        ...(owner?.uid ? { owner: { name: owner.sandbox, uid: owner.uid } } : {}),
      },
      test.spec.backupSource.providerNamespace,
    );
    return { state: 'prepared', sandboxNamespaces, restore, requestedAt: this.deps.now().toISOString() };
  }

  startChecks(test: RestoreTest, run: CurrentRun, checks: HealthCheck[] | undefined): void {
    if (!this.leading()) return;
    this.deps.checkTasks.start(test, run, checks);
  }

  async writeReport(test: RestoreTest, run: CurrentRun, inputs: ReportInputs): Promise<RestoreReport> {
    this.assertLeading();
    return this.deps.writer.write(test, run, inputs);
  }

  async cleanUp(test: RestoreTest, run: CurrentRun, report: RestoreReport, ending: RunEnding): Promise<void> {
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
    if (ending.triage) await this.deps.beforeSandboxRelease?.(report);
    for (const { sandbox } of run.sandboxNamespaces ?? []) {
      if (ending.sandboxes === 'delete') await this.deps.sandboxes.delete(sandbox);
      else await this.deps.sandboxes.keepUntil(sandbox, ending.keepUntil);
    }
  }

  writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined> {
    return this.writeStatusAs('run', test, status);
  }

  /** Applies the fields `owner` owns in `status` (the schedule reconciler writes through this too). */
  async writeStatusAs(owner: StatusOwner, test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined> {
    this.assertLeading();
    try {
      return await this.deps.status.apply(owner, test, status);
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

  private leading(): boolean {
    return !this.deps.term().aborted;
  }

  private assertLeading(): void {
    if (!this.leading()) throw new LeadershipLostError('this replica no longer leads: the write is left to the new leader');
  }
}

/** The request's subset field (issue 32), absent when the whole namespaces are restored. */
function subsetOf(test: RestoreTest): { subset?: NonNullable<ReturnType<typeof resolveSubset>> } {
  const subset = resolveSubset(test.spec.backupSource);
  return subset ? { subset } : {};
}
