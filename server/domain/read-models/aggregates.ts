// Read models of the dashboard API (decision 0005): summary, daily series, alerts,
// upcoming runs, and the TestResponse mapping. Windows are UTC and run time is spec.completedAt.
// Every function accepts either a plain array of reports or a live ReportIndex; the API should pass
// the index it maintains from its informer, so a request costs O(window), not O(all reports).
import { resolveLogCollection } from '../run/log-collection.js';
import type { PreflightStatus, RestoreTest } from '../resources/resources.js';
import type { Alert, DailySummary, PreflightResponse, Summary, TestResponse, UpcomingTest } from './views.js';
import { formatDuration } from '../common/duration.js';
import { TEST_INPUT_DEFAULTS } from '../../../protocol/test-input.js';
import { everyNthOf } from '../run/backup-trigger.js';
import { asReportIndex, testKeyOf, type IndexedRun, type ReportIndex, type ReportSource } from './report-index.js';
import { measuredRtoSeconds, rtoTargetSeconds, rtoVerdict } from './run-facts.js';
import { BUILT_IN_CLUSTER_DEFAULTS, alertThresholds, type AlertThresholds } from '../run/cluster-defaults.js';
import { reportBackupAgeSeconds } from './report-summary.js';
import { MILLISECONDS_PER_HOUR, dayLabel, dayNumber, parseInstant } from '../common/utc-days.js';

/** Summary window (decision 0005: "last 24 hours" = now - 24 h). */
export const SUMMARY_WINDOW_HOURS = 24;
/** A score drop larger than this, run to run, is a regression alert (decision 0005). */
export const REGRESSION_THRESHOLD = 10;

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Distinct source namespaces of all RestoreTests (Summary.namespacesCovered). */
export function namespacesCovered(tests: readonly RestoreTest[]): number {
  const namespaces = new Set<string>();
  for (const test of tests)
    for (const source of test.spec.backupSource?.namespaces ?? []) namespaces.add(source.name);
  return namespaces.size;
}

/** Runs completed in [now - hours, now], oldest first. */
export function runsInLastHours(reports: ReportSource, hours: number, now: Date): IndexedRun[] {
  const end = now.getTime();
  return asReportIndex(reports).runsBetween(end - hours * MILLISECONDS_PER_HOUR, end);
}

/**
 * Decision 0005 over the window [now - 24h, now] (both ends inclusive). averageRTO is the mean of the
 * runs that measured an RTO: a run that failed before validation has no RTO and is not a zero.
 */
export function summary(tests: readonly RestoreTest[], reports: ReportSource, now: Date): Summary {
  const runs = runsInLastHours(reports, SUMMARY_WINDOW_HOURS, now);
  const rtos = runs
    .map((run) => measuredRtoSeconds(run.report))
    .filter((value): value is number => value !== null);
  return {
    averageScore: Math.round(mean(runs.map((run) => run.report.spec.score))),
    totalTests: tests.length,
    testsLastNight: new Set(runs.map((run) => run.testKey)).size,
    totalFailures: runs.filter((run) => run.report.spec.result === 'fail').length,
    totalPartial: runs.filter((run) => run.report.spec.result === 'partial').length,
    averageRTO: formatDuration(mean(rtos)),
    namespacesCovered: namespacesCovered(tests),
  };
}

/**
 * `days` entries, one per UTC day, ending with today (the day of `now`) and oldest first: days=1 is
 * today alone, days=30 is today and the 29 days before. Days without runs are zeros. A day holds
 * every run completed on that UTC date. Non-integer `days` is rounded down; below 1 gives [].
 */
export function daily(reports: ReportSource, days: number, now: Date): DailySummary[] {
  const count = Math.floor(days);
  if (!(count >= 1)) return [];
  const index = asReportIndex(reports);
  const today = dayNumber(now.getTime());
  const result: DailySummary[] = [];
  for (let day = today - count + 1; day <= today; day += 1) {
    const totals = index.dayTotals(day);
    result.push({
      date: dayLabel(day),
      score: totals.runs === 0 ? 0 : Math.round(totals.scoreSum / totals.runs),
      tests: totals.runs,
      failures: totals.failures,
    });
  }
  return result;
}

/**
 * How many runs in a row, ending with `run`, failed (at most `limit`: the alert only needs to know
 * whether the streak reached the threshold, and a long streak must not cost a walk of its history).
 */
function failureStreak(index: ReportIndex, run: IndexedRun, limit: number): number {
  let streak = 0;
  for (let current: IndexedRun | undefined = run; current && streak < limit; current = index.previousRun(current)) {
    if (current.report.spec.result !== 'fail') break;
    streak += 1;
  }
  return streak;
}

function alertClauses(
  run: IndexedRun,
  previous: IndexedRun | undefined,
  test: RestoreTest | undefined,
  thresholds: AlertThresholds,
  streak: number,
): string[] {
  const spec = run.report.spec;
  const clauses: string[] = [];
  if (spec.result === 'fail') {
    clauses.push(
      spec.failure
        ? `failed (${spec.failure.reason}: ${spec.failure.message})`
        : `failed with score ${spec.score}`,
    );
    if (streak >= thresholds.consecutiveFailures) {
      clauses.push(`at least ${thresholds.consecutiveFailures} failed runs in a row`);
    }
  }
  if (previous && spec.score < previous.report.spec.score - REGRESSION_THRESHOLD) {
    clauses.push(`score regressed from ${previous.report.spec.score} to ${spec.score}`);
  }
  if (test?.spec.sla?.alertOnExceed && rtoVerdict(run.report) === 'breached') {
    const measured = measuredRtoSeconds(run.report);
    const target = rtoTargetSeconds(run.report);
    clauses.push(
      measured !== null && target !== null
        ? `RTO ${formatDuration(measured)} exceeded target ${formatDuration(target)}`
        : 'RTO exceeded its target',
    );
  }
  const backupAge = reportBackupAgeSeconds(run.report);
  if (backupAge !== undefined && backupAge > thresholds.maxBackupAgeSeconds) {
    clauses.push(`restored a backup ${formatDuration(backupAge)} old, older than ${formatDuration(thresholds.maxBackupAgeSeconds)}`);
  }
  return clauses;
}

/**
 * Runs completed in [now - hours, now] that failed, regressed by more than 10 points against the
 * test's previous run (which may be older than the window), breached the RTO target of a test
 * with alertOnExceed, or restored a backup older than the cluster's maxBackupAge (issue 30; a
 * failed run that ends a streak of consecutiveFailures says so). One alert per run, naming every
 * condition; newest first. The timestamp is
 * the run's completedAt: the alert is derived, so "generated" means when its cause happened, and
 * the same alert keeps the same timestamp on every request.
 */
export function alerts(
  tests: readonly RestoreTest[],
  reports: ReportSource,
  hours: number,
  now: Date,
  thresholds: AlertThresholds = alertThresholds(BUILT_IN_CLUSTER_DEFAULTS),
): Alert[] {
  const index = asReportIndex(reports);
  const testsByKey = new Map(tests.map((test) => [testKeyOf(test), test]));
  const result: Alert[] = [];
  const runs = runsInLastHours(index, hours, now);
  for (let position = runs.length - 1; position >= 0; position -= 1) {
    const run = runs[position]!;
    const previous = index.previousRun(run);
    const streak = run.report.spec.result === 'fail' ? failureStreak(index, run, thresholds.consecutiveFailures) : 0;
    const clauses = alertClauses(run, previous, testsByKey.get(run.testKey), thresholds, streak);
    if (clauses.length === 0) continue;
    const spec = run.report.spec;
    result.push({
      timestamp: new Date(run.completedAt).toISOString(),
      testName: spec.testRef.name,
      namespace: spec.testRef.namespace || (run.report.metadata.namespace ?? ''),
      score: spec.score,
      prevScore: previous ? previous.report.spec.score : 0,
      result: spec.result,
      message: `run ${spec.runId}: ${clauses.join('; ')}`,
    });
  }
  const preflights = preflightAlerts(tests, hours, now);
  if (preflights.length === 0) return result;
  // Newest first across both kinds (stable: runs of the same instant keep their order).
  return [...result, ...preflights].sort((left, right) => Date.parse(right.timestamp) - Date.parse(left.timestamp));
}

/**
 * Issue 32: a test whose newest backup failed its pre-flight check in the window is an alert
 * before its next full rehearsal (kind preflight; result fail; score and prevScore are the test's
 * last run's, as no run is involved).
 */
function preflightAlerts(tests: readonly RestoreTest[], hours: number, now: Date): Alert[] {
  const since = now.getTime() - hours * 3_600_000;
  const result: Alert[] = [];
  for (const test of tests) {
    const preflight = test.status?.preflight;
    if (preflight?.result !== 'failed') continue;
    const checkedAt = Date.parse(preflight.checkedAt);
    if (!(checkedAt >= since && checkedAt <= now.getTime())) continue;
    result.push({
      timestamp: new Date(checkedAt).toISOString(),
      testName: test.metadata.name,
      namespace: test.metadata.namespace ?? '',
      score: test.status?.lastScore ?? 0,
      prevScore: 0,
      result: 'fail',
      message: `pre-flight of backup ${preflight.backupName} ${preflight.summary}`,
      kind: 'preflight',
    });
  }
  return result;
}

/** Seed-spec §2 mapping; unknown values are empty strings or 0, never absent. */
export function testResponse(test: RestoreTest): TestResponse {
  const status = test.status ?? {};
  return {
    name: test.metadata.name,
    namespace: test.metadata.namespace ?? '',
    provider: test.spec.provider,
    schedule: test.spec.schedule?.cron ?? '',
    phase: status.phase ?? 'Idle',
    lastScore: status.lastScore ?? 0,
    lastResult: status.lastResult ?? '',
    lastRunAt: status.lastRunAt ?? '',
    // A suspended test has no next run, whatever a stale status may still say.
    nextRunAt: test.spec.schedule?.suspend ? '' : (status.nextRunAt ?? ''),
    sourceNamespaces: (test.spec.backupSource?.namespaces ?? []).map((source) => source.name),
    rtoTarget: test.spec.sla?.maxRTO ?? '',
    backupName: test.spec.backupSource?.backupName || TEST_INPUT_DEFAULTS.backupName,
    ...(test.spec.backupSource?.select ? { backupSelect: { ...test.spec.backupSource.select } } : {}),
    timezone: test.spec.schedule?.timezone || TEST_INPUT_DEFAULTS.timezone,
    onBackup: test.spec.schedule?.onBackup !== undefined,
    ...(test.spec.schedule?.onBackup ? { everyNthBackup: everyNthOf(test.spec.schedule.onBackup) } : {}),
    namespacePrefix: test.spec.sandbox?.namespacePrefix || TEST_INPUT_DEFAULTS.namespacePrefix,
    ttl: test.spec.sandbox?.ttl || TEST_INPUT_DEFAULTS.ttl,
    networkIsolation: test.spec.sandbox?.networkIsolation || TEST_INPUT_DEFAULTS.networkIsolation,
    healthCheckPolicy: test.spec.healthCheckPolicy ?? '',
    rpoTarget: test.spec.sla?.maxRPO ?? '',
    alertOnExceed: test.spec.sla?.maxRTO ? (test.spec.sla.alertOnExceed ?? TEST_INPUT_DEFAULTS.alertOnExceed) : false,
    historyLimit: test.spec.historyLimit ?? TEST_INPUT_DEFAULTS.historyLimit,
    ...(test.spec.backupSource.labelSelector ? { labelSelector: test.spec.backupSource.labelSelector } : {}),
    ...(test.spec.backupSource.includedResources ? { includedResources: test.spec.backupSource.includedResources } : {}),
    ...(test.spec.restore ? { restore: test.spec.restore } : {}),
    // Only when the test has one (its omitted fields filled in): a client that sends a test back as
    // read (the dashboard's form) must not turn the built-in defaults into the test's own block.
    ...(test.spec.logCollection ? { logCollection: resolveLogCollection(test.spec.logCollection) } : {}),
    ...(status.preflight ? { preflight: preflightResponse(status.preflight) } : {}),
  };
}

function preflightResponse(preflight: PreflightStatus): PreflightResponse {
  return {
    backupName: preflight.backupName,
    checkedAt: preflight.checkedAt,
    result: preflight.result,
    summary: preflight.summary,
    problems: (preflight.problems ?? []).map((problem) => ({ ...problem })),
  };
}

/**
 * A due run that has not started this long after its time is overdue. The engine queues a due run
 * within a second; the margin keeps a leader hand-over or a short wait for a run slot from being
 * reported as a problem.
 */
export const OVERDUE_AFTER_SECONDS = 60;

/** The run a test waits for: a scheduled run queued for a slot, else status.nextRunAt. */
function dueRun(test: RestoreTest): string | undefined {
  const run = test.status?.currentRun;
  if (run && run.stage === 'Queued' && run.trigger === 'schedule') return run.scheduledAt;
  return test.status?.nextRunAt;
}

/**
 * Tests with a scheduled next run (ties by namespace, then name). Overdue first (what an SRE looks
 * for; decision 0005): a run
 * due more than OVERDUE_AFTER_SECONDS ago that has not started — the engine was down (nextRunAt
 * stayed in the past) or a scheduled run still waits in the queue — marked `overdue: true`, most
 * overdue first; then the others soonest first, then the tests that run on new backups only
 * (issue 32: nextRunAt "", onNextBackup true — "on next backup"). Suspended tests and other tests
 * without a parseable time are left out.
 */
export function upcoming(tests: readonly RestoreTest[], now: Date): UpcomingTest[] {
  const overdueBefore = now.getTime() - OVERDUE_AFTER_SECONDS * 1000;
  const scheduled: { at: number; entry: UpcomingTest }[] = [];
  for (const test of tests) {
    if (test.spec.schedule?.suspend) continue;
    const nextRunAt = dueRun(test);
    const at = parseInstant(nextRunAt);
    const onNextBackup = test.spec.schedule?.onBackup !== undefined;
    const base = { name: test.metadata.name, namespace: test.metadata.namespace ?? '', lastScore: test.status?.lastScore ?? 0 };
    if (at === null || nextRunAt === undefined) {
      // Issue 32: an onBackup-only test has no next time, but it does have a next run.
      if (onNextBackup && !test.spec.schedule.cron) scheduled.push({ at: Infinity, entry: { ...base, nextRunAt: '', onNextBackup, overdue: false } });
      continue;
    }
    scheduled.push({
      at,
      entry: { ...base, nextRunAt, ...(onNextBackup ? { onNextBackup } : {}), overdue: at < overdueBefore },
    });
  }
  // Code-unit comparison, not localeCompare: the order must not depend on the server's locale.
  const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  scheduled.sort(
    (a, b) =>
      Number(b.entry.overdue) - Number(a.entry.overdue) ||
      // Infinity − Infinity is NaN: two "on next backup" entries are equal here.
      (a.at === b.at ? 0 : a.at - b.at) ||
      byText(a.entry.namespace, b.entry.namespace) ||
      byText(a.entry.name, b.entry.name),
  );
  return scheduled.map((each) => each.entry);
}
