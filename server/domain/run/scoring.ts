// The confidence score of one run (decision 0004): six levels, each a proportion of its maximum,
// rounded down, summed to 0-100. Each level says in `detail` what it measured, because a number
// alone is not evidence an auditor can follow.
import type { CheckResult, KindCompleteness, ResultCap, RunResult, ScoreLevel, ScoreLevelName } from '../resources/resources.js';
import { isSatisfied, type Dependency } from './dependencies.js';
import { formatDuration } from '../common/duration.js';
import { truncateText } from '../../../protocol/text.js';

export const LEVEL_MAX_POINTS: Readonly<Record<ScoreLevelName, number>> = {
  restoreIntegrity: 25,
  completeness: 20,
  podStartup: 20,
  healthChecks: 20,
  crossNamespace: 10,
  rtoWithinSLA: 5,
};

/** Integrity points of a PartiallyFailed restore never exceed this (see integrityLevel). */
export const PARTIALLY_FAILED_INTEGRITY_CAP = 20;

/** The CRD's maxLength of a level's detail. */
const DETAIL_MAX_LENGTH = 256;

export const PASS_THRESHOLD = 90;
export const PARTIAL_THRESHOLD = 70;

export interface ScoringInput {
  /** The provider reported a terminal success phase (Completed or PartiallyFailed). */
  restoreSucceeded: boolean;
  /** Velero PartiallyFailed (or the provider's equivalent: finished with errors). */
  restorePartiallyFailed: boolean;
  restoreWarnings: number;
  restoreErrors: number;
  /** Items the provider restored (0 when it does not say). */
  itemsRestored: number;
  completeness: KindCompleteness[];
  /** Why the per-kind comparison could not be made (the counts are then the tool's totals). */
  completenessNote?: string;
  pods: { expected: number; ready: number };
  checks: CheckResult[];
  /**
   * References from the restored objects to other namespaces (dependencies.ts), all of them, not
   * only those the report keeps; null = they could not be read (not tested).
   */
  crossNamespace: readonly Dependency[] | null;
  rtoSeconds: number;
  /** The SLA target; absent = no SLA (full points, decision 0004). */
  maxRtoSeconds?: number;
  /**
   * The run failed after a successful restore (e.g. TTLExceeded while validating). The levels
   * measured so far are scored as usual, but an unfinished run is never a pass or partial.
   */
  failure?: { reason: string; message: string };
}

export interface ScoreOutcome {
  score: number;
  result: RunResult;
  levels: ScoreLevel[];
}

export function resultForScore(score: number): RunResult {
  if (score >= PASS_THRESHOLD) return 'pass';
  if (score >= PARTIAL_THRESHOLD) return 'partial';
  return 'fail';
}

// Floating point turns 0.7 * 20 into 13.999999999999998; the epsilon keeps exact proportions exact
// while still rounding every genuine fraction down.
function proportionalPoints(maxPoints: number, fraction: number): number {
  if (!Number.isFinite(fraction) || fraction <= 0) return 0;
  return Math.min(maxPoints, Math.floor(maxPoints * Math.min(1, fraction) + 1e-9));
}

function level(name: ScoreLevelName, points: number, detail: string, tested = true): ScoreLevel {
  return { name, points, maxPoints: LEVEL_MAX_POINTS[name], tested, detail };
}

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// Names are listed in details so a reader sees what failed, but only a few: reports stay small.
function listSome(items: string[], limit = 5): string {
  return items.length <= limit
    ? items.join(', ')
    : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

/**
 * Integrity rule for a restore that finished with errors (Velero PartiallyFailed): the share of
 * restored items without an error, applied to a cap of 20 of the 25 points. The cap makes
 * "finished with errors" always cost at least 5 points even when the provider's counts are
 * incomplete; with no item count at all nothing is proven intact, so the level scores 0. Warnings
 * alone (a Completed restore with warnings, common for objects that already exist) cost nothing
 * and are reported in the detail.
 */
function integrityLevel(input: ScoringInput): ScoreLevel {
  const items = nonNegative(input.itemsRestored);
  const errors = nonNegative(input.restoreErrors);
  const warnings = nonNegative(input.restoreWarnings);
  if (!input.restorePartiallyFailed && errors === 0) {
    return level(
      'restoreIntegrity',
      LEVEL_MAX_POINTS.restoreIntegrity,
      `restore completed: ${plural(items, 'item')}, ${plural(warnings, 'warning')}, 0 errors`,
    );
  }
  const points =
    items > 0 ? proportionalPoints(PARTIALLY_FAILED_INTEGRITY_CAP, Math.max(0, items - errors) / items) : 0;
  return level(
    'restoreIntegrity',
    points,
    `restore partially failed: ${plural(errors, 'error')} and ${plural(warnings, 'warning')} in ` +
      `${plural(items, 'item')}; at most ${PARTIALLY_FAILED_INTEGRITY_CAP} points after errors`,
  );
}

/**
 * Each kind counts equally (the mean of restored/backed-up per kind, each capped at 1), so losing
 * the only Secret weighs as much as losing every ConfigMap. Without counts nothing is evidenced:
 * the level is not tested and scores 0 rather than defaulting to full points.
 */
function completenessLevel(kinds: KindCompleteness[], note?: string): ScoreLevel {
  const measured = kinds.filter((kind) => nonNegative(kind.backedUp) > 0);
  if (measured.length === 0) {
    return level('completeness', 0, 'not tested: the provider reported no per-kind object counts', false);
  }
  let sum = 0;
  const incomplete: string[] = [];
  for (const kind of measured) {
    const restored = Math.min(nonNegative(kind.restored), kind.backedUp);
    sum += restored / kind.backedUp;
    if (restored < kind.backedUp) incomplete.push(`${kind.kind} ${restored}/${kind.backedUp}`);
  }
  const complete = measured.length - incomplete.length;
  const detail =
    `${complete}/${measured.length} kinds complete` +
    (incomplete.length ? `; incomplete: ${listSome(incomplete)}` : '') +
    (note ? `; ${note}` : '');
  return level(
    'completeness',
    proportionalPoints(LEVEL_MAX_POINTS.completeness, sum / measured.length),
    detail,
  );
}

function podStartupLevel(pods: ScoringInput['pods']): ScoreLevel {
  const expected = nonNegative(pods.expected);
  if (expected === 0) {
    return level('podStartup', LEVEL_MAX_POINTS.podStartup, 'no pods expected in the backup');
  }
  const ready = Math.min(nonNegative(pods.ready), expected);
  return level(
    'podStartup',
    proportionalPoints(LEVEL_MAX_POINTS.podStartup, ready / expected),
    `${ready}/${expected} pods ready`,
  );
}

/** Skipped checks leave the denominator; errors count as failures. No check run = no evidence. */
function healthChecksLevel(checks: CheckResult[]): ScoreLevel {
  const counted = checks.filter((check) => check.status !== 'skip');
  const skipped = checks.length - counted.length;
  const skippedNote = skipped > 0 ? ` (${skipped} skipped)` : '';
  if (counted.length === 0) {
    return level('healthChecks', 0, `not tested: no health check ran${skippedNote}`, false);
  }
  const passed = counted.filter((check) => check.status === 'pass').length;
  const failed = counted
    .filter((check) => check.status !== 'pass')
    .map((check) => `${check.name} (${check.status})`);
  const detail =
    `${passed}/${counted.length} checks passed${skippedNote}` +
    (failed.length ? `; not passed: ${listSome(failed)}` : '');
  return level(
    'healthChecks',
    proportionalPoints(LEVEL_MAX_POINTS.healthChecks, passed / counted.length),
    detail,
  );
}

function crossNamespaceLevel(dependencies: ScoringInput['crossNamespace']): ScoreLevel {
  if (dependencies === null) {
    return level('crossNamespace', 0, 'not tested: the restored objects were not read for references', false);
  }
  if (dependencies.length === 0) {
    return level(
      'crossNamespace',
      LEVEL_MAX_POINTS.crossNamespace,
      'no references to other namespaces in the restored objects',
    );
  }
  const failed = dependencies
    .filter((dependency) => !isSatisfied(dependency))
    .map((dependency) => `${dependency.from} → ${dependency.to} (${dependency.status})`);
  const satisfied = dependencies.length - failed.length;
  return level(
    'crossNamespace',
    proportionalPoints(LEVEL_MAX_POINTS.crossNamespace, satisfied / dependencies.length),
    // Object names can be long; the report's detail field holds 256 characters.
    truncateText(
      `${satisfied}/${dependencies.length} cross-namespace dependencies satisfied` +
        (failed.length ? `; not satisfied: ${listSome(failed, 3)}` : ''),
      DETAIL_MAX_LENGTH,
    ),
  );
}

/**
 * Within the target: full points. Over it: proportional to target/measured (a 20m restore against
 * 15m keeps 3 of 5 points), so a slight overrun costs less than a doubling. The breach itself is
 * also reported as withinSLA=false and, with alertOnExceed, as an alert.
 */
function rtoLevel(rtoSeconds: number, maxRtoSeconds: number | undefined): ScoreLevel {
  const measured = formatDuration(rtoSeconds);
  if (maxRtoSeconds === undefined) {
    return level('rtoWithinSLA', LEVEL_MAX_POINTS.rtoWithinSLA, `RTO ${measured}; no RTO target (no SLA)`);
  }
  const target = formatDuration(maxRtoSeconds);
  if (rtoSeconds <= maxRtoSeconds) {
    return level('rtoWithinSLA', LEVEL_MAX_POINTS.rtoWithinSLA, `RTO ${measured} within target ${target}`);
  }
  return level(
    'rtoWithinSLA',
    proportionalPoints(LEVEL_MAX_POINTS.rtoWithinSLA, maxRtoSeconds / rtoSeconds),
    `RTO ${measured} exceeds target ${target}`,
  );
}

const LEVEL_ORDER: readonly ScoreLevelName[] = [
  'restoreIntegrity',
  'completeness',
  'podStartup',
  'healthChecks',
  'crossNamespace',
  'rtoWithinSLA',
];

export function scoreRun(input: ScoringInput): ScoreOutcome {
  if (!input.restoreSucceeded) {
    // Decision 0004: nothing after a failed restore was exercised, so nothing earns points.
    const detail = input.failure
      ? `not tested: the restore failed (${input.failure.reason})`
      : 'not tested: the restore failed';
    return {
      score: 0,
      result: 'fail',
      levels: LEVEL_ORDER.map((name) => level(name, 0, detail, false)),
    };
  }
  const levels = [
    integrityLevel(input),
    completenessLevel(input.completeness, input.completenessNote),
    podStartupLevel(input.pods),
    healthChecksLevel(input.checks),
    crossNamespaceLevel(input.crossNamespace),
    rtoLevel(nonNegative(input.rtoSeconds), input.maxRtoSeconds),
  ];
  const score = levels.reduce((sum, each) => sum + each.points, 0);
  return { score, result: input.failure ? 'fail' : resultForScore(score), levels };
}

const RESULT_RANK: Readonly<Record<RunResult, number>> = { fail: 0, partial: 1, pass: 2 };

/**
 * Decision 0004, "a failed check caps the result": any failed or errored check allows at most
 * `partial`, a failed critical check makes the run `fail`. The score is unchanged; the cap names
 * the check (the first critical one, else the first one) when it lowered the result.
 */
export function capResult(
  result: RunResult,
  checks: readonly CheckResult[],
  isCritical: (checkName: string) => boolean,
): { result: RunResult; cap?: ResultCap } {
  const failed = checks.filter((check) => check.status === 'fail' || check.status === 'error');
  if (failed.length === 0) return { result };
  const critical = failed.find((check) => isCritical(check.name));
  const cap: ResultCap = critical
    ? { check: critical.name, critical: true, result: 'fail' }
    : { check: failed[0]!.name, critical: false, result: 'partial' };
  return RESULT_RANK[cap.result] < RESULT_RANK[result] ? { result: cap.result, cap } : { result };
}
