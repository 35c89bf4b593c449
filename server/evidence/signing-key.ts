// The Ed25519 key that signs evidence (RestoreReports and PDF attestations). Pure key functions:
// the controller keeps the private key in a Secret and publishes the public key (PEM) for
// verifiers; this module only creates, converts and identifies keys. The key id (keyIdOf) is the
// protocol's: a verifier derives it from the published PEM (protocol/evidence/signature.ts).

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { keyIdOf } from '../../protocol/evidence/signature.js';

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
