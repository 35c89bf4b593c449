// Offline verification of a license (decision 0007): a compact JWS signed with Ed25519
// (header alg "EdDSA", or the fully specified "Ed25519" of RFC 9864), checked against the public
// keys the deployment trusts, selected by the header's `kid`. No network, no clock: expiry is a
// domain rule (server/domain/license-tiers.ts) applied afterwards, so an expired but genuine license can
// still be reported as "expired" rather than "invalid".
//
// Every failure becomes { ok: false, reason } and so the community tier; the reason is meant for
// the log and never contains the token itself.

import {
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  importSPKI,
  errors,
  type CryptoKey,
  type JWK,
} from 'jose';
import {
  evaluateLicense,
  parseLicenseClaims,
  type LicenseEvaluation,
  type LicenseVerification,
} from '../domain/license-tiers.js';

export const LICENSE_ALGORITHMS = ['EdDSA', 'Ed25519'] as const;

/** A trusted public key as configured: a PEM (SPKI) with its kid, or a JWK (kid may sit inside it). */
export type LicensePublicKeyInput = { kid: string; pem: string } | { kid?: string; jwk: JWK };

/** Trusted keys by kid. */
export type LicenseKeyRing = ReadonlyMap<string, CryptoKey>;

/**
 * Imports the configured public keys. Throws on a key that is not an Ed25519 public key or has no
 * kid: a misconfigured trust store is a start-up error, not a silent downgrade.
 */
export async function importLicensePublicKeys(
  inputs: readonly LicensePublicKeyInput[],
): Promise<LicenseKeyRing> {
  const ring = new Map<string, CryptoKey>();
  for (const [index, input] of inputs.entries()) {
    let kid: string | undefined;
    let key: CryptoKey;
    try {
      if ('pem' in input) {
        kid = input.kid;
        key = await importSPKI(input.pem, 'EdDSA', { extractable: true });
      } else {
        kid = input.kid ?? input.jwk.kid;
        if (input.jwk.kty !== 'OKP' || input.jwk.crv !== 'Ed25519' || input.jwk.d !== undefined) {
          throw new Error('not an Ed25519 public JWK (kty OKP, crv Ed25519, no d)');
        }
        const imported = await importJWK(input.jwk, 'EdDSA');
        if (imported instanceof Uint8Array) throw new Error('not an asymmetric key');
        key = imported;
      }
    } catch (error) {
      throw new Error(
        `license public key #${index + 1}${kid ? ` (kid ${kid})` : ''}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (!kid) throw new Error(`license public key #${index + 1} has no kid`);
    if (ring.has(kid)) throw new Error(`license public key kid ${kid} is configured twice`);
    ring.set(kid, key);
  }
  return ring;
}

/**
 * Parses one configured key text: a PEM "PUBLIC KEY" block, a JSON JWK, or a JSON JWK Set
 * ({"keys": [...]}). `kid` is required for PEM and overrides nothing a JWK already names.
 */
export function parseLicensePublicKeyText(text: string, kid?: string): LicensePublicKeyInput[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    if (!kid) throw new Error('a PEM license public key needs a kid');
    return [{ kid, pem: trimmed }];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new Error('license public key is neither PEM nor JSON (JWK / JWK Set)');
  }
  const jwks = (parsed as { keys?: unknown }).keys;
  const list = Array.isArray(jwks) ? (jwks as JWK[]) : [parsed as JWK];
  return list.map((jwk) => (kid && !jwk.kid && list.length === 1 ? { kid, jwk } : { jwk }));
}

/** Verifies the token's signature and decodes its claims. `undefined` token = no license installed. */
export async function verifyLicenseToken(
  token: string | undefined,
  keys: LicenseKeyRing,
): Promise<LicenseVerification | undefined> {
  if (token === undefined || token.trim() === '') return undefined;
  const jws = token.trim();
  if (jws.split('.').length !== 3) {
    return { ok: false, reason: 'license is malformed: not a compact JWS (three dot-separated parts)' };
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    return { ok: false, reason: 'license is malformed: the protected header is not base64url JSON' };
  }
  if (typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none') {
    return { ok: false, reason: 'license is unsigned (alg none) and was rejected' };
  }
  if (!(LICENSE_ALGORITHMS as readonly string[]).includes(header.alg)) {
    return { ok: false, reason: `license uses algorithm ${header.alg}; only EdDSA (Ed25519) is accepted` };
  }
  if (typeof header.kid !== 'string' || header.kid === '') {
    return { ok: false, reason: 'license has no kid in its header, so no trusted key can be selected' };
  }
  const key = keys.get(header.kid);
  if (key === undefined) {
    return {
      ok: false,
      reason: `license is signed with unknown key ${JSON.stringify(header.kid)} (trusted: ${[...keys.keys()].join(', ') || 'none configured'})`,
    };
  }
  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(jws, key, { algorithms: [...LICENSE_ALGORITHMS] }));
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return { ok: false, reason: `license signature does not verify with key ${header.kid}` };
    }
    const code = (error as { code?: string }).code ?? 'error';
    return { ok: false, reason: `license is invalid (${code}): ${(error as Error).message}` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
  } catch {
    return { ok: false, reason: 'license is malformed: the payload is not JSON' };
  }
  const parsed = parseLicenseClaims(payload);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  return { ok: true, claims: parsed.claims, keyId: header.kid };
}

/** verifyLicenseToken + evaluateLicense: the LicenseResponse in effect at `now`, with a log reason. */
export async function resolveLicense(
  token: string | undefined,
  keys: LicenseKeyRing,
  now: Date,
): Promise<LicenseEvaluation> {
  return evaluateLicense(await verifyLicenseToken(token, keys), now);
}
