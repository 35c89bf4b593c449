// Compliance evidence (decisions §6, shared/guides/compliance-controls.md). Turns the population of
// RestoreReports in a period into per-control statuses with the exact rules of the guide, a
// one-line evidence sentence per control, and a detail object for the auditor PDF. Statuses say
// what the evidence supports; nothing here ever calls a system "compliant".
import type { ReportSummary } from './report-summary.js';
import type { RestoreTest, RunResult } from './resources.js';
import type { ComplianceControl, ComplianceResponse, ControlStatus } from './views.js';
import {
  FRAMEWORKS,
  FRAMEWORK_IDS,
  type ControlDefinition,
  type ControlRole,
  type FrameworkId,
} from './compliance-catalogue.js';
import { withCoverageGap } from './compliance-coverage-gap.js';
import { formatDuration } from './duration.js';
import { asReportIndex, testKeyOf, type IndexedRun, type ReportSource } from './report-index.js';
import {
  isAbortedAttempt,
  measuredRtoSeconds,
  rtoTargetSeconds,
  rtoVerdict,
  type RtoVerdict,
} from './run-facts.js';
import { MILLISECONDS_PER_DAY, utcDate } from './utc-days.js';

/** W of the guide: an exception is remediated by a qualifying pass of the same test within this. */
export const REMEDIATION_WINDOW_DAYS = 30;

// ---------------------------------------------------------------- exported detail types

/** Why a run is an exception (not a qualifying pass) for a control. */
export type ExceptionCause =
  | 'fail'
  | 'partial'
  | 'aborted'
  | 'rto_breach'
  | 'rto_unmeasured'
  | 'rto_target_undefined'
  | 'evidence_unverified';

/** remediated: qualifying pass of the same test within W. late: one came, after W. pending: none yet, W not over. */
export type RemediationState = 'remediated' | 'late' | 'pending' | 'unremediated';

/** The reasons of the guide for at_risk, plus the cases it implies. */
export type TargetReasonCode =
  | 'no_qualifying_pass'
  | 'stale'
  | 'latest_run_failed'
  | 'latest_run_partial'
  | 'rto_breach'
  | 'rto_target_undefined'
  | 'evidence_unverified'
  | 'late_remediation'
  | 'unremediated_exception'
  | 'remediation_pending';

export interface TargetReason {
  code: TargetReasonCode;
  message: string;
}

export interface RunReference {
  /** namespace/name of the RestoreReport. */
  report: string;
  /** namespace/name of the RestoreTest. */
  test: string;
  runId: string;
  completedAt: string;
  result: RunResult;
  score: number;
}

export interface ExceptionDetail extends RunReference {
  causes: ExceptionCause[];
  remediation: RemediationState;
  /** The qualifying pass that remediated it (on time or late). */
  remediatedBy?: RunReference;
}

export interface TargetControlDetail {
  /** The target: a source namespace in scope. */
  namespace: string;
  status: ControlStatus;
  /** Empty unless at_risk. */
  reasons: TargetReason[];
  /** Runs in the period covering this namespace, aborted attempts included. */
  runs: number;
  abortedAttempts: number;
  qualifyingPasses: number;
  newestQualifyingPass?: RunReference;
  /** Age of the newest qualifying pass at generation time, in days (fractional). */
  newestQualifyingPassAgeDays?: number;
  latestRun?: RunReference & { qualifying: boolean };
  exceptions: ExceptionDetail[];
  remediatedExceptions: number;
}

export interface ControlDetail extends ComplianceControl {
  role: ControlRole;
  rtoBound: boolean;
  freshnessDays: number;
  caveat?: string;
  /** Targets with at least one qualifying pass in the period ("restored and verified"). */
  verifiedTargets: number;
  remediatedExceptions: number;
  targets: TargetControlDetail[];
}

export interface RtoAnalysisRow {
  namespace: string;
  runsMeasured: number;
  runsWithTarget: number;
  runsWithinTarget: number;
  runsBreached: number;
  runsWithoutTarget: number;
  /** The run with the longest measured RTO (the most recent one on a tie). */
  worst?: RunReference & {
    rtoSeconds: number;
    rto: string;
    targetSeconds: number | null;
    target: string | null;
    verdict: RtoVerdict;
  };
}

export interface RunRecord extends RunReference {
  sourceNamespaces: string[];
  backupName: string;
  rtoSeconds: number | null;
  rtoTarget: string | null;
  rtoVerdict: RtoVerdict;
  aborted: boolean;
  evidenceVerified: boolean;
  failure?: { reason: string; message: string };
}

export interface ComplianceDetail {
  framework: FrameworkId;
  label: string;
  period: { days: number; from: string; to: string };
  generatedAt: string;
  remediationWindowDays: number;
  /** false when no verifier was supplied: signatures were not checked at all. */
  signaturesChecked: boolean;
  scope: {
    namespaces: string[];
    tests: {
      name: string;
      namespace: string;
      schedule: string;
      sourceNamespaces: string[];
      rtoTarget: string;
    }[];
  };
  totals: { runs: number; pass: number; partial: number; fail: number; aborted: number };
  controls: ControlDetail[];
  rto: RtoAnalysisRow[];
  notEvidenced: string[];
  limitations: string[];
  /** The complete population of runs in the period, oldest first (built on first read). */
  readonly runs: RunRecord[];
  /**
   * The same records one at a time, none kept: the PDF aggregates 90,000 runs without holding
   * 90,000 records.
   */
  eachRun(): IterableIterator<RunRecord>;
}

export interface ComplianceEvaluation {
  response: ComplianceResponse;
  detail: ComplianceDetail;
}

export interface ComplianceInput {
  framework: FrameworkId;
  /** Length of the period [now - periodDays, now]. */
  periodDays: number;
  now: Date;
  tests: readonly RestoreTest[];
  /** Reports outside the period are ignored, so a pre-filtered window is fine. */
  reports: ReportSource;
  /** Whether a report's evidence signature verifies; absent = signatures not checked. */
  verify?: (report: ReportSummary) => boolean;
  remediationWindowDays?: number;
  /**
   * Namespaces the backup tool backs up that no passing restore test covers (coverage view);
   * named in every control's evidence as a gap. Absent = not known (nothing is said).
   */
  untestedBackedUp?: readonly string[];
  /**
   * Chains whose newest reports were deleted (the test's evidence anchor names a report that is
   * gone): an evidence exception for each of the test's source namespaces, named in the evidence.
   */
  missingTails?: readonly MissingTail[];
}

export interface MissingTail {
  /** namespace/name of the RestoreTest. */
  test: string;
  sourceNamespaces: readonly string[];
  /** What is missing (names the anchored report). */
  problem: string;
}

export interface TestPassRate {
  name: string;
  namespace: string;
  passRate: number;
  /** @isInt */
  runs: number;
}

export interface ComplianceOverview {
  /** @isInt */
  period: number;
  generatedAt: string;
  frameworks: ComplianceResponse[];
  tests: TestPassRate[];
}

// ---------------------------------------------------------------- run facts, computed once

/**
 * What the rules read of one run. Computed once per indexed run and verdict and reused by every
 * later evaluation (see factsOf): with a run finishing every second, re-deriving 90,000 of them per
 * evaluation was most of its cost and of its garbage. Immutable: every evaluation may share them.
 */
class RunFacts {
  readonly result: RunResult;
  readonly aborted: boolean;
  readonly verdict: RtoVerdict;
  readonly rtoSeconds: number | null;
  /** As recorded (texts, records). */
  readonly sources: readonly string[];
  /** The same without repeats (grouping by namespace). */
  readonly distinctSources: readonly string[];

  constructor(
    readonly run: IndexedRun,
    readonly verified: boolean,
  ) {
    const report = run.report;
    this.result = report.spec.result;
    this.aborted = isAbortedAttempt(report);
    this.verdict = rtoVerdict(report);
    this.rtoSeconds = measuredRtoSeconds(report);
    this.sources = report.spec.sourceNamespaces ?? [];
    this.distinctSources =
      new Set(this.sources).size === this.sources.length ? this.sources : [...new Set(this.sources)];
  }

  /** A new object per read: kept for only the few runs an answer names, not for all 90,000. */
  get reference(): RunReference {
    return reference(this.run);
  }
}

/**
 * The facts of each indexed run, by the IndexedRun object: the report index makes a new one when a
 * report is added or replaced, so an entry never outlives the report version it describes, and
 * entries of removed runs go with them. The verifier's verdict can change after a run was first
 * seen (a chain link re-checked, keys rotated): it is asked on every evaluation, and an entry with
 * the other verdict is replaced.
 */
const FACTS = new WeakMap<IndexedRun, RunFacts>();

function factsOf(run: IndexedRun, verified: boolean): RunFacts {
  const known = FACTS.get(run);
  if (known && known.verified === verified) return known;
  const facts = new RunFacts(run, verified);
  FACTS.set(run, facts);
  return facts;
}

interface PopulationTotals {
  pass: number;
  partial: number;
  fail: number;
  aborted: number;
  scoreSum: number;
  /** Runs whose RTO met their target. */
  met: number;
  /** The completed (not aborted) run with the longest measured RTO; the newest of equals. */
  worstRto?: RunFacts;
}

interface Population {
  from: number;
  to: number;
  periodDays: number;
  now: Date;
  runs: RunFacts[];
  /** The runs covering each namespace, oldest first (grouped once: scope x runs would not scale). */
  runsByNamespace: Map<string, RunFacts[]>;
  /** Counts over every run, taken in the same stepwise pass as the grouping. */
  totals: PopulationTotals;
  scope: string[];
  signaturesChecked: boolean;
  windowMs: number;
  missingTails: readonly MissingTail[];
  /**
   * Per-target results by the only control properties the rules read (RTO-bound, freshness): most
   * controls share them, so 16 controls across five frameworks need two evaluations, not sixteen.
   */
  targetsByRule: Map<string, TargetControlDetail[]>;
  /** Framework-independent parts, computed once per population (the overview needs all five). */
  shared: {
    headline?: ReturnType<typeof headlineFigures>;
    rto?: RtoAnalysisRow[];
    runs?: RunRecord[];
    rtoClause?: string;
    runsClause?: string;
  };
}

function once<K extends keyof Population['shared']>(
  population: Population,
  key: K,
  compute: () => NonNullable<Population['shared'][K]>,
): NonNullable<Population['shared'][K]> {
  const cached = population.shared[key];
  if (cached !== undefined) return cached as NonNullable<Population['shared'][K]>;
  const value = compute();
  population.shared[key] = value;
  return value;
}

function reference(run: IndexedRun): RunReference {
  const spec = run.report.spec;
  return {
    report: run.key,
    test: run.testKey,
    runId: spec.runId,
    // As recorded in the report: it is the evidence (and formatting 90,000 dates per request is not free).
    completedAt: spec.completedAt,
    result: spec.result,
    score: spec.score,
  };
}

/**
 * Runs per step of the cooperative evaluation: an evaluation over 90,000 runs takes 0.3-0.9 s of
 * CPU; the API runs its steps between other requests (ComplianceService), so no request waits
 * behind a whole evaluation. Synchronous callers (PDFs, tests) drain the steps at once.
 */
const RUNS_PER_STEP = 2_000;
const TARGETS_PER_STEP = 10;

/** Runs a stepwise evaluation to its end, synchronously. */
export function drainSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function* collectPopulationSteps(
  periodDays: number,
  now: Date,
  tests: readonly RestoreTest[],
  reports: ReportSource,
  verify: ((report: ReportSummary) => boolean) | undefined,
  remediationWindowDays: number,
  missingTails: readonly MissingTail[] = [],
): Generator<void, Population> {
  const to = now.getTime();
  const from = to - periodDays * MILLISECONDS_PER_DAY;
  const inPeriod = asReportIndex(reports).runsBetween(from, to);
  // Scope = what the tests declare plus anything actually restored in the period: an untested
  // declared namespace must show up as not tested, never silently drop out.
  const scope = new Set<string>();
  for (const test of tests)
    for (const source of test.spec.backupSource?.namespaces ?? []) scope.add(source.name);
  const runs: RunFacts[] = [];
  const runsByNamespace = new Map<string, RunFacts[]>();
  const totals: PopulationTotals = { pass: 0, partial: 0, fail: 0, aborted: 0, scoreSum: 0, met: 0 };
  for (const run of inPeriod) {
    const facts = factsOf(run, verify ? verify(run.report) : true);
    runs.push(facts);
    totals[facts.result] += 1;
    totals.scoreSum += run.report.spec.score;
    if (facts.verdict === 'met') totals.met += 1;
    if (facts.aborted) totals.aborted += 1;
    else if (
      facts.rtoSeconds !== null &&
      (!totals.worstRto || facts.rtoSeconds >= totals.worstRto.rtoSeconds!)
    ) {
      totals.worstRto = facts;
    }
    for (const source of facts.distinctSources) {
      scope.add(source);
      const list = runsByNamespace.get(source);
      if (list) list.push(facts);
      else runsByNamespace.set(source, [facts]);
    }
    if (runs.length % RUNS_PER_STEP === 0) yield;
  }
  return {
    from,
    to,
    periodDays,
    now,
    runs,
    runsByNamespace,
    totals,
    scope: [...scope].sort(),
    signaturesChecked: verify !== undefined,
    windowMs: remediationWindowDays * MILLISECONDS_PER_DAY,
    missingTails,
    targetsByRule: new Map(),
    shared: {},
  };
}

// ---------------------------------------------------------------- the status rules

/** Qualifying pass: pass, RTO met (or no target on a control that is not RTO-bound), evidence verifies. */
function qualifies(facts: RunFacts, control: ControlDefinition): boolean {
  if (facts.result !== 'pass' || facts.aborted || !facts.verified) return false;
  return facts.verdict === 'met' || (facts.verdict === 'no-target' && !control.rtoBound);
}

function exceptionCauses(facts: RunFacts, control: ControlDefinition): ExceptionCause[] {
  const causes: ExceptionCause[] = [];
  if (facts.aborted) causes.push('aborted');
  else if (facts.result === 'fail') causes.push('fail');
  else if (facts.result === 'partial') causes.push('partial');
  if (facts.verdict === 'breached') causes.push('rto_breach');
  if (facts.verdict === 'unmeasured' && !facts.aborted && facts.result !== 'fail')
    causes.push('rto_unmeasured');
  if (facts.verdict === 'no-target' && control.rtoBound) causes.push('rto_target_undefined');
  if (!facts.verified) causes.push('evidence_unverified');
  return causes;
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

function describeRun(facts: RunFacts, causes: ExceptionCause[]): string {
  const { reference: ref } = facts;
  const date = utcDate(new Date(facts.run.completedAt));
  return `${causes.map((cause) => CAUSE_TEXT[cause]).join(' + ')} ${date} (${ref.test} run ${ref.runId})`;
}

const REASON_ORDER: readonly TargetReasonCode[] = [
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

const REASON_LABEL: Record<TargetReasonCode, string> = {
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

function latestRunReasons(facts: RunFacts, causes: ExceptionCause[]): TargetReason[] {
  const described = describeRun(facts, causes);
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
  first: [RunFacts, ExceptionCause[]][];
}

function listException(list: ListedExceptions, facts: RunFacts, control: ControlDefinition): void {
  list.count += 1;
  // Causes are worked out only for the few runs a message names: at scale most runs of a failing
  // target are exceptions, and describing each would dominate the cost.
  if (list.first.length < 3) list.first.push([facts, exceptionCauses(facts, control)]);
}

function listed(list: ListedExceptions): string {
  return (
    list.first.map(([facts, causes]) => describeRun(facts, causes)).join('; ') +
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
      exceptions.push({
        ...facts.reference,
        causes: exceptionCauses(facts, control),
        remediation: remediationState(facts, by, population),
        ...(by ? { remediatedBy: by.reference } : {}),
      });
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

function evaluateTarget(
  namespace: string,
  control: ControlDefinition,
  population: Population,
): TargetControlDetail {
  const runs = population.runsByNamespace.get(namespace) ?? [];
  let aborted = 0;
  for (const facts of runs) if (facts.aborted) aborted += 1;
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
  const tails: TargetReason[] = population.missingTails
    .filter((tail) => tail.sourceNamespaces.includes(namespace))
    .map((tail) => ({ code: 'evidence_unverified', message: tail.problem }));
  if (runs.length === aborted) {
    // No completed run left: deleting every report must not read as merely "not tested".
    return tails.length ? { ...base, status: 'at_risk', reasons: tails } : base;
  }

  const passes = runs.filter((facts) => qualifies(facts, control));
  const passesByTest = new Map<string, RunFacts[]>();
  for (const pass of passes) {
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
  if (!latestQualifies) reasons.push(...latestRunReasons(latest, exceptionCauses(latest, control)));

  reasons.push(...tails);
  const late: ListedExceptions = { count: 0, first: [] };
  const unremediated: ListedExceptions = { count: 0, first: [] };
  const pending: ListedExceptions = { count: 0, first: [] };
  let remediated = 0;
  for (const facts of runs) {
    if (qualifies(facts, control)) continue;
    const by = remediatingPass(facts, passesByTest.get(facts.run.testKey) ?? []);
    const state = remediationState(facts, by, population);
    if (state === 'remediated') remediated += 1;
    else if (state === 'late') listException(late, facts, control);
    else if (state === 'unremediated') listException(unremediated, facts, control);
    // The latest run's own problem is already a reason; "pending" would only repeat it.
    else if (facts !== latest) listException(pending, facts, control);
  }
  const windowDays = population.windowMs / MILLISECONDS_PER_DAY;
  if (late.count) {
    reasons.push({
      code: 'late_remediation',
      message: `${plural(late.count, 'exception')} remediated later than ${windowDays} d: ${listed(late)}`,
    });
  }
  if (unremediated.count) {
    reasons.push({
      code: 'unremediated_exception',
      message: `${plural(unremediated.count, 'exception')} not remediated within ${windowDays} d: ${listed(unremediated)}`,
    });
  }
  if (pending.count) {
    reasons.push({
      code: 'remediation_pending',
      message: `${plural(pending.count, 'exception')} awaiting a qualifying pass of the same test: ${listed(pending)}`,
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
  defineExceptions(target, runs, control, passesByTest, population);
  return target;
}

/** Per control: not tested if no target was tested; satisfied only if every target is; else at risk. */
function controlStatus(targets: readonly TargetControlDetail[]): ControlStatus {
  if (!targets.some((target) => target.status !== 'not_tested')) return 'not_tested';
  return targets.every((target) => target.status === 'satisfied') ? 'satisfied' : 'at_risk';
}

// ---------------------------------------------------------------- evidence sentence

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function namesOrCount(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.length} namespaces`;
}

function worstRto(runs: readonly RunFacts[]): RunFacts | undefined {
  let worst: RunFacts | undefined;
  for (const facts of runs) {
    if (facts.rtoSeconds === null) continue;
    if (!worst || facts.rtoSeconds >= worst.rtoSeconds!) worst = facts;
  }
  return worst;
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
  const parts: string[] = [];
  for (const code of REASON_ORDER) {
    const namespaces = control.targets.filter((target) =>
      target.reasons.some((reason) => reason.code === code),
    );
    if (namespaces.length)
      parts.push(`${REASON_LABEL[code]}: ${namesOrCount(namespaces.map((target) => target.namespace))}`);
  }
  const untested = control.targets.filter((target) => target.status === 'not_tested');
  if (untested.length) parts.push(`not tested: ${namesOrCount(untested.map((target) => target.namespace))}`);
  if (remediatedNote) parts.push(remediatedNote);
  return ` (${parts.join('; ')})`;
}

const STATUS_TEXT: Record<ControlStatus, string> = {
  satisfied: 'satisfied',
  at_risk: 'at risk',
  not_tested: 'not tested',
};

/** Names the tests of the control's targets whose newest reports were deleted. */
function tailClause(control: ControlDetail, population: Population): string {
  const inScope = new Set(control.targets.map((target) => target.namespace));
  const tests = population.missingTails
    .filter((tail) => tail.sourceNamespaces.some((namespace) => inScope.has(namespace)))
    .map((tail) => tail.test);
  if (!tests.length) return '';
  const shown =
    tests.length <= 3 ? tests.join(', ') : `${tests.slice(0, 3).join(', ')} and ${tests.length - 3} more`;
  return `; evidence exception: missing tail (newest reports deleted) of ${shown}`;
}

function evidenceSentence(control: ControlDetail, population: Population): string {
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
  return `${head}: ${coverage}; ${once(population, 'runsClause', () => runsClause(population))}; ${freshness}; ${once(population, 'rtoClause', () => rtoClause(population))}${tailClause(control, population)}${caveat}.`;
}

// ---------------------------------------------------------------- assembly

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function headlineFigures(
  population: Population,
): Omit<ComplianceResponse, 'framework' | 'period' | 'generatedAt' | 'controls'> {
  const total = population.runs.length;
  const { pass, scoreSum, met } = population.totals;
  return {
    totalTests: total,
    passRate: total ? round4(pass / total) : 0,
    avgScore: total ? Math.round(scoreSum / total) : 0,
    // A run without an RTO target counts as not compliant: no target is itself a gap (decisions §6).
    slaCompliance: total ? round4(met / total) : 0,
    // Every namespace a run of the period restored (the grouping's keys).
    namespacesCovered: population.runsByNamespace.size,
  };
}

function* evaluateControlSteps(
  control: ControlDefinition,
  population: Population,
): Generator<void, ControlDetail> {
  const rule = `${control.rtoBound}/${control.freshnessDays}`;
  let targets = population.targetsByRule.get(rule);
  if (!targets) {
    targets = [];
    for (const namespace of population.scope) {
      targets.push(evaluateTarget(namespace, control, population));
      if (targets.length % TARGETS_PER_STEP === 0) yield;
    }
    population.targetsByRule.set(rule, targets);
  }
  const detail: ControlDetail = {
    id: control.id,
    title: control.title,
    status: controlStatus(targets),
    evidence: '',
    role: control.role,
    rtoBound: control.rtoBound,
    freshnessDays: control.freshnessDays,
    ...(control.caveat ? { caveat: control.caveat } : {}),
    verifiedTargets: targets.filter((target) => target.qualifyingPasses > 0).length,
    remediatedExceptions: targets.reduce((sum, target) => sum + target.remediatedExceptions, 0),
    targets,
  };
  detail.evidence = evidenceSentence(detail, population);
  return detail;
}

function rtoAnalysis(population: Population): RtoAnalysisRow[] {
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

function limitations(
  population: Population,
  controls: readonly ControlDefinition[],
  periodDays: number,
): string[] {
  const notes = [
    'System-generated from RestoreReports; this is evidence for an assessor, not an audit opinion.',
    'Measured RTOs come from restores into sandbox namespaces of the same cluster; they are test measurements, not a guarantee of production recovery time.',
    'RPO (data loss since the last backup) is not measured by a restore test.',
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

function runRecord(facts: RunFacts): RunRecord {
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
function eachRunOf(population: Population): ComplianceDetail['eachRun'] {
  const eachRun = function* (): IterableIterator<RunRecord> {
    for (const facts of population.runs) yield runRecord(facts);
  };
  return eachRun;
}

function* evaluateFrameworkSteps(
  framework: FrameworkId,
  population: Population,
  tests: readonly RestoreTest[],
  remediationWindowDays: number,
  untestedBackedUp: readonly string[] = [],
): Generator<void, ComplianceEvaluation> {
  const definition = FRAMEWORKS[framework];
  const controls: ControlDetail[] = [];
  for (const control of definition.controls) {
    controls.push(withCoverageGap(yield* evaluateControlSteps(control, population), untestedBackedUp));
    yield;
  }
  const generatedAt = population.now.toISOString();
  const response: ComplianceResponse = {
    framework,
    period: population.periodDays,
    generatedAt,
    ...once(population, 'headline', () => headlineFigures(population)),
    controls: controls.map(({ id, title, status, evidence }) => ({ id, title, status, evidence })),
  };
  // The detail (every run, the RTO table, ...) is for the auditor PDF: built on first read, so the
  // JSON endpoints, which need only the response, do not pay for 90,000 run records per request.
  const buildDetail = (): ComplianceDetail => ({
    framework,
    label: definition.label,
    period: {
      days: population.periodDays,
      from: new Date(population.from).toISOString(),
      to: generatedAt,
    },
    generatedAt,
    remediationWindowDays,
    signaturesChecked: population.signaturesChecked,
    scope: {
      namespaces: population.scope,
      tests: tests.map((test) => ({
        name: test.metadata.name,
        namespace: test.metadata.namespace ?? '',
        schedule: test.spec.schedule?.cron ?? '',
        sourceNamespaces: (test.spec.backupSource?.namespaces ?? []).map((source) => source.name),
        rtoTarget: test.spec.sla?.maxRTO ?? '',
      })),
    },
    totals: {
      runs: population.runs.length,
      pass: population.totals.pass,
      partial: population.totals.partial,
      fail: population.totals.fail,
      aborted: population.totals.aborted,
    },
    controls,
    rto: once(population, 'rto', () => rtoAnalysis(population)),
    notEvidenced: [...definition.notEvidenced],
    limitations: limitations(population, definition.controls, population.periodDays),
    get runs(): RunRecord[] {
      return once(population, 'runs', () => population.runs.map(runRecord));
    },
    eachRun: eachRunOf(population),
  });
  let detail: ComplianceDetail | undefined;
  return {
    response,
    get detail(): ComplianceDetail {
      if (!detail) {
        detail = buildDetail();
        Object.defineProperty(detail, 'eachRun', { enumerable: false });
      }
      return detail;
    },
  };
}

/**
 * One framework over [now - periodDays, now], evaluated at now. `verify` is called once per report
 * in the period; without it signatures count as verifying and the detail says they were not checked.
 */
export function evaluateCompliance(input: ComplianceInput): ComplianceEvaluation {
  return drainSteps(evaluateComplianceSteps(input));
}

/** evaluateCompliance in steps of a few milliseconds each (see RUNS_PER_STEP). */
export function* evaluateComplianceSteps(input: ComplianceInput): Generator<void, ComplianceEvaluation> {
  const remediationWindowDays = input.remediationWindowDays ?? REMEDIATION_WINDOW_DAYS;
  const population = yield* collectPopulationSteps(
    input.periodDays,
    input.now,
    input.tests,
    input.reports,
    input.verify,
    remediationWindowDays,
    input.missingTails,
  );
  return yield* evaluateFrameworkSteps(
    input.framework,
    population,
    input.tests,
    remediationWindowDays,
    input.untestedBackedUp,
  );
}

/**
 * The dashboard's Compliance page (GET /api/compliance?period=N): every framework's response and each
 * test's pass rate and run count over the period, in steps of a few milliseconds each (the API
 * runs it with runSteps). Run facts are computed once for all frameworks.
 */
export function* complianceOverviewSteps(
  periodDays: number,
  now: Date,
  tests: readonly RestoreTest[],
  reports: ReportSource,
  verify?: (report: ReportSummary) => boolean,
  untestedBackedUp?: readonly string[],
  missingTails?: readonly MissingTail[],
): Generator<void, ComplianceOverview> {
  const population = yield* collectPopulationSteps(
    periodDays,
    now,
    tests,
    reports,
    verify,
    REMEDIATION_WINDOW_DAYS,
    missingTails,
  );
  const byTest = new Map<string, { runs: number; passes: number }>();
  for (const facts of population.runs) {
    const totals = byTest.get(facts.run.testKey) ?? { runs: 0, passes: 0 };
    totals.runs += 1;
    if (facts.result === 'pass') totals.passes += 1;
    byTest.set(facts.run.testKey, totals);
  }
  const frameworks: ComplianceResponse[] = [];
  for (const framework of FRAMEWORK_IDS) {
    frameworks.push(
      (yield* evaluateFrameworkSteps(framework, population, tests, REMEDIATION_WINDOW_DAYS, untestedBackedUp))
        .response,
    );
  }
  return {
    period: periodDays,
    generatedAt: now.toISOString(),
    frameworks,
    tests: tests.map((test) => {
      const totals = byTest.get(testKeyOf(test)) ?? { runs: 0, passes: 0 };
      return {
        name: test.metadata.name,
        namespace: test.metadata.namespace ?? '',
        passRate: totals.runs ? round4(totals.passes / totals.runs) : 0,
        runs: totals.runs,
      };
    }),
  };
}
