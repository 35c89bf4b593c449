// Ed25519 signatures as every verifier checks them, and the key id that names the key: the first 16
// hex of SHA-256 over the public key's SPKI DER. The id is derived, never configured, so a verifier
// computes it from the published PEM (GET /api/v1/evidence/keys, --public-key) and cannot be told
// a wrong one.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { sha256Hex } from './canonical-json.js';

/** First 16 hex of SHA-256(SPKI DER). Accepts a public or a private key. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16);
}

/** Every public key in a PEM text (one or several PUBLIC KEY blocks), by key id. */
export function keysFromPem(pem: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const block of pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? []) {
    const key = createPublicKey(block);
    keys.set(keyIdOf(key), key);
  }
  return keys;
}

/** Verifies an Ed25519 signature (canonical base64 of 64 bytes) over a UTF-8 message. Never throws. */
export function verifySignature(message: string, signatureBase64: string, publicKey: KeyObject): boolean {
  try {
    const signature = Buffer.from(signatureBase64, 'base64');
    if (signature.length !== 64 || signature.toString('base64') !== signatureBase64) return false;
    return verify(null, Buffer.from(message, 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}
