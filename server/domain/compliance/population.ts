// The population a compliance evaluation reads: the runs of the period with the facts the rules
// need, grouped by namespace and counted in one stepwise pass. Each run's facts are kept between
// evaluations (the server re-evaluates after every new report).
import type { RestoreTest, RunResult } from '../resources/resources.js';
import { asReportIndex, testKeyOf, type IndexedRun, type ReportSource } from '../read-models/report-index.js';
import { isAbortedAttempt, measuredRtoSeconds, rtoVerdict, type RtoVerdict } from '../read-models/run-facts.js';
import { MILLISECONDS_PER_DAY } from '../common/utc-days.js';
import type {
  HeadlineFigures,
  MissingTail,
  RtoAnalysisRow,
  RunRecord,
  RunReference,
  RunVerifier,
  TargetControlDetail,
} from './types.js';

/** W of the guide: an exception is remediated by a qualifying pass of the same test within this. */
export const REMEDIATION_WINDOW_DAYS = 30;

/**
 * What the rules read of one run. Computed once per indexed run and verdict and reused by every
 * later evaluation (see factsOf): with a run finishing every second, re-deriving 90,000 of them per
 * evaluation was most of its cost and of its garbage. Immutable: every evaluation may share them.
 * Compact (issue 17: one per report, 90,000 held): the flags share one small integer and the
 * source lists are read from the run's summary, where they are shared between runs.
 */
export class RunFacts {
  readonly result: RunResult;
  readonly rtoSeconds: number | null;
  private readonly flags: number;

  constructor(
    readonly run: IndexedRun,
    verified: boolean,
  ) {
    const report = run.report;
    this.result = report.spec.result;
    this.rtoSeconds = measuredRtoSeconds(report);
    this.flags =
      (verified ? VERIFIED : 0) | (isAbortedAttempt(report) ? ABORTED : 0) | VERDICTS.indexOf(rtoVerdict(report));
  }

  get verified(): boolean {
    return (this.flags & VERIFIED) !== 0;
  }

  get aborted(): boolean {
    return (this.flags & ABORTED) !== 0;
  }

  get verdict(): RtoVerdict {
    return VERDICTS[this.flags & VERDICT_MASK]!;
  }

  /** As recorded (texts, records). */
  get sources(): readonly string[] {
    return this.run.report.spec.sourceNamespaces ?? [];
  }

  /** The same without repeats (grouping by namespace). */
  get distinctSources(): readonly string[] {
    const sources = this.sources;
    return hasRepeats(sources) ? [...new Set(sources)] : sources;
  }

  /** A new object per read: kept for only the few runs an answer names, not for all 90,000. */
  get reference(): RunReference {
    return reference(this.run);
  }
}

/** Without allocating: read on every evaluation, and a run restores one or two namespaces. */
function hasRepeats(list: readonly string[]): boolean {
  for (let i = 1; i < list.length; i += 1) {
    for (let j = 0; j < i; j += 1) if (list[i] === list[j]) return true;
  }
  return false;
}

const VERDICTS: readonly RtoVerdict[] = ['met', 'breached', 'no-target', 'unmeasured'];
const VERDICT_MASK = 3;
const ABORTED = 4;
const VERIFIED = 8;

/**
 * The facts of an indexed run, kept in its memo slot: the report index makes a new IndexedRun when
 * a report is added or replaced, so facts never outlive the report version they describe, and
 * those of removed runs go with them. The verifier's verdict can change after a run was first
 * seen (a chain link re-checked, keys rotated): it is asked on every evaluation, and facts with
 * the other verdict are replaced.
 */
function factsOf(run: IndexedRun, verified: boolean): RunFacts {
  const known = run.memo;
  if (known instanceof RunFacts && known.verified === verified) return known;
  const facts = new RunFacts(run, verified);
  run.memo = facts;
  return facts;
}

export interface PopulationTotals {
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

export interface Population {
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
  /** Each RestoreTest's spec.sla.maxRPO by test key (the RPO target of a run that measured none). */
  rpoTargets: ReadonlyMap<string, string>;
  /**
   * Per-target results by the only control properties the rules read (RTO-bound, freshness, RPO evidence): most
   * controls share them, so 16 controls across five frameworks need two evaluations, not sixteen.
   */
  targetsByRule: Map<string, TargetControlDetail[]>;
  /** Framework-independent parts, computed once per population (the overview needs all five). */
  shared: {
    headline?: HeadlineFigures;
    rto?: RtoAnalysisRow[];
    runs?: RunRecord[];
    rtoClause?: string;
    runsClause?: string;
  };
}

export function once<K extends keyof Population['shared']>(
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
 * behind a whole evaluation. Synchronous callers (PDFs, tests) drain the steps at once. 500: a step
 * (~1-3 ms, more on a loaded machine) stays within runSteps' 4 ms slice.
 */
const RUNS_PER_STEP = 500;

/** Runs a stepwise evaluation to its end, synchronously. */
export function drainSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export function* collectPopulationSteps(
  periodDays: number,
  now: Date,
  tests: readonly RestoreTest[],
  reports: ReportSource,
  verify: RunVerifier | undefined,
  remediationWindowDays: number,
  missingTails: readonly MissingTail[] = [],
): Generator<void, Population> {
  const to = now.getTime();
  const from = to - periodDays * MILLISECONDS_PER_DAY;
  const inPeriod = asReportIndex(reports).runsBetween(from, to);
  // Scope = what the tests declare plus anything actually restored in the period: an untested
  // declared namespace must show up as not tested, never silently drop out.
  const scope = new Set<string>();
  const rpoTargets = new Map<string, string>();
  for (const test of tests) {
    for (const source of test.spec.backupSource?.namespaces ?? []) scope.add(source.name);
    if (test.spec.sla?.maxRPO) rpoTargets.set(testKeyOf(test), test.spec.sla.maxRPO);
  }
  const runs: RunFacts[] = [];
  const runsByNamespace = new Map<string, RunFacts[]>();
  const totals: PopulationTotals = { pass: 0, partial: 0, fail: 0, aborted: 0, scoreSum: 0, met: 0 };
  // Indexed loops: in this generator for...of allocated per element (~90,000 runs per evaluation).
  for (let index = 0; index < inPeriod.length; index += 1) {
    const run = inPeriod[index]!;
    const facts = factsOf(run, verify ? verify(run.report, run) : true);
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
    const sources = facts.distinctSources;
    for (let at = 0; at < sources.length; at += 1) {
      const source = sources[at]!;
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
    rpoTargets,
    targetsByRule: new Map(),
    shared: {},
  };
}
