// Checks a RestoreReport's signed evidence in the browser, with the keys the API publishes
// (scheme rehearsal.dev/evidence/v1, protocol/evidence/report-digest.ts, here with WebCrypto):
//   C = RFC 8785 JSON of protocol/evidence/evidence-content.ts (shared with the server and plugin)
//   D = "sha256:" + hex SHA-256(C ‖ previousDigest-or-"");  signature = Ed25519 over D (base64)
//   keyId = first 16 hex of SHA-256 over the key's SPKI DER.
// The chain link (previousDigest = the digest of the report before it) is checked against the
// previous report in the list.
import canonicalize from 'canonicalize';
import { contentOfExpanded } from '../../protocol/evidence/evidence-content.js';
import type { Report } from './format.js';

export interface Verdict {
  ok: boolean;
  problems: string[];
}

const encoder = new TextEncoder();

async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function pemBlocks(pem: string): Uint8Array[] {
  return (pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? []).map((block) => {
    const base64 = block.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  });
}

/** Public keys by key id, from PEM texts (GET /api/v1/evidence/keys). */
export async function importKeys(pems: string[]): Promise<Map<string, CryptoKey>> {
  const keys = new Map<string, CryptoKey>();
  for (const pem of pems) {
    for (const der of pemBlocks(pem)) {
      const key = await crypto.subtle.importKey('spki', der as BufferSource, { name: 'Ed25519' }, false, [
        'verify',
      ]);
      keys.set((await sha256Hex(der)).slice(0, 16), key);
    }
  }
  return keys;
}

async function digestOf(report: Report, previousDigest: string | undefined): Promise<string> {
  // The API serves reports expanded, so C is built exactly as the signer built it.
  const content = contentOfExpanded(report);
  return `sha256:${await sha256Hex((canonicalize(content) ?? '') + (previousDigest ?? ''))}`;
}

/** Verifies one report; `previous` is the report run before it (same test), when known. */
export async function verifyReport(
  report: Report,
  keys: Map<string, CryptoKey>,
  previous?: Report,
): Promise<Verdict> {
  const evidence = report.spec.evidence;
  if (!evidence) return { ok: false, problems: ['not signed (no evidence block)'] };
  const problems: string[] = [];
  if ((await digestOf(report, evidence.previousDigest)) !== evidence.digest) {
    problems.push('digest mismatch: the report was changed after signing');
  }
  const key = keys.get(evidence.keyId);
  if (!key) problems.push(`signed with unknown key ${evidence.keyId}`);
  else {
    let valid = false;
    try {
      const signature = Uint8Array.from(atob(evidence.signature), (c) => c.charCodeAt(0));
      valid = await crypto.subtle.verify(
        { name: 'Ed25519' },
        key,
        signature as BufferSource,
        encoder.encode(evidence.digest) as BufferSource,
      );
    } catch {
      valid = false;
    }
    if (!valid) problems.push(`signature does not verify with key ${evidence.keyId}`);
  }
  const before = previous?.spec.evidence?.digest;
  if (previous && before !== evidence.previousDigest)
    problems.push(`does not link to the previous report ${previous.metadata.name}`);
  return { ok: problems.length === 0, problems };
}
