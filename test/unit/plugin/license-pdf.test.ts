// license, compliance --pdf, report --pdf (and the 402 of an unlicensed PDF), and verify NAME
// against the keys the API publishes, all through the fake API (answers checked against openapi.json).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { components } from '../../../openapi/client.js';
import { orderReportsForChain } from '../../../protocol/evidence/report-chain.js';
import { exportPublicKeyPem, generateSigningKey } from '../../../server/evidence/signing-key.js';
import { makeRestoreTest, makeSignedHistory, PAYMENTS_CHECKS, PERIOD_START } from '../../fixtures/evidence/reports.js';
import { FakeApi, problem } from './support/fake-api.js';
import { runPlugin } from './support/run-plugin.js';

type License = components['schemas']['LicenseResponse'];
type Report = components['schemas']['RestoreReportResource'];

const ENTERPRISE: License = {
  tier: 'enterprise',
  expiresAt: '2027-01-01T00:00:00Z',
  trialEndsAt: null,
  isExpired: false,
  isTrialing: false,
  trialDaysLeft: 0,
  features: ['compliancePage', 'pdfExport', 'pdfReports'],
};
const COMMUNITY: License = { ...ENTERPRISE, tier: 'community', expiresAt: null, features: [] };
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 0xff, 0xfe]), Buffer.from('\n%%EOF\n')]);
const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-pdf-'));

let fake: FakeApi;
beforeAll(async () => {
  fake = await FakeApi.start();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  const problems = [...fake.problems];
  await fake.close();
  fake = await FakeApi.start();
  expect(problems).toEqual([]);
});

const pdfReply = (file: string) => ({
  status: 200,
  raw: PDF,
  headers: { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${file}"` },
});
const licenseRequired = problem(402, 'license-required', 'License required', 'PDF export needs an enterprise license with pdfExport.');

describe('license', () => {
  it('prints a table', async () => {
    fake.on('GET', '/api/v1/license', { status: 200, body: ENTERPRISE });
    const result = await runPlugin(['license', '--server', fake.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'TIER         EXPIRES                TRIAL   FEATURES\n' +
        'enterprise   2027-01-01T00:00:00Z   no      compliancePage,pdfExport,pdfReports\n',
    );
  });

  it('shows a running trial, and -o json is the API answer', async () => {
    const trial: License = { ...ENTERPRISE, isTrialing: true, trialEndsAt: '2026-03-29T00:00:00Z', trialDaysLeft: 14 };
    fake.on('GET', '/api/v1/license', { status: 200, body: trial });
    expect((await runPlugin(['license', '--server', fake.url])).stdout).toContain('14d left');
    const json = await runPlugin(['license', '--server', fake.url, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(trial);
    const yaml = await runPlugin(['license', '--server', fake.url, '-o', 'yaml']);
    expect(yaml.stdout).toContain('tier: enterprise');
  });
});

describe('PDF downloads', () => {
  it('compliance --pdf writes the bytes as sent', async () => {
    fake.on('GET', '/api/v1/compliance/pdf', pdfReply('rehearsal-compliance-soc2-30d.pdf'));
    const file = path.join(dir, 'soc2.pdf');
    const result = await runPlugin(['compliance', '--framework', 'soc2', '--period', '30', '--pdf', file, '--server', fake.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readFileSync(file).equals(PDF)).toBe(true);
    expect(result.stdout).toBe(`wrote ${file} (${PDF.length} bytes)\n`);
    expect(fake.calls).toEqual(['GET /api/v1/compliance/pdf?framework=soc2&period=30']);
  });

  it('compliance --pdf without the license: 402 names the tier, exit 1', async () => {
    fake.on('GET', '/api/v1/compliance/pdf', licenseRequired);
    fake.on('GET', '/api/v1/license', { status: 200, body: COMMUNITY });
    const file = path.join(dir, 'none.pdf');
    const result = await runPlugin(['compliance', '--framework', 'soc2', '--pdf', file, '--server', fake.url]);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe('error: the license (tier community) does not include PDF export');
    expect(result.stdout).toBe('');
  });

  it('report NAME --pdf sends period and namespace', async () => {
    fake.on('GET', '/api/restore-tests/{name}/report.pdf', pdfReply('rehearsal-test-team-a-payments-30d.pdf'));
    const file = path.join(dir, 'payments.pdf');
    const result = await runPlugin(['report', 'payments', '-n', 'team-a', '--period', '30', '--pdf', file, '--server', fake.url]);
    expect(result.code).toBe(0);
    expect(readFileSync(file).equals(PDF)).toBe(true);
    expect(fake.calls).toEqual(['GET /api/restore-tests/payments/report.pdf?period=30&namespace=team-a']);
  });

  it('report NAME --pdf: 402 and 404', async () => {
    fake.on('GET', '/api/v1/license', { status: 200, body: COMMUNITY });
    fake.on('GET', '/api/restore-tests/{name}/report.pdf', licenseRequired);
    const unlicensed = await runPlugin(['report', 'payments', '--pdf', path.join(dir, 'x.pdf'), '--server', fake.url]);
    expect(unlicensed.code).toBe(1);
    expect(unlicensed.stderr.split('\n')[0]).toBe('error: the license (tier community) does not include PDF reports');
    fake.on('GET', '/api/restore-tests/{name}/report.pdf', problem(404, 'not-found', 'Not found', 'RestoreTest "nope" not found in namespace "rehearsal-system".'));
    const missing = await runPlugin(['report', 'nope', '--pdf', path.join(dir, 'x.pdf'), '--server', fake.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')[0]).toBe('error: RestoreTest "nope" not found in namespace "rehearsal-system".');
  });

  it('report without --pdf is a usage error', async () => {
    const result = await runPlugin(['report', 'payments', '--server', fake.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: /);
  });
});

describe('verify NAME through the API', () => {
  const key = generateSigningKey();
  const test = makeRestoreTest('payments', ['payments'], { maxRTO: '15m', uid: 'uid-payments', checks: PAYMENTS_CHECKS });
  const history = orderReportsForChain(makeSignedHistory(test, 3, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 600 })));
  const keysReply = {
    status: 200,
    body: [{ keyId: key.keyId, algorithm: 'Ed25519', publicKeyPem: exportPublicKeyPem(key), createdAt: '2026-01-01T00:00:00Z', status: 'current' }],
  };

  it('fetches the reports and the published keys; exit 0 when all verify', async () => {
    fake.reports = JSON.parse(JSON.stringify(history)) as Report[];
    fake.on('GET', '/api/v1/evidence/keys', keysReply);
    const result = await runPlugin(['verify', 'payments', '-n', test.metadata.namespace!, '--server', fake.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('3/3 reports verified');
    expect(fake.calls).toEqual([
      `GET /api/v1/reports?test=payments&namespace=${test.metadata.namespace}&days=3650`,
      'GET /api/v1/evidence/keys',
    ]);
  });

  it('exit 1 and names a report when a middle one was deleted', async () => {
    fake.reports = JSON.parse(JSON.stringify([history[0], history[2]])) as Report[];
    fake.on('GET', '/api/v1/evidence/keys', keysReply);
    const result = await runPlugin(['verify', 'payments', '-n', test.metadata.namespace!, '--server', fake.url]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${history[2]!.metadata.name}: missing predecessor`);
  });

  it('--public-key replaces the published keys', async () => {
    fake.reports = JSON.parse(JSON.stringify(history)) as Report[];
    const other = path.join(dir, 'other.pem');
    writeFileSync(other, exportPublicKeyPem(generateSigningKey()));
    const result = await runPlugin(['verify', 'payments', '-n', test.metadata.namespace!, '--public-key', other, '--server', fake.url]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`signed with unknown key ${key.keyId}`);
    expect(fake.calls).not.toContain('GET /api/v1/evidence/keys');
  });
});
