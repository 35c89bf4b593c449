import { describe, expect, it } from '@jest/globals';
import { ReadModelMemo, testScopeFingerprint } from '../../../server/api/services/read-model-memo.js';
import { makeTest } from '../domain/fixtures.js';

describe('ReadModelMemo', () => {
  it('reuses an entry while the version is unchanged and the TTL has not passed', () => {
    const memo = new ReadModelMemo<number>(60_000);
    let computed = 0;
    const compute = (): number => ++computed;
    expect(memo.get('soc2/90', 'v1', 1_000, compute)).toBe(1);
    expect(memo.get('soc2/90', 'v1', 60_999, compute)).toBe(1); // 59.999 s later
    expect(memo.get('soc2/90', 'v1', 61_000, compute)).toBe(2); // TTL reached
    expect(memo.get('soc2/90', 'v2', 61_001, compute)).toBe(3); // the data changed
    expect(memo.get('soc2/90', 'v2', 61_000, compute)).toBe(4); // the clock went backwards
    expect(memo.get('hipaa/90', 'v2', 61_000, compute)).toBe(5); // another key
    expect(memo.get('soc2/90', 'v2', 61_000, compute)).toBe(4);
  });

  it('keeps at most maxEntries keys, dropping the least recently computed', () => {
    const memo = new ReadModelMemo<string>(60_000, 2);
    memo.get('a', 'v', 0, () => 'a1');
    memo.get('b', 'v', 0, () => 'b1');
    memo.get('c', 'v', 0, () => 'c1');
    expect(memo.get('b', 'v', 0, () => 'b2')).toBe('b1');
    expect(memo.get('a', 'v', 0, () => 'a2')).toBe('a2');
    memo.clear();
    expect(memo.get('a', 'v', 0, () => 'a3')).toBe('a3');
  });

  it('does not remember a computation that threw', () => {
    const memo = new ReadModelMemo<number>(60_000);
    expect(() =>
      memo.get('k', 'v', 0, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(memo.get('k', 'v', 0, () => 7)).toBe(7);
  });
});

describe('testScopeFingerprint', () => {
  const tests = [
    makeTest({ name: 'payments', sources: ['payments', 'payments-db'] }),
    makeTest({ name: 'shop', namespace: 'team-a' }),
  ];

  it('ignores order and status, and changes with names and source namespaces', () => {
    const base = testScopeFingerprint(tests);
    expect(testScopeFingerprint([...tests].reverse())).toBe(base);
    expect(
      testScopeFingerprint(
        tests.map((test) => ({ ...test, status: { phase: 'Running' as const, lastScore: 3 } })),
      ),
    ).toBe(base);
    expect(testScopeFingerprint([tests[0]!])).not.toBe(base);
    expect(testScopeFingerprint([tests[0]!, makeTest({ name: 'shop', namespace: 'team-b' })])).not.toBe(base);
    expect(testScopeFingerprint([makeTest({ name: 'payments', sources: ['payments'] }), tests[1]!])).not.toBe(
      base,
    );
  });
});
