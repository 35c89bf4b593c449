// Renders both PDF reports and reads them back with poppler-utils (pdftotext, pdfinfo,
// pdfdetach): sections, key numbers, pagination, margins, metadata, and the signed attestation.

import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPdfAttestation } from '../../../protocol/pdf/attestation-check.js';
import { verifyPdfAndPages } from '../../helpers/pdf-pages.js';
import { toolPresent } from '../../helpers/required-tool.js';
import { renderComplianceReport } from '../../../server/pdf/compliance-report.pdf.js';
import { renderTestReport } from '../../../server/pdf/test-report.pdf.js';
import { percent, pdfSafe, utcShort } from '../../../server/pdf/format.js';
import type { ComplianceReportData } from '../../../server/pdf/report-data.js';
import {
  exportPublicKeyPem,
  generateSigningKey,
  publicKeyRing,
} from '../../../server/evidence/signing-key.js';
import { complianceFixture, testReportFixture } from '../../fixtures/evidence/reports.js';
import {
  assertPoppler,
  pageTexts,
  pdfdetach,
  pdfinfo,
  pdftotext,
  wordBoxes,
  workDir,
  writePdf,
} from '../../fixtures/evidence/poppler.js';

jest.setTimeout(60_000);

/** OpenSSL 3, for the attestation page's recipe (test/setup.sh installs it). */
const OPENSSL = { name: 'OpenSSL', available: opensslAvailable(), install: 'apt-get install -y openssl' };
const key = generateSigningKey();

function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
const ring = publicKeyRing([key.publicKey]);
const A4_WIDTH = 595.28;
const A4_HEIGHT = 841.89;
const MARGIN_X = 54;

/** Replaces `from` by `to` (same length) at its first occurrence after `after`. */
function patch(pdf: Buffer, after: string, from: string, to: string): Buffer {
  expect(to).toHaveLength(from.length);
  const text = pdf.toString('latin1');
  const start = text.indexOf(after);
  expect(start).toBeGreaterThanOrEqual(0);
  const at = text.indexOf(from, start);
  expect(at).toBeGreaterThanOrEqual(0);
  const copy = Buffer.from(pdf);
  copy.write(to, at, 'latin1');
  return copy;
}

function expectWithinMargins(path: string): void {
  const words = wordBoxes(path);
  expect(words.length).toBeGreaterThan(100);
  const outside = words.filter(
    (w) =>
      w.xMin < MARGIN_X - 0.5 || w.xMax > A4_WIDTH - MARGIN_X + 0.5 || w.yMin < 20 || w.yMax > A4_HEIGHT - 20,
  );
  expect(outside).toEqual([]);
  // Nothing from the body runs into the footer band (the footer text starts at y = 797.9).
  const intoFooter = words.filter((w) => w.yMax > A4_HEIGHT - 64 + 2 && w.yMin < A4_HEIGHT - 44 - 0.5);
  expect(intoFooter).toEqual([]);
}

function expectPaginated(path: string, reportId: string): string[] {
  const pages = pageTexts(path);
  const info = pdfinfo(path);
  expect(Number(info.Pages)).toBe(pages.length);
  pages.forEach((page, i) => {
    expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    expect(page).toContain(`Report ${reportId}`);
    expect(page).toContain('System-generated evidence; not an audit opinion');
  });
  return pages;
}

beforeAll(() => assertPoppler());

describe('compliance report PDF', () => {
  const { data } = complianceFixture(key);
  let pdf: Buffer;
  let path: string;
  let text: string;

  beforeAll(async () => {
    pdf = await renderComplianceReport(data, key);
    path = writePdf(pdf, 'compliance');
    text = pdftotext(path, '-layout');
  });

  it('has every section of the auditors layout, in order', () => {
    const headings = [
      'Restore-Test Evidence Report',
      '1. Scope and RTO targets',
      '2. Executive summary',
      '3. Status rules used',
      '4. Control status and evidence',
      '5. Coverage matrix',
      '6. RTO analysis',
      '7. Exceptions and remediation',
      '8. Limitations',
      '9. Attestation',
      'Appendix A. Runs per RestoreTest',
    ];
    let last = -1;
    for (const heading of headings) {
      // The contents list on the cover repeats the headings; look for them after the cover.
      const at = text.indexOf(heading, Math.max(last + 1, heading === headings[0] ? 0 : text.indexOf('\f')));
      expect({ heading, found: at > last }).toEqual({ heading, found: true });
      last = at;
    }
  });

  it('prints the cover facts, the key numbers and the control statuses', () => {
    expect(text).toContain('SOC 2 (TSC 2017, rev. 2022) (soc2)');
    expect(text).toContain('2026-01-01 00:00:00 UTC to 2026-03-31 23:59:59 UTC (90 days)');
    expect(text).toContain(data.reportId);
    expect(text).toContain('2026-04-01 06:00:00 UTC');
    expect(text).toContain(`${data.population.runs} (368 pass, 2 partial, 3 fail)`);
    expect(text).toContain(percent(data.summary.passRate));
    expect(text).toContain(percent(data.summary.slaCompliance));
    expect(text).toContain(String(data.summary.avgScore));
    for (const word of ['SATISFIED', 'AT RISK', 'NOT TESTED', 'REMEDIATED', 'PENDING'])
      expect(text).toContain(word);
    expect(text).toContain('Not evidenced by this report');
    expect(text).toContain('A1.3');
    expect(text).toContain('CC7.5');
    expect(text.replace(/\s+/g, ' ')).toContain('evidence supports the control for all 7 targets');
    // Worst RTO of payments-nightly over the period, from the RTO analysis.
    expect(text).toMatch(/payments-nightly\s+15m\s+90 \(90\)/);
    // The scope's RestoreTests with their RTO and RPO targets.
    expect(text).toMatch(/payments-nightly\s+velero\s+0 2 \* \* \*\s+payments, payments-ledger\s+15m\s+3h/);
    expect(text).toMatch(/orders-nightly\s+velero\s+0 2 \* \* \*\s+orders\s+20m\s+none set/);
  });

  it('states its limits and never claims compliance', () => {
    expect(text).toContain('only logical segregation');
    expect(text).toContain('not an audit opinion');
    expect(text).not.toMatch(/\bcompliant\b/i);
  });

  it('carries a readable attestation page with digest, signature, key id and how to verify', () => {
    const { attestation } = extractPdfAttestation(pdf);
    expect(text).toContain(attestation.digest);
    expect(text).toContain(key.keyId);
    expect(text).toContain(attestation.signature.slice(0, 44));
    expect(text).toContain('Rehearsal 0.1.0');
    expect(text).toContain('kubectl restoretest verify --pdf FILE --public-key KEY');
  });

  it('counts every run per RestoreTest and lists runs only as exceptions', () => {
    const flat = text.replace(/\s+/g, ' ');
    expect(data.byTest).toHaveLength(5);
    for (const row of data.byTest) {
      expect(flat).toContain(`${row.pass} / ${row.partial} / ${row.fail}`);
    }
    expect(data.byTest.reduce((sum, row) => sum + row.runs, 0)).toBe(data.population.runs);
    // Each exception run is listed with its completion time; passing runs are not listed one by one.
    for (const exception of data.exceptions) expect(text).toContain(utcShort(exception.at));
    expect(text).not.toContain('Appendix A. Run history');
    expect(text).not.toContain('Run evidence digests');
    expect(data.exceptions.length).toBe(data.exceptionsTotal);
    expect(flat).not.toMatch(/more exceptions? (is|are) not listed here/);
  });

  it('keeps every word inside the margins and out of the footer band', () => {
    expectWithinMargins(path);
  });

  it('has document metadata and A4 pages; the output is deterministic', async () => {
    const info = pdfinfo(path);
    expect(info).toMatchObject({
      Title: 'Restore-test evidence report',
      Author: 'Rehearsal 0.1.0 (system-generated)',
      Creator: 'Rehearsal 0.1.0',
      'Page size': '595.28 x 841.89 pts (A4)',
      'PDF version': '1.7',
    });
    expect(info.CreationDate).toContain('Apr  1 06:00:00 2026');
    expect(info.Keywords).toContain('soc2');
    const custom = pdfinfo(path, '-custom');
    const attestation = JSON.parse(custom.RehearsalAttestation!);
    expect(attestation).toMatchObject({
      kind: 'compliance',
      reportId: data.reportId,
      keyId: key.keyId,
      generatedAt: data.generatedAt,
      version: '0.1.0',
      runs: data.population.runs,
    });
    expect((await renderComplianceReport(data, key)).equals(pdf)).toBe(true);
  });

  it('embeds the signed evidence: sha256 of the extracted file is the digest, and OpenSSL verifies the signature', () => {
    const evidence = pdfdetach(path);
    const { attestation } = extractPdfAttestation(pdf);
    expect(`sha256:${createHash('sha256').update(evidence).digest('hex')}`).toBe(attestation.digest);
    expect(JSON.parse(evidence.toString('utf8')).report.reportId).toBe(data.reportId);

    // The recipe printed on the attestation page, with standard tools.
    if (!toolPresent(OPENSSL, "checking the signature with the attestation page's OpenSSL recipe")) return;
    const dir = workDir();
    writeFileSync(join(dir, 'digest.txt'), attestation.digest);
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(attestation.signature, 'base64'));
    writeFileSync(join(dir, 'public.pem'), exportPublicKeyPem(key));
    const out = execFileSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        join(dir, 'public.pem'),
        '-rawin',
        '-in',
        join(dir, 'digest.txt'),
        '-sigfile',
        join(dir, 'sig.bin'),
      ],
      { encoding: 'utf8' },
    );
    expect(out).toContain('Signature Verified Successfully');
  });

  it('verifyPdfAndPages accepts the untouched file and confirms the pages byte for byte', async () => {
    const result = await verifyPdfAndPages(pdf, ring);
    expect(result).toMatchObject({ ok: true, problems: [], notes: [], contentCheck: 'identical' });
    expect(result.attestation?.keyId).toBe(key.keyId);
  });

  it('detects an altered signature in the attestation', async () => {
    const { attestation } = extractPdfAttestation(pdf);
    const original = attestation.signature.slice(10, 12);
    const altered = patch(pdf, '"signature":"', original, original === 'AA' ? 'AB' : 'AA');
    const result = await verifyPdfAndPages(altered, ring);
    expect(result.ok).toBe(false);
    expect(result.problems).toContain(
      `signature does not verify with key ${key.keyId}: wrong key or altered attestation`,
    );
  });

  it('detects an altered digest in the attestation', async () => {
    const { attestation } = extractPdfAttestation(pdf);
    const hex = attestation.digest.slice(7, 9);
    const altered = patch(pdf, '"digest":"sha256:', hex, hex === '00' ? '11' : '00');
    const result = await verifyPdfAndPages(altered, ring);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toContain('evidence digest mismatch');
    expect(result.problems).toContain(
      `signature does not verify with key ${key.keyId}: wrong key or altered attestation`,
    );
  });

  it('detects an edit of the document outside the attestation (metadata, page content)', async () => {
    const retitled = patch(pdf, '/Producer', 'Restore-test evidence report', 'Restore-test evidence rep0rt');
    let result = await verifyPdfAndPages(retitled, ring);
    expect(result).toMatchObject({ ok: false, contentCheck: 'differs' });
    expect(result.problems).toEqual([
      'the pages differ from what the signed evidence renders to: the document was changed after signing',
    ]);

    const text = pdf.toString('latin1');
    const streamAt =
      text.indexOf('stream\n', text.indexOf('/Type /Page\n') > 0 ? 0 : 0) + 'stream\n'.length + 40;
    const flipped = Buffer.from(pdf);
    flipped[streamAt] = flipped[streamAt]! ^ 0xff;
    result = await verifyPdfAndPages(flipped, ring);
    expect(result.ok).toBe(false);
  });

  it('rejects a signature from a key that is not trusted', async () => {
    const other = generateSigningKey();
    const result = await verifyPdfAndPages(pdf, publicKeyRing([other.publicKey]));
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([`signed with unknown key ${key.keyId} (trusted: ${other.keyId})`]);
  });

  it('rejects a PDF without an attestation', async () => {
    const result = await verifyPdfAndPages(Buffer.from('%PDF-1.7\nnot really\n'), ring);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toContain('cannot read the attestation');
  });
});

describe('test report PDF', () => {
  const { data } = testReportFixture(key);
  let pdf: Buffer;
  let path: string;
  let text: string;

  beforeAll(async () => {
    pdf = await renderTestReport(data, key);
    path = writePdf(pdf, 'test-report');
    text = pdftotext(path, '-layout');
  });

  it('has every section, in order', () => {
    const headings = [
      '1. Test definition',
      '2. Health-check configuration',
      '3. Summary of the period',
      '4. Run history',
      '5. Pass/fail breakdown per check',
      '6. Failed and partial runs',
      '7. Limitations',
      '8. Attestation',
      'Appendix A. Run evidence digests',
    ];
    let last = text.indexOf('\f');
    expect(text.slice(0, last)).toContain('Restore Test Report');
    for (const heading of headings) {
      const at = text.indexOf(heading, last + 1);
      expect({ heading, found: at > last }).toEqual({ heading, found: true });
      last = at;
    }
  });

  it('shows the test metadata and the full health-check configuration', () => {
    expect(text).toContain('payments-nightly');
    expect(text).toMatch(/Schedule\s+0 2 \* \* \*\s+\(time zone UTC\)/);
    expect(text).toContain('payments, payments-ledger');
    expect(text).toContain('6f1c2a8e-3b9d-4c51-9a0e-2d7f8b6c4e11');
    expect(text).toContain('15m, alert when exceeded');
    expect(text).toContain('requests.cpu=8, requests.memory=16Gi');
    expect(text).toContain('GET http://payments-api:8080/healthz expects status 200');
    expect(text).toContain('Pods app=payments-api: at least 2 Ready.');
    expect(text).toContain('TCP connection to rabbitmq:5672 succeeds.');
    expect(text).toContain('v1 Secret "payments-tls" exists in the sandbox.');
    expect(text).toMatch(/postgres ledger-db:5432, database ledger, credentials from restored/);
  });

  it('lists the run history with UTC times, scores, RTO and the per-check breakdown', () => {
    const pages = expectPaginated(path, data.reportId);
    expect(text).toContain('90 (87 pass, 1 partial, 2 fail)');
    const rows =
      text.match(
        /^\s+\d+\s+2026-\d\d-\d\d 02:00\s+daily-\d+\s+2h0m7s\s+(PASS|PARTIAL|FAIL)\s+\d+\s+\d+m\d+s \/ 15m/gm,
      ) ?? [];
    expect(rows).toHaveLength(90);
    const runPages = pages.filter((p) => /^\s+\d+\s+2026-\d\d-\d\d 02:00\s+daily-/m.test(p));
    for (const page of runPages) expect(page).toMatch(/#\s+Started \(UTC\)\s+Backup/);
    // Per check: api-health passed 88 times, failed twice.
    expect(text).toMatch(/api-health\s+88\s+2\s+0\s+0\s+97\.8%\s+PASS/);
    expect(text).toMatch(/ledger-rows\s+87\s+1\s+2\s+0\s+96\.7%/);
    expect(text).toContain('HealthChecksFailed: api-health: GET /healthz returned 503 Service Unavailable');
  });

  it('shows the RPO target, the measured RPO beside the RTO, and the volumes of the latest run', () => {
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('RPO target (SLA) 3h (newest restored data at most this old at the restore request');
    // Run 89 (the latest): 7,207 s + 9 x 30 s; run 55 is the one over the 3h target.
    expect(flat).toMatch(/RTO \d+m\d+s against a target of 15m, RPO 2h4m37s against a target of 3h \(within target\); 5 of 5 checks passed\./);
    expect(flat).toContain('Recovery point (RPO)');
    expect(flat).toContain('Latest measured RPO: 2h4m37s against a target of 3h (within target), from check ledger-newest (newest restored data 2026-03-30 23:55:30 UTC).');
    // (The report name may break after its hyphen at the end of a line.)
    expect(flat).toMatch(/88 runs of 90 measured an RPO; 1 over target; worst 3h10m7s \(payments- ?nightly-20260225-0200, 2026-02-25\)\./);
    expect(flat).toContain('The volume data the latest run (payments-nightly-20260331-0200) restored, as the backup tool reports it; 2 of 2 came back.');
    expect(text).toMatch(/payments-db-0\s+data\s+file-system\s+Completed\s+24\.5 MiB\s+7s/);
    expect(text).toMatch(/ledger-archive\s+-\s+csi-data-mover\s+Completed\s+1\.0 GiB\s+94s/);
  });

  it('says when no run measured an RPO, and prints no volume table without volume data', async () => {
    const { data } = testReportFixture(key);
    for (const run of data.runs) delete run.rpo;
    delete data.test.sla.maxRPO;
    delete data.latestVolumes;
    const flat = pdftotext(writePdf(await renderTestReport(data, key), 'no-rpo'), '-layout').replace(/\s+/g, ' ');
    expect(flat).toContain('RPO target (SLA) none set');
    expect(flat).toContain('No run in the period measured an RPO: no freshness check');
    expect(flat).not.toContain('Latest measured RPO');
    expect(flat).not.toContain('Volume data restored');
  });

  it('keeps every word inside the margins', () => {
    expectWithinMargins(path);
  });

  it('verifies, and detects an altered attestation', async () => {
    expect(await verifyPdfAndPages(pdf, ring)).toMatchObject({ ok: true, contentCheck: 'identical' });
    expect(pdfinfo(path, '-custom').RehearsalAttestation).toContain('"kind":"test"');
    const altered = patch(pdf, '"reportId":"', 'RHR-TEST', 'RHR-TEZT');
    const result = await verifyPdfAndPages(altered, ring);
    expect(result.ok).toBe(false);
    expect(result.problems).toContain(
      `attestation reportId "RHR-TEZT-payments-nightly-20260401-52be0c9d" differs from the signed evidence ("${data.reportId}")`,
    );
  });
});

describe('edge cases', () => {
  it('renders and verifies a report with no runs, no controls and no targets', async () => {
    const { data } = complianceFixture(key);
    const empty: ComplianceReportData = {
      ...data,
      summary: {
        totalRuns: 0,
        passRate: 0,
        avgScore: 0,
        slaCompliance: 0,
        namespacesCovered: 0,
        namespacesInScope: 0,
      },
      scope: { targets: [], tests: [] },
      controls: [],
      coverage: [],
      exceptions: [],
      exceptionsTotal: 0,
      population: { runs: 0, pass: 0, partial: 0, fail: 0 },
      byTest: [],
      chain: undefined,
    };
    const pdf = await renderComplianceReport(empty, key);
    const text = pdftotext(writePdf(pdf, 'empty'), '-layout');
    expect(text).toContain('No runs in the period.');
    expect(await verifyPdfAndPages(pdf, ring)).toMatchObject({ ok: true });
  });

  it('lists a capped exceptions table with the "N more" line and stays verifiable', async () => {
    const { data } = complianceFixture(key);
    const capped: ComplianceReportData = { ...data, exceptionsTotal: 4_321 };
    const pdf = await renderComplianceReport(capped, key);
    const flat = pdftotext(writePdf(pdf, 'capped'), '-layout').replace(/\s+/g, ' ');
    const unlisted = 4_321 - data.exceptions.length;
    expect(flat).toContain(
      `4321 exceptions in the period; the ${data.exceptions.length} listed are the unremediated, late and pending ones first`,
    );
    expect(flat).toContain(
      `${unlisted} more exceptions are not listed here. The full list: the API (GET /api/v1/reports?days=90) or kubectl restoretest reports.`,
    );
    expect(await verifyPdfAndPages(pdf, ring)).toMatchObject({ ok: true, contentCheck: 'identical' });
  });

  it('replaces characters the built-in fonts cannot draw instead of printing garbage', async () => {
    expect(pdfSafe('RTO ≤ 15m → ok × 2 – fine “quoted” 東京')).toBe(
      'RTO <= 15m -> ok x 2 – fine “quoted” ??',
    );
    const { data } = testReportFixture(key);
    data.test.name = 'tokyo-東京';
    const pdf = await renderTestReport(data, key);
    expect(pdftotext(writePdf(pdf, 'unicode'), '-layout')).toContain('tokyo-??');
    expect((await verifyPdfAndPages(pdf, ring)).ok).toBe(true);
  });
});
