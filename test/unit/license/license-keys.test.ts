// The license trust store from configuration: REHEARSAL_LICENSE_PUBLIC_KEYS names JWK / JWK Set
// files, or PEM files as kid=path; anything unreadable is a start-up error naming the file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../server/config.js';
import { loadLicenseKeyRing } from '../../../server/license/license-keys.js';
import { PRODUCT_VERSION } from '../../../server/product-version.js';
import { jwkOf, vendorKey } from '../../fixtures/evidence/licenses.js';
import { repoRoot } from '../../helpers/cluster-info.js';

const dir = mkdtempSync(join(tmpdir(), 'rehearsal-license-keys-'));
const a = vendorKey('vendor-2026');
const b = vendorKey('vendor-2025');
const c = vendorKey('vendor-2024');

function file(name: string, text: string): string {
  const target = join(dir, name);
  writeFileSync(target, text);
  return target;
}

describe('REHEARSAL_LICENSE_PUBLIC_KEYS', () => {
  it('is parsed into files, with the kid a PEM file needs', () => {
    const config = loadConfig({
      REHEARSAL_LICENSE_PUBLIC_KEYS: '/etc/rehearsal/vendor.jwk.json, vendor-2025=/etc/rehearsal/old.pem',
    });
    expect(config.licensePublicKeys).toEqual([
      { file: '/etc/rehearsal/vendor.jwk.json' },
      { kid: 'vendor-2025', file: '/etc/rehearsal/old.pem' },
    ]);
    expect(config.licensePublicKeyFiles).toEqual([
      '/etc/rehearsal/vendor.jwk.json',
      '/etc/rehearsal/old.pem',
    ]);
    expect(loadConfig({ REHEARSAL_LICENSE_PUBLIC_KEYS: '' }).licensePublicKeys).toEqual([]);
  });

  it('defaults to exactly the vendor key shipped in license-keys/ when unset', async () => {
    const shipped = path.join(repoRoot, 'license-keys/rehearsal-vendor.jwk.json');
    const config = loadConfig({});
    expect(config.licensePublicKeys).toEqual([{ file: shipped }]);
    const ring = await loadLicenseKeyRing(config.licensePublicKeys);
    const jwk = JSON.parse(readFileSync(shipped, 'utf8')) as { kid: string; kty: string; crv: string; d?: string };
    expect([...ring.keys()]).toEqual([jwk.kid]);
    // The public half only: a private JWK (with "d") must never be committed.
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(jwk.d).toBeUndefined();
  });
});

describe('loadLicenseKeyRing', () => {
  it('loads a JWK, a JWK Set and a PEM named by kid', async () => {
    const ring = await loadLicenseKeyRing([
      { file: file('a.jwk.json', JSON.stringify(await jwkOf(a))) },
      { file: file('set.json', JSON.stringify({ keys: [await jwkOf(c)] })) },
      { file: file('b.pem', b.publicPem), kid: 'vendor-2025' },
    ]);
    expect([...ring.keys()].sort()).toEqual(['vendor-2024', 'vendor-2025', 'vendor-2026']);
  });

  it('refuses a PEM without a kid, saying how to give one', async () => {
    await expect(loadLicenseKeyRing([{ file: file('nokid.pem', b.publicPem) }])).rejects.toThrow(
      /nokid\.pem: a PEM license public key needs a kid \(write it as kid=path/,
    );
  });

  it('names a missing file and a file that is not a key', async () => {
    await expect(loadLicenseKeyRing([{ file: join(dir, 'missing.pem'), kid: 'x' }])).rejects.toThrow(
      /missing\.pem: ENOENT/,
    );
    await expect(loadLicenseKeyRing([{ file: file('junk.txt', 'hello') }])).rejects.toThrow(
      /junk\.txt: license public key is neither PEM nor JSON/,
    );
  });

  it('no files: an empty trust store (every license counts as community)', async () => {
    expect((await loadLicenseKeyRing([])).size).toBe(0);
  });
});

describe('PRODUCT_VERSION', () => {
  it('is the version in package.json', async () => {
    const pkg = (await import('node:fs')).readFileSync(
      new URL('../../../package.json', import.meta.url),
      'utf8',
    );
    expect(PRODUCT_VERSION).toBe((JSON.parse(pkg) as { version: string }).version);
  });
});
