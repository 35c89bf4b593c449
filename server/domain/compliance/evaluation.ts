// Compliance evidence (decision 0006). Turns the population of
// RestoreReports in a period into per-control statuses with the exact rules of the guide, a
// one-line evidence sentence per control, and a detail object for the auditor PDF. Statuses say
// what the evidence supports; nothing here ever calls a system "compliant".
//
// The parts, in this folder: population.ts (the runs and their facts), rules.ts (statuses),
// evidence-sentence.ts (the sentence), rpo-evidence.ts (the RPO beside the RTO/RPO controls' status), detail.ts (the PDF's RTO table, limitations, run records),
// types.ts (the shapes). This file assembles them, in steps.
import type { RestoreTest } from '../resources/resources.js';
import type { ComplianceResponse } from '../read-models/views.js';
import {
  FRAMEWORKS,
  FRAMEWORK_IDS,
  type ControlDefinition,
  type FrameworkId,
} from './catalogue.js';
import { withCoverageGap } from './coverage-gap.js';
import { testKeyOf, type ReportSource } from '../read-models/report-index.js';
import {
  collectPopulationSteps,
  drainSteps,
  once,
  REMEDIATION_WINDOW_DAYS,
  type Population,
} from './population.js';
import { controlStatus, evaluateTarget } from './rules.js';
import { evidenceSentence } from './evidence-sentence.js';
import { eachRunOf, limitations, rtoAnalysis, runRecord } from './detail.js';
import type {
  ComplianceDetail,
  ComplianceEvaluation,
  ComplianceInput,
  ControlDetail,
  HeadlineFigures,
  MissingTail,
  RunRecord,
  RunVerifier,
} from './types.js';

export type * from './types.js';
export { drainSteps, REMEDIATION_WINDOW_DAYS } from './population.js';

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

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function headlineFigures(population: Population): HeadlineFigures {
  const total = population.runs.length;
  const { pass, scoreSum, met } = population.totals;
  return {
    totalTests: total,
    passRate: total ? round4(pass / total) : 0,
    avgScore: total ? Math.round(scoreSum / total) : 0,
    // A run without an RTO target counts as not compliant: no target is itself a gap (decision 0006).
    slaCompliance: total ? round4(met / total) : 0,
    // Every namespace a run of the period restored (the grouping's keys).
    namespacesCovered: population.runsByNamespace.size,
  };
}

const TARGETS_PER_STEP = 10;

function* evaluateControlSteps(
  control: ControlDefinition,
  population: Population,
): Generator<void, ControlDetail> {
  const rule = `${control.rtoBound}/${control.freshnessDays}/${control.rpoEvidence === true}`;
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
        rpoTarget: test.spec.sla?.maxRPO ?? '',
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
  verify?: RunVerifier,
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
