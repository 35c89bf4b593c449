// ComplianceDetail (+ ComplianceResponse) of server/domain/compliance.ts → ComplianceReportData,
// the input of the compliance PDF (server/reports/pdf/compliance-report.pdf.ts). Pure mapping:
// statuses, evidence sentences, reasons and exceptions are the domain's; this only reshapes them
// for the auditor layout and adds what the renderer needs from the resources (the RestoreTests for
// the scope table, the RestoreReports for the run history).
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
  plainJson,
  runRecordFromReport,
  type ChainSummary,
  type ComplianceReportData,
  type ControlEntry,
  type ExceptionEntry,
  type RunRecord,
  type ScopeTarget,
  type ScopeTest,
} from '../../reports/pdf/report-data.js';

export interface ComplianceReportInput {
  evaluation: ComplianceEvaluation;
  /** The RestoreTests the evaluation saw (the scope table). */
  tests: readonly RestoreTest[];
  /** The report behind a RunRecord of the detail ("namespace/name"). */
  reportOf: (key: string) => RestoreReport | undefined;
  productVersion: string;
  cluster?: string;
  /** Why a report's evidence does not verify (for the integrity summary); absent = not checked. */
  evidenceProblems?: (report: RestoreReport) => string[];
}

/** How many reasons and integrity problems are printed before "... and N more". */
export const MAX_LISTED = 12;

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
  runs: readonly RunRecord[],
): ScopeTarget[] {
  return namespaces.map((namespace) => {
    const covering = tests.filter((test) => test.sourceNamespaces.includes(namespace));
    // Tests deleted since still count for the runs they left in the period.
    const names = new Set(covering.map((test) => test.name));
    for (const run of runs) if (run.sourceNamespaces.includes(namespace)) names.add(run.test);
    return {
      namespace,
      tests: [...names].sort(),
      rtoTargets: [
        ...new Set(covering.map((test) => test.rtoTarget).filter((target): target is string => !!target)),
      ].sort(),
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
  failure?: RunRecord['failure'],
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

/** The adapter: everything the compliance PDF prints, from the domain's evaluation. */
export function complianceReportData(input: ComplianceReportInput): ComplianceReportData {
  const { response, detail } = input.evaluation;
  const definition = FRAMEWORKS[detail.framework];
  const runs: RunRecord[] = detail.runs.map((run) => {
    const report = input.reportOf(run.report);
    if (!report) throw new Error(`report ${run.report} of the evaluated population is not in the cache`);
    return runRecordFromReport(report, detail.signaturesChecked ? run.evidenceVerified : undefined);
  });
  const failures = new Map(detail.runs.map((run) => [run.report, run.failure]));
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
    const problems: string[] = [];
    for (const run of detail.runs) {
      if (run.evidenceVerified) continue;
      const report = input.reportOf(run.report);
      const found = report && input.evidenceProblems ? input.evidenceProblems(report) : [];
      problems.push(...(found.length ? found : [`${splitKey(run.report).name}: evidence does not verify`]));
    }
    chain = {
      checkedReports: detail.runs.length,
      verifiedReports: detail.runs.filter((run) => run.evidenceVerified).length,
      problems: limited(problems, 40),
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
    scope: { targets: scopeTargets(detail.scope.namespaces, tests, runs), tests },
    controls,
    coverage,
    exceptions: mergedExceptions(detail.controls).map((merged) =>
      exceptionEntry(merged, detail.controls, failures.get(merged.detail.report)),
    ),
    notEvidenced: [...detail.notEvidenced],
    limitations: [...detail.limitations],
    runs,
    ...(chain ? { chain } : {}),
  };
  return plainJson(data);
}
