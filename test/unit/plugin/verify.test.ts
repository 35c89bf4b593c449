// The plugin's own evidence verifier (cmd/kubectl-restoretest/verify/) agrees with the server's
// (server/evidence/evidence.ts, server/pdf/attestation-reader.ts) on the same signed fixtures, and `verify`
// reports per report and exits 0/1.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeDetails, encodeDetails, packReport } from '../../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { orderReportsForChain, verifyReportChain } from '../../../server/evidence/evidence.js';
import { verifyPdfAttestation } from '../../../server/pdf/attestation-reader.js';
import { renderComplianceReport } from '../../../server/pdf/compliance-report.pdf.js';
import { exportPublicKeyPem, generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { chainOrder, keysFromPem, verifyChain, type SignedReport } from '../../../cmd/kubectl-restoretest/verify/evidence.js';
import { verifyPdf } from '../../../cmd/kubectl-restoretest/verify/pdf.js';
import { complianceFixture, makeRestoreTest, makeSignedHistory, PAYMENTS_CHECKS, PERIOD_START } from '../../fixtures/evidence/reports.js';
import { runPlugin } from './support/run-plugin.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const pluginKeys = keysFromPem(exportPublicKeyPem(key));
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
const history = (): RestoreReport[] => makeSignedHistory(test, 5, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 600 }));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-verify-'));
const keyFile = path.join(dir, 'key.pem');
writeFileSync(keyFile, exportPublicKeyPem(key));

/** Both verifiers on the same list: per-report verdicts and problems must be identical. */
function both(reports: RestoreReport[]) {
  const server = verifyReportChain(reports, ring);
  const plugin = verifyChain(clone(reports) as unknown as SignedReport[], pluginKeys);
  expect(plugin.reports).toEqual(server.reports);
  expect(plugin.ok).toBe(server.ok);
  expect(plugin.notes).toEqual(server.notes);
  return plugin;
}

function writeReports(reports: RestoreReport[], name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: reports }));
  return file;
}

describe('plugin evidence verifier agrees with the server', () => {
  it('key id matches the server signer', () => {
    expect([...pluginKeys.keys()]).toEqual([key.keyId]);
  });

  it('an untouched chain verifies', () => {
    const reports = orderReportsForChain(history());
    expect(chainOrder(clone(reports) as unknown as SignedReport[]).map((r) => r.metadata.name)).toEqual(reports.map((r) => r.metadata.name));
    expect(both(reports).ok).toBe(true);
  });

  it('an edited field is detected and named', () => {
    const reports = clone(orderReportsForChain(history()));
    reports[2]!.spec.score = 1;
    const result = both(reports);
    expect(result.ok).toBe(false);
    expect(result.reports.filter((r) => !r.ok).map((r) => r.name)).toEqual([reports[2]!.metadata.name]);
    expect(result.reports[2]!.problems[0]).toContain('digest mismatch');
  });

  it('a deleted middle report is detected and named', () => {
    const reports = orderReportsForChain(history());
    const remaining = [...reports.slice(0, 2), ...reports.slice(3)];
    const result = both(remaining);
    expect(result.ok).toBe(false);
    expect(result.reports[2]!.problems[0]).toContain(`a report between ${reports[1]!.metadata.name} and ${reports[3]!.metadata.name} was deleted`);
  });

  it('reordered reports are detected and named', () => {
    const reports = orderReportsForChain(history());
    const swapped = [reports[0]!, reports[2]!, reports[1]!, reports[3]!, reports[4]!];
    const result = both(swapped);
    expect(result.ok).toBe(false);
    expect(result.reports.some((r) => r.problems.some((p) => p.includes('reordered')))).toBe(true);
  });

  it('a report signed by an unknown key is detected', () => {
    const other = generateSigningKey();
    const result = verifyChain(clone(history()) as unknown as SignedReport[], keysFromPem(exportPublicKeyPem(other)));
    expect(result.ok).toBe(false);
    expect(result.reports[0]!.problems[0]).toContain(`signed with unknown key ${key.keyId}`);
  });
});

describe('kubectl restoretest verify -f', () => {
  it('exits 0 with OK per report for an untouched export (newest first, like the API)', async () => {
    const file = writeReports(orderReportsForChain(history()).reverse(), 'good.json');
    const result = await runPlugin(['verify', '-f', file, '--public-key', keyFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter((l) => l.endsWith(': OK'))).toHaveLength(5);
    expect(result.stdout).toContain('5/5 reports verified');
  });

  it('exits 1 and names the edited report', async () => {
    const reports = clone(orderReportsForChain(history()));
    reports[1]!.spec.result = 'fail';
    const file = writeReports(reports, 'edited.json');
    const result = await runPlugin(['verify', '-f', file, '--public-key', keyFile]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${reports[1]!.metadata.name}: digest mismatch`);
    expect(result.stdout).toContain('4/5 reports verified; evidence does NOT verify');
  });

  it('names the archive segment of a failing report, and fails on segment problems the server found', async () => {
    const reports = clone(orderReportsForChain(history()));
    const segment = 'rehearsal/evidence/rehearsal-system/payments-nightly/uid-payments/0000000001-0000000003.jsonl.gz';
    for (const report of reports.slice(0, 3)) report.metadata.annotations = { 'rehearsal.dev/archive-segment': segment };
    reports[1]!.spec.result = 'fail';
    const edited = await runPlugin(['verify', '-f', writeReports(reports, 'archived-edited.json'), '--public-key', keyFile]);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(new RegExp(`${reports[1]!.metadata.name}: digest mismatch.*\\(archived in ${segment.replace(/\./g, '\\.')}\\)`));

    // Reports intact, but the server found the segment's manifest changed: still a failure, named.
    const intact = clone(orderReportsForChain(history()));
    const problem = `${segment}: manifest signature does not verify: the manifest was changed after signing`;
    for (const report of intact.slice(0, 3)) {
      report.metadata.annotations = { 'rehearsal.dev/archive-segment': segment, 'rehearsal.dev/archive-problems': JSON.stringify([problem]) };
    }
    const flagged = await runPlugin(['verify', '-f', writeReports(intact, 'archived-flagged.json'), '--public-key', keyFile]);
    expect(flagged.code).toBe(1);
    expect(flagged.stdout).toContain(`archive: ${problem}`);
    expect(flagged.stdout.split('\n').filter((line) => line.startsWith('archive: '))).toHaveLength(1);
  });

  it('usage errors exit 2', async () => {
    const result = await runPlugin(['verify']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: give exactly one of NAME, -f FILE or --pdf FILE');
  });
});

describe('reports stored packed (spec.details, issue 17)', () => {
  const stored = (reports: RestoreReport[]) => reports.map((report) => packReport(report) as unknown as RestoreReport);

  it('verify in both verifiers, also in a chain that starts with reports stored before packing', () => {
    const reports = orderReportsForChain(history());
    expect(both(stored(reports)).ok).toBe(true);
    expect(both([...reports.slice(0, 2), ...stored(reports.slice(2))]).ok).toBe(true);
  });

  it('an edit inside spec.details is detected and named by both', () => {
    const reports = stored(orderReportsForChain(history()));
    const spec = reports[3]!.spec as unknown as { details: string };
    const edited = JSON.stringify(decodeDetails(spec.details)).replace('"status":"pass"', '"status":"fail"');
    expect(edited).toContain('"status":"fail"');
    spec.details = encodeDetails(JSON.parse(edited) as Record<string, unknown>);
    const result = both(reports);
    expect(result.reports.filter((r) => !r.ok).map((r) => r.name)).toEqual([reports[3]!.metadata.name]);
    expect(result.reports[3]!.problems[0]).toContain('digest mismatch');
  });

  it('verify -f of a packed export (kubectl get rrep -o yaml) exits 0', async () => {
    const file = writeReports(stored(orderReportsForChain(history())), 'packed.json');
    const result = await runPlugin(['verify', '-f', file, '--public-key', keyFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('5/5 reports verified');
  });

  it('verify -f of an export in the first stored form (JSON details, evidence a field) exits 0', async () => {
    const jsonForm = (report: RestoreReport): RestoreReport => {
      const { testRef, runId, startedAt, completedAt, score, result, evidence, rto, ...rest } = report.spec;
      const { measured, ...rtoRest } = rto;
      const details = JSON.stringify({ ...rest, rto: rtoRest });
      return { ...report, spec: { testRef, runId, startedAt, completedAt, score, result, evidence, rto: { measured }, details } } as unknown as RestoreReport;
    };
    const file = writeReports(orderReportsForChain(history()).map(jsonForm), 'packed-json.json');
    const result = await runPlugin(['verify', '-f', file, '--public-key', keyFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('5/5 reports verified');
  });
});

describe('verify --pdf', () => {
  it('agrees with the server on an intact and an altered PDF', async () => {
    const { data } = complianceFixture(key);
    const pdf = await renderComplianceReport(data, key);
    expect((await verifyPdfAttestation(pdf, ring)).ok).toBe(true);
    const plugin = verifyPdf(pdf, pluginKeys);
    expect(plugin).toMatchObject({ ok: true, problems: [] });
    expect(plugin.notes[0]).toContain('page content was not compared');

    const file = path.join(dir, 'soc2.pdf');
    writeFileSync(file, pdf);
    const ok = await runPlugin(['verify', '--pdf', file, '--public-key', keyFile]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${file}: OK`);

    const other = generateSigningKey();
    const otherFile = path.join(dir, 'other.pem');
    writeFileSync(otherFile, exportPublicKeyPem(other));
    const bad = await runPlugin(['verify', '--pdf', file, '--public-key', otherFile]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`signed with unknown key ${key.keyId}`);
    const serverBad = await verifyPdfAttestation(pdf, publicKeyRing([other.publicKey]), { rerender: false });
    expect(verifyPdf(pdf, keysFromPem(exportPublicKeyPem(other))).problems).toEqual(serverBad.problems);
  }, 30_000); // renders and re-renders a PDF: seconds on a loaded 2-core machine
});
