import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { runCli } from '../../../cmd/rehearsal-license/cli.js';
import { importLicensePublicKeys, resolveLicense } from '../../../server/license/license-verifier.js';

const NOW = new Date('2026-05-10T12:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'rehearsal-license-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    now: () => NOW,
  });
  return { code, stdout, stderr };
}

describe('rehearsal-license CLI', () => {
  const keys = join(dir, 'keys');
  let kid = '';

  it('keygen writes a private key (0600), a public PEM and a public JWK with the kid', async () => {
    const out = await cli('keygen', '--out-dir', keys);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    kid = /kid: (\S+)/.exec(out.stdout)![1]!;
    expect(kid).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(statSync(join(keys, 'private.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(keys, 'public.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    const jwk = JSON.parse(readFileSync(join(keys, 'public.jwk.json'), 'utf8'));
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid, alg: 'EdDSA', use: 'sig' });
    expect(jwk.d).toBeUndefined();
  });

  it('keygen refuses to overwrite an existing private key', async () => {
    const out = await cli('keygen', '--out-dir', keys);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: /);
  });

  it('issue prints a compact JWS that the server verifier accepts (PEM and JWK trust)', async () => {
    const out = await cli(
      'issue',
      '--key',
      join(keys, 'private.pem'),
      '--tier',
      'enterprise',
      '--expires',
      '2027-01-01',
      '--feature',
      'ssoLogin',
      '--customer',
      'Acme Bank',
    );
    expect(out).toMatchObject({ code: 0, stderr: '' });
    const token = out.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'EdDSA', kid, typ: 'rehearsal-license+jwt' });

    for (const ring of [
      await importLicensePublicKeys([{ kid, pem: readFileSync(join(keys, 'public.pem'), 'utf8') }]),
      await importLicensePublicKeys([
        { jwk: JSON.parse(readFileSync(join(keys, 'public.jwk.json'), 'utf8')) },
      ]),
    ]) {
      const { license, reason, licensee } = await resolveLicense(token, ring, NOW);
      expect(reason).toBeUndefined();
      expect(licensee).toBe('Acme Bank');
      expect(license).toEqual({
        tier: 'enterprise',
        expiresAt: '2027-01-01T00:00:00.000Z',
        trialEndsAt: null,
        isExpired: false,
        isTrialing: false,
        trialDaysLeft: 0,
        features: ['compliancePage', 'pdfExport', 'pdfReports', 'ssoLogin'],
      });
    }
  });

  it('issue --trial-ends makes a trial license; an explicit --kid is used as given', async () => {
    const out = await cli(
      'issue',
      '--key',
      join(keys, 'private.pem'),
      '--kid',
      'vendor-2026',
      '--tier',
      'pro',
      '--trial-ends',
      '2026-05-24T12:00:00Z',
    );
    expect(out.code).toBe(0);
    const token = out.stdout.trim();
    expect(decodeProtectedHeader(token).kid).toBe('vendor-2026');
    const ring = await importLicensePublicKeys([
      { kid: 'vendor-2026', pem: readFileSync(join(keys, 'public.pem'), 'utf8') },
    ]);
    const { license } = await resolveLicense(token, ring, NOW);
    expect(license).toMatchObject({
      tier: 'pro',
      isTrialing: true,
      trialDaysLeft: 14,
      trialEndsAt: '2026-05-24T12:00:00.000Z',
      features: ['compliancePage'],
    });
  });

  it.each([
    [['issue', '--key', 'x.pem', '--tier', 'gold'], 'tier'],
    [['issue', '--key', 'x.pem', '--tier', 'pro', '--expires', 'next year'], '--expires must be a date'],
    [['issue', '--tier', 'pro'], 'key'],
    [[], 'a command is required'],
    [['frobnicate'], 'Unknown'],
  ])('usage errors exit 2: %j', async (argv, message) => {
    const out = await cli(...argv);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: /);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
  });

  it('a key that is not Ed25519 is an error (exit 1)', async () => {
    const out = await cli('issue', '--key', join(keys, 'public.pem'), '--tier', 'pro');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: /);
  });
});
