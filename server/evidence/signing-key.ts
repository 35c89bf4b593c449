// The Ed25519 key that signs evidence (RestoreReports and PDF attestations). Pure key functions:
// the controller keeps the private key in a Secret and publishes the public key (PEM) for
// verifiers; this module only creates, converts and identifies keys.
//
// Key id = the first 16 hex characters of SHA-256 over the public key's SPKI DER encoding. It is
// derived, never configured, so a verifier computes it from the published PEM and cannot be told
// a wrong one.

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';

/** Anything that can sign evidence: produces a base64 Ed25519 signature over a UTF-8 string. */
export interface EvidenceSigner {
  readonly keyId: string;
  sign(message: string): string;
}

export interface SigningKey extends EvidenceSigner {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

function assertEd25519(key: KeyObject, what: string): void {
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${what} is ${key.asymmetricKeyType ?? `a ${key.type} key`}, expected Ed25519`);
  }
}

/** First 16 hex of SHA-256(SPKI DER). Accepts a public or a private key. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

export function signingKeyFrom(privateKey: KeyObject): SigningKey {
  assertEd25519(privateKey, 'the signing key');
  if (privateKey.type !== 'private') throw new Error('the signing key must be a private key');
  const publicKey = createPublicKey(privateKey);
  const keyId = keyIdOf(publicKey);
  return {
    keyId,
    privateKey,
    publicKey,
    sign: (message: string) => sign(null, Buffer.from(message, 'utf8'), privateKey).toString('base64'),
  };
}

export function generateSigningKey(): SigningKey {
  return signingKeyFrom(generateKeyPairSync('ed25519').privateKey);
}

/** PKCS#8 PEM, for the Secret. */
export function exportPrivateKeyPem(key: SigningKey | KeyObject): string {
  const k = 'privateKey' in key ? key.privateKey : key;
  return k.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** SPKI PEM, to publish. */
export function exportPublicKeyPem(key: SigningKey | KeyObject): string {
  const k = 'publicKey' in key ? key.publicKey : key.type === 'private' ? createPublicKey(key) : key;
  return k.export({ type: 'spki', format: 'pem' }).toString();
}

export function importPrivateKeyPem(pem: string): SigningKey {
  return signingKeyFrom(createPrivateKey(pem));
}

export function importPublicKeyPem(pem: string): KeyObject {
  const key = createPublicKey(pem);
  assertEd25519(key, 'the public key');
  return key;
}

/** keyId → public key, the shape the verifiers take. Accepts KeyObjects or SPKI PEM strings. */
export function publicKeyRing(keys: ReadonlyArray<KeyObject | string>): Map<string, KeyObject> {
  const ring = new Map<string, KeyObject>();
  for (const key of keys) {
    const publicKey =
      typeof key === 'string' ? importPublicKeyPem(key) : key.type === 'private' ? createPublicKey(key) : key;
    assertEd25519(publicKey, 'the public key');
    ring.set(keyIdOf(publicKey), publicKey);
  }
  return ring;
}
