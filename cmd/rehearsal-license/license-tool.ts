// Vendor-side license operations: create an Ed25519 signing key pair and issue a license (a compact
// JWS, alg EdDSA, kid in the header) with the claims of protocol/license-claims.ts. On jose and
// node:crypto; cmd/ never imports server/.

import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CompactSign, calculateJwkThumbprint, exportJWK } from 'jose';
import { LICENSE_TIERS, type LicenseClaims, type LicenseTier } from '../../protocol/license-claims.js';

export interface KeyPairFiles {
  kid: string;
  privateKeyPath: string;
  publicKeyPath: string;
  publicJwkPath: string;
}

/** kid derived from the public key: the first 16 characters of its RFC 7638 JWK thumbprint. */
export async function defaultKid(key: KeyObject): Promise<string> {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const thumbprint = await calculateJwkThumbprint(await exportJWK(publicKey), 'sha256');
  return thumbprint.slice(0, 16);
}

/**
 * Writes private.pem (PKCS#8, mode 0600), public.pem (SPKI) and public.jwk.json (with kid, alg,
 * use) into `outDir`. Refuses to overwrite an existing private key.
 */
export async function generateLicenseKeyPair(outDir: string, kid?: string): Promise<KeyPairFiles> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = kid ?? (await defaultKid(publicKey));
  await mkdir(outDir, { recursive: true });
  const files: KeyPairFiles = {
    kid: keyId,
    privateKeyPath: join(outDir, 'private.pem'),
    publicKeyPath: join(outDir, 'public.pem'),
    publicJwkPath: join(outDir, 'public.jwk.json'),
  };
  await writeFile(files.privateKeyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  });
  await writeFile(files.publicKeyPath, publicKey.export({ type: 'spki', format: 'pem' }));
  const jwk = { ...(await exportJWK(publicKey)), kid: keyId, alg: 'EdDSA', use: 'sig' };
  await writeFile(files.publicJwkPath, `${JSON.stringify(jwk, null, 2)}\n`);
  return files;
}

export interface IssueOptions {
  privateKeyPem: string;
  kid?: string;
  tier: LicenseTier;
  /** Expiry instant; absent = perpetual. */
  expires?: Date;
  /** End of the trial; makes this a trial license. */
  trialEnds?: Date;
  features?: string[];
  sub?: string;
  customer?: string;
  issuer?: string;
  now?: Date;
}

/** Parses "2027-01-01" (00:00 UTC that day) or a full RFC 3339 timestamp. */
export function parseInstant(text: string, what: string): Date {
  const value = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) {
    throw new Error(
      `${what} must be a date (YYYY-MM-DD, UTC) or an RFC 3339 timestamp, got ${JSON.stringify(text)}`,
    );
  }
  return new Date(ms);
}

export async function issueLicense(options: IssueOptions): Promise<string> {
  if (!LICENSE_TIERS.includes(options.tier)) throw new Error(`unknown tier ${options.tier}`);
  const key = createPrivateKey(options.privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(
      `the signing key is ${key.asymmetricKeyType ?? 'not asymmetric'}; an Ed25519 private key is required`,
    );
  }
  const now = options.now ?? new Date();
  const claims: LicenseClaims = { tier: options.tier, iat: Math.floor(now.getTime() / 1000) };
  if (options.expires) claims.exp = Math.floor(options.expires.getTime() / 1000);
  if (options.trialEnds) claims.trialEndsAt = options.trialEnds.toISOString();
  if (options.features && options.features.length > 0) claims.features = [...new Set(options.features)];
  if (options.sub) claims.sub = options.sub;
  if (options.customer) claims.customer = options.customer;
  if (options.issuer) claims.iss = options.issuer;
  const kid = options.kid ?? (await defaultKid(key));
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'rehearsal-license+jwt' })
    .sign(key);
}

export async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}
