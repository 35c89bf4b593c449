// RPO evidence for the controls about RTO/RPO objectives (ISO 27001 5.30, DORA Art. 12(6)): each
// target's RPO target and the RPO its latest completed run measured (issue 27), and a sentence
// clause over the targets. Evidence beside the status, never an input to it: the guide's status
// rules (docs/decisions/0006, the compliance guide) count the measured RTO against its target and
// say nothing of the RPO, so a missing or exceeded RPO target is noted ("RPO target undefined"),
// the way a missing RTO target is named, without making a target at risk.
import { formatDuration } from '../common/duration.js';
import { utcDate } from '../common/utc-days.js';
import type { Population, RunFacts } from './population.js';
import type { ControlDetail, RpoEvidence, RpoNote, RpoNoteCode } from './types.js';

const NOTE_ORDER: readonly RpoNoteCode[] = ['rpo_over_target', 'rpo_target_undefined', 'rpo_not_measured'];

const NOTE_LABEL: Record<RpoNoteCode, string> = {
  rpo_over_target: 'RPO over target',
  rpo_target_undefined: 'RPO target undefined',
  rpo_not_measured: 'RPO not measured',
};

/** The newest run that restored something: an aborted attempt measured nothing, so it cannot speak for the RPO. */
function latestCompleted(runs: readonly RunFacts[]): RunFacts | undefined {
  for (let i = runs.length - 1; i >= 0; i -= 1) if (!runs[i]!.aborted) return runs[i];
  return undefined;
}

/** A target's RPO evidence from its runs (oldest first); undefined when none completed. */
export function rpoEvidenceOf(runs: readonly RunFacts[], population: Population): RpoEvidence | undefined {
  const latest = latestCompleted(runs);
  if (!latest) return undefined;
  const ref = latest.reference;
  const rpo = latest.run.report.spec.rpo;
  const run = `${ref.test} run ${ref.runId}, ${utcDate(new Date(latest.run.completedAt))}`;
  const target = rpo ? (rpo.target ?? null) : (population.rpoTargets.get(latest.run.testKey) ?? null);
  const notes: RpoNote[] = [];
  if (target === null) {
    notes.push({ code: 'rpo_target_undefined', message: `no RPO target (spec.sla.maxRPO) for ${ref.test}` });
  }
  if (!rpo) {
    notes.push({
      code: 'rpo_not_measured',
      message: `latest run measured no RPO (no freshness check found a time): ${run}`,
    });
    return { target, notes };
  }
  const measured = formatDuration(rpo.measuredSeconds);
  if (rpo.withinSLA === false) {
    notes.push({ code: 'rpo_over_target', message: `latest RPO ${measured} over target ${target}: ${run}` });
  }
  return {
    target,
    latest: {
      ...ref,
      measured,
      measuredSeconds: rpo.measuredSeconds,
      ...(rpo.withinSLA !== undefined ? { withinSLA: rpo.withinSLA } : {}),
    },
    notes,
  };
}

function namesOrCount(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.length} namespaces`;
}

/**
 * The evidence sentence's RPO clause: the worst latest RPO with its target, then which targets'
 * RPO was over target, had no target or was not measured. Empty on controls without RPO evidence.
 */
export function rpoClause(control: ControlDetail): string {
  const withEvidence = control.targets.filter((target) => target.rpo !== undefined);
  if (withEvidence.length === 0) return '';
  let worst: (typeof withEvidence)[number] | undefined;
  for (const target of withEvidence) {
    const seconds = target.rpo!.latest?.measuredSeconds;
    if (seconds !== undefined && (!worst || seconds > worst.rpo!.latest!.measuredSeconds)) worst = target;
  }
  const parts: string[] = [];
  if (!worst) {
    parts.push('no RPO measured');
  } else {
    const { latest, target } = worst.rpo!;
    const where = `(${worst.namespace}, ${utcDate(new Date(latest!.completedAt))})`;
    parts.push(
      target === null
        ? `worst latest RPO ${latest!.measured} with no RPO target ${where}`
        : `worst latest RPO ${latest!.measured} vs target ${target} ${where}`,
    );
  }
  for (const code of NOTE_ORDER) {
    const namespaces = withEvidence
      .filter((target) => target.rpo!.notes.some((note) => note.code === code))
      .map((target) => target.namespace);
    if (namespaces.length > 0) parts.push(`${NOTE_LABEL[code]}: ${namesOrCount(namespaces)}`);
  }
  return `; ${parts.join('; ')}`;
}
