// The two primitives every signed format of Rehearsal is built on (RestoreReport evidence, PDF
// attestations, archive manifests): RFC 8785 canonical JSON, so that the signer and any verifier
// hash the same bytes for the same value, and SHA-256 as lowercase hex.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 canonical JSON; throws on values JSON cannot carry (NaN, Infinity, lone surrogates). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON representation');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
