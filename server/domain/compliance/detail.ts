// The parts of the auditor PDF's detail beyond the controls: the RTO analysis per namespace, the
// limitations, and the record of every run of the population.
import type { ControlDefinition } from './catalogue.js';
import { formatDuration } from '../common/duration.js';
import { rtoTargetSeconds } from '../read-models/run-facts.js';
import type { Population, RunFacts } from './population.js';
import type { ComplianceDetail, RtoAnalysisRow, RunRecord } from './types.js';

function worstRto(runs: readonly RunFacts[]): RunFacts | undefined {
  let worst: RunFacts | undefined;
  for (const facts of runs) {
    if (facts.rtoSeconds === null) continue;
    if (!worst || facts.rtoSeconds >= worst.rtoSeconds!) worst = facts;
  }
  return worst;
}

export function rtoAnalysis(population: Population): RtoAnalysisRow[] {
  return population.scope.map((namespace) => {
    const runs = (population.runsByNamespace.get(namespace) ?? []).filter((facts) => !facts.aborted);
    const measured = runs.filter((facts) => facts.rtoSeconds !== null);
    const worst = worstRto(runs);
    const row: RtoAnalysisRow = {
      namespace,
      runsMeasured: measured.length,
      runsWithTarget: runs.filter((facts) => facts.verdict !== 'no-target').length,
      runsWithinTarget: runs.filter((facts) => facts.verdict === 'met').length,
      runsBreached: runs.filter((facts) => facts.verdict === 'breached').length,
      runsWithoutTarget: runs.filter((facts) => facts.verdict === 'no-target').length,
    };
    if (worst) {
      const targetSeconds = rtoTargetSeconds(worst.run.report);
      row.worst = {
        ...worst.reference,
        rtoSeconds: worst.rtoSeconds!,
        rto: formatDuration(worst.rtoSeconds!),
        targetSeconds,
        target: targetSeconds === null ? null : formatDuration(targetSeconds),
        verdict: worst.verdict,
      };
    }
    return row;
  });
}

export function limitations(
  population: Population,
  controls: readonly ControlDefinition[],
  periodDays: number,
): string[] {
  const notes = [
    'System-generated from RestoreReports; this is evidence for an assessor, not an audit opinion.',
    'Measured RTOs come from restores into sandbox namespaces of the same cluster; they are test measurements, not a guarantee of production recovery time.',
    'An RPO is measured only by runs with a freshness check (the restore request time minus the newest data found in the restored copy); it is named beside the RTO/RPO controls\u2019 evidence, and the status rules do not count it.',
    'Runs of RestoreTests deleted before generation, and reports pruned beyond a test\u2019s historyLimit, are not part of this population.',
  ];
  if (!population.signaturesChecked) {
    notes.push('Evidence signatures were not verified for this output.');
  }
  for (const control of controls) if (control.caveat) notes.push(`${control.id}: ${control.caveat}.`);
  const freshness = Math.max(...controls.map((control) => control.freshnessDays));
  if (periodDays < freshness) {
    notes.push(
      `Only runs inside the ${periodDays}-day period are considered: a namespace whose newest test is older ` +
        `shows as not tested even if that test is within the ${freshness}-day freshness window.`,
    );
  }
  return notes;
}

export function runRecord(facts: RunFacts): RunRecord {
  const spec = facts.run.report.spec;
  return {
    ...facts.reference,
    sourceNamespaces: [...facts.sources],
    backupName: spec.backup?.name ?? '',
    rtoSeconds: facts.rtoSeconds,
    rtoTarget: spec.rto?.target ?? null,
    rtoVerdict: facts.verdict,
    aborted: facts.aborted,
    evidenceVerified: facts.verified,
    ...(spec.failure ? { failure: { reason: spec.failure.reason, message: spec.failure.message } } : {}),
  };
}

/** ComplianceDetail.eachRun, not enumerable: the detail stays comparable and serialisable as data. */
export function eachRunOf(population: Population): ComplianceDetail['eachRun'] {
  const eachRun = function* (): IterableIterator<RunRecord> {
    for (const facts of population.runs) yield runRecord(facts);
  };
  return eachRun;
}
