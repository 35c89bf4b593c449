// The published public keys (ConfigMap rehearsal-evidence-public-keys, keys.json): parsing that
// refuses entries whose keyId does not match their key, and promotion on rotation.
import { describe, expect, it } from '@jest/globals';
import { parsePublishedKeys, promoteKey, publishedKeysOf } from '../../../server/evidence/published-keys.js';
import { exportPublicKeyPem, generateSigningKey } from '../../../server/evidence/signing-key.js';

const first = generateSigningKey();
const second = generateSigningKey();
const entry = (key: typeof first, createdAt: string) => ({
  keyId: key.keyId,
  algorithm: 'Ed25519' as const,
  publicKeyPem: exportPublicKeyPem(key),
  createdAt,
});

describe('parsePublishedKeys', () => {
  it('reads current and retired keys', () => {
    const text = JSON.stringify({
      current: entry(second, '2026-03-01T00:00:00.000Z'),
      retired: [{ ...entry(first, '2026-01-01T00:00:00.000Z'), retiredAt: '2026-03-01T00:00:00.000Z' }],
    });
    const { document, problems } = parsePublishedKeys(text);
    expect(problems).toEqual([]);
    expect(publishedKeysOf(document).map((key) => [key.keyId, key.status, key.retiredAt])).toEqual([
      [second.keyId, 'current', undefined],
      [first.keyId, 'retired', '2026-03-01T00:00:00.000Z'],
    ]);
  });

  it('drops entries that are malformed or whose keyId is not their key', () => {
    const text = JSON.stringify({
      current: { ...entry(second, '2026-03-01T00:00:00.000Z'), keyId: first.keyId },
      retired: [{ keyId: 'x' }, { ...entry(first, '2026-01-01T00:00:00.000Z'), publicKeyPem: 'not a key' }],
    });
    const { document, problems } = parsePublishedKeys(text);
    expect(document).toEqual({ retired: [] });
    expect(problems).toEqual([
      `current: keyId ${first.keyId} does not match its public key`,
      'retired[0] is not a key entry',
      expect.stringContaining('retired[1]: '),
    ]);
    expect(parsePublishedKeys('{').problems).toEqual(['keys.json is not JSON']);
    expect(parsePublishedKeys(undefined)).toEqual({ document: { retired: [] }, problems: [] });
  });
});

describe('promoteKey', () => {
  const now = new Date('2026-03-01T00:00:00Z');

  it('publishes the first key as current', () => {
    const { document, changed } = promoteKey({ retired: [] }, entry(first, '2026-01-01T00:00:00.000Z'), now);
    expect(changed).toBe(true);
    expect(document).toEqual({ current: entry(first, '2026-01-01T00:00:00.000Z'), retired: [] });
  });

  it('on rotation moves the old current key to retired, with the time of retirement', () => {
    const start = { current: entry(first, '2026-01-01T00:00:00.000Z'), retired: [] };
    const { document, changed } = promoteKey(start, entry(second, '2026-03-01T00:00:00.000Z'), now);
    expect(changed).toBe(true);
    expect(document.current?.keyId).toBe(second.keyId);
    expect(document.retired).toEqual([
      { ...entry(first, '2026-01-01T00:00:00.000Z'), retiredAt: now.toISOString() },
    ]);
  });

  it('changes nothing when the key is already current (a second replica, a restart)', () => {
    const start = { current: entry(first, '2026-01-01T00:00:00.000Z'), retired: [] };
    expect(promoteKey(start, entry(first, '2026-01-01T00:00:00.000Z'), now).changed).toBe(false);
  });

  it('brings a retired key back without listing it twice', () => {
    const start = {
      current: entry(second, '2026-03-01T00:00:00.000Z'),
      retired: [{ ...entry(first, '2026-01-01T00:00:00.000Z'), retiredAt: '2026-03-01T00:00:00.000Z' }],
    };
    const { document } = promoteKey(start, entry(first, '2026-01-01T00:00:00.000Z'), now);
    expect(document.current?.keyId).toBe(first.keyId);
    expect(document.retired.map((key) => key.keyId)).toEqual([second.keyId]);
  });
});
