// ComplianceDetail (+ response) → ComplianceReportData: the PDF prints exactly the domain's
// statuses, evidence, reasons and exceptions, reshaped for the auditor layout, and the result
// renders into a signed PDF.
import { describe, expect, it } from '@jest/globals';
import {
  complianceReportData,
  complianceReportId,
  controlNotEvidenced,
  MAX_LISTED,
} from '../../../server/api/services/compliance-report-data.js';
import { gunzipSync } from 'node:zlib';
import { periodRuns, runsFileRows } from '../../../server/api/services/compliance-runs.js';
import { buildRunsFile } from '../../../server/pdf/runs-file.js';
import { evaluateCompliance } from '../../../server/domain/compliance/evaluation.js';
import { ReportIndex, reportKeyOf } from '../../../server/domain/read-models/report-index.js';
import type { RestoreReport, RunResult } from '../../../server/domain/resources/resources.js';
import type { ReportSummary } from '../../../server/domain/read-models/report-summary.js';
import { EvidenceVerifier } from '../../../server/evidence/evidence-verifier.js';
import { verifyPdfAndPages } from '../../helpers/pdf-pages.js';
import { renderComplianceReport } from '../../../server/pdf/compliance-report.pdf.js';
import { percent } from '../../../server/pdf/format.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { POPPLER, pdftotext, writePdf } from '../../fixtures/evidence/poppler.js';
import { toolPresent } from '../../helpers/required-tool.js';
import { makeRestoreTest, makeSignedHistory } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const NOW = new Date('2026-04-01T06:00:00Z');
const START = new Date('2026-02-01T00:00:00Z'); // 59 daily runs up to 2026-03-31
const tests = [
  makeRestoreTest('payments-nightly', ['payments', 'payments-ledger'], { maxRTO: '15m', maxRPO: '1h', uid: 'a1' }),
  makeRestoreTest('orders-nightly', ['orders'], { maxRTO: '20m', uid: 'a2' }),
  makeRestoreTest('reporting-weekly', ['reporting'], { uid: 'a3' }),
];

function population(tamper: boolean): RestoreReport[] {
  const reports: RestoreReport[] = [];
  tests.forEach((test, t) => {
    const history = makeSignedHistory(
      test,
      59,
      START,
      key,
      (i): { result: RunResult; rtoSeconds: number } => {
        let result: RunResult = 'pass';
        if (t === 0 && i === 20) result = 'fail';
        if (t === 0 && i === 58) result = 'partial';
        if (t === 1 && i === 30) result = 'fail';
        return { result, rtoSeconds: t === 0 && i === 40 ? 1200 : 500 };
      },
    );
    history.forEach((report, i) => {
      report.metadata.uid = `${test.metadata.uid}-${i}`;
      report.metadata.resourceVersion = '1';
    });
    reports.push(...history);
  });
  if (tamper) {
    // orders' newest run edited after signing.
    const orders = reports.filter((report) => report.spec.testRef.name === 'orders-nightly');
    orders[orders.length - 1]!.spec.score = 100;
  }
  return reports;
}

const populations = new Map<boolean, RestoreReport[]>();
const evaluations = new Map<string, ReturnType<typeof evaluateUncached>>();

/** Evaluations are shared between the tests (building and signing the population is the slow part). */
function evaluate(framework: 'soc2' | 'iso27001', options: { tamper?: boolean; verify?: boolean } = {}) {
  const cacheKey = JSON.stringify([framework, options.tamper ?? false, options.verify ?? true]);
  let result = evaluations.get(cacheKey);
  if (!result) {
    result = evaluateUncached(framework, options);
    evaluations.set(cacheKey, result);
  }
  return result;
}

function evaluateUncached(framework: 'soc2' | 'iso27001', options: { tamper?: boolean; verify?: boolean }) {
  const tamper = options.tamper ?? false;
  if (!populations.has(tamper)) populations.set(tamper, population(tamper));
  const reports = populations.get(tamper)!;
  const index = ReportIndex.from(reports);
  const whole = new Map(reports.map((report) => [reportKeyOf(report), report]));
  const verifier = new EvidenceVerifier(() => publicKeyRing([key.publicKey]), {
    reportsOfTest: (testKey) => index.runsOfTest(testKey).map((run) => whole.get(run.key)!),
  });
  const evaluation = evaluateCompliance({
    framework,
    periodDays: 60,
    now: NOW,
    tests,
    reports: index,
    ...(options.verify === false ? {} : { verify: (report: ReportSummary) => verifier.verify(report) }),
  });
  const byKey = new Map(reports.map((report) => [reportKeyOf(report), report]));
  const runs = periodRuns(
    index,
    evaluation.detail.period,
    options.verify === false ? undefined : (report) => verifier.verify(report),
  );
  const data = complianceReportData({
    evaluation,
    runs,
    tests,
    reportOf: (reportKey) => byKey.get(reportKey),
    productVersion: '0.1.0',
    cluster: 'prod-eu-west-1',
    evidenceProblems: (report) => verifier.problems(report),
  });
  return { evaluation, runs, data, reports };
}

describe('complianceReportData', () => {
  it('carries the response figures and the evaluation period unchanged', () => {
    const { evaluation, runs, data } = evaluate('soc2');
    const { response, detail } = evaluation;
    expect(data).toMatchObject({
      kind: 'compliance',
      generatedAt: NOW.toISOString(),
      evaluatedAt: NOW.toISOString(),
      productVersion: '0.1.0',
      cluster: 'prod-eu-west-1',
      period: detail.period,
      framework: { id: 'soc2', label: 'SOC 2 (TSC 2017, rev. 2022)' },
      summary: {
        totalRuns: response.totalTests,
        passRate: response.passRate,
        avgScore: response.avgScore,
        slaCompliance: response.slaCompliance,
        namespacesCovered: response.namespacesCovered,
        namespacesInScope: 4,
      },
      statusRules: { remediationWindowDays: 30, freshnessDays: 365, rules: [] },
    });
    expect(data.population).toEqual({
      runs: response.totalTests,
      pass: detail.totals.pass,
      partial: detail.totals.partial,
      fail: detail.totals.fail,
    });
    // One row per test, not one per run; together they count the whole population.
    // Listed worst first (latest run failed or partial); here all three fit under the cap.
    expect(data.byTest[0]!.test).toBe('payments-nightly');
    expect(data.byTest.map((row) => row.test).sort()).toEqual([
      'orders-nightly',
      'payments-nightly',
      'reporting-weekly',
    ]);
    expect(data.byTest.reduce((sum, row) => sum + row.runs, 0)).toBe(response.totalTests);
    expect(data.byTest.every((row) => row.notVerified === 0)).toBe(true);
    expect(data.byTest.find((row) => row.test === 'payments-nightly')).toMatchObject({
      fail: 1,
      partial: 1,
      breaches: 1,
      worstSeconds: 1200,
      target: '15m',
      latestResult: 'partial',
    });
    expect(data.reportId).toMatch(/^RHR-SOC2-20260401-[0-9a-f]{8}$/);
    expect(complianceReportId(evaluation, runs)).toBe(data.reportId);
  });

  it('prints each control with the domain’s status and evidence, reasons per target, and what it does not evidence', () => {
    const { evaluation, data } = evaluate('soc2');
    expect(data.controls.map((control) => [control.id, control.status, control.evidence])).toEqual(
      evaluation.detail.controls.map((control) => [control.id, control.status, control.evidence]),
    );
    const a13 = data.controls.find((control) => control.id === 'A1.3')!;
    expect(a13.status).toBe('at_risk'); // payments' latest run is partial
    expect(a13.reasons).toEqual([
      expect.stringMatching(/^payments: latest run: partial 2026-03-31/),
      expect.stringMatching(/^payments-ledger: latest run: partial 2026-03-31/),
    ]);
    expect(a13.remediatedExceptions).toBe(
      evaluation.detail.controls.find((control) => control.id === 'A1.3')!.remediatedExceptions,
    );
    const a12 = data.controls.find((control) => control.id === 'A1.2')!;
    expect(a12.role).toBe('supporting');
    expect(a12.notEvidenced).toContain('A1.2 environmental protections and physical recovery infrastructure');
    expect(data.notEvidenced).toEqual(evaluation.detail.notEvidenced);
    expect(data.limitations).toEqual(evaluation.detail.limitations);
  });

  it('builds the coverage matrix and the scope from the targets and the RestoreTests', () => {
    const { evaluation, data } = evaluate('soc2');
    expect(data.coverage.map((row) => row.namespace).sort()).toEqual([
      'orders',
      'payments',
      'payments-ledger',
      'reporting',
    ]);
    for (const row of data.coverage) {
      expect(row.statuses).toEqual(
        evaluation.detail.controls.map(
          (control) => control.targets.find((target) => target.namespace === row.namespace)!.status,
        ),
      );
    }
    expect(data.scope.targets.find((target) => target.namespace === 'payments-ledger')).toEqual({
      namespace: 'payments-ledger',
      tests: ['payments-nightly'],
      rtoTargets: ['15m'],
      runs: 59,
    });
    expect(data.scope.targets.find((target) => target.namespace === 'reporting')!.rtoTargets).toEqual([]);
    expect(
      [...data.scope.tests]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((test) => [test.name, test.schedule, test.timezone, test.backupName, test.rtoTarget, test.rpoTarget]),
    ).toEqual([
      ['orders-nightly', '0 2 * * *', 'UTC', 'latest', '20m', undefined],
      ['payments-nightly', '0 2 * * *', 'UTC', 'latest', '15m', '1h'],
      ['reporting-weekly', '0 2 * * *', 'UTC', 'latest', undefined, undefined],
    ]);
  });

  it('lists each exception run once, with control-specific causes and the worst follow-up', () => {
    const { data } = evaluate('iso27001');
    const names = data.exceptions.map((exception) => exception.run);
    expect(new Set(names).size).toBe(names.length);
    const failed = data.exceptions.find(
      (exception) => exception.test === 'payments-nightly' && exception.result === 'fail',
    )!;
    expect(failed).toMatchObject({ remediation: 'remediated', testNamespace: 'rehearsal-system' });
    expect(failed.reason).toMatch(/^failed; HealthChecksFailed: api-health: GET \/healthz returned 503/);
    expect(failed.remediatedBy).toMatch(/^payments-nightly-/);
    // A pass without an RTO target is an exception only for the RTO-bound control 5.30.
    const reporting = data.exceptions.filter((exception) => exception.test === 'reporting-weekly');
    expect(reporting.length).toBeGreaterThan(0);
    expect(reporting[0]!.reason).toBe('no RTO target (for 5.30)');
    expect(data.exceptions.map((exception) => exception.at)).toEqual(
      [...data.exceptions.map((exception) => exception.at)].sort(),
    );
  });

  it('summarises evidence integrity and names the report that does not verify', () => {
    const { data, reports } = evaluate('soc2', { tamper: true });
    const edited = reports.filter((report) => report.spec.testRef.name === 'orders-nightly').at(-1)!;
    expect(data.chain).toEqual({
      checkedReports: data.population.runs,
      verifiedReports: data.population.runs - 1,
      problems: [expect.stringMatching(new RegExp(`^${edited.metadata.name}: digest mismatch`))],
    });
    expect(data.byTest.find((row) => row.test === 'orders-nightly')!.notVerified).toBe(1);
    expect(data.coverage.find((row) => row.namespace === 'orders')!.statuses[0]).toBe('at_risk');
  });

  it('without a verifier: no integrity summary and no per-run verdict (the limitations say so)', () => {
    const { data } = evaluate('soc2', { verify: false });
    expect(data.chain).toBeUndefined();
    expect(data.byTest.every((row) => row.notVerified === undefined)).toBe(true);
    expect(data.limitations).toContain('Evidence signatures were not verified for this output.');
  });

  it('lists at most maxExceptions exception runs, the unremediated, late and pending first, and counts the rest', () => {
    const { evaluation, runs, data: all } = evaluate('iso27001');
    expect(all.exceptions.length).toBe(all.exceptionsTotal);
    expect(all.exceptionsTotal).toBeGreaterThan(3);
    const data = complianceReportData({
      evaluation,
      runs,
      tests,
      reportOf: () => undefined,
      productVersion: '0.1.0',
      maxExceptions: 3,
    });
    expect(data.exceptionsTotal).toBe(all.exceptionsTotal);
    expect(data.exceptions).toHaveLength(3);
    const severity = ['unremediated', 'late', 'pending', 'remediated'];
    const worst = [...all.exceptions].sort(
      (a, b) => severity.indexOf(a.remediation) - severity.indexOf(b.remediation) || b.at.localeCompare(a.at),
    );
    expect(data.exceptions.map((exception) => exception.run).sort()).toEqual(
      worst
        .slice(0, 3)
        .map((exception) => exception.run)
        .sort(),
    );
    expect(data.exceptions.map((exception) => exception.at)).toEqual(
      [...data.exceptions.map((exception) => exception.at)].sort(),
    );
  });

  it('prints a missing tail first among the integrity problems', () => {
    const { evaluation, runs } = evaluate('soc2');
    const tail =
      "rehearsal-system/orders-nightly: missing tail: the test's evidence anchor names orders-nightly-x";
    const data = complianceReportData({
      evaluation,
      runs,
      tests,
      reportOf: () => undefined,
      productVersion: '0.1.0',
      chainProblems: [tail],
    });
    expect(data.chain!.problems[0]).toBe(tail);
  });

  it('limits long reason lists', () => {
    const control = evaluate('soc2').evaluation.detail.controls[0]!;
    expect(controlNotEvidenced(control, [])).toContain('The written procedure');
    expect(MAX_LISTED).toBe(12);
  });

  it("attaches every run with its verdict and its report's evidence digest", async () => {
    const { runs, data, reports } = evaluate('soc2', { tamper: true });
    const file = await buildRunsFile(runsFileRows(runs));
    const [header, ...lines] = gunzipSync(file.bytes).toString('utf8').trimEnd().split('\n');
    const columns = header!.split(',');
    expect(columns).toEqual(expect.arrayContaining(['report', 'evidenceVerified', 'evidenceDigest']));
    expect(lines).toHaveLength(data.population.runs);
    const byName = new Map(reports.map((report) => [report.metadata.name, report]));
    const at = (line: string, column: string) => line.split(',')[columns.indexOf(column)];
    for (const line of lines) {
      const report = byName.get(at(line, 'report')!)!;
      expect(at(line, 'evidenceDigest')).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(at(line, 'evidenceDigest')).toBe(report.spec.evidence!.digest);
    }
    // The tampered report (orders' newest) is the one line that does not verify.
    const unverified = lines.filter((line) => at(line, 'evidenceVerified') === 'false');
    expect(unverified.map((line) => at(line, 'test'))).toEqual(['orders-nightly']);
  });

  it('renders into a signed PDF with the figures of the response', async () => {
    const { evaluation, data } = evaluate('soc2', { tamper: true });
    const pdf = await renderComplianceReport(data, key);
    expect(await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]))).toMatchObject({
      ok: true,
      contentCheck: 'identical',
    });
    if (!toolPresent(POPPLER, 'reading the figures back from the PDF')) return;
    const text = pdftotext(writePdf(pdf, 'adapter'), '-layout').replace(/\s+/g, ' ');
    expect(text).toContain(`${evaluation.response.totalTests} (`);
    expect(text).toContain(percent(evaluation.response.passRate));
    expect(text).toContain('Evidence that did not verify');
    expect(text).toContain('prod-eu-west-1');
  });
});
