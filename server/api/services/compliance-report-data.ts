// ComplianceDetail (+ ComplianceResponse) of server/domain/compliance.ts → ComplianceReportData,
// the input of the compliance PDF (server/reports/pdf/compliance-report.pdf.ts). Pure mapping:
// statuses, evidence sentences, reasons and exceptions are the domain's; this only reshapes them
// for the auditor layout and adds what the renderer needs from the resources (the RestoreTests for
// the scope table, a RestoreReport's problems for the integrity summary). Bounded for any history:
// runs are aggregated per RestoreTest and listed only as exceptions, at most MAX_LISTED_EXCEPTIONS.
import { createHash } from 'node:crypto';
import { FRAMEWORKS } from '../../domain/compliance-catalogue.js';
import type {
  ComplianceEvaluation,
  ControlDetail,
  ExceptionCause,
  ExceptionDetail,
  RemediationState,
} from '../../domain/compliance.js';
import type { RestoreReport, RestoreTest } from '../../domain/resources.js';
import type { ControlStatus } from '../../domain/views.js';
import { canonicalJson } from '../../evidence/evidence.js';
import {
  aggregateByTest,
  plainJson,
  type AggregatedRun,
  type ChainSummary,
  type ComplianceReportData,
  type ControlEntry,
  type ExceptionEntry,
  type ScopeTarget,
  type ScopeTest,
} from '../../reports/pdf/report-data.js';

export interface ComplianceReportInput {
  evaluation: ComplianceEvaluation;
  /** The RestoreTests the evaluation saw (the scope table). */
  tests: readonly RestoreTest[];
  /** The report behind a run of the detail ("namespace/name"), for its evidence problems. */
  reportOf: (key: string) => RestoreReport | undefined;
  /** How many exception runs to list (default MAX_LISTED_EXCEPTIONS). */
  maxExceptions?: number;
  /** Problems of whole chains no single run shows (a missing tail), listed first. */
  chainProblems?: readonly string[];
  productVersion: string;
  cluster?: string;
  /** Why a report's evidence does not verify (for the integrity summary); absent = not checked. */
  evidenceProblems?: (report: RestoreReport) => string[];
}

/** How many reasons and integrity problems are printed before "... and N more". */
export const MAX_LISTED = 12;
/** How many exception runs the PDF lists; the rest are counted ("N more", README "Compliance PDF"). */
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

function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function limited(items: readonly string[], max = MAX_LISTED): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `... and ${items.length - max} more`];
}

/** "RHR-SOC2-20260401-7c1e9a0b": framework, UTC date, and 8 hex of a digest of what the report covers. */
export function complianceReportId(evaluation: ComplianceEvaluation): string {
  const { detail } = evaluation;
  const digest = createHash('sha256')
    .update(
      canonicalJson({
        framework: detail.framework,
        period: detail.period,
        generatedAt: detail.generatedAt,
        runs: detail.runs.map((run) => run.report),
      }),
    )
    .digest('hex');
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
    }))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

function scopeTargets(
  namespaces: readonly string[],
  tests: readonly ScopeTest[],
  runs: readonly ComplianceEvaluation['detail']['runs'][number][],
): ScopeTarget[] {
  // Tests deleted since still count for the runs they left in the period.
  const testsOf = new Map<string, Set<string>>();
  const runsOf = new Map<string, number>();
  for (const run of runs) {
    for (const namespace of run.sourceNamespaces) {
      runsOf.set(namespace, (runsOf.get(namespace) ?? 0) + 1);
      let names = testsOf.get(namespace);
      if (!names) testsOf.set(namespace, (names = new Set()));
      names.add(splitKey(run.test).name);
    }
  }
  return namespaces.map((namespace) => {
    const covering = tests.filter((test) => test.sourceNamespaces.includes(namespace));
    const names = new Set([...covering.map((test) => test.name), ...(testsOf.get(namespace) ?? [])]);
    return {
      namespace,
      tests: [...names].sort(),
      rtoTargets: [
        ...new Set(covering.map((test) => test.rtoTarget).filter((target): target is string => !!target)),
      ].sort(),
      runs: runsOf.get(namespace) ?? 0,
    };
  });
}

interface MergedException {
  detail: ExceptionDetail;
  /** cause → the controls it applies to. */
  causes: Map<ExceptionCause, Set<string>>;
}

function mergedExceptions(controls: readonly ControlDetail[]): MergedException[] {
  const byReport = new Map<string, MergedException>();
  for (const control of controls) {
    for (const target of control.targets) {
      for (const exception of target.exceptions) {
        let merged = byReport.get(exception.report);
        if (!merged) {
          merged = { detail: exception, causes: new Map() };
          byReport.set(exception.report, merged);
        } else if (
          REMEDIATION_ORDER.indexOf(exception.remediation) <
          REMEDIATION_ORDER.indexOf(merged.detail.remediation)
        ) {
          merged.detail = exception;
        }
        for (const cause of exception.causes) {
          const where = merged.causes.get(cause) ?? new Set<string>();
          where.add(control.id);
          merged.causes.set(cause, where);
        }
      }
    }
  }
  return [...byReport.values()].sort(
    (a, b) =>
      a.detail.completedAt.localeCompare(b.detail.completedAt) ||
      a.detail.report.localeCompare(b.detail.report),
  );
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

/** The exceptions worth an auditor's eye first (unremediated, late, pending; then the newest), oldest first. */
function listedExceptions(all: readonly MergedException[], max: number): MergedException[] {
  if (all.length <= max) return [...all];
  const severity = (merged: MergedException) => REMEDIATION_ORDER.indexOf(merged.detail.remediation);
  const chosen = [...all]
    .sort(
      (a, b) =>
        severity(a) - severity(b) ||
        b.detail.completedAt.localeCompare(a.detail.completedAt) ||
        a.detail.report.localeCompare(b.detail.report),
    )
    .slice(0, max);
  return chosen.sort(
    (a, b) =>
      a.detail.completedAt.localeCompare(b.detail.completedAt) ||
      a.detail.report.localeCompare(b.detail.report),
  );
}

function aggregatedRun(
  run: ComplianceEvaluation['detail']['runs'][number],
  signaturesChecked: boolean,
): AggregatedRun {
  const test = splitKey(run.test);
  return {
    name: splitKey(run.report).name,
    test: test.name,
    testNamespace: test.namespace,
    sourceNamespaces: run.sourceNamespaces,
    completedAt: run.completedAt,
    result: run.result,
    score: run.score,
    ...(run.rtoSeconds !== null ? { rtoSeconds: run.rtoSeconds } : {}),
    ...(run.rtoTarget !== null ? { rtoTarget: run.rtoTarget } : {}),
    breached: run.rtoVerdict === 'breached',
    ...(signaturesChecked ? { verified: run.evidenceVerified } : {}),
  };
}

/** The adapter: everything the compliance PDF prints, from the domain's evaluation. */
export function complianceReportData(input: ComplianceReportInput): ComplianceReportData {
  const { response, detail } = input.evaluation;
  const definition = FRAMEWORKS[detail.framework];
  const merged = mergedExceptions(detail.controls);
  const listed = listedExceptions(merged, input.maxExceptions ?? MAX_LISTED_EXCEPTIONS);
  const listedKeys = new Set(listed.map((exception) => exception.detail.report));
  const failures = new Map<string, { reason: string; message: string }>();
  for (const run of detail.runs)
    if (run.failure && listedKeys.has(run.report)) failures.set(run.report, run.failure);
  const tests = scopeTests(input.tests);
  const controls: ControlEntry[] = detail.controls.map((control) => ({
    id: control.id,
    title: control.title,
    role: control.role,
    status: control.status,
    evidence: control.evidence,
    notEvidenced: controlNotEvidenced(control, definition.notEvidenced),
    reasons: controlReasons(control),
    remediatedExceptions: control.remediatedExceptions,
  }));
  const coverage = detail.scope.namespaces.map((namespace) => ({
    namespace,
    statuses: detail.controls.map(
      (control): ControlStatus =>
        control.targets.find((target) => target.namespace === namespace)?.status ?? 'not_tested',
    ),
  }));
  let chain: ChainSummary | undefined;
  if (detail.signaturesChecked) {
    // Texts for the first few only: at scale most runs may fail to verify (a lost key), and each
    // text means unpacking and re-checking a report.
    const problems: string[] = [...(input.chainProblems ?? [])];
    let unverified = 0;
    for (const run of detail.runs) {
      if (run.evidenceVerified) continue;
      unverified += 1;
      if (problems.length > MAX_PROBLEMS) continue;
      const report = input.reportOf(run.report);
      const found = report && input.evidenceProblems ? input.evidenceProblems(report) : [];
      problems.push(...(found.length ? found : [`${splitKey(run.report).name}: evidence does not verify`]));
    }
    const texts = limited(problems, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS && unverified > 0) {
      texts[MAX_PROBLEMS] = `... and more: ${unverified} of ${detail.runs.length} runs do not verify in all`;
    }
    chain = {
      checkedReports: detail.runs.length,
      verifiedReports: detail.runs.length - unverified,
      problems: texts,
    };
  }
  const data: ComplianceReportData = {
    kind: 'compliance',
    reportId: complianceReportId(input.evaluation),
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
    scope: { targets: scopeTargets(detail.scope.namespaces, tests, detail.runs), tests },
    controls,
    coverage,
    exceptions: listed.map((exception) =>
      exceptionEntry(exception, detail.controls, failures.get(exception.detail.report)),
    ),
    exceptionsTotal: merged.length,
    notEvidenced: [...detail.notEvidenced],
    limitations: [...detail.limitations],
    population: {
      runs: detail.totals.runs,
      pass: detail.totals.pass,
      partial: detail.totals.partial,
      fail: detail.totals.fail,
    },
    byTest: aggregateByTest(detail.runs.map((run) => aggregatedRun(run, detail.signaturesChecked))),
    ...(chain ? { chain } : {}),
  };
  return plainJson(data);
}
