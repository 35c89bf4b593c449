import { describe, expect, it } from '@jest/globals';
import {
  MAX_NAMESPACE_PREFIX_LENGTH,
  MAX_SOURCE_NAMESPACES,
  isRfc1123Label,
  newRunId,
  reportName,
  restoreObjectName,
  sandboxNamespaceName,
  type RandomSource,
} from '../../../server/domain/run/sandbox-names.js';

const LONG_TEST = 'a-very-long-restore-test-name-that-uses-the-whole-label-length'; // 62 chars

describe('isRfc1123Label', () => {
  it.each(['a', 'payments', 'pay-db-1', '0abc', 'a'.repeat(63)])('accepts %s', (value) => {
    expect(isRfc1123Label(value)).toBe(true);
  });
  it.each(['', 'Payments', '-a', 'a-', 'a_b', 'a.b', 'a'.repeat(64), 'ä'])('rejects %j', (value) => {
    expect(isRfc1123Label(value)).toBe(false);
  });
});

describe('sandboxNamespaceName', () => {
  it.each([
    ['rehearsal', 'payments', 'x7k2p', 0, 'rehearsal-payments-x7k2p'],
    ['rehearsal', 'payments', 'x7k2p', 1, 'rehearsal-payments-x7k2p-1'],
    ['rehearsal', 'payments', 'x7k2p', 12, 'rehearsal-payments-x7k2p-12'],
    // 63 - 9 - 2 - 5 = 47 characters of the test name: exactly 63 in all
    ['rehearsal', LONG_TEST, 'x7k2p', 0, 'rehearsal-a-very-long-restore-test-name-that-uses-the-who-x7k2p'],
    // 63 - 12 - 2 - 5 = 44: the cut ends on "-", which is dropped (62 characters)
    ['rehearsal-qa', LONG_TEST, 'x7k2p', 0, 'rehearsal-qa-a-very-long-restore-test-name-that-uses-the-x7k2p'],
    // the index suffix "-3" takes two more characters from the test part
    ['rehearsal', LONG_TEST, 'x7k2p', 3, 'rehearsal-a-very-long-restore-test-name-that-uses-the-w-x7k2p-3'],
  ])('%s + %s + %s #%i = %s', (prefix, test, runId, index, expected) => {
    const name = sandboxNamespaceName(prefix, test, runId, index);
    expect(name).toBe(expected);
    expect(isRfc1123Label(name)).toBe(true);
  });

  it('always fits in 63 characters with the longest prefix, test name and index', () => {
    const prefix = 'p'.repeat(MAX_NAMESPACE_PREFIX_LENGTH);
    for (let index = 0; index < MAX_SOURCE_NAMESPACES; index += 1) {
      const name = sandboxNamespaceName(prefix, 't'.repeat(63), 'abcde', index);
      expect(name.length).toBeLessThanOrEqual(63);
      expect(isRfc1123Label(name)).toBe(true);
      expect(name.startsWith(`${prefix}-ttttttttttttt`)).toBe(true); // >= 13 characters of the test
    }
  });

  it('is deterministic and distinct per source index', () => {
    const names = Array.from({ length: 5 }, (_, index) =>
      sandboxNamespaceName('rehearsal', LONG_TEST, 'abcde', index),
    );
    expect(new Set(names).size).toBe(5);
    expect(sandboxNamespaceName('rehearsal', LONG_TEST, 'abcde', 2)).toBe(names[2]);
  });

  it('throws when the prefix leaves no room for the test name', () => {
    expect(() => sandboxNamespaceName('p'.repeat(56), 'test', 'abcde', 0)).toThrow(/no room/);
  });
});

describe('restoreObjectName and reportName', () => {
  it.each([
    ['payments', 'x7k2p', 'payments-x7k2p', 'payments-x7k2p'],
    [
      LONG_TEST,
      'x7k2p',
      'a-very-long-restore-test-name-that-uses-the-whole-label-l-x7k2p',
      `${LONG_TEST}-x7k2p`,
    ],
  ])('%s / %s', (test, runId, restore, report) => {
    expect(restoreObjectName(test, runId)).toBe(restore);
    expect(restoreObjectName(test, runId).length).toBeLessThanOrEqual(63);
    expect(reportName(test, runId)).toBe(report);
  });
});

describe('newRunId', () => {
  const bytes =
    (...values: number[]): RandomSource =>
    (size) => {
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i += 1) out[i] = values.shift() ?? 0;
      return out;
    };

  it('maps bytes to base36 characters', () => {
    expect(newRunId(bytes(0, 1, 10, 35, 36))).toBe('01az0');
  });

  it('skips bytes at or above 252 so every character is equally likely', () => {
    expect(newRunId(bytes(252, 255, 251, 7, 8, 9, 10))).toBe('z789a'); // 251 % 36 = 35
  });

  it('makes valid, varied ids from a real random source', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const id = newRunId((size) => crypto.getRandomValues(new Uint8Array(size)));
      expect(id).toMatch(/^[0-9a-z]{5}$/);
      ids.add(id);
    }
    expect(ids.size).toBeGreaterThan(190);
  });

  it('gives up on a source that never yields a usable byte', () => {
    expect(() => newRunId((size) => new Uint8Array(size).fill(255))).toThrow(/no usable bytes/);
  });
});
