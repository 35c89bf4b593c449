// The columns of every table. -o table shows what an SRE scans for; -o wide adds detail; -o name
// prints kubectl-style resource/name lines where the rows are Kubernetes objects.
import type { components } from '../../../openapi/client.js';
import { binaryBytes } from '../../../protocol/bytes.js';
import { age, NONE, orNone, overdue, paintResult, percent, until } from './format.js';

type Schemas = components['schemas'];
export type TestResponse = Schemas['TestResponse'];
export type RestoreReport = Schemas['RestoreReportResource'];
export type Summary = Schemas['Summary'];
export type DailySummary = Schemas['DailySummary'];
export type Alert = Schemas['Alert'];
export type UpcomingTest = Schemas['UpcomingTest'];
export type ScheduleInfo = Schemas['ScheduleInfo'];
export type ComplianceResponse = Schemas['ComplianceResponse'];
export type VolumeRestore = Schemas['VolumeRestoreReport'];

export interface TableOptions {
  wide: boolean;
  /** -A: a NAMESPACE column first, as kubectl does. */
  allNamespaces: boolean;
  now: Date;
  color: boolean;
}

export interface Printer<T> {
  /** For -o name ("restoretest.rehearsal.dev/payments"); absent when rows are not objects. */
  resourceName?(item: T): string;
  headers(options: TableOptions): string[];
  row(item: T, options: TableOptions): string[];
}

export const RESTORETEST = 'restoretest.rehearsal.dev';
export const RESTOREREPORT = 'restorereport.rehearsal.dev';

function withNamespace(options: TableOptions, namespace: string, cells: string[]): string[] {
  return options.allNamespaces ? [namespace, ...cells] : cells;
}

function headersWithNamespace(options: TableOptions, headers: string[]): string[] {
  return options.allNamespaces ? ['NAMESPACE', ...headers] : headers;
}

/** What a test restores when it restores a subset (issue 32): "app=web; deployments.apps,services". */
function subsetCell(test: TestResponse): string {
  const selector = test.labelSelector;
  const labels = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(selector?.matchExpressions ?? []).map((requirement) => {
      switch (requirement.operator) {
        case 'In':
          return `${requirement.key} in (${(requirement.values ?? []).join(',')})`;
        case 'NotIn':
          return `${requirement.key} notin (${(requirement.values ?? []).join(',')})`;
        case 'Exists':
          return requirement.key;
        default:
          return `!${requirement.key}`;
      }
    }),
  ].join(',');
  const types = (test.includedResources ?? []).map((type) => (type.group ? `${type.resource}.${type.group}` : type.resource)).join(',');
  return [labels, types].filter(Boolean).join('; ');
}

export const testPrinter: Printer<TestResponse> = {
  resourceName: (test) => `${RESTORETEST}/${test.name}`,
  headers: (options) =>
    headersWithNamespace(options, [
      'NAME',
      'PROVIDER',
      'SCHEDULE',
      'PHASE',
      'SCORE',
      'RESULT',
      'LAST RUN',
      'NEXT RUN',
      ...(options.wide ? ['SOURCES', 'BACKUP', 'RTO TARGET', 'RPO TARGET', 'SUBSET', 'PREFLIGHT'] : []),
    ]),
  row: (test, options) =>
    withNamespace(options, test.namespace, [
      test.name,
      test.provider,
      scheduleCell(test),
      test.phase,
      test.lastResult ? String(test.lastScore) : NONE,
      test.lastResult ? paintResult(test.lastResult, options.color) : NONE,
      age(test.lastRunAt, options.now),
      nextRunCell(test.nextRunAt, test.onBackup === true, options.now),
      ...(options.wide
        ? [
            orNone(test.sourceNamespaces.join(',')),
            backupCell(test),
            orNone(test.rtoTarget),
            orNone(test.rpoTarget ?? ''),
            orNone(subsetCell(test)),
            orNone(preflightCell(test)),
          ]
        : []),
    ]),
};

/** The newest backup's pre-flight (issue 32): "passed", "failed (2)" — the problems are in -o yaml. */
function preflightCell(test: TestResponse): string {
  const preflight = test.preflight;
  if (!preflight) return '';
  const errors = preflight.problems.filter((problem) => problem.severity === 'error').length;
  return preflight.result === 'failed' ? `failed (${errors})` : preflight.result;
}

/** When a test runs: its cron, new backups (issue 32: "each backup", "every 3rd backup"), or both. */
function scheduleCell(test: TestResponse): string {
  if (!test.onBackup) return orNone(test.schedule);
  const nth = test.everyNthBackup ?? 1;
  const backups = nth === 1 ? 'each backup' : `every ${ordinal(nth)} backup`;
  return test.schedule ? `${test.schedule} + ${backups}` : backups;
}

function ordinal(value: number): string {
  const teen = value % 100 >= 11 && value % 100 <= 13;
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[value % 10] ?? 'th';
  return `${value}${suffix}`;
}

/** A test that runs on new backups only has no next time: its next run is "on next backup". */
function nextRunCell(nextRunAt: string, onBackup: boolean, now: Date): string {
  return !nextRunAt && onBackup ? 'on next backup' : until(nextRunAt, now);
}

/** What a test restores: a backup's name, latest, or "random within 720h" (issue 32). */
function backupCell(test: TestResponse): string {
  if (test.backupSelect?.strategy === 'randomWithin') return `random within ${test.backupSelect.within ?? '?'}`;
  return orNone(test.backupName ?? '');
}

/** A report's backup, with how a randomWithin test drew it: "daily-0328 (#3 of 7)", "daily-0301 (fallback)". */
export function reportBackupCell(report: RestoreReport): string {
  const name = orNone(report.spec.backup.name);
  const selection = report.spec.backup.selection;
  if (!selection) return name;
  return selection.fallback ? `${name} (fallback: none within ${selection.within})` : `${name} (#${selection.chosen ?? '?'} of ${selection.candidates})`;
}

function checksPassed(report: RestoreReport): string {
  const checks = report.spec.checks;
  if (checks.length === 0) return NONE;
  return `${checks.filter((check) => check.status === 'pass').length}/${checks.length}`;
}

function slaCell(report: RestoreReport): string {
  const rto = report.spec.rto;
  if (rto.withinSLA === undefined) return NONE;
  return rto.withinSLA ? 'met' : 'missed';
}

/**
 * The measured RPO ("4m57s"), marked with the SLA column's word when it exceeded the test's maxRPO
 * ("1h2m (missed)"); <none> when no freshness check measured one.
 */
function rpoCell(report: RestoreReport): string {
  const rpo = report.spec.rpo;
  if (!rpo) return NONE;
  return rpo.withinSLA === false ? `${rpo.measured} (missed)` : rpo.measured;
}

/** The Pod Security level each sandbox enforced, in source order, each level once ("baseline,restricted"). */
function podSecurityCell(report: RestoreReport): string {
  const levels = (report.spec.podSecurity?.namespaces ?? []).map((entry) => entry.level);
  return levels.length === 0 ? NONE : [...new Set(levels)].join(',');
}

/** How many changes the restore transforms made ("12"), and how many defaults the test removed ("12 (-1 default)"). */
function transformsCell(report: RestoreReport): string {
  const transforms = report.spec.transforms;
  if (!transforms) return NONE;
  const count = transforms.applied.length + (transforms.more ?? 0);
  const removed = transforms.removedDefaults?.length ?? 0;
  return removed > 0 ? `${count} (-${removed} default${removed > 1 ? 's' : ''})` : String(count);
}

/** Volumes whose data came back, of those the restore brought ("2/2"); <none> without volume data. */
function volumesCell(report: RestoreReport): string {
  const volumes = report.spec.volumes ?? [];
  return volumes.length === 0 ? NONE : `${volumes.filter((volume) => volume.dataRestored).length}/${volumes.length}`;
}

/** The volume table of one report (reports NAME --latest): one row per restored volume. */
export const volumePrinter: Printer<VolumeRestore> = {
  headers: () => ['POD', 'VOLUME', 'CLAIM', 'METHOD', 'PHASE', 'BYTES', 'DURATION', 'MESSAGE'],
  row: (volume) => [
    orNone(volume.pod),
    orNone(volume.volume),
    orNone(volume.claim),
    volume.method,
    volume.phase,
    volume.bytes === undefined ? NONE : binaryBytes(volume.bytes, 'kubectl'),
    volume.durationSeconds === undefined ? NONE : `${volume.durationSeconds}s`,
    orNone(volume.message),
  ],
};

export const reportPrinter: Printer<RestoreReport> = {
  resourceName: (report) => `${RESTOREREPORT}/${report.metadata.name}`,
  headers: (options) =>
    headersWithNamespace(options, [
      'NAME',
      'TEST',
      'RESULT',
      'SCORE',
      'RTO',
      'TRIGGER',
      'AGE',
      ...(options.wide ? ['BACKUP', 'CHECKS', 'SLA', 'RPO', 'SANDBOX', 'POD SECURITY', 'TRANSFORMS', 'VOLUMES', 'FAILURE'] : []),
    ]),
  row: (report, options) =>
    withNamespace(options, report.metadata.namespace ?? report.spec.testRef.namespace, [
      report.metadata.name,
      report.spec.testRef.name,
      paintResult(report.spec.result, options.color),
      String(report.spec.score),
      orNone(report.spec.rto.measured),
      report.spec.trigger,
      age(report.spec.completedAt || report.metadata.creationTimestamp, options.now),
      ...(options.wide
        ? [
            reportBackupCell(report),
            checksPassed(report),
            slaCell(report),
            rpoCell(report),
            orNone(report.spec.sandboxNamespaces.join(',')),
            podSecurityCell(report),
            transformsCell(report),
            volumesCell(report),
            orNone(report.spec.failure?.reason),
          ]
        : []),
    ]),
};

export const summaryPrinter: Printer<Summary> = {
  headers: () => ['TESTS', 'RAN (24H)', 'AVG SCORE', 'FAILURES', 'PARTIAL', 'AVG RTO', 'NAMESPACES COVERED'],
  row: (summary) => [
    String(summary.totalTests),
    String(summary.testsLastNight),
    summary.testsLastNight > 0 ? String(summary.averageScore) : NONE,
    String(summary.totalFailures),
    String(summary.totalPartial),
    summary.testsLastNight > 0 ? orNone(summary.averageRTO) : NONE,
    String(summary.namespacesCovered),
  ],
};

export const dailyPrinter: Printer<DailySummary> = {
  headers: (options) => ['DATE', 'RUNS', 'AVG SCORE', 'FAILURES', ...(options.wide ? ['PASSED OR PARTIAL'] : [])],
  row: (day, options) => [
    day.date,
    String(day.tests),
    day.tests > 0 ? String(day.score) : NONE,
    String(day.failures),
    ...(options.wide ? [String(day.tests - day.failures)] : []),
  ],
};

export const alertPrinter: Printer<Alert> = {
  resourceName: (alert) => `${RESTORETEST}/${alert.testName}`,
  headers: (options) =>
    headersWithNamespace(options, [
      'AGE',
      'TEST',
      'RESULT',
      'SCORE',
      'PREVIOUS',
      'MESSAGE',
      ...(options.wide ? ['TIMESTAMP'] : []),
    ]),
  row: (alert, options) =>
    withNamespace(options, alert.namespace, [
      age(alert.timestamp, options.now),
      alert.testName,
      paintResult(alert.result, options.color),
      String(alert.score),
      String(alert.prevScore),
      alert.message,
      ...(options.wide ? [alert.timestamp] : []),
    ]),
};

export const upcomingPrinter: Printer<UpcomingTest> = {
  resourceName: (test) => `${RESTORETEST}/${test.name}`,
  headers: (options) =>
    headersWithNamespace(options, ['NAME', 'NEXT RUN', 'LAST SCORE', ...(options.wide ? ['NEXT RUN AT'] : [])]),
  row: (test, options) =>
    withNamespace(options, test.namespace, [
      test.name,
      // Overdue runs come first from the API; the column says how late they are.
      test.overdue ? overdue(test.nextRunAt, options.now) : nextRunCell(test.nextRunAt, test.onNextBackup === true, options.now),
      String(test.lastScore),
      ...(options.wide ? [orNone(test.nextRunAt)] : []),
    ]),
};

export const schedulePrinter: Printer<ScheduleInfo> = {
  resourceName: (schedule) => `schedule.velero.io/${schedule.name}`,
  headers: (options) => ['NAME', 'SCHEDULE', 'NAMESPACES', 'LAST BACKUP', ...(options.wide ? ['LAST BACKUP AT'] : [])],
  row: (schedule, options) => [
    schedule.name,
    schedule.cron,
    orNone(schedule.namespaces.join(',')),
    age(schedule.lastBackup, options.now),
    ...(options.wide ? [orNone(schedule.lastBackup)] : []),
  ],
};

export const complianceSummaryPrinter: Printer<ComplianceResponse> = {
  headers: () => ['FRAMEWORK', 'PERIOD', 'RUNS', 'PASS RATE', 'AVG SCORE', 'SLA COMPLIANCE', 'NAMESPACES', 'GENERATED'],
  row: (compliance, options) => [
    compliance.framework,
    `${compliance.period}d`,
    String(compliance.totalTests),
    compliance.totalTests > 0 ? percent(compliance.passRate) : NONE,
    compliance.totalTests > 0 ? String(compliance.avgScore) : NONE,
    compliance.totalTests > 0 ? percent(compliance.slaCompliance) : NONE,
    String(compliance.namespacesCovered),
    age(compliance.generatedAt, options.now),
  ],
};

export type ComplianceControl = Schemas['ComplianceControl'];

export const controlPrinter: Printer<ComplianceControl> = {
  headers: (options) => ['CONTROL', 'STATUS', 'TITLE', ...(options.wide ? ['EVIDENCE'] : [])],
  row: (control, options) => [
    control.id,
    paintResult(control.status, options.color),
    control.title,
    ...(options.wide ? [control.evidence] : []),
  ],
};
