import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { CompactSign } from 'jose';
import {
  COMMUNITY_LICENSE,
  enabledFeatures,
  evaluateLicense,
  parseLicenseClaims,
  trialDaysLeft,
} from '../../../server/domain/license-tiers.js';
import type { LicenseClaims } from '../../../protocol/license-claims.js';
import {
  importLicensePublicKeys,
  parseLicensePublicKeyText,
  resolveLicense,
  verifyLicenseToken,
} from '../../../server/license/license-verifier.js';
import {
  base64url,
  jwkOf,
  numericDate,
  ringOf,
  sign,
  unsignedToken,
  vendorKey,
} from '../../fixtures/evidence/licenses.js';

const NOW = new Date('2026-05-10T12:00:00Z');
const ok = (claims: LicenseClaims) => ({ ok: true as const, claims, keyId: 'vendor-2026' });

describe('license rules (domain, pure)', () => {
  it.each([
    ['community', []],
    ['pro', ['compliancePage']],
    ['enterprise', ['compliancePage', 'pdfExport', 'pdfReports']],
  ] as const)('tier %s enables %j', (tier, features) => {
    const { license, reason } = evaluateLicense(ok({ tier }), NOW);
    expect(reason).toBeUndefined();
    expect(license).toEqual({
      tier,
      expiresAt: null,
      trialEndsAt: null,
      isExpired: false,
      isTrialing: false,
      trialDaysLeft: 0,
      features,
    });
  });

  it('no license is community with a reason for the log', () => {
    expect(evaluateLicense(undefined, NOW)).toEqual({
      license: { ...COMMUNITY_LICENSE, features: [] },
      reason: 'no license installed',
    });
  });

  it('adds extra features after the tier flags, sorted, without duplicates', () => {
    const { license } = evaluateLicense(
      ok({ tier: 'pro', features: ['zeta', 'compliancePage', 'alpha', 'zeta'] }),
      NOW,
    );
    expect(license.features).toEqual(['compliancePage', 'alpha', 'zeta']);
    expect(enabledFeatures('community', ['pdfExport'])).toEqual(['pdfExport']);
  });

  it('a license with a future exp is active and reports its expiry', () => {
    const { license } = evaluateLicense(
      ok({ tier: 'enterprise', exp: numericDate('2027-01-01T00:00:00Z') }),
      NOW,
    );
    expect(license).toMatchObject({
      tier: 'enterprise',
      expiresAt: '2027-01-01T00:00:00.000Z',
      isExpired: false,
    });
  });

  it('an expired license falls back to community, keeps expiresAt and drops every feature', () => {
    const { license, reason } = evaluateLicense(
      ok({ tier: 'enterprise', exp: numericDate('2026-05-01T00:00:00Z'), features: ['extra'] }),
      NOW,
    );
    expect(license).toEqual({
      tier: 'community',
      expiresAt: '2026-05-01T00:00:00.000Z',
      trialEndsAt: null,
      isExpired: true,
      isTrialing: false,
      trialDaysLeft: 0,
      features: [],
    });
    expect(reason).toBe('enterprise license expired at 2026-05-01T00:00:00.000Z');
  });

  it('exp equal to now is expired (the boundary belongs to expiry)', () => {
    expect(evaluateLicense(ok({ tier: 'pro', exp: NOW.getTime() / 1000 }), NOW).license.isExpired).toBe(true);
  });

  it('a running trial is active with days left rounded up', () => {
    const { license } = evaluateLicense(ok({ tier: 'enterprise', trialEndsAt: '2026-05-24T12:00:00Z' }), NOW);
    expect(license).toEqual({
      tier: 'enterprise',
      expiresAt: null,
      trialEndsAt: '2026-05-24T12:00:00.000Z',
      isExpired: false,
      isTrialing: true,
      trialDaysLeft: 14,
      features: ['compliancePage', 'pdfExport', 'pdfReports'],
    });
  });

  it.each([
    ['exactly 14 days', '2026-05-24T12:00:00Z', 14],
    ['13 days and 1 second', '2026-05-23T12:00:01Z', 14],
    ['1 second', '2026-05-10T12:00:01Z', 1],
    ['23 hours', '2026-05-11T11:00:00Z', 1],
    ['ended', '2026-05-10T12:00:00Z', 0],
  ])('trialDaysLeft rounds up: %s', (_label, ends, days) => {
    expect(trialDaysLeft(new Date(ends), NOW)).toBe(days);
  });

  it('an ended trial counts as expired: community, not trialing, 0 days', () => {
    const { license, reason } = evaluateLicense(
      ok({ tier: 'enterprise', trialEndsAt: '2026-05-01T00:00:00Z' }),
      NOW,
    );
    expect(license).toMatchObject({
      tier: 'community',
      isExpired: true,
      isTrialing: false,
      trialDaysLeft: 0,
      features: [],
      trialEndsAt: '2026-05-01T00:00:00.000Z',
    });
    expect(reason).toContain('trial ended');
  });

  it('a license that is not valid yet (nbf) is community', () => {
    const { license, reason } = evaluateLicense(
      ok({ tier: 'pro', nbf: numericDate('2026-06-01T00:00:00Z') }),
      NOW,
    );
    expect(license.tier).toBe('community');
    expect(license.isExpired).toBe(false);
    expect(reason).toContain('not valid before');
  });

  it('a failed verification is community with the verifier reason', () => {
    expect(evaluateLicense({ ok: false, reason: 'bad' }, NOW)).toMatchObject({
      license: { tier: 'community', features: [] },
      reason: 'bad',
    });
  });

  it.each([
    ['not an object', [], 'not a JSON object'],
    ['unknown tier', { tier: 'gold' }, 'unknown tier "gold"'],
    ['team is not a tier value', { tier: 'team' }, 'unknown tier'],
    ['exp as a string', { tier: 'pro', exp: '2027-01-01' }, 'exp is not a NumericDate'],
    ['trialEndsAt not a date', { tier: 'pro', trialEndsAt: 'soon' }, 'trialEndsAt'],
    ['features not strings', { tier: 'pro', features: [1] }, 'features is not an array of strings'],
    ['feature with spaces', { tier: 'pro', features: ['a b'] }, 'invalid names'],
    ['customer not a string', { tier: 'pro', customer: 7 }, 'customer'],
  ])('rejects a payload with %s', (_label, payload, reason) => {
    const parsed = parseLicenseClaims(payload);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
  });

  it('ignores unknown claims and keeps the licensee', () => {
    const parsed = parseLicenseClaims({ tier: 'pro', sub: 'cust-42', customer: 'Acme Bank', seats: 10 });
    expect(parsed).toEqual({ ok: true, claims: { tier: 'pro', sub: 'cust-42', customer: 'Acme Bank' } });
    expect(evaluateLicense(ok({ tier: 'pro', customer: 'Acme Bank' }), NOW).licensee).toBe('Acme Bank');
  });
});

describe('license verification (compact JWS, EdDSA)', () => {
  const vendor = vendorKey('vendor-2026');
  const other = vendorKey('vendor-2026'); // same kid, different key: an impostor

  it('verifies a valid enterprise license against a PEM key', async () => {
    const token = await sign(vendor, {
      tier: 'enterprise',
      exp: numericDate('2027-01-01T00:00:00Z'),
      sub: 'cust-1',
    });
    const result = await verifyLicenseToken(token, await ringOf(vendor));
    expect(result).toEqual({
      ok: true,
      keyId: 'vendor-2026',
      claims: { tier: 'enterprise', exp: numericDate('2027-01-01T00:00:00Z'), sub: 'cust-1' },
    });
    const { license } = await resolveLicense(token, await ringOf(vendor), NOW);
    expect(license.features).toEqual(['compliancePage', 'pdfExport', 'pdfReports']);
  });

  it('verifies against a JWK key (kid inside the JWK) and accepts the fully specified alg Ed25519', async () => {
    const ring = await importLicensePublicKeys([{ jwk: await jwkOf(vendor) }]);
    const token = await sign(vendor, { tier: 'pro', features: ['beta'] }, { alg: 'Ed25519' });
    const { license, reason } = await resolveLicense(token, ring, NOW);
    expect(reason).toBeUndefined();
    expect(license).toMatchObject({ tier: 'pro', features: ['compliancePage', 'beta'] });
  });

  it('selects the key by kid among several', async () => {
    const second = vendorKey('vendor-2027');
    const token = await sign(second, { tier: 'pro' });
    const result = await verifyLicenseToken(token, await ringOf(vendor, second));
    expect(result).toMatchObject({ ok: true, keyId: 'vendor-2027' });
  });

  it('an expired license verifies but resolves to community with isExpired', async () => {
    const token = await sign(vendor, { tier: 'enterprise', exp: numericDate('2026-01-01T00:00:00Z') });
    const { license, reason } = await resolveLicense(token, await ringOf(vendor), NOW);
    expect(license).toMatchObject({
      tier: 'community',
      isExpired: true,
      expiresAt: '2026-01-01T00:00:00.000Z',
      features: [],
    });
    expect(reason).toContain('expired');
  });

  it('a trial license resolves to trialing', async () => {
    const token = await sign(vendor, { tier: 'enterprise', trialEndsAt: '2026-05-20T00:00:00Z' });
    const { license } = await resolveLicense(token, await ringOf(vendor), NOW);
    expect(license).toMatchObject({ tier: 'enterprise', isTrialing: true, trialDaysLeft: 10 });
  });

  it('rejects a license signed by another key under a trusted kid', async () => {
    const token = await sign(other, { tier: 'enterprise' });
    const { license, reason } = await resolveLicense(token, await ringOf(vendor), NOW);
    expect(license.tier).toBe('community');
    expect(reason).toBe('license signature does not verify with key vendor-2026');
  });

  it('rejects a license whose payload was edited after signing', async () => {
    const token = await sign(vendor, { tier: 'pro' });
    const [header, , signature] = token.split('.');
    const forged = `${header}.${base64url(JSON.stringify({ tier: 'enterprise' }))}.${signature}`;
    const result = await verifyLicenseToken(forged, await ringOf(vendor));
    expect(result).toEqual({ ok: false, reason: 'license signature does not verify with key vendor-2026' });
  });

  it('rejects an unsigned license (alg none)', async () => {
    const result = await verifyLicenseToken(unsignedToken({ tier: 'enterprise' }), await ringOf(vendor));
    expect(result).toEqual({ ok: false, reason: 'license is unsigned (alg none) and was rejected' });
    const { license } = await resolveLicense(
      unsignedToken({ tier: 'enterprise' }),
      await ringOf(vendor),
      NOW,
    );
    expect(license.tier).toBe('community');
  });

  it('rejects other algorithms (HS256 with the public key as secret, ES256)', async () => {
    const hs = await new CompactSign(new TextEncoder().encode('{"tier":"enterprise"}'))
      .setProtectedHeader({ alg: 'HS256', kid: 'vendor-2026' })
      .sign(new TextEncoder().encode(vendor.publicPem));
    expect(await verifyLicenseToken(hs, await ringOf(vendor))).toEqual({
      ok: false,
      reason: 'license uses algorithm HS256; only EdDSA (Ed25519) is accepted',
    });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const es = await new CompactSign(new TextEncoder().encode('{"tier":"enterprise"}'))
      .setProtectedHeader({ alg: 'ES256', kid: 'vendor-2026' })
      .sign(ec.privateKey);
    expect((await verifyLicenseToken(es, await ringOf(vendor)))?.ok).toBe(false);
  });

  it.each([
    ['garbage', 'not-a-license', 'not a compact JWS'],
    ['two parts', 'abc.def', 'not a compact JWS'],
    ['header not JSON', `${base64url('nope')}.${base64url('{}')}.sig`, 'protected header'],
  ])('rejects a malformed license (%s)', async (_label, token, reason) => {
    const result = await verifyLicenseToken(token, await ringOf(vendor));
    expect(result?.ok).toBe(false);
    expect(result && !result.ok && result.reason).toContain(reason);
  });

  it('rejects a signed payload that is not JSON or has a bad shape', async () => {
    expect(await verifyLicenseToken(await sign(vendor, 'plain text'), await ringOf(vendor))).toEqual({
      ok: false,
      reason: 'license is malformed: the payload is not JSON',
    });
    const bad = await verifyLicenseToken(await sign(vendor, { tier: 'platinum' }), await ringOf(vendor));
    expect(bad && !bad.ok && bad.reason).toContain('unknown tier');
  });

  it('rejects an unknown kid and a missing kid, naming the kid', async () => {
    const stranger = vendorKey('someone-else');
    const unknown = await verifyLicenseToken(
      await sign(stranger, { tier: 'enterprise' }),
      await ringOf(vendor),
    );
    expect(unknown).toEqual({
      ok: false,
      reason: 'license is signed with unknown key "someone-else" (trusted: vendor-2026)',
    });
    const noKid = await new CompactSign(new TextEncoder().encode('{"tier":"pro"}'))
      .setProtectedHeader({ alg: 'EdDSA' })
      .sign(vendor.privateKey);
    const missing = await verifyLicenseToken(noKid, await ringOf(vendor));
    expect(missing && !missing.ok && missing.reason).toContain('no kid');
  });

  it('treats an empty or absent token as no license', async () => {
    expect(await verifyLicenseToken(undefined, await ringOf(vendor))).toBeUndefined();
    expect(await verifyLicenseToken('  \n', await ringOf(vendor))).toBeUndefined();
    expect((await resolveLicense(undefined, await ringOf(vendor), NOW)).reason).toBe('no license installed');
  });

  it('refuses a misconfigured trust store at start-up', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    await expect(importLicensePublicKeys([{ kid: 'ec', pem: ec }])).rejects.toThrow('kid ec');
    await expect(
      importLicensePublicKeys([
        { kid: 'a', pem: vendor.publicPem },
        { kid: 'a', pem: vendor.publicPem },
      ]),
    ).rejects.toThrow('configured twice');
    const { kid: _kid, ...jwkWithoutKid } = await jwkOf(vendor);
    await expect(importLicensePublicKeys([{ jwk: jwkWithoutKid }])).rejects.toThrow('has no kid');
  });

  it('parses configured key text: PEM with kid, JWK, JWK Set', async () => {
    expect(parseLicensePublicKeyText(vendor.publicPem, 'k1')).toEqual([
      { kid: 'k1', pem: vendor.publicPem.trim() },
    ]);
    expect(() => parseLicensePublicKeyText(vendor.publicPem)).toThrow('needs a kid');
    const jwk = await jwkOf(vendor);
    expect(parseLicensePublicKeyText(JSON.stringify(jwk))).toEqual([{ jwk }]);
    const set = parseLicensePublicKeyText(JSON.stringify({ keys: [jwk, await jwkOf(vendorKey('k2'))] }));
    const ring = await importLicensePublicKeys(set);
    expect([...ring.keys()]).toEqual(['vendor-2026', 'k2']);
    expect(() => parseLicensePublicKeyText('hello')).toThrow('neither PEM nor JSON');
  });
});
