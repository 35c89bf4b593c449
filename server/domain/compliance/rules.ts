// The status rules of decision 0006 (docs/decisions/0006-compliance-evidence.md) for one target (a source namespace in
// scope) under one control: qualifying passes, exceptions and their remediation within W, the
// reasons for at_risk, and the control's status over its targets.
import type { ControlStatus } from '../read-models/views.js';
import type { ControlDefinition } from './catalogue.js';
import type { RunFacts, Population } from './population.js';
import type {
  ExceptionCause,
  ExceptionDetail,
  RemediationState,
  TargetControlDetail,
  TargetReason,
  TargetReasonCode,
} from './types.js';
import { MILLISECONDS_PER_DAY, utcDate } from '../common/utc-days.js';
import { rpoEvidenceOf } from './rpo-evidence.js';

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Qualifying pass: pass, RTO met (or no target on a control that is not RTO-bound), evidence verifies. */
export function qualifies(facts: RunFacts, control: ControlDefinition): boolean {
  if (facts.result !== 'pass' || facts.aborted || !facts.verified) return false;
  return facts.verdict === 'met' || (facts.verdict === 'no-target' && !control.rtoBound);
}

export function exceptionCauses(facts: RunFacts, control: ControlDefinition): ExceptionCause[] {
  const causes: ExceptionCause[] = [];
  if (facts.aborted) causes.push('aborted');
  else if (facts.result === 'fail') causes.push('fail');
  else if (facts.result === 'partial') causes.push('partial');
  if (facts.verdict === 'breached') causes.push('rto_breach');
  if (facts.verdict === 'unmeasured' && !facts.aborted && facts.result !== 'fail')
    causes.push('rto_unmeasured');
  if (facts.verdict === 'no-target' && control.rtoBound) causes.push('rto_target_undefined');
  if (!facts.verified) causes.push('evidence_unverified');
  return sharedCauses(causes);
}

/**
 * One frozen array per combination of causes (a handful), not one per exception: the compliance
 * PDF reads every exception of the period (~40,000 at 90,000 runs in the benchmark).
 */
const CAUSE_LISTS = new Map<string, ExceptionCause[]>();

function sharedCauses(causes: ExceptionCause[]): ExceptionCause[] {
  const key = causes.join(',');
  let shared = CAUSE_LISTS.get(key);
  if (!shared) CAUSE_LISTS.set(key, (shared = Object.freeze(causes) as ExceptionCause[]));
  return shared;
}

/** One exception record, built in one literal (no reference object copied into it). */
function exceptionDetail(
  facts: RunFacts,
  causes: ExceptionCause[],
  remediation: RemediationState,
  by: RunFacts | undefined,
): ExceptionDetail {
  const { run } = facts;
  const spec = run.report.spec;
  return by
    ? {
        report: run.key,
        test: run.testKey,
        runId: spec.runId,
        completedAt: spec.completedAt,
        result: spec.result,
        score: spec.score,
        causes,
        remediation,
        remediatedBy: by.reference,
      }
    : {
        report: run.key,
        test: run.testKey,
        runId: spec.runId,
        completedAt: spec.completedAt,
        result: spec.result,
        score: spec.score,
        causes,
        remediation,
      };
}

const CAUSE_TEXT: Record<ExceptionCause, string> = {
  fail: 'fail',
  partial: 'partial',
  aborted: 'aborted attempt',
  rto_breach: 'RTO breach',
  rto_unmeasured: 'RTO not measured',
  rto_target_undefined: 'RTO target undefined',
  evidence_unverified: 'evidence does not verify',
};

/**
 * describeRun's text per run, for controls that are RTO-bound or not (the only control property
 * the causes read): every evaluation names the same few runs of each target again, and building
 * the text (causes, reference, date) was most of what an evaluation allocated per target.
 */
const DESCRIPTIONS = [new WeakMap<RunFacts, string>(), new WeakMap<RunFacts, string>()] as const;

function describedException(facts: RunFacts, control: ControlDefinition): string {
  const memo = DESCRIPTIONS[control.rtoBound ? 1 : 0];
  let text = memo.get(facts);
  if (text === undefined) memo.set(facts, (text = describeRun(facts, exceptionCauses(facts, control))));
  return text;
}

function describeRun(facts: RunFacts, causes: ExceptionCause[]): string {
  const { reference: ref } = facts;
  const date = utcDate(new Date(facts.run.completedAt));
  return `${causes.map((cause) => CAUSE_TEXT[cause]).join(' + ')} ${date} (${ref.test} run ${ref.runId})`;
}

export const REASON_ORDER: readonly TargetReasonCode[] = [
  'no_qualifying_pass',
  'stale',
  'latest_run_failed',
  'latest_run_partial',
  'rto_breach',
  'rto_target_undefined',
  'evidence_unverified',
  'late_remediation',
  'unremediated_exception',
  'remediation_pending',
];

export const REASON_LABEL: Record<TargetReasonCode, string> = {
  no_qualifying_pass: 'no qualifying pass',
  stale: 'stale',
  latest_run_failed: 'latest run failed',
  latest_run_partial: 'latest run partial',
  rto_breach: 'RTO breach',
  rto_target_undefined: 'RTO target undefined',
  evidence_unverified: 'evidence does not verify',
  late_remediation: 'late remediation',
  unremediated_exception: 'unremediated exception',
  remediation_pending: 'remediation pending',
};

function latestRunReasons(facts: RunFacts, control: ControlDefinition): TargetReason[] {
  const causes = exceptionCauses(facts, control);
  const described = describedException(facts, control);
  const reasons: TargetReason[] = [];
  if (causes.includes('aborted') || causes.includes('fail')) {
    reasons.push({ code: 'latest_run_failed', message: `latest run: ${described}` });
  } else if (causes.includes('partial')) {
    reasons.push({ code: 'latest_run_partial', message: `latest run: ${described}` });
  }
  if (causes.includes('rto_breach') || causes.includes('rto_unmeasured')) {
    reasons.push({ code: 'rto_breach', message: `latest run: ${described}` });
  }
  if (causes.includes('rto_target_undefined')) {
    reasons.push({ code: 'rto_target_undefined', message: `latest run has no RTO target: ${described}` });
  }
  if (causes.includes('evidence_unverified')) {
    reasons.push({ code: 'evidence_unverified', message: `latest run: ${described}` });
  }
  return reasons;
}

/** The first qualifying pass of the same test after the exception (passesOfTest is oldest first). */
function remediatingPass(exception: RunFacts, passesOfTest: readonly RunFacts[]): RunFacts | undefined {
  let low = 0;
  let high = passesOfTest.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (passesOfTest[middle]!.run.completedAt <= exception.run.completedAt) low = middle + 1;
    else high = middle;
  }
  return passesOfTest[low];
}

function remediationState(
  exception: RunFacts,
  by: RunFacts | undefined,
  population: Population,
): RemediationState {
  if (by)
    return by.run.completedAt - exception.run.completedAt <= population.windowMs ? 'remediated' : 'late';
  return population.to - exception.run.completedAt <= population.windowMs ? 'pending' : 'unremediated';
}

/** What a message lists of some exceptions: the first three, described, and how many there are. */
interface ListedExceptions {
  count: number;
  first: RunFacts[];
}

function listException(list: ListedExceptions, facts: RunFacts): void {
  list.count += 1;
  // Causes are worked out only for the few runs a message names: at scale most runs of a failing
  // target are exceptions, and describing each would dominate the cost.
  if (list.first.length < 3) list.first.push(facts);
}

function listed(list: ListedExceptions, control: ControlDefinition): string {
  return (
    list.first.map((facts) => describedException(facts, control)).join('; ') +
    (list.count > 3 ? `; ${list.count - 3} more` : '')
  );
}

/**
 * Every exception of a target with its remediation, for the auditor PDF: built when first read (the
 * JSON answer needs only the counts, and 90,000 exception records per evaluation were most of its
 * garbage). A value property from then on, so the detail stays plain data.
 */
function defineExceptions(
  target: TargetControlDetail,
  runs: readonly RunFacts[],
  control: ControlDefinition,
  passesByTest: ReadonlyMap<string, RunFacts[]>,
  population: Population,
): void {
  const build = (): ExceptionDetail[] => {
    const exceptions: ExceptionDetail[] = [];
    for (const facts of runs) {
      if (qualifies(facts, control)) continue;
      const by = remediatingPass(facts, passesByTest.get(facts.run.testKey) ?? []);
      exceptions.push(
        exceptionDetail(facts, exceptionCauses(facts, control), remediationState(facts, by, population), by),
      );
    }
    return exceptions;
  };
  Object.defineProperty(target, 'exceptions', {
    enumerable: true,
    configurable: true,
    get(): ExceptionDetail[] {
      const value = build();
      Object.defineProperty(target, 'exceptions', {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return value;
    },
    set(value: ExceptionDetail[]): void {
      Object.defineProperty(target, 'exceptions', {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    },
  });
}

const NO_PASSES: readonly RunFacts[] = [];
/** Shared by every target while no test misses its tail (never modified: spread, not pushed to). */
const NO_REASONS: TargetReason[] = [];

export function evaluateTarget(
  namespace: string,
  control: ControlDefinition,
  population: Population,
): TargetControlDetail {
  const runs = population.runsByNamespace.get(namespace) ?? [];
  // Indexed loops here and below: this runs for every target of every rule per evaluation (2,000
  // calls over 90,000 runs), and for...of here allocated per element (measured: 25 → 16 MB a rule).
  let aborted = 0;
  for (let i = 0; i < runs.length; i += 1) if (runs[i]!.aborted) aborted += 1;
  const base: TargetControlDetail = {
    namespace,
    status: 'not_tested',
    reasons: [],
    runs: runs.length,
    abortedAttempts: aborted,
    qualifyingPasses: 0,
    exceptions: [],
    remediatedExceptions: 0,
  };
  // A deleted tail is an evidence exception of every namespace its test restores.
  const tails: TargetReason[] =
    population.missingTails.length === 0
      ? NO_REASONS
      : population.missingTails
          .filter((tail) => tail.sourceNamespaces.includes(namespace))
          .map((tail) => ({ code: 'evidence_unverified', message: tail.problem }));
  if (runs.length === aborted) {
    // No completed run left: deleting every report must not read as merely "not tested".
    return tails.length ? { ...base, status: 'at_risk', reasons: tails } : base;
  }

  const passes: RunFacts[] = [];
  for (let i = 0; i < runs.length; i += 1) if (qualifies(runs[i]!, control)) passes.push(runs[i]!);
  const passesByTest = new Map<string, RunFacts[]>();
  for (let i = 0; i < passes.length; i += 1) {
    const pass = passes[i]!;
    const list = passesByTest.get(pass.run.testKey);
    if (list) list.push(pass);
    else passesByTest.set(pass.run.testKey, [pass]);
  }

  const reasons: TargetReason[] = [];
  const newestPass = passes[passes.length - 1];
  let ageDays: number | undefined;
  if (!newestPass) {
    reasons.push({ code: 'no_qualifying_pass', message: `no qualifying pass in the period` });
  } else {
    ageDays = (population.to - newestPass.run.completedAt) / MILLISECONDS_PER_DAY;
    if (ageDays >= control.freshnessDays) {
      reasons.push({
        code: 'stale',
        message: `newest qualifying pass is ${Math.floor(ageDays)} d old (freshness ${control.freshnessDays} d)`,
      });
    }
  }

  const latest = runs[runs.length - 1]!;
  const latestQualifies = qualifies(latest, control);
  if (!latestQualifies) reasons.push(...latestRunReasons(latest, control));

  reasons.push(...tails);
  const late: ListedExceptions = { count: 0, first: [] };
  const unremediated: ListedExceptions = { count: 0, first: [] };
  const pending: ListedExceptions = { count: 0, first: [] };
  let remediated = 0;
  for (let i = 0; i < runs.length; i += 1) {
    const facts = runs[i]!;
    if (qualifies(facts, control)) continue;
    const by = remediatingPass(facts, passesByTest.get(facts.run.testKey) ?? NO_PASSES);
    const state = remediationState(facts, by, population);
    if (state === 'remediated') remediated += 1;
    else if (state === 'late') listException(late, facts);
    else if (state === 'unremediated') listException(unremediated, facts);
    // The latest run's own problem is already a reason; "pending" would only repeat it.
    else if (facts !== latest) listException(pending, facts);
  }
  const windowDays = population.windowMs / MILLISECONDS_PER_DAY;
  if (late.count) {
    reasons.push({
      code: 'late_remediation',
      message: `${plural(late.count, 'exception')} remediated later than ${windowDays} d: ${listed(late, control)}`,
    });
  }
  if (unremediated.count) {
    reasons.push({
      code: 'unremediated_exception',
      message: `${plural(unremediated.count, 'exception')} not remediated within ${windowDays} d: ${listed(unremediated, control)}`,
    });
  }
  if (pending.count) {
    reasons.push({
      code: 'remediation_pending',
      message: `${plural(pending.count, 'exception')} awaiting a qualifying pass of the same test: ${listed(pending, control)}`,
    });
  }

  const target: TargetControlDetail = {
    ...base,
    status: reasons.length === 0 ? 'satisfied' : 'at_risk',
    reasons: reasons.sort((a, b) => REASON_ORDER.indexOf(a.code) - REASON_ORDER.indexOf(b.code)),
    qualifyingPasses: passes.length,
    ...(newestPass
      ? { newestQualifyingPass: newestPass.reference, newestQualifyingPassAgeDays: ageDays }
      : {}),
    latestRun: { ...latest.reference, qualifying: latestQualifies },
    exceptions: [],
    remediatedExceptions: remediated,
  };
  // After the status: the RPO is evidence beside it, never a reason (rpo-evidence.ts).
  const rpo = control.rpoEvidence ? rpoEvidenceOf(runs, population) : undefined;
  if (rpo) target.rpo = rpo;
  defineExceptions(target, runs, control, passesByTest, population);
  return target;
}

/** Per control: not tested if no target was tested; satisfied only if every target is; else at risk. */
export function controlStatus(targets: readonly TargetControlDetail[]): ControlStatus {
  if (!targets.some((target) => target.status !== 'not_tested')) return 'not_tested';
  return targets.every((target) => target.status === 'satisfied') ? 'satisfied' : 'at_risk';
}
