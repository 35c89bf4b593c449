// The read models run on report summaries: they must give exactly what they give on whole reports.
import { describe, expect, it } from '@jest/globals';
import { alerts, daily, summary } from '../../../server/domain/read-models/aggregates.js';
import { evaluateCompliance } from '../../../server/domain/compliance/evaluation.js';
import { ReportIndex, reportKeyOf } from '../../../server/domain/read-models/report-index.js';
import { Interner, reportEvidenceDigest, summarizeReport } from '../../../server/domain/read-models/report-summary.js';
import { makeReport, makeTest } from './fixtures.js';

const NOW = new Date('2026-03-10T12:00:00Z');

function population() {
  const tests = [
    makeTest({ name: 'shop', sources: ['shop'], maxRTO: '10m', maxRPO: '30m', alertOnExceed: true }),
    makeTest({ name: 'billing', sources: ['billing', 'payments'] }),
  ];
  const reports = [];
  for (let day = 1; day <= 9; day += 1) {
    const date = `2026-03-0${day}T05:00:00Z`;
    reports.push(
      makeReport({
        test: 'shop',
        sources: ['shop'],
        completedAt: date,
        rtoSeconds: 300 + day * 60,
        rtoTarget: '10m',
        // Within the 30m RPO target until day 6, over it after: compliance names both.
        rpoSeconds: 1_200 + day * 120,
        rpoTarget: '30m',
        score: 100 - day * 3,
        result: day > 6 ? 'partial' : 'pass',
      }),
      makeReport({
        test: 'billing',
        sources: ['billing', 'payments'],
        completedAt: date,
        result: day % 4 === 0 ? 'fail' : 'pass',
        aborted: day === 8,
      }),
    );
  }
  return { tests, reports };
}

describe('report summaries', () => {
  it('give the same summary, daily series, alerts and compliance as whole reports', () => {
    const { tests, reports } = population();
    const interner = new Interner();
    const whole = ReportIndex.from(reports);
    const summarized = ReportIndex.from(reports.map((report) => summarizeReport(report, interner)));
    expect(summary(tests, summarized, NOW)).toEqual(summary(tests, whole, NOW));
    expect(daily(summarized, 14, NOW)).toEqual(daily(whole, 14, NOW));
    expect(alerts(tests, summarized, 24 * 10, NOW)).toEqual(alerts(tests, whole, 24 * 10, NOW));
    expect(alerts(tests, summarized, 24 * 10, NOW).length).toBeGreaterThan(0);
    for (const framework of ['soc2', 'dora'] as const) {
      const input = { framework, periodDays: 30, now: NOW, tests };
      const fromWhole = evaluateCompliance({ ...input, reports: whole });
      const fromSummaries = evaluateCompliance({ ...input, reports: summarized });
      expect(fromSummaries.response).toEqual(fromWhole.response);
      expect(fromSummaries.detail.runs).toEqual(fromWhole.detail.runs);
      expect(fromSummaries.detail.runs.length).toBeGreaterThan(0);
      expect(fromSummaries.detail.controls).toEqual(fromWhole.detail.controls);
    }
    const dora = evaluateCompliance({ framework: 'dora', periodDays: 30, now: NOW, tests, reports: summarized });
    expect(dora.response.controls.find((control) => control.id === 'Art. 12(6)')!.evidence).toContain(
      'worst latest RPO 38m vs target 30m (shop, 2026-03-09); RPO over target: shop',
    );
  });

  it('keep the evidence digest in 32 bytes and give it back as the report states it', () => {
    const { reports } = population();
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const signed = { ...reports[0]!, spec: { ...reports[0]!.spec, evidence: { ...reports[0]!.spec.evidence!, digest } } };
    const summary = summarizeReport(signed);
    expect(summary.spec.evidenceDigestBytes).toHaveLength(32);
    expect(reportEvidenceDigest(summary)).toBe(digest);
    expect(reportEvidenceDigest(signed)).toBe(digest);
    const unsigned = { ...signed, spec: { ...signed.spec, evidence: undefined } };
    expect(reportEvidenceDigest(summarizeReport(unsigned))).toBeUndefined();
  });

  it('keep only the read models’ fields, sharing repeated values', () => {
    const { reports } = population();
    const interner = new Interner();
    const [first, second] = reports
      .filter((report) => report.spec.testRef.name === 'billing')
      .map((report) => summarizeReport(report, interner));
    const spec = first!.spec;
    for (const field of ['backup', 'completedAt', 'result', 'rto', 'runId', 'score', 'sourceNamespaces', 'testRef'] as const) {
      expect(spec[field]).toBeDefined();
    }
    expect(spec.backup).toEqual({ name: reports.find((report) => report.spec.testRef.name === 'billing')!.spec.backup.name });
    expect(first!.metadata.namespace).toBe(second!.metadata.namespace);
    expect(first!.spec.rto).toBe(second!.spec.rto); // the same RTO figures: one shared object
    expect(first!.spec).not.toHaveProperty('levels');
    expect(first!.spec).not.toHaveProperty('checks');
    expect(first!.spec.testRef).toBe(second!.spec.testRef);
    expect(first!.spec.sourceNamespaces).toBe(second!.spec.sourceNamespaces);
    expect(first!.spec.sourceNamespaces).toEqual(['billing', 'payments']);
  });

  it('give back the report name, whether it is the usual <test>-<runId> or not', () => {
    const { reports } = population();
    const usual = { ...reports[0]!, metadata: { ...reports[0]!.metadata, name: `${reports[0]!.spec.testRef.name}-${reports[0]!.spec.runId}` } };
    const renamed = { ...reports[0]!, metadata: { ...reports[0]!.metadata, name: 'imported-report-7' } };
    expect(summarizeReport(usual).metadata.name).toBe(usual.metadata.name);
    expect(summarizeReport(renamed).metadata.name).toBe('imported-report-7');
    expect(reportKeyOf(summarizeReport(renamed))).toBe(`${renamed.metadata.namespace}/imported-report-7`);
  });
});
