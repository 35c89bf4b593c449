// ComplianceDetail (+ ComplianceResponse) of server/domain/compliance/evaluation.ts → ComplianceReportData,
// the input of the compliance PDF (server/pdf/compliance-report.pdf.ts). Pure mapping:
// statuses, evidence sentences, reasons and exceptions are the domain's; this only reshapes them
// for the auditor layout and adds what the renderer needs from the resources (the RestoreTests for
// the scope table, a RestoreReport's problems for the integrity summary). Bounded for any history:
// runs are aggregated per RestoreTest and listed only as exceptions, at most MAX_LISTED_EXCEPTIONS;
// per-target and per-test tables list at most MAX_LISTED_ROWS rows (compliance-report-rows.ts),
// with every count and summary computed over all of them first.
import { createHash } from 'node:crypto';
import { FRAMEWORKS } from '../../domain/compliance/catalogue.js';
import type {
  ComplianceEvaluation,
  ControlDetail,
  ExceptionCause,
  ExceptionDetail,
  RemediationState,
} from '../../domain/compliance/evaluation.js';
import type { RestoreReport, RestoreTest } from '../../domain/resources/resources.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import type { IndexedRun } from '../../domain/read-models/report-index.js';
import { measuredRtoSeconds, rtoVerdict } from '../../domain/read-models/run-facts.js';
import { runVerifies, splitKey, type PeriodRuns } from './compliance-runs.js';
import { TestAggregator } from '../../pdf/test-aggregates.js';
import {
  plainJson,
  type AggregatedRun,
  type ChainSummary,
  type ComplianceReportData,
  type ControlEntry,
  type ExceptionEntry,
  type ScopeTarget,
  type ScopeTest,
} from '../../pdf/report-data.js';
import {
  controlTargets,
  coverageRows,
  listedAggregates,
  listedCoverage,
  listedRto,
  listedTargets,
  listedTests,
  MAX_LISTED_ROWS,
  SATISFIED_NAMES,
} from './compliance-report-rows.js';

export interface ComplianceReportInput {
  evaluation: ComplianceEvaluation;
  /** The evaluated period's runs (periodRuns, taken in the same tick as the evaluation). */
  runs: PeriodRuns;
  /** The RestoreTests the evaluation saw (the scope table). */
  tests: readonly RestoreTest[];
  /** The report behind a run of the detail ("namespace/name"), for its evidence problems. */
  reportOf: (key: string) => RestoreReport | undefined;
  /** How many exception runs to list (default MAX_LISTED_EXCEPTIONS). */
  maxExceptions?: number;
  /** How many rows each per-target / per-test table lists (default MAX_LISTED_ROWS). */
  maxRows?: number;
  /** Problems of whole chains no single run shows (a missing tail), listed first. */
  chainProblems?: readonly string[];
  productVersion: string;
  cluster?: string;
  /** Why a report's evidence does not verify (for the integrity summary); absent = not checked. */
  evidenceProblems?: (report: RestoreReport) => string[];
}

/** How many reasons and integrity problems are printed before "... and N more". */
export const MAX_LISTED = 12;
/** How many exception runs the PDF lists; the rest are counted ("N more", decision 0016). */
export const MAX_LISTED_EXCEPTIONS = 100;
/** How many integrity problems the PDF prints before "... and N more". */
const MAX_PROBLEMS = 40;

const CAUSE_TEXT: Record<ExceptionCause, string> = {
  fail: 'failed',
  partial: 'partial',
  aborted: 'aborted attempt',
  rto_breach: 'RTO over target',
  rto_unmeasured: 'RTO not measured',
  rto_target_undefined: 'no RTO target',
  evidence_unverified: 'evidence does not verify',
};

/** Worst first: the follow-up an auditor must see when controls disagree. */
const REMEDIATION_ORDER: readonly RemediationState[] = ['unremediated', 'late', 'pending', 'remediated'];

function limited(items: readonly string[], max = MAX_LISTED): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `... and ${items.length - max} more`];
}

/** "RHR-SOC2-20260401-7c1e9a0b": framework, UTC date, and 8 hex of a digest of what the report covers. */
export function complianceReportId(evaluation: ComplianceEvaluation, runs: PeriodRuns): string {
  const { detail } = evaluation;
  // Hashed run by run: the key list of 90,000 runs is not built as one string.
  const hash = createHash('sha256').update(
    canonicalJson({ framework: detail.framework, period: detail.period, generatedAt: detail.generatedAt }),
  );
  for (const run of runs.runs) hash.update(`\n${run.key}`);
  const digest = hash.digest('hex');
  return `RHR-${detail.framework.toUpperCase()}-${detail.generatedAt.slice(0, 10).replaceAll('-', '')}-${digest.slice(0, 8)}`;
}

/** What the customer must evidence elsewhere for one control. */
export function controlNotEvidenced(
  control: ControlDetail,
  frameworkNotEvidenced: readonly string[],
): string {
  const base =
    control.role === 'primary'
      ? 'The written procedure, its owners, approval and review; systems and data outside the listed namespaces.'
      : 'Everything in this control beyond restore testing (it is supporting evidence only): monitoring, procedures and people.';
  const specific = frameworkNotEvidenced.filter((item) => item.startsWith(`${control.id} `));
  const caveat = control.caveat ? ` Note: ${control.caveat}.` : '';
  return `${base}${specific.length ? ` Also ${specific.join('; ')}.` : ''}${caveat}`;
}

function controlReasons(control: ControlDetail): string[] {
  if (control.status !== 'at_risk') return [];
  const reasons: string[] = [];
  for (const target of control.targets) {
    if (target.status === 'not_tested') reasons.push(`${target.namespace}: not tested in the period`);
    for (const reason of target.reasons) reasons.push(`${target.namespace}: ${reason.message}`);
  }
  return limited(reasons);
}

function scopeTests(tests: readonly RestoreTest[]): ScopeTest[] {
  return tests
    .map((test): ScopeTest => ({
      name: test.metadata.name,
      namespace: test.metadata.namespace ?? '',
      provider: test.spec.provider,
      schedule: test.spec.schedule?.cron ?? '',
      timezone: test.spec.schedule?.timezone || 'UTC',
      sourceNamespaces: (test.spec.backupSource?.namespaces ?? []).map((source) => source.name),
      backupName: test.spec.backupSource?.backupName || 'latest',
      ...(test.spec.sla?.maxRTO ? { rtoTarget: test.spec.sla.maxRTO } : {}),
      ...(test.spec.sla?.maxRPO ? { rpoTarget: test.spec.sla.maxRPO } : {}),
    }))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** Per source namespace: the tests whose runs restored it, and how many runs did (one pass over the runs). */
interface NamespaceRuns {
  tests: Map<string, Set<string>>;
  runs: Map<string, number>;
}

function countNamespaceRun(counts: NamespaceRuns, run: IndexedRun): void {
  const testName = splitKey(run.testKey).name;
  for (const namespace of run.report.spec.sourceNamespaces ?? []) {
    counts.runs.set(namespace, (counts.runs.get(namespace) ?? 0) + 1);
    let names = counts.tests.get(namespace);
    if (!names) counts.tests.set(namespace, (names = new Set()));
    names.add(testName);
  }
}

function scopeTargets(
  namespaces: readonly string[],
  tests: readonly ScopeTest[],
  counts: NamespaceRuns,
): ScopeTarget[] {
  return namespaces.map((namespace) => {
    const covering = tests.filter((test) => test.sourceNamespaces.includes(namespace));
    // Tests deleted since still count for the runs they left in the period.
    const names = new Set([...covering.map((test) => test.name), ...(counts.tests.get(namespace) ?? [])]);
    return {
      namespace,
      tests: [...names].sort(),
      rtoTargets: [
        ...new Set(covering.map((test) => test.rtoTarget).filter((target): target is string => !!target)),
      ].sort(),
      runs: counts.runs.get(namespace) ?? 0,
    };
  });
}

interface MergedException {
  detail: ExceptionDetail;
  /** cause → the controls it applies to. */
  causes: Map<ExceptionCause, Set<string>>;
}

/**
 * The exception runs to list, merged across controls (worst follow-up, every cause with the
 * controls it applies to), and how many distinct exception runs there are. Only the listed ones
 * are merged in full: at scale nearly every run can be an exception (a lost signing key), and a
 * merged entry per run was tens of MB per PDF.
 */
function listedExceptions(
  controls: readonly ControlDetail[],
  max: number,
): { listed: MergedException[]; total: number } {
  const worst = new Map<string, ExceptionDetail>();
  for (const control of controls) {
    for (const target of control.targets) {
      for (const exception of target.exceptions) {
        const known = worst.get(exception.report);
        if (!known || severity(exception) < severity(known)) worst.set(exception.report, exception);
      }
    }
  }
  const chosen = new Set(
    [...worst.values()]
      .sort(
        (a, b) =>
          severity(a) - severity(b) ||
          b.completedAt.localeCompare(a.completedAt) ||
          a.report.localeCompare(b.report),
      )
      .slice(0, max)
      .map((exception) => exception.report),
  );
  const merged = new Map<string, MergedException>();
  for (const control of controls) {
    for (const target of control.targets) {
      for (const exception of target.exceptions) {
        if (!chosen.has(exception.report)) continue;
        let entry = merged.get(exception.report);
        if (!entry)
          merged.set(exception.report, (entry = { detail: worst.get(exception.report)!, causes: new Map() }));
        for (const cause of exception.causes) {
          const where = entry.causes.get(cause) ?? new Set<string>();
          where.add(control.id);
          entry.causes.set(cause, where);
        }
      }
    }
  }
  const listed = [...merged.values()].sort(
    (a, b) =>
      a.detail.completedAt.localeCompare(b.detail.completedAt) ||
      a.detail.report.localeCompare(b.detail.report),
  );
  return { listed, total: worst.size };
}

function severity(exception: ExceptionDetail): number {
  return REMEDIATION_ORDER.indexOf(exception.remediation);
}

function exceptionEntry(
  merged: MergedException,
  controls: readonly ControlDetail[],
  failure?: { reason: string; message: string },
): ExceptionEntry {
  const all = controls.length;
  const causes = [...merged.causes.entries()].map(([cause, where]) =>
    where.size === all ? CAUSE_TEXT[cause] : `${CAUSE_TEXT[cause]} (for ${[...where].join(', ')})`,
  );
  const reason = failure ? `${causes.join('; ')}; ${failure.reason}: ${failure.message}` : causes.join('; ');
  const { detail } = merged;
  const run = splitKey(detail.report);
  const test = splitKey(detail.test);
  return {
    run: run.name,
    test: test.name,
    testNamespace: test.namespace,
    at: detail.completedAt,
    result: detail.result,
    reason,
    remediation: detail.remediation,
    ...(detail.remediatedBy
      ? {
          remediatedBy: splitKey(detail.remediatedBy.report).name,
          remediatedAt: detail.remediatedBy.completedAt,
        }
      : {}),
  };
}

function aggregatedRun(run: IndexedRun, verified: boolean | undefined): AggregatedRun {
  const spec = run.report.spec;
  const test = splitKey(run.testKey);
  const rtoSeconds = measuredRtoSeconds(run.report);
  return {
    name: run.report.metadata.name,
    test: test.name,
    testNamespace: test.namespace,
    sourceNamespaces: spec.sourceNamespaces ?? [],
    completedAt: spec.completedAt,
    result: spec.result,
    score: spec.score,
    ...(rtoSeconds !== null ? { rtoSeconds } : {}),
    ...(spec.rto?.target !== undefined ? { rtoTarget: spec.rto.target } : {}),
    breached: rtoVerdict(run.report) === 'breached',
    ...(verified !== undefined ? { verified } : {}),
  };
}

/** The adapter: everything the compliance PDF prints, from the domain's evaluation. */
export function complianceReportData(input: ComplianceReportInput): ComplianceReportData {
  const { response, detail } = input.evaluation;
  const definition = FRAMEWORKS[detail.framework];
  const { listed, total: exceptionsTotal } = listedExceptions(
    detail.controls,
    input.maxExceptions ?? MAX_LISTED_EXCEPTIONS,
  );
  const listedKeys = new Set(listed.map((exception) => exception.detail.report));
  const failures = new Map<string, { reason: string; message: string }>();
  const byNamespace: NamespaceRuns = { tests: new Map(), runs: new Map() };
  const byTest = new TestAggregator();
  // Texts for the first few only: at scale most runs may fail to verify (a lost key), and each
  // text means unpacking and re-checking a report.
  const problems: string[] = [...(input.chainProblems ?? [])];
  let unverified = 0;
  // One pass over the population, straight from the index (no record per run is kept).
  for (const run of input.runs.runs) {
    const failure = run.report.spec.failure;
    if (failure && listedKeys.has(run.key)) failures.set(run.key, failure);
    countNamespaceRun(byNamespace, run);
    const verified = detail.signaturesChecked ? runVerifies(input.runs, run) : undefined;
    byTest.add(aggregatedRun(run, verified));
    if (verified !== false) continue;
    unverified += 1;
    if (problems.length > MAX_PROBLEMS) continue;
    const report = input.reportOf(run.key);
    const found = report && input.evidenceProblems ? input.evidenceProblems(report) : [];
    problems.push(...(found.length ? found : [`${run.report.metadata.name}: evidence does not verify`]));
  }
  const tests = scopeTests(input.tests);
  const aggregates = byTest.rows();
  const maxRows = input.maxRows ?? MAX_LISTED_ROWS;
  const coverage = coverageRows(detail);
  const controls: ControlEntry[] = detail.controls.map((control, index) => ({
    id: control.id,
    title: control.title,
    role: control.role,
    status: control.status,
    evidence: control.evidence,
    notEvidenced: controlNotEvidenced(control, definition.notEvidenced),
    reasons: controlReasons(control),
    remediatedExceptions: control.remediatedExceptions,
    targets: controlTargets(coverage, index, SATISFIED_NAMES),
  }));
  let chain: ChainSummary | undefined;
  if (detail.signaturesChecked) {
    const texts = limited(problems, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS && unverified > 0) {
      texts[MAX_PROBLEMS] = `... and more: ${unverified} of ${detail.totals.runs} runs do not verify in all`;
    }
    chain = {
      checkedReports: detail.totals.runs,
      verifiedReports: detail.totals.runs - unverified,
      problems: texts,
    };
  }
  const data: ComplianceReportData = {
    kind: 'compliance',
    reportId: complianceReportId(input.evaluation, input.runs),
    generatedAt: detail.generatedAt,
    productVersion: input.productVersion,
    ...(input.cluster ? { cluster: input.cluster } : {}),
    period: detail.period,
    framework: { id: detail.framework, label: detail.label },
    evaluatedAt: detail.generatedAt,
    summary: {
      totalRuns: response.totalTests,
      passRate: response.passRate,
      avgScore: response.avgScore,
      slaCompliance: response.slaCompliance,
      namespacesCovered: response.namespacesCovered,
      namespacesInScope: detail.scope.namespaces.length,
    },
    statusRules: {
      remediationWindowDays: detail.remediationWindowDays,
      freshnessDays: Math.max(...detail.controls.map((control) => control.freshnessDays)),
      rules: [],
    },
    scope: {
      targets: listedTargets(scopeTargets(detail.scope.namespaces, tests, byNamespace), coverage, maxRows),
      tests: listedTests(tests, aggregates, maxRows),
      targetsTotal: detail.scope.namespaces.length,
      testsTotal: tests.length,
    },
    controls,
    coverage: listedCoverage(coverage, maxRows),
    coverageTotal: coverage.length,
    exceptions: listed.map((exception) =>
      exceptionEntry(exception, detail.controls, failures.get(exception.detail.report)),
    ),
    exceptionsTotal,
    notEvidenced: [...detail.notEvidenced],
    limitations: [...detail.limitations],
    population: {
      runs: detail.totals.runs,
      pass: detail.totals.pass,
      partial: detail.totals.partial,
      fail: detail.totals.fail,
    },
    byTest: listedAggregates(aggregates, maxRows),
    byTestTotal: aggregates.length,
    rtoByTest: listedRto(aggregates, maxRows),
    ...(chain ? { chain } : {}),
  };
  return plainJson(data);
}
