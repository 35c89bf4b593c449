// The stored form of a RestoreReport (issue 17): most spec fields, the evidence block included, as
// one deflated string, so the apiserver's watch cache holds one short string instead of ~150 small
// maps. Round trip, what stays a field (printer columns, selectable fields, CEL-validated result),
// reports stored in the earlier forms (expanded; JSON details) read unchanged, and the signed
// digest independent of the storage form.
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { DETAILS_DICTIONARY_Z1 } from '../../../protocol/stored-report/details-dictionary.js';
import { decodeDetails, DEFLATED_DETAILS_PREFIX, expandStoredSpec } from '../../../protocol/stored-report/stored-report.js';
import {
  encodeDetails,
  expandReport,
  expandReportSpec,
  MAX_DETAILS_LENGTH,
  packReport,
  packReportSpec,
} from '../../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { computeEvidenceDigest } from '../../../protocol/evidence/report-digest.js';
import { reportEvidenceProblems } from '../../../protocol/evidence/report-chain.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { makeRestoreTest, makeSignedHistory, PAYMENTS_CHECKS, PERIOD_START } from '../../fixtures/evidence/reports.js';
import { summarizeChecks } from '../../../server/domain/run/check-summary.js';

const key = generateSigningKey();
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
const reports = (): RestoreReport[] =>
  makeSignedHistory(test, 4, PERIOD_START, key, (i) => (i === 2 ? { result: 'fail', rtoSeconds: 600 } : { result: 'pass', rtoSeconds: 600 }));
/** The history as the writer signs it since issue 30: each report with its one-line check summary. */
const summarizedReports = (): RestoreReport[] =>
  reports().map((report, index, all) => {
    const { evidence: _evidence, ...unsigned } = report.spec;
    const previous = index === 0 ? undefined : all[index - 1]!.spec.evidence!.digest;
    return withEvidence({ ...report, spec: { ...unsigned, checkSummary: summarizeChecks(unsigned.checks) } }, previous, key);
  });
/** What the apiserver hands back: the stored object after a JSON round trip. */
const throughApiserver = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The first issue-17 form, as the writer stored it before: evidence and testRef fields, details JSON. */
function jsonDetailsForm(report: RestoreReport): RestoreReport {
  const kept = new Set(['testRef', 'runId', 'startedAt', 'completedAt', 'score', 'result', 'resultCap', 'failure', 'evidence']);
  const spec: Record<string, unknown> = {};
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(report.spec)) (kept.has(key) ? spec : details)[key] = value;
  const { measured, ...rto } = report.spec.rto;
  details.rto = rto;
  return { ...report, spec: { ...spec, rto: { measured }, details: JSON.stringify(details) } } as unknown as RestoreReport;
}

/**
 * The fifth issue-17 form, as the writer stored it before issue 30: test and rtoMeasured fields,
 * the whole backup (its name included) inside details.
 */
function backupInDetailsForm(report: RestoreReport): RestoreReport {
  const { backupName, details, ...spec } = packReportSpec(report.spec) as Record<string, unknown>;
  const { backup, ...rest } = decodeDetails(details as string);
  const packedBackup = { ...(backup as object), name: backupName };
  return { ...report, spec: { ...spec, details: encodeDetails({ ...rest, backup: packedBackup }) } } as unknown as RestoreReport;
}

/**
 * The third and fourth issue-17 forms, as the writer stored them before the fifth cut: z1 details,
 * rtoMeasured, and testRef.name (the Test column's path then) and runId as fields.
 */
function testRefForm(report: RestoreReport): RestoreReport {
  const { test: name, details, ...spec } = backupInDetailsForm(report).spec as unknown as Record<string, unknown>;
  const { runId, ...rest } = decodeDetails(details as string);
  return { ...report, spec: { ...spec, testRef: { name }, runId, details: encodeDetails(rest) } } as unknown as RestoreReport;
}

/**
 * The second issue-17 form, as the writer stored it before the third cut: z1 details, and the
 * measured RTO as the nested field rto.measured (the printer column's path then).
 */
function nestedRtoForm(report: RestoreReport): RestoreReport {
  const { rtoMeasured, ...spec } = testRefForm(report).spec as unknown as Record<string, unknown>;
  return { ...report, spec: { ...spec, rto: { measured: rtoMeasured } } } as unknown as RestoreReport;
}

describe('report encoding', () => {
  it('round-trips every report exactly', () => {
    for (const report of [...reports(), ...summarizedReports()]) {
      expect(expandReport(throughApiserver(packReport(report)))).toEqual(throughApiserver(report));
    }
  });

  it('stores a sampled backup\'s selection (issue 32) in details, reads it back, and the signature covers it', () => {
    const ring = publicKeyRing([key.publicKey]);
    const [plain] = reports();
    const { evidence: _unsigned, ...unsignedSpec } = plain!.spec;
    const selection = {
      strategy: 'randomWithin' as const,
      within: '720h',
      windowStart: '2026-01-01T00:00:00.000Z',
      windowEnd: '2026-01-31T00:00:00.000Z',
      seed: '9c3e01a7',
      candidates: 7,
      chosen: 3,
      reason: 'random within 720h: 7 candidate(s), chose #3 newest first (backup daily-20260128010000; seed 9c3e01a7)',
    };
    const sampled = withEvidence({ ...plain!, spec: { ...unsignedSpec, backup: { ...unsignedSpec.backup, selection } } }, undefined, key);
    const stored = throughApiserver(packReport(sampled));
    expect(decodeDetails((stored.spec as { details: string }).details).backup).toMatchObject({ selection });
    expect(expandReport(stored)).toEqual(throughApiserver(sampled));
    expect(expandReport(stored).spec.backup.selection).toEqual(selection);
    expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    // Another chosen position under the same signature fails verification: the choice is evidence.
    const altered = throughApiserver(packReport({ ...sampled, spec: { ...sampled.spec, backup: { ...sampled.spec.backup, selection: { ...selection, chosen: 1 } } } }));
    expect(reportEvidenceProblems(altered, ring)).not.toEqual([]);
  });

  it('keeps the printer-column, selectable and CEL-checked fields as fields, everything else deflated in details', () => {
    const report = summarizedReports()[0]!;
    const stored = packReportSpec(report.spec);
    // No map besides spec itself: the Test column and selectable field is the top-level string
    // test, the RTO column the top-level string rtoMeasured, the Backup column the top-level
    // string backupName, the Checks column checkSummary; runId is in details (and the name).
    expect(Object.keys(stored).sort()).toEqual([
      'backupName',
      'checkSummary',
      'completedAt',
      'details',
      'result',
      'rtoMeasured',
      'score',
      'startedAt',
      'test',
    ]);
    expect((stored as Record<string, unknown>).test).toBe(report.spec.testRef.name);
    expect((stored as Record<string, unknown>).rtoMeasured).toBe(report.spec.rto.measured);
    expect((stored as Record<string, unknown>).backupName).toBe(report.spec.backup.name);
    expect(stored.checkSummary).toBe(report.spec.checkSummary);
    expect(Object.values(stored).filter((value) => typeof value === 'object')).toHaveLength(0);
    expect(stored.details!.startsWith(DEFLATED_DETAILS_PREFIX)).toBe(true);
    const details = decodeDetails(stored.details!);
    expect(Object.keys(details)).toEqual(expect.arrayContaining(['levels', 'checks', 'completeness', 'backup', 'trigger', 'sourceNamespaces', 'evidence']));
    expect(details.rto).toEqual({ ...report.spec.rto, measured: undefined });
    expect(details.testRef).toEqual({ namespace: report.spec.testRef.namespace, uid: report.spec.testRef.uid });
    expect(details.backup).toEqual({ ...report.spec.backup, name: undefined });
    expect('checkSummary' in details).toBe(false);
    expect(details.runId).toBe(report.spec.runId);
    expect(details.evidence).toEqual(report.spec.evidence);
    // What the watch cache pays for: JSON values that become Go maps/fields, and string bytes.
    const nodes = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Object.values(value).reduce<number>((n, v) => n + nodes(v), 0) : 1;
    expect(nodes(stored)).toBeLessThan(nodes(report.spec) / 5);
    const json = JSON.stringify({ ...report.spec, testRef: undefined, runId: undefined });
    expect(stored.details!.length).toBeLessThan(json.length / 2);
    // The dictionary earns its place: deflate alone would be larger.
    const plain = deflateRawSync(JSON.stringify(details)).toString('base64').length;
    expect(stored.details!.length - DEFLATED_DETAILS_PREFIX.length).toBeLessThan(plain * 0.8);
  });

  it('signs the backup name and the check summary (issue 30): both verify stored, and editing either breaks the digest', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of summarizedReports()) {
      const stored = throughApiserver(packReport(report)) as unknown as RestoreReport & { spec: Record<string, unknown> };
      expect([stored.spec.backupName, stored.spec.checkSummary]).toEqual([report.spec.backup.name, report.spec.checkSummary]);
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
      const otherBackup = { ...stored, spec: { ...stored.spec, backupName: 'weekly-other' } };
      expect(reportEvidenceProblems(otherBackup, ring).join('\n')).toContain('digest mismatch');
      const rosier = { ...stored, spec: { ...stored.spec, checkSummary: '3/3 passed' } };
      expect(reportEvidenceProblems(rosier, ring).join('\n')).toContain('digest mismatch');
    }
  });

  it('reads reports stored before issue 30 (the whole backup in details, no check summary), and they verify', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of reports()) {
      const stored = throughApiserver(backupInDetailsForm(report));
      const fields = stored.spec as unknown as Record<string, unknown>;
      expect([fields.backupName, fields.checkSummary, fields.backup]).toEqual([undefined, undefined, undefined]);
      expect(expandReport(stored)).toEqual(throughApiserver(report));
      expect(expandReport(stored).spec.backup.name).toBe(report.spec.backup.name);
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    }
  });

  it('reads reports stored in the first issue-17 form (JSON details, evidence a field), and they verify', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of reports()) {
      const stored = throughApiserver(jsonDetailsForm(report));
      expect((stored.spec as unknown as { details: string }).details.startsWith('{')).toBe(true);
      expect(expandReport(stored)).toEqual(throughApiserver(report));
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    }
  });

  it('reads reports stored in the second issue-17 form (z1 details, rto.measured nested), and they verify', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of reports()) {
      const stored = throughApiserver(nestedRtoForm(report));
      expect((stored.spec as unknown as Record<string, unknown>).rtoMeasured).toBeUndefined();
      expect(stored.spec.rto).toEqual({ measured: report.spec.rto.measured });
      expect(expandReport(stored)).toEqual(throughApiserver(report));
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    }
  });

  it('reads reports stored in the third and fourth issue-17 forms (testRef.name and runId fields), and they verify', () => {
    const ring = publicKeyRing([key.publicKey]);
    for (const report of reports()) {
      const stored = throughApiserver(testRefForm(report));
      expect((stored.spec as unknown as Record<string, unknown>).test).toBeUndefined();
      expect([stored.spec.testRef, stored.spec.runId]).toEqual([{ name: report.spec.testRef.name }, report.spec.runId]);
      expect(decodeDetails((stored.spec as unknown as { details: string }).details).runId).toBeUndefined();
      expect(expandReport(stored)).toEqual(throughApiserver(report));
      expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    }
  });

  it('a run without a measured RTO stores no rtoMeasured and reads back the same', () => {
    const report = reports()[0]!;
    const { measured: _measured, ...rto } = report.spec.rto;
    const spec = { ...report.spec, rto };
    const stored = packReportSpec(spec);
    expect('rtoMeasured' in stored).toBe(false);
    expect(expandReportSpec(throughApiserver(stored))).toEqual(throughApiserver(spec));
    expect(expandStoredSpec(throughApiserver(stored))).toEqual(throughApiserver(spec));
  });

  it('a reader without the server\'s reused zlib state (the plugin) expands every stored form the same', () => {
    for (const report of reports()) {
      const forms = [packReport(report), backupInDetailsForm(report), testRefForm(report), nestedRtoForm(report), jsonDetailsForm(report), report];
      for (const stored of forms) {
        const spec = throughApiserver(stored.spec);
        expect(expandStoredSpec(spec)).toEqual(expandReportSpec(spec));
      }
    }
  });

  it('stores a report too large for spec.details expanded, as before', () => {
    const report = reports()[0]!;
    // Incompressible messages: the limit is on the stored string.
    const huge = { ...report.spec, checks: report.spec.checks.map((check) => ({ ...check, message: randomBytes(MAX_DETAILS_LENGTH).toString('base64') })) };
    expect(packReportSpec(huge)).toBe(huge);
  });

  it('stores what the restore transforms did and the Pod Security levels inside details, covered by the digest (issue 28)', () => {
    const ring = publicKeyRing([key.publicKey]);
    const [first] = reports();
    const { evidence: _evidence, ...unsigned } = first!.spec;
    const report = withEvidence(
      {
        ...first!,
        spec: {
          ...unsigned,
          transforms: {
            applied: [{ transform: 'suspend-cronjobs', kind: 'CronJob', namespace: 'payments', name: 'billing', change: 'spec.suspend set to true' }],
            removedDefaults: ['exclude-gitops'],
          },
          podSecurity: { floor: 'baseline', namespaces: [{ source: 'payments', sourceLevel: 'restricted', level: 'restricted' }] },
        },
      },
      undefined,
      key,
    );
    const stored = throughApiserver(packReport(report)) as unknown as RestoreReport & { spec: Record<string, unknown> };
    expect(Object.keys(stored.spec)).not.toContain('transforms'); // in details, not one more map per report
    expect(expandReport(stored)).toEqual(throughApiserver(report));
    expect(reportEvidenceProblems(stored, ring)).toEqual([]);
    // Editing the list (an object quietly dropped from it) breaks the signature.
    const edited = throughApiserver(report);
    edited.spec.transforms!.applied = [];
    expect(reportEvidenceProblems(packReport(edited) as unknown as RestoreReport, ring).join('\n')).toContain('digest mismatch');
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

  it('a field outside details wins, and details that do not decode to an object add nothing (so the digest fails)', () => {
    const report = reports()[0]!;
    const stored = packReportSpec(report.spec);
    const details = decodeDetails(stored.details!);
    expect(expandReportSpec({ ...stored, details: JSON.stringify({ ...details, score: 1 }) }).score).toBe(report.spec.score);
    const inner = expandReportSpec({ ...stored, details: JSON.stringify({ ...details, rto: { ...(details.rto as object), measured: '1s' } }) });
    expect(inner.rto.measured).toBe(report.spec.rto.measured);
    expect(inner.rto.target).toBe(report.spec.rto.target);
    expect('rtoMeasured' in inner).toBe(false);
    // spec.test is the field testRef.name: it wins over a name inside details, and does not stay.
    const named = expandReportSpec({ ...stored, details: encodeDetails({ ...details, testRef: { ...(details.testRef as object), name: 'other' } }) });
    expect(named.testRef).toEqual(report.spec.testRef);
    expect('test' in named).toBe(false);
    // Likewise spec.backupName is the field backup.name.
    const backup = expandReportSpec({ ...stored, details: encodeDetails({ ...details, backup: { ...(details.backup as object), name: 'other' } }) });
    expect(backup.backup).toEqual(report.spec.backup);
    expect('backupName' in backup).toBe(false);
    const broken = expandReportSpec({ ...stored, details: '[1,2]' });
    expect(broken.levels).toBeUndefined();
    expect(broken.score).toBe(report.spec.score);
    expect(expandReportSpec({ ...stored, details: '{not json' }).checks).toBeUndefined();
    expect(expandReportSpec({ ...stored, details: `${DEFLATED_DETAILS_PREFIX}AAAA` }).checks).toBeUndefined();
    const ring = publicKeyRing([key.publicKey]);
    const tampered = { ...report, spec: { ...stored, details: JSON.stringify({ ...details, checks: [] }) } } as unknown as RestoreReport;
    expect(reportEvidenceProblems(tampered, ring)[0]).toContain('digest mismatch');
    const unsigned = { ...report, spec: { ...stored, details: '{}' } } as unknown as RestoreReport;
    expect(reportEvidenceProblems(unsigned, ring)).toEqual(['no evidence block: the report is not signed']);
  });

  it('bounds what a details string may inflate to', () => {
    const bomb = DEFLATED_DETAILS_PREFIX + deflateRawSync(`{"x":"${'a'.repeat(4 << 20)}"}`, { dictionary: Buffer.from(DETAILS_DICTIONARY_Z1) }).toString('base64');
    expect(bomb.length).toBeLessThan(MAX_DETAILS_LENGTH);
    expect(decodeDetails(bomb)).toEqual({}); // the plugin's inflater
    expect(expandReportSpec({ details: bomb })).toEqual({}); // the server's reused zlib state
  });
});
