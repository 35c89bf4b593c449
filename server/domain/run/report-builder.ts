// Turns what a run observed into the RestoreReport evidence (decision 0004). Pure: the engine
// gathers the facts, this decides the score and the wording. Every run gets one, failed runs too.
import { reportedDependencies, type Dependency } from './dependencies.js';
import { formatDuration, parseDuration } from '../common/duration.js';
import type {
  CheckResult,
  CurrentRun,
  KindCompleteness,
  PodSecurityReport,
  Provider,
  RestoreReportSpec,
  RestoreTest,
  RestoreTransformsReport,
  VolumeRestoreReport,
} from '../resources/resources.js';
import { capResult, scoreRun } from './scoring.js';
import { measureRpo } from './rpo.js';
import { summarizeChecks } from './check-summary.js';
import { wellFormedDeep } from '../common/text.js';
import { describeSubset, resolveSubset } from './restore-subset.js';

/** The report's restore.subset is bounded like the CRD stores it. */
const MAX_SUBSET_TEXT = 512;

function boundedText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export interface RestoreFacts {
  phase: string;
  succeeded: boolean;
  partiallyFailed: boolean;
  warnings: number;
  errors: number;
  itemsRestored?: number;
  totalItems?: number;
  /** The volumes whose data the restore brought back, per the tool (absent: none, or it cannot say). */
  volumes?: VolumeRestoreReport[];
}

export interface RunObservations {
  test: RestoreTest;
  run: CurrentRun;
  completedAt: Date;
  /** Absent when no restore was requested or its object could not be read. */
  restore?: RestoreFacts;
  pods?: { expected: number; ready: number };
  checks: CheckResult[];
  /**
   * References from the restored objects to other namespaces (dependencies.ts); absent when the
   * restore did not succeed, null when they could not be read.
   */
  dependencies?: Dependency[] | null;
  /**
   * Restored vs. backed-up objects per kind, when the tool's resource list could be compared with
   * the sandbox; otherwise the reason it could not (the tool's totals stand in).
   */
  kinds?: { completeness: KindCompleteness[] } | { unavailable: string };
  /** What the restore transforms changed (absent when nothing was restored). */
  transforms?: RestoreTransformsReport;
  /** The Pod Security profile each sandbox enforced (absent without sandboxes). */
  podSecurity?: PodSecurityReport;
  checksCompletedAt?: Date;
  failure?: { reason: string; message: string };
  /** Names of the configured checks marked critical (decision 0004). */
  criticalChecks?: readonly string[];
  /** When the run's sandboxes go if it does not pass (its start + ttl; kept until then). */
  sandboxExpiresAt?: Date;
}

function seconds(from: string | undefined, to: Date | undefined): number | undefined {
  if (!from || !to) return undefined;
  return Math.max(0, Math.floor((to.getTime() - new Date(from).getTime()) / 1000));
}

/**
 * Restored vs. expected objects. The tool's own count of what the restore set out to restore comes
 * first: a real Velero backup also holds objects Velero never restores by design (Events, the
 * Namespace object), so against the backup's total (19 for the shop app, 14 restorable) every real
 * restore looked incomplete. The backup's total is the fallback when the restore gives no count.
 */
function completenessOf(
  run: CurrentRun,
  restore: RestoreFacts | undefined,
  kinds: RunObservations['kinds'],
): KindCompleteness[] {
  if (!restore) return [];
  if (kinds && 'completeness' in kinds && kinds.completeness.length > 0) return kinds.completeness;
  const backedUp = restore.totalItems ?? run.backup?.totalItems;
  if (backedUp === undefined) return [];
  return [{ kind: 'all', backedUp, restored: restore.itemsRestored ?? 0 }];
}

export function buildReportSpec(observed: RunObservations, provider: Provider): RestoreReportSpec {
  const { test, run, restore } = observed;
  const startedAt = run.startedAt ?? run.queuedAt;
  const sources = test.spec.backupSource.namespaces.map((namespace) => namespace.name);
  const subset = resolveSubset(test.spec.backupSource);
  const maxRto = test.spec.sla?.maxRTO;
  const maxRtoSeconds = maxRto ? (parseDuration(maxRto) ?? undefined) : undefined;
  // RTO = restore request → application proven healthy (end of validation). A run that never got
  // there has no measured RTO: reporting the time until it gave up would flatter it.
  const rtoSeconds =
    observed.failure === undefined ? seconds(run.restoreRequestedAt, observed.checksCompletedAt) : undefined;
  const rpo = measureRpo(test, run.restoreRequestedAt, observed.checks);
  const completeness = completenessOf(run, restore, observed.kinds);
  const completenessNote =
    observed.kinds && 'unavailable' in observed.kinds
      ? `per-kind list unavailable: ${observed.kinds.unavailable}`
      : undefined;
  const restoreOk = restore !== undefined && restore.succeeded;

  let outcome;
  if (!restoreOk) {
    outcome = scoreRun({
      restoreSucceeded: false,
      restorePartiallyFailed: false,
      restoreWarnings: restore?.warnings ?? 0,
      restoreErrors: restore?.errors ?? 0,
      itemsRestored: 0,
      completeness: [],
      pods: { expected: 0, ready: 0 },
      checks: [],
      crossNamespace: null,
      rtoSeconds: 0,
      ...(maxRtoSeconds === undefined ? {} : { maxRtoSeconds }),
      failure: observed.failure ?? { reason: 'RestoreFailed', message: 'the restore did not succeed' },
    });
  } else {
    outcome = scoreRun({
      restoreSucceeded: true,
      restorePartiallyFailed: restore.partiallyFailed,
      restoreWarnings: restore.warnings,
      restoreErrors: restore.errors,
      itemsRestored: restore.itemsRestored ?? 0,
      completeness,
      ...(completenessNote ? { completenessNote } : {}),
      pods: observed.pods ?? { expected: 0, ready: 0 },
      checks: observed.checks,
      crossNamespace: observed.dependencies ?? null,
      rtoSeconds: rtoSeconds ?? 0,
      ...(maxRtoSeconds === undefined ? {} : { maxRtoSeconds }),
      ...(observed.failure ? { failure: observed.failure } : {}),
    });
  }

  const critical = new Set(observed.criticalChecks ?? []);
  const capped = capResult(outcome.result, observed.checks, (name) => critical.has(name));
  const backupAge = seconds(run.backup?.completedAt, new Date(startedAt));
  const spec: RestoreReportSpec = {
    testRef: {
      name: test.metadata.name,
      namespace: test.metadata.namespace ?? '',
      uid: test.metadata.uid ?? '',
    },
    runId: run.id,
    trigger: run.trigger,
    scheduledAt: run.scheduledAt,
    startedAt,
    completedAt: observed.completedAt.toISOString(),
    sourceNamespaces: sources,
    backup: {
      provider,
      name: run.backup?.name ?? '',
      ...(run.backup?.completedAt ? { completedAt: run.backup.completedAt } : {}),
      ...(backupAge !== undefined ? { age: formatDuration(backupAge) } : {}),
      // Issue 32: a sampled backup says how it was drawn (window, candidates, seed, reason).
      ...(run.backup?.selection ? { selection: run.backup.selection } : {}),
    },
    sandboxNamespaces: (run.sandboxNamespaces ?? []).map((entry) => entry.sandbox),
    ...(run.restore && restore
      ? {
          restore: {
            name: run.restore.name,
            namespace: run.restore.namespace,
            phase: restore.phase,
            warnings: restore.warnings,
            errors: restore.errors,
            ...(restore.itemsRestored !== undefined ? { itemsRestored: restore.itemsRestored } : {}),
            ...(subset ? { subset: boundedText(describeSubset(subset), MAX_SUBSET_TEXT) } : {}),
          },
        }
      : {}),
    score: outcome.score,
    result: capped.result,
    levels: outcome.levels,
    checks: observed.checks,
    checkSummary: summarizeChecks(observed.checks),
    completeness,
    ...(observed.dependencies?.length ? { dependencies: reportedDependencies(observed.dependencies) } : {}),
    ...(observed.transforms ? { transforms: observed.transforms } : {}),
    ...(observed.podSecurity ? { podSecurity: observed.podSecurity } : {}),
    ...(restore?.volumes?.length ? { volumes: restore.volumes } : {}),
    ...(rpo ? { rpo } : {}),
    rto: {
      ...(rtoSeconds !== undefined
        ? { measured: formatDuration(rtoSeconds), measuredSeconds: rtoSeconds }
        : {}),
      ...(maxRto ? { target: maxRto } : {}),
      ...(maxRtoSeconds !== undefined && rtoSeconds !== undefined
        ? { withinSLA: rtoSeconds <= maxRtoSeconds }
        : {}),
      phases: {
        ...(run.restoreRequestedAt ? { restoreRequestedAt: run.restoreRequestedAt } : {}),
        ...(run.restoreCompletedAt ? { restoreCompletedAt: run.restoreCompletedAt } : {}),
        ...(run.podsReadyAt ? { podsReadyAt: run.podsReadyAt } : {}),
        ...(observed.checksCompletedAt
          ? { checksCompletedAt: observed.checksCompletedAt.toISOString() }
          : {}),
      },
    },
    ...(capped.result !== 'pass' && (run.sandboxNamespaces ?? []).length > 0 && observed.sandboxExpiresAt
      ? { sandboxExpiresAt: observed.sandboxExpiresAt.toISOString() }
      : {}),
    ...(capped.cap ? { resultCap: capped.cap } : {}),
    ...(observed.failure ? { failure: observed.failure } : {}),
  };
  // Messages carry text from outside (apps, databases, providers): a lone surrogate anywhere would
  // make the report impossible to canonicalise, and so to sign.
  return wellFormedDeep(spec);
}
