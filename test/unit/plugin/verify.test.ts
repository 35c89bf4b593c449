// kubectl restoretest verify: reports per report and exits 0/1 on exported reports (every stored
// form), names archive segments, and checks a PDF's attestation. The verifiers themselves are
// protocol/'s, the server's own (tested in test/unit/evidence/ and test/unit/pdf/).
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { orderReportsForChain, verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { keysFromPem } from '../../../protocol/evidence/signature.js';
import { decodeDetails } from '../../../protocol/stored-report/stored-report.js';
import { encodeDetails, packReport } from '../../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { renderComplianceReport } from '../../../server/pdf/compliance-report.pdf.js';
import { exportPublicKeyPem, generateSigningKey } from '../../../server/evidence/signing-key.js';
import { complianceFixture, makeRestoreTest, makeSignedHistory, PAYMENTS_CHECKS, PERIOD_START } from '../../fixtures/evidence/reports.js';
import { runPlugin } from './support/run-plugin.js';

const key = generateSigningKey();
const pemKeys = keysFromPem(exportPublicKeyPem(key));
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
const history = (): RestoreReport[] => makeSignedHistory(test, 5, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 600 }));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-verify-'));
const keyFile = path.join(dir, 'key.pem');
writeFileSync(keyFile, exportPublicKeyPem(key));

function writeReports(reports: RestoreReport[], name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: reports }));
  return file;
}

describe('--public-key', () => {
  it('names a PEM key by the key id the signer uses', () => {
    expect([...pemKeys.keys()]).toEqual([key.keyId]);
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

  it('verify, also in a chain that starts with reports stored before packing', () => {
    const reports = orderReportsForChain(history());
    expect(verifyReportChain(clone(stored(reports)), pemKeys).ok).toBe(true);
    expect(verifyReportChain(clone([...reports.slice(0, 2), ...stored(reports.slice(2))]), pemKeys).ok).toBe(true);
  });

  it('an edit inside spec.details is detected and named', () => {
    const reports = stored(orderReportsForChain(history()));
    const spec = reports[3]!.spec as unknown as { details: string };
    const edited = JSON.stringify(decodeDetails(spec.details)).replace('"status":"pass"', '"status":"fail"');
    expect(edited).toContain('"status":"fail"');
    spec.details = encodeDetails(JSON.parse(edited) as Record<string, unknown>);
    const result = verifyReportChain(clone(reports), pemKeys);
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
  it('exits 0 on an intact PDF, saying the pages were not compared, and 1 with another key', async () => {
    const { data } = complianceFixture(key);
    const file = path.join(dir, 'soc2.pdf');
    writeFileSync(file, await renderComplianceReport(data, key));
    const ok = await runPlugin(['verify', '--pdf', file, '--public-key', keyFile]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${file}: OK (compliance ${data.reportId}, key ${key.keyId}, ${data.population.runs} runs)`);
    expect(ok.stdout).toContain('note: page content was not compared');

    const other = generateSigningKey();
    const otherFile = path.join(dir, 'other.pem');
    writeFileSync(otherFile, exportPublicKeyPem(other));
    const bad = await runPlugin(['verify', '--pdf', file, '--public-key', otherFile]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`${file}: FAILED`);
    expect(bad.stdout).toContain(`  - signed with unknown key ${key.keyId} (trusted: ${other.keyId})`);
  }, 30_000); // renders a PDF: seconds on a loaded 2-core machine
});
