// The run's gatherer: everything the engine reads about a run, read once per step, in one place.
// gather() reads what the run's stage needs for nextStep (domain/run/run-policy.ts) to decide;
// reportInputs() reads what the report needs, once the policy has said to write it. The actions
// (run-actions.ts) are handed these facts and read nothing themselves — the split cert-manager's
// certificate controllers follow (a gatherer, a pure policy chain, then the writes).
//
// What the world answers comes through RunReads (the production one is kube-run-reads.ts); the
// mapping of those answers to observations is pure and lives here.
import type { CheckTaskResult } from './check-tasks.js';
import type { ReportFacts, ReportInputs } from './report-writer.js';
import type { Admission, Promotion } from './run-slots.js';
import type { RestoreFacts } from '../../domain/run/report-builder.js';
import type {
  BackupObservation,
  ChecksObservation,
  ClaimObservation,
  ReportObservation,
  RestoreObservation,
  RunBounds,
  RunObservations,
} from '../../domain/run/run-observations.js';
import type { CurrentRun, HealthCheck, PodSecurityReport, RestoreReport, RestoreTest, RestoreTransformsReport, VolumeRestoreReport } from '../../domain/resources/resources.js';
import { resolveTransforms, type RestoreTransforms } from '../../domain/run/restore-transforms.js';
import { VOLUME_DATA_NOT_RESTORED } from '../../domain/run/volume-data.js';
import type { ExcludedObject } from '../../domain/run/transforms-report.js';
import type { KindObservation } from './kind-completeness.js';
import type { RunPermission } from '../../domain/permissions/run-permission.js';
import type { Dependency } from '../../domain/run/dependencies.js';
import type { RestoreProgress } from '../../providers/provider.js';

/** What the provider said about the run's restore object. */
export type RestoreRead =
  | { state: 'read'; progress: RestoreProgress }
  /** The restore object is gone (or the run recorded none). */
  | { state: 'missing' }
  | { state: 'unavailable'; message: string }
  /** The test's provider is not part of this installation. */
  | { state: 'no-provider' };

/** The previous report of the test's evidence chain and the test's reports, oldest first. */
export interface ReportChain {
  previous: RestoreReport | undefined;
  /** Names of the test's reports other than the run's own, oldest first (what prune works on). */
  history: string[];
}

/** Every read the run reconciler needs, one method per fact. */
export interface RunReads {
  /** Whether this replica still leads (false once the leadership term ended). */
  leading(): boolean;
  /** Queued: may the run start now? An admitted run must settle its promotion. */
  admit(test: RestoreTest): Admission;
  /** Queued and admitted: may this test run at all (decision 0018)? */
  runPermission(test: RestoreTest): Promise<RunPermission>;
  /** Preparing: the backup to restore. */
  selectBackup(test: RestoreTest, run: CurrentRun): Promise<BackupObservation>;
  /** Restoring, and the report: the restore's progress. */
  readRestore(test: RestoreTest, run: CurrentRun): Promise<RestoreRead>;
  /** Validating, and the report: pods expected and ready in the run's sandboxes. */
  countPods(run: CurrentRun): Promise<{ expected: number; ready: number }>;
  /**
   * Restoring, and Validating until pods are ready: the claims in the run's sandboxes
   * (undefined: they could not be read this time; the run goes on without them).
   */
  readClaims(run: CurrentRun): Promise<ClaimObservation[] | undefined>;
  /** Validating: the background health-check task of this run. */
  checks(test: RestoreTest, run: CurrentRun): ChecksObservation;
  /** The report: the results of the finished check task (undefined: none ran). */
  checkResults(test: RestoreTest, run: CurrentRun): CheckTaskResult | undefined;
  /** Validating/Finalizing: the checks the test configured (undefined: the built-in defaults). */
  configuredChecks(test: RestoreTest): HealthCheck[] | undefined;
  /** Validating/Finalizing: the run's report, if it exists. */
  findReport(test: RestoreTest, run: CurrentRun): Promise<RestoreReport | undefined>;
  /** The report of a restored run: backed-up vs restored objects per kind, and what transforms kept out. */
  /** Completeness per kind; `volumes`: the tool's volume data restores (a claim counts only with its data). */
  kinds(test: RestoreTest, run: CurrentRun, transforms: RestoreTransforms, volumes?: readonly VolumeRestoreReport[]): Promise<KindObservation>;
  /** The report of a restored run: what the restore transforms changed. */
  transforms(test: RestoreTest, run: CurrentRun, transforms: RestoreTransforms, excluded: ExcludedObject[] | undefined): Promise<RestoreTransformsReport | undefined>;
  /** The report: the Pod Security level each sandbox enforced. */
  podSecurity(test: RestoreTest, run: CurrentRun): Promise<PodSecurityReport | undefined>;
  /** The report of a restored run: references to other namespaces (null: could not be read). */
  dependencies(test: RestoreTest, run: CurrentRun): Promise<Dependency[] | null>;
  /** The report: the previous report to chain to, and the test's history. */
  reportChain(test: RestoreTest, run: CurrentRun): Promise<ReportChain>;
}

/** One step's reads: the policy's observations, and the facts the actions are handed. */
export interface Gathered {
  observations: RunObservations;
  /** Queued and admitted: settled with the promotion's status write. */
  promotion?: Promotion;
  /** The queued run first in line, to wake now. */
  next?: string;
  /** The run's report, when it exists. */
  report?: RestoreReport;
  /** The checks the test configured (Validating/Finalizing). */
  checks?: HealthCheck[];
}

/** The report as the policy sees it. */
export function observeReport(report: RestoreReport): ReportObservation {
  const { result, score, completedAt } = report.spec;
  return { name: report.metadata.name, result, score, completedAt };
}

/** Restoring: the provider's answer as the policy sees it. */
export function observeRestore(read: RestoreRead): RestoreObservation {
  if (read.state === 'unavailable') return { state: 'unavailable', message: read.message };
  if (read.state !== 'read') return { state: 'missing' };
  const progress = read.progress;
  switch (progress.state) {
    case 'pending':
    case 'running':
      return { state: progress.state, phase: progress.phase };
    case 'failed':
      return {
        state: 'failed',
        phase: progress.phase,
        ...(progress.message ? { message: progress.message } : {}),
        ...(progress.volumes ? { volumes: progress.volumes } : {}),
      };
    default:
      return {
        state: progress.state,
        phase: progress.phase,
        warnings: progress.warnings,
        ...(progress.completedAt ? { completedAt: progress.completedAt } : {}),
        ...(progress.itemsRestored !== undefined ? { itemsRestored: progress.itemsRestored } : {}),
        ...(progress.volumes ? { volumes: progress.volumes } : {}),
      };
  }
}

/**
 * The report: what the provider says about the finished restore. Gone, or a provider that stopped
 * answering (the run may have failed for exactly that): the report records the phase the run saw
 * last rather than waiting forever.
 */
export function restoreFacts(read: RestoreRead | undefined, run: CurrentRun): RestoreFacts | undefined {
  if (!read || read.state === 'no-provider') return undefined;
  if (read.state !== 'read') return { phase: run.restorePhase ?? 'Unknown', succeeded: false, partiallyFailed: false, warnings: 0, errors: 0 };
  const progress = read.progress;
  return {
    phase: progress.phase,
    succeeded: progress.state === 'succeeded' || progress.state === 'partiallyFailed',
    partiallyFailed: progress.state === 'partiallyFailed',
    warnings: progress.warnings,
    errors: progress.errors,
    ...(progress.itemsRestored !== undefined ? { itemsRestored: progress.itemsRestored } : {}),
    ...(progress.totalItems !== undefined ? { totalItems: progress.totalItems } : {}),
    ...(progress.volumes ? { volumes: progress.volumes } : {}),
  };
}

export class RunGatherer {
  constructor(
    private readonly reads: RunReads,
    private readonly bounds: (test: RestoreTest) => RunBounds,
  ) {}

  /** Reads only what the run's stage needs; nothing at all for a run this replica must leave. */
  async gather(test: RestoreTest, run: CurrentRun): Promise<Gathered> {
    const { reads } = this;
    const observations: RunObservations = {
      testDeleted: Boolean(test.metadata.deletionTimestamp),
      leading: reads.leading(),
      bounds: this.bounds(test),
    };
    if (observations.testDeleted || !observations.leading) return { observations };
    switch (run.stage) {
      case 'Queued': {
        const admission = reads.admit(test);
        observations.admitted = admission.admitted;
        if (admission.admitted) {
          try {
            observations.permission = await reads.runPermission(test);
          } catch (error) {
            admission.promotion.settle(undefined);
            throw error;
          }
        }
        return { observations, next: admission.next, ...(admission.admitted ? { promotion: admission.promotion } : {}) };
      }
      case 'Preparing':
        observations.backup = await reads.selectBackup(test, run);
        return { observations };
      case 'Restoring': {
        if (!run.restore) return { observations };
        const [restore, claims] = await Promise.all([reads.readRestore(test, run), reads.readClaims(run)]);
        observations.restore = observeRestore(restore);
        if (claims) observations.claims = claims;
        return { observations };
      }
      case 'Validating':
      case 'Finalizing': {
        const report = await reads.findReport(test, run);
        if (report) {
          observations.report = observeReport(report);
          return { observations, report };
        }
        if (run.stage === 'Validating') {
          if (!run.podsReadyAt) {
            const [pods, claims] = await Promise.all([reads.countPods(run), reads.readClaims(run)]);
            observations.pods = pods;
            if (claims) observations.claims = claims;
          }
          observations.checks = reads.checks(test, run);
        }
        const checks = reads.configuredChecks(test);
        return { observations, ...(checks ? { checks } : {}) };
      }
    }
  }

  /**
   * What the run's report is built from, read once the policy said to write it. Pods, kinds and
   * dependencies are read only for a restore that succeeded (a failed run has nothing to count);
   * pods counted by this step's gather are not counted again. A run that failed after its restore
   * succeeded (VolumeNotBound, TTLExceeded while validating) still counts its pods: the report
   * would otherwise say no pods were expected. A run that failed because volume data did not come
   * back also counts its kinds: completeness then shows which claims lack their data (issue 27).
   */
  async reportInputs(test: RestoreTest, run: CurrentRun, gathered: Gathered, sandboxExpiresAt: Date): Promise<ReportInputs> {
    const { reads } = this;
    const restore = restoreFacts(run.restore ? await reads.readRestore(test, run) : undefined, run);
    const restored = restore?.succeeded === true && run.failure === undefined;
    const pods = restore?.succeeded === true ? (gathered.observations.pods ?? (await reads.countPods(run))) : undefined;
    const transforms = resolveTransforms(test.spec.restore);
    const countKinds = restored || (restore?.succeeded === true && run.failure?.reason === VOLUME_DATA_NOT_RESTORED);
    const observedKinds = countKinds ? await reads.kinds(test, run, transforms, restore?.volumes) : undefined;
    const kinds = observedKinds?.kinds;
    const transformed = restored ? await reads.transforms(test, run, transforms, observedKinds?.excluded) : undefined;
    const podSecurity = await reads.podSecurity(test, run);
    const dependencies = restored ? await reads.dependencies(test, run) : undefined;
    const checks = reads.checkResults(test, run);
    const chain = await reads.reportChain(test, run);
    const facts: ReportFacts = {
      ...(restore ? { restore } : {}),
      ...(pods ? { pods } : {}),
      ...(kinds ? { kinds } : {}),
      checks: checks?.results ?? [],
      ...(dependencies !== undefined ? { dependencies } : {}),
      ...(transformed ? { transforms: transformed } : {}),
      ...(podSecurity ? { podSecurity } : {}),
      ...(checks ? { checksCompletedAt: checks.completedAt } : {}),
      ...(run.failure ? { failure: run.failure } : {}),
      criticalChecks: (gathered.checks ?? []).filter((check) => check.critical === true).map((check) => check.name),
      sandboxExpiresAt,
    };
    return { facts, ...chain };
  }
}
