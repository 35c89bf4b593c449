// The published public keys as a document: ConfigMap `rehearsal-evidence-public-keys`, key
// `keys.json` (layout in evidence-keys.ts). Pure rules, kept apart from the I/O so they can be
// table-tested: what a trustworthy entry is (its keyId must match its key, or a hand edit could
// make a verifier trust the wrong key), and how a rotation moves the current key to `retired`.
import { publicKeyRing } from './signing-key.js';

export const PUBLIC_KEYS_CONFIGMAP_NAME = 'rehearsal-evidence-public-keys';
export const PUBLIC_KEYS_DATA_KEY = 'keys.json';
/** The current key alone, for `kubectl get cm ... -o jsonpath`. */
export const CURRENT_PEM_DATA_KEY = 'current.pem';

/** A published public key (the API's EvidencePublicKey). */
export interface PublishedKey {
  keyId: string;
  algorithm: 'Ed25519';
  publicKeyPem: string;
  createdAt: string;
  status: 'current' | 'retired';
  retiredAt?: string;
}

export interface PublishedDocument {
  current?: Omit<PublishedKey, 'status' | 'retiredAt'>;
  retired: Omit<PublishedKey, 'status'>[];
}

/** Parses keys.json; unknown or malformed entries are dropped (and reported). */
export function parsePublishedKeys(text: string | undefined): {
  document: PublishedDocument;
  problems: string[];
} {
  const document: PublishedDocument = { retired: [] };
  if (!text) return { document, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { document, problems: [`${PUBLIC_KEYS_DATA_KEY} is not JSON`] };
  }
  const problems: string[] = [];
  const entry = (
    value: unknown,
    where: string,
  ): (Omit<PublishedKey, 'status' | 'retiredAt'> & { retiredAt?: string }) | undefined => {
    const v = value as Record<string, unknown> | null;
    if (
      typeof v !== 'object' ||
      v === null ||
      typeof v.keyId !== 'string' ||
      typeof v.publicKeyPem !== 'string' ||
      typeof v.createdAt !== 'string'
    ) {
      problems.push(`${where} is not a key entry`);
      return undefined;
    }
    try {
      const ring = publicKeyRing([v.publicKeyPem]);
      if (!ring.has(v.keyId)) {
        problems.push(`${where}: keyId ${v.keyId} does not match its public key`);
        return undefined;
      }
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      return undefined;
    }
    return {
      keyId: v.keyId,
      algorithm: 'Ed25519',
      publicKeyPem: v.publicKeyPem,
      createdAt: v.createdAt,
      ...(typeof v.retiredAt === 'string' ? { retiredAt: v.retiredAt } : {}),
    };
  };
  const root = parsed as { current?: unknown; retired?: unknown };
  if (root.current !== undefined) {
    const current = entry(root.current, 'current');
    if (current) {
      const { retiredAt: _ignored, ...rest } = current;
      document.current = rest;
    }
  }
  if (Array.isArray(root.retired)) {
    root.retired.forEach((value, index) => {
      const retired = entry(value, `retired[${index}]`);
      if (retired) document.retired.push({ ...retired, retiredAt: retired.retiredAt ?? retired.createdAt });
    });
  }
  return { document, problems };
}

/** The document with `current` as the current key; the previous current key moves to retired. */
export function promoteKey(
  document: PublishedDocument,
  current: Omit<PublishedKey, 'status' | 'retiredAt'>,
  now: Date,
): { document: PublishedDocument; changed: boolean } {
  if (document.current?.keyId === current.keyId && document.current.publicKeyPem === current.publicKeyPem) {
    // Already current; just make sure it is not listed as retired as well.
    const retired = document.retired.filter((key) => key.keyId !== current.keyId);
    return {
      document: { current: document.current, retired },
      changed: retired.length !== document.retired.length,
    };
  }
  const retired = document.retired.filter((key) => key.keyId !== current.keyId);
  if (document.current && document.current.keyId !== current.keyId) {
    retired.push({ ...document.current, retiredAt: now.toISOString() });
  }
  return { document: { current, retired }, changed: true };
}

export function publishedKeysOf(document: PublishedDocument): PublishedKey[] {
  return [
    ...(document.current ? [{ ...document.current, status: 'current' as const }] : []),
    ...document.retired.map((key) => ({ ...key, status: 'retired' as const })),
  ];
}
