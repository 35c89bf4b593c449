import { describe, expect, it } from '@jest/globals';
import {
  AsyncReadModelMemo,
  runSteps,
  testScopeFingerprint,
} from '../../../server/api/services/read-model-memo.js';
import { makeTest } from '../domain/fixtures.js';

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

describe('AsyncReadModelMemo', () => {
  /** A computation the test finishes by hand. */
  function deferred<T>() {
    let resolve!: (value: T) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<T>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise, resolve, reject };
  }

  it('coalesces concurrent callers into one computation and then serves its answer', async () => {
    const memo = new AsyncReadModelMemo<string>(60_000);
    const first = deferred<string>();
    let computed = 0;
    const compute = () => {
      computed += 1;
      return first.promise;
    };
    const a = memo.get('soc2/90', 'v1', 0, compute);
    const b = memo.get('soc2/90', 'v1', 5, compute);
    expect(computed).toBe(1);
    first.resolve('answer');
    expect(await a).toBe('answer');
    expect(await b).toBe('answer');
    expect(memo.get('soc2/90', 'v1', 10, compute)).toBe('answer'); // synchronously, no new computation
    expect(computed).toBe(1);
  });

  it('serves an aged answer once more while its replacement is computed, but not one of old data', async () => {
    const memo = new AsyncReadModelMemo<string>(1_000);
    await memo.get('k', 'v1', 0, async () => 'old');
    const replacement = deferred<string>();
    expect(memo.get('k', 'v1', 1_000, () => replacement.promise)).toBe('old'); // aged: stale answer now
    expect(memo.get('k', 'v1', 1_001, () => Promise.resolve('never'))).toBe('old'); // still computing
    replacement.resolve('new');
    await replacement.promise;
    await Promise.resolve();
    expect(memo.get('k', 'v1', 1_002, () => Promise.resolve('never'))).toBe('new');
    // The data changed: the caller waits for the answer computed from the new data.
    const changed = memo.get('k', 'v2', 1_003, async () => 'fresh');
    expect(changed).toBeInstanceOf(Promise);
    expect(await changed).toBe('fresh');
  });

  it('does not remember a failed computation', async () => {
    const memo = new AsyncReadModelMemo<number>(60_000);
    await expect(memo.get('k', 'v', 0, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await memo.get('k', 'v', 1, async () => 7)).toBe(7);
  });
});

describe('runSteps', () => {
  it("returns the generator's value and gives way to other work between slices", async () => {
    let otherWorkRan = false;
    setImmediate(() => {
      otherWorkRan = true;
    });
    let stepsAfterOtherWork = 0;
    function* busy(): Generator<void, string> {
      for (let step = 0; step < 50; step++) {
        const until = performance.now() + 2; // 2 ms of CPU per step, 100 ms in all
        while (performance.now() < until);
        if (otherWorkRan) stepsAfterOtherWork += 1;
        yield;
      }
      return 'done';
    }
    expect(await runSteps(busy(), 8)).toBe('done');
    // The setImmediate callback ran after the first slice (about 4 steps), not after all 50 steps.
    expect(otherWorkRan).toBe(true);
    expect(stepsAfterOtherWork).toBeGreaterThan(30);
  });
});
