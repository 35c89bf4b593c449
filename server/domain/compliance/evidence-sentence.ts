// The one-line evidence sentence of a control: coverage, status with its reasons, the runs of the
// period, freshness, the worst RTO, the RPO (controls about RTO/RPO objectives), deleted tails and
// the control's caveat.
import type { ControlStatus } from '../read-models/views.js';
import { formatDuration } from '../common/duration.js';
import { rtoTargetSeconds } from '../read-models/run-facts.js';
import { utcDate } from '../common/utc-days.js';
import { once, type Population } from './population.js';
import { plural, REASON_LABEL, REASON_ORDER } from './rules.js';
import type { ControlDetail, TargetReasonCode } from './types.js';
import { rpoClause } from './rpo-evidence.js';

function namesOrCount(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.length} namespaces`;
}

function rtoClause(population: Population): string {
  const worst = population.totals.worstRto;
  if (!worst) return 'no RTO measured';
  const target = rtoTargetSeconds(worst.run.report);
  const where = `(${worst.sources.join('+')}, ${utcDate(new Date(worst.run.completedAt))})`;
  return target === null
    ? `worst RTO ${formatDuration(worst.rtoSeconds!)} with no RTO target ${where}`
    : `worst RTO ${formatDuration(worst.rtoSeconds!)} vs target ${formatDuration(target)} ${where}`;
}

function runsClause(population: Population): string {
  const { pass, partial, fail, aborted } = population.totals;
  const abortedNote = aborted > 0 ? ` incl. ${plural(aborted, 'aborted attempt')}` : '';
  return `${plural(population.runs.length, 'run')} (${pass} pass, ${partial} partial, ${fail} fail${abortedNote})`;
}

function statusParenthetical(control: ControlDetail): string {
  const remediated = control.remediatedExceptions;
  const remediatedNote = remediated > 0 ? plural(remediated, 'remediated exception') : '';
  if (control.status === 'satisfied') return remediatedNote ? ` (${remediatedNote})` : '';
  if (control.status === 'not_tested') return '';
  // One pass over the targets (not one per reason code: 10 filters of ~1,000 targets per control
  // per evaluation were a measurable share of its garbage). Each list keeps the targets' order.
  const byCode = new Map<TargetReasonCode, string[]>();
  const untested: string[] = [];
  for (const target of control.targets) {
    if (target.status === 'not_tested') untested.push(target.namespace);
    for (const reason of target.reasons) {
      const namespaces = byCode.get(reason.code);
      if (!namespaces) byCode.set(reason.code, [target.namespace]);
      else if (namespaces[namespaces.length - 1] !== target.namespace) namespaces.push(target.namespace);
    }
  }
  const parts: string[] = [];
  for (const code of REASON_ORDER) {
    const namespaces = byCode.get(code);
    if (namespaces) parts.push(`${REASON_LABEL[code]}: ${namesOrCount(namespaces)}`);
  }
  if (untested.length) parts.push(`not tested: ${namesOrCount(untested)}`);
  if (remediatedNote) parts.push(remediatedNote);
  return ` (${parts.join('; ')})`;
}

const STATUS_TEXT: Record<ControlStatus, string> = {
  satisfied: 'satisfied',
  at_risk: 'at risk',
  not_tested: 'not tested',
};

/**
 * Names the tests of the control's targets whose newest reports were deleted, and those whose
 * chain disagrees with an evidence anchor (changed after it was anchored).
 */
function tailClause(control: ControlDetail, population: Population): string {
  const inScope = new Set(control.targets.map((target) => target.namespace));
  const inControl = population.missingTails.filter((tail) => tail.sourceNamespaces.some((namespace) => inScope.has(namespace)));
  const named = (tests: string[]): string => {
    const unique = [...new Set(tests)];
    return unique.length <= 3 ? unique.join(', ') : `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more`;
  };
  const tails = inControl.filter((tail) => tail.kind !== 'anchor').map((tail) => tail.test);
  const anchors = inControl.filter((tail) => tail.kind === 'anchor').map((tail) => tail.test);
  return (
    (tails.length ? `; evidence exception: missing tail (newest reports deleted) of ${named(tails)}` : '') +
    (anchors.length ? `; evidence exception: changed after it was anchored (disagrees with write-once evidence anchors) of ${named(anchors)}` : '')
  );
}

export function evidenceSentence(control: ControlDetail, population: Population): string {
  const period = `${utcDate(new Date(population.from))}..${utcDate(population.now)} UTC`;
  const coverage = `${control.verifiedTargets}/${population.scope.length} namespaces restored and verified ${period}`;
  const caveat = control.caveat ? `; ${control.caveat}` : '';
  const head = `${control.id} ${STATUS_TEXT[control.status]}${statusParenthetical(control)}`;
  if (control.status === 'not_tested') {
    const aborted = population.runs.filter((facts) => facts.aborted);
    const reasons = [...new Set(aborted.map((facts) => facts.run.report.spec.failure?.reason ?? 'unknown'))];
    const abortedNote = aborted.length
      ? ` (${plural(aborted.length, 'aborted attempt')}: ${reasons.slice(0, 3).join(', ')})`
      : '';
    return `${head}: ${coverage}; no completed run in the period${abortedNote}${caveat}.`;
  }
  const ages = control.targets
    .map((target) => target.newestQualifyingPassAgeDays)
    .filter((age): age is number => age !== undefined);
  const freshness = ages.length
    ? `newest qualifying pass per namespace ≤ ${Math.max(1, Math.ceil(Math.max(...ages)))} d old`
    : 'no qualifying pass';
  return `${head}: ${coverage}; ${once(population, 'runsClause', () => runsClause(population))}; ${freshness}; ${once(population, 'rtoClause', () => rtoClause(population))}${rpoClause(control)}${tailClause(control, population)}${caveat}.`;
}
