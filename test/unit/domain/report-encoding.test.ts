// The stored form of a RestoreReport (issue 17): most spec fields as one JSON string, so the
// apiserver's watch cache holds one string instead of ~150 small maps. Round trip, what stays a
// field (printer columns, selectable fields, CEL-validated result, evidence), old reports unchanged,
// and the signed digest independent of the storage form.
import { describe, expect, it } from '@jest/globals';
import { expandReport, expandReportSpec, MAX_DETAILS_LENGTH, packReport, packReportSpec } from '../../../server/domain/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources.js';
import { computeEvidenceDigest, reportEvidenceProblems } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { makeRestoreTest, makeSignedHistory, PAYMENTS_CHECKS, PERIOD_START } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
const reports = (): RestoreReport[] =>
  makeSignedHistory(test, 4, PERIOD_START, key, (i) => (i === 2 ? { result: 'fail', rtoSeconds: 600 } : { result: 'pass', rtoSeconds: 600 }));
/** What the apiserver hands back: the stored object after a JSON round trip. */
const throughApiserver = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('report encoding', () => {
  it('round-trips every report exactly', () => {
    for (const report of reports()) {
      expect(expandReport(throughApiserver(packReport(report)))).toEqual(throughApiserver(report));
    }
  });

  it('keeps the printer-column, selectable and evidence fields as fields, everything else in details', () => {
    const report = reports()[0]!;
    const stored = packReportSpec(report.spec);
    expect(Object.keys(stored).sort()).toEqual(['completedAt', 'details', 'evidence', 'result', 'rto', 'runId', 'score', 'startedAt', 'testRef']);
    expect(stored.rto).toEqual({ measured: report.spec.rto.measured });
    const details = JSON.parse(stored.details!) as Record<string, unknown>;
    expect(Object.keys(details)).toEqual(expect.arrayContaining(['levels', 'checks', 'completeness', 'backup', 'trigger', 'sourceNamespaces']));
    expect(details.rto).toEqual({ ...report.spec.rto, measured: undefined });
    // What the watch cache pays for: JSON values that become Go maps/fields, not bytes.
    const nodes = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Object.values(value).reduce<number>((n, v) => n + nodes(v), 0) : 1;
    expect(nodes(stored)).toBeLessThan(nodes(report.spec) / 3);
  });

  it('stores a report too large for spec.details expanded, as before', () => {
    const report = reports()[0]!;
    const huge = { ...report.spec, checks: report.spec.checks.map((check) => ({ ...check, message: 'x'.repeat(MAX_DETAILS_LENGTH) })) };
    expect(packReportSpec(huge)).toBe(huge);
  });

  it('leaves a report stored before packing as it is', () => {
    const report = reports()[1]!;
    expect(expandReport(report)).toBe(report);
    expect(expandReportSpec(report.spec)).toBe(report.spec);
  });

  it('gives the same digest for the stored and the expanded report, and both verify', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of reports()) {
      const stored = throughApiserver(packReport(report)) as unknown as RestoreReport;
      expect(computeEvidenceDigest(stored, report.spec.evidence?.previousDigest)).toBe(report.spec.evidence!.digest);
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
      expect(reportEvidenceProblems(report, ring)).toEqual([]);
    }
  });

  it('a field outside details wins, and details that are not an object add nothing (so the digest fails)', () => {
    const report = reports()[0]!;
    const stored = packReportSpec(report.spec);
    const details = JSON.parse(stored.details!) as Record<string, unknown>;
    expect(expandReportSpec({ ...stored, details: JSON.stringify({ ...details, score: 1 }) }).score).toBe(report.spec.score);
    const broken = expandReportSpec({ ...stored, details: '[1,2]' });
    expect(broken.levels).toBeUndefined();
    expect(broken.score).toBe(report.spec.score);
    expect(expandReportSpec({ ...stored, details: '{not json' }).checks).toBeUndefined();
    const ring = publicKeyRing([key.publicKey]);
    const tampered = { ...report, spec: { ...stored, details: '{}' } } as unknown as RestoreReport;
    expect(reportEvidenceProblems(tampered, ring)[0]).toContain('digest mismatch');
  });
});
