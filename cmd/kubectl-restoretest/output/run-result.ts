// The end of trigger --wait: the run's score, result, RTO and (when measured) RPO, then its checks (and with -o wide
// the six score levels), from the RestoreReport the run wrote.
import { NONE, orNone, paintResult } from './format.js';
import { RESTORETEST, type RestoreReport, type TableOptions } from './printers.js';
import { renderTable } from './table.js';

function rtoLine(report: RestoreReport): string {
  const rto = report.spec.rto;
  const measured = orNone(rto.measured);
  if (!rto.target) return `${measured} (no RTO target)`;
  if (rto.withinSLA === undefined) return `${measured} (target ${rto.target})`;
  return `${measured} (target ${rto.target}: ${rto.withinSLA ? 'within SLA' : 'SLA missed'})`;
}

/** The measured RPO beside the RTO, worded the same way; absent without a freshness check's finding. */
function rpoLine(report: RestoreReport): string | undefined {
  const rpo = report.spec.rpo;
  if (!rpo) return undefined;
  if (!rpo.target) return `${rpo.measured} (no RPO target)`;
  if (rpo.withinSLA === undefined) return `${rpo.measured} (target ${rpo.target})`;
  return `${rpo.measured} (target ${rpo.target}: ${rpo.withinSLA ? 'within SLA' : 'SLA missed'})`;
}

export function renderRunResult(report: RestoreReport, options: TableOptions): string {
  const spec = report.spec;
  const result = paintResult(spec.result, options.color);
  const rpo = rpoLine(report);
  const fields: [string, string][] = [
    ['Score', `${spec.score}/100`],
    ['Result', result],
    ['RTO', rtoLine(report)],
    ...(rpo ? ([['RPO', rpo]] as [string, string][]) : []),
    ['Backup', `${orNone(spec.backup.name)} (${spec.backup.provider})`],
    // Issue 32: how a randomWithin test drew it (window, candidates, seed), in the server's words.
    ...(spec.backup.selection ? ([['Chosen', spec.backup.selection.reason]] as [string, string][]) : []),
    ['Report', `${report.metadata.name} (in ${report.metadata.namespace ?? spec.testRef.namespace})`],
  ];
  if (spec.failure) fields.push(['Failure', `${spec.failure.reason}: ${spec.failure.message}`]);
  const width = Math.max(...fields.map(([label]) => label.length)) + 2;
  let out = `${RESTORETEST}/${spec.testRef.name}: run ${spec.runId} finished: ${result}\n`;
  out += fields.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}\n`).join('');
  if (spec.checks.length > 0) {
    out += '\n';
    out += renderTable(
      ['CHECK', 'KIND', 'STATUS', 'DURATION', 'MESSAGE'],
      spec.checks.map((check) => [check.name, check.kind, paintResult(check.status, options.color), orNone(check.duration), orNone(check.message)]),
    );
  }
  if (options.wide && spec.levels.length > 0) {
    out += '\n';
    out += renderTable(
      ['LEVEL', 'POINTS', 'MAX', 'TESTED', 'DETAIL'],
      spec.levels.map((level) => [
        level.name,
        level.tested ? String(level.points) : NONE,
        String(level.maxPoints),
        level.tested ? 'yes' : 'no',
        orNone(level.detail),
      ]),
    );
  }
  return out;
}
