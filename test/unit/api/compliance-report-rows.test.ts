// The compliance PDF at 1,000 RestoreTests: every per-target / per-test table lists at most
// MAX_LISTED_ROWS rows, the worst first, with an "N more" line; the executive summary and the
// per-control evidence still count every target and run (equal to the uncapped computation).
import { describe, expect, it } from '@jest/globals';
import { complianceReportData } from '../../../server/api/services/compliance-report-data.js';
import { periodRuns, runsFileRows } from '../../../server/api/services/compliance-runs.js';
import { MAX_LISTED_ROWS } from '../../../server/api/services/compliance-report-rows.js';
import { evaluateCompliance } from '../../../server/domain/compliance/evaluation.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import type { RestoreReport, RunResult } from '../../../server/domain/resources/resources.js';
import { verifyPdfAndPages } from '../../helpers/pdf-pages.js';
import { renderComplianceReport } from '../../../server/pdf/compliance-report.pdf.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { gunzipSync } from 'node:zlib';
import { buildRunsFile, RUNS_FILE_NAME } from '../../../server/pdf/runs-file.js';
import { pdfdetach, POPPLER, pdftotext, writePdf } from '../../fixtures/evidence/poppler.js';
import { toolPresent } from '../../helpers/required-tool.js';
import { makeReport, makeRestoreTest, seeded } from '../../fixtures/evidence/reports.js';

const TESTS = 1_000;
const RUNS = 3;
const NOW = new Date('2026-04-01T06:00:00Z');
const START = new Date('2026-03-20T00:00:00Z');

function population() {
  const random = seeded(12);
  const tests = Array.from({ length: TESTS }, (_, t) =>
    makeRestoreTest(`app-${String(t).padStart(4, '0')}`, [`ns-${String(t).padStart(4, '0')}`], {
      ...(t % 7 === 0 ? {} : { maxRTO: '15m' }),
      uid: `u${t}`,
    }),
  );
  const reports: RestoreReport[] = [];
  tests.forEach((test, t) => {
    if (t % 11 === 0) return; // never ran: not tested
    for (let i = 0; i < RUNS; i += 1) {
      const roll = random();
      const result: RunResult = roll < 0.08 ? 'fail' : roll < 0.15 ? 'partial' : 'pass';
      const report = makeReport(test, i, START, { result, rtoSeconds: 300 + Math.floor(random() * 900) });
      report.metadata.uid = `${test.metadata.uid}-${i}`;
      report.metadata.resourceVersion = '1';
      reports.push(report);
    }
  });
  const index = ReportIndex.from(reports);
  const evaluation = evaluateCompliance({ framework: 'soc2', periodDays: 30, now: NOW, tests, reports: index });
  const runs = periodRuns(index, evaluation.detail.period);
  const input = { evaluation, runs, tests, reportOf: () => undefined, productVersion: '0.1.0' };
  return {
    capped: complianceReportData(input),
    uncapped: complianceReportData({ ...input, maxRows: Number.MAX_SAFE_INTEGER }),
    evaluation,
    runs,
  };
}

const { capped, uncapped, evaluation, runs: allRuns } = population();

describe('compliance PDF rows at 1,000 RestoreTests', () => {
  it('computes every summary figure and per-control count over all rows, before the cap', () => {
    expect(uncapped.byTest).toHaveLength(TESTS - Math.ceil(TESTS / 11));
    expect(uncapped.coverage).toHaveLength(TESTS);
    expect(capped.summary).toEqual(uncapped.summary);
    expect(capped.population).toEqual(uncapped.population);
    expect(capped.controls).toEqual(uncapped.controls);
    expect(capped.exceptionsTotal).toBe(uncapped.exceptionsTotal);
    expect(capped.summary.namespacesInScope).toBe(TESTS);
    expect(capped.population.runs).toBe(evaluation.detail.totals.runs);
    // The per-control counts equal the full matrix.
    capped.controls.forEach((control, index) => {
      const satisfied = uncapped.coverage.filter((row) => row.statuses[index] === 'satisfied');
      expect(control.targets).toEqual({
        inScope: TESTS,
        satisfied: satisfied.length,
        satisfiedNames: satisfied.slice(0, 5).map((row) => row.namespace),
      });
    });
    expect(capped.byTestTotal).toBe(uncapped.byTest.length);
    expect(capped.coverageTotal).toBe(TESTS);
    expect(capped.scope.targetsTotal).toBe(TESTS);
    expect(capped.scope.testsTotal).toBe(TESTS);
  });

  it('lists at most MAX_LISTED_ROWS rows per table, the most worrying first', () => {
    expect(MAX_LISTED_ROWS).toBe(100);
    for (const rows of [
      capped.scope.targets,
      capped.scope.tests,
      capped.coverage,
      capped.byTest,
      capped.rtoByTest!,
    ]) {
      expect(rows).toHaveLength(MAX_LISTED_ROWS);
    }
    // Not tested targets (no runs) before any tested one.
    const notTested = uncapped.scope.targets.filter((target) => target.runs === 0).length;
    expect(capped.scope.targets.slice(0, notTested).every((target) => target.runs === 0)).toBe(true);
    // Coverage: no fully satisfied row is listed while an unsatisfied one is left out.
    const unsatisfied = (row: { statuses: string[] }) => row.statuses.some((s) => s !== 'satisfied');
    const unsatisfiedTotal = uncapped.coverage.filter(unsatisfied).length;
    expect(capped.coverage.filter(unsatisfied)).toHaveLength(Math.min(unsatisfiedTotal, MAX_LISTED_ROWS));
    // Appendix A: every test whose latest run failed comes before a test whose latest run passed.
    const failing = uncapped.byTest.filter((row) => row.latestResult === 'fail').length;
    expect(
      capped.byTest.slice(0, Math.min(failing, MAX_LISTED_ROWS)).every((row) => row.latestResult === 'fail'),
    ).toBe(true);
    // RTO: tests over target first, most breaches first.
    const breaching = uncapped.byTest.filter((row) => row.breaches > 0);
    const listedBreaches = capped.rtoByTest!.slice(0, Math.min(breaching.length, MAX_LISTED_ROWS));
    expect(listedBreaches.every((row) => row.breaches > 0)).toBe(true);
    expect(listedBreaches[0]!.breaches).toBe(Math.max(...breaching.map((row) => row.breaches)));
  });

  it('renders a signed PDF with at most the cap of rows and the "N more" lines', async () => {
    const key = generateSigningKey();
    const pdf = await renderComplianceReport(capped, key);
    expect(await verifyPdfAndPages(pdf, publicKeyRing([key.publicKey]))).toMatchObject({
      ok: true,
      contentCheck: 'identical',
    });
    if (!toolPresent(POPPLER, 'reading the PDF back')) return;
    const text = pdftotext(writePdf(pdf, 'rows-1000'), '-layout');
    const flat = text.replace(/\s+/g, ' ');
    const more = TESTS - MAX_LISTED_ROWS;
    expect(flat).toContain(`In scope are ${TESTS} source namespaces`);
    expect(flat).toContain(
      `${more} more source namespaces are not listed here; the complete list: GET /api/v1/tests`,
    );
    expect(flat).toContain(
      `${more} more RestoreTests are not listed here; the complete list: GET /api/v1/tests`,
    );
    expect(flat).toContain(`${more} more targets are not listed here`);
    const testsWithRuns = uncapped.byTest.length - MAX_LISTED_ROWS;
    expect(flat).toContain(
      `${testsWithRuns} more RestoreTests are not listed here; the complete list: GET /api/v1/reports?days=30`,
    );
    expect(flat).toContain('kubectl restoretest reports -A --days 30');
    // Test names appear only in capped tables (targets' "tested by", RestoreTests, RTO, appendix,
    // exceptions: 5 × the cap), namespaces as row heads only in the targets and coverage tables.
    const testNames = new Set(text.match(/app-\d{4}/g) ?? []);
    expect(testNames.size).toBeLessThanOrEqual(5 * MAX_LISTED_ROWS);
    const rows = (pattern: RegExp) => (text.match(pattern) ?? []).length;
    // Rows read back per table: coverage (namespace, then a status per control), targets
    // (namespace, then the test that covers it), appendix (test, then runs and pass/partial/fail).
    expect(rows(/^\s*ns-\d{4}\s+(satisfied|at risk|not tested)\b/gim)).toBe(MAX_LISTED_ROWS);
    expect(rows(/^\s*ns-\d{4}\s+app-\d{4}\s/gm)).toBe(MAX_LISTED_ROWS);
    expect(rows(/^\s*app-\d{4}\s+\d+\s+\d+\s*\/\s*\d+\s*\/\s*\d+\s/gm)).toBe(MAX_LISTED_ROWS);
  }, 60_000);

  it("attaches every run as a gzip'd CSV whose digest is in the signed evidence", async () => {
    const key = generateSigningKey();
    const keys = publicKeyRing([key.publicKey]);
    const runs = await buildRunsFile(runsFileRows(allRuns));
    expect(runs.info).toMatchObject({ name: RUNS_FILE_NAME, rows: capped.population.runs });
    const data = { ...capped, runsFile: runs.info };
    const pdf = await renderComplianceReport(data, key, runs.bytes);
    expect(await verifyPdfAndPages(pdf, keys)).toMatchObject({ ok: true, contentCheck: 'identical' });
    // Bytes that do not match the digest are refused, and a PDF whose file is gone fails verification.
    await expect(renderComplianceReport(data, key, Buffer.from('other'))).rejects.toThrow(/does not match/);
    const renamed = Buffer.from(
      pdf.toString('latin1').replace(`/F (${RUNS_FILE_NAME})`, `/F (${RUNS_FILE_NAME.replace('gz', 'gx')})`),
      'latin1',
    );
    const missing = await verifyPdfAndPages(renamed, keys);
    expect(missing.ok).toBe(false);
    expect(missing.problems.join('\n')).toContain('run population file');
    if (!toolPresent(POPPLER, 'reading the PDF back')) return;
    const path = writePdf(pdf, 'rows-1000-runs');
    const text = pdftotext(path, '-layout').replace(/\s+/g, ' ');
    expect(text).toContain(`attached to this PDF as ${RUNS_FILE_NAME}`);
    expect(text).toContain("the report's evidence digest, failure reason, measured RPO, RPO target, RPO verdict)");
    expect(text).toContain(runs.info.digest);
    const csv = gunzipSync(pdfdetach(path, 2)).toString('utf8').trimEnd().split('\n');
    expect(csv[0]).toMatch(/^report,testNamespace,test,completedAt,result,.*,failureReason,rpoSeconds,rpoTargetSeconds,rpoVerdict$/);
    expect(csv).toHaveLength(capped.population.runs + 1);
    const results = csv.slice(1).map((line) => line.split(',')[4]);
    expect(results.filter((result) => result === 'fail')).toHaveLength(capped.population.fail);
    expect(results.filter((result) => result === 'partial')).toHaveLength(capped.population.partial);
  }, 60_000);
});
