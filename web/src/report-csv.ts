// Reports as CSV for a spreadsheet (issue 30): one row per report, the columns an auditor reads
// first. The check messages and the failure travel as text cells (csvCell neutralizes formulas).
import { toCsv, type CsvValue } from './export.js';
import type { Report } from './format.js';

const COLUMNS = [
  'completedAt',
  'namespace',
  'test',
  'result',
  'score',
  'trigger',
  'backup',
  'provider',
  'backupAge',
  'rto',
  'rtoTarget',
  'rtoWithinSLA',
  'rpo',
  'rpoWithinSLA',
  'checks',
  'failedChecks',
  'failure',
  'report',
  'runId',
] as const;

/** "4/5 passed": the report's own checkSummary, or its head for reports written before it existed. */
function checksOf(report: Report): string {
  const { checks, checkSummary } = report.spec;
  if (checkSummary) return checkSummary;
  return checks.length === 0
    ? 'no checks ran'
    : `${checks.filter((c) => c.status === 'pass').length}/${checks.length} passed`;
}

function rowOf(report: Report): Record<(typeof COLUMNS)[number], CsvValue> {
  const s = report.spec;
  return {
    completedAt: s.completedAt,
    namespace: s.testRef.namespace,
    test: s.testRef.name,
    result: s.result,
    score: s.score,
    trigger: s.trigger,
    backup: s.backup.name,
    provider: s.backup.provider,
    backupAge: s.backup.age,
    rto: s.rto.measured,
    rtoTarget: s.rto.target,
    rtoWithinSLA: s.rto.withinSLA,
    rpo: s.rpo?.measured,
    rpoWithinSLA: s.rpo?.withinSLA,
    checks: checksOf(report),
    // Every check that did not pass, one per line (a quoted cell may hold line breaks).
    failedChecks: s.checks
      .filter((c) => c.status === 'fail' || c.status === 'error')
      .map((c) => `${c.name} (${c.status}): ${c.message}`)
      .join('\n'),
    failure: s.failure ? `${s.failure.reason}: ${s.failure.message}` : '',
    report: report.metadata.name,
    runId: s.runId,
  };
}

/** The reports as CSV: a header row, then one row per report in the order given. */
export function reportsCsv(reports: readonly Report[]): string {
  return toCsv([COLUMNS, ...reports.map((report) => COLUMNS.map((column) => rowOf(report)[column]))]);
}
