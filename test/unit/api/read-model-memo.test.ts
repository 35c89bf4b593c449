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

  it('with maxStaleMs: serves the previous answer after a data change within the bound, then waits', async () => {
    const memo = new AsyncReadModelMemo<string>(300_000, 64, 10_000);
    await memo.get('k', 'v1', 0, async () => 'a1');
    const second = deferred<string>();
    let computed = 0;
    const compute = () => {
      computed += 1;
      return second.promise;
    };
    // Data changed 5 s after a1 was computed: a1 still, and one computation of v2 starts.
    expect(memo.get('k', 'v2', 5_000, compute)).toBe('a1');
    expect(memo.get('k', 'v3', 6_000, compute)).toBe('a1'); // newer data meanwhile: no second computation
    expect(computed).toBe(1);
    second.resolve('a2');
    await second.promise;
    await Promise.resolve();
    expect(memo.get('k', 'v2', 7_000, compute)).toBe('a2');
    // a2 was computed at 5,000: past 15,000 it is too old to stand in for newer data.
    const waited = memo.get('k', 'v4', 15_001, async () => 'a4');
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe('a4');
  });

  it('with maxStaleMs: an answer of older data was computed within the bound (random schedules)', async () => {
    const maxStaleMs = 2_000;
    for (let seed = 1; seed <= 10; seed += 1) {
      let state = seed;
      const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const memo = new AsyncReadModelMemo<{ version: number; computedAt: number }>(60_000, 64, maxStaleMs);
      let version = 0;
      let now = 0;
      for (let step = 0; step < 300; step += 1) {
        now += Math.floor(next() * 700);
        if (next() < 0.4) version += 1;
        const at = now;
        const current = version;
        const answer = await memo.get('k', String(current), at, async () => {
          await Promise.resolve();
          return { version: current, computedAt: at };
        });
        // Of the current data (aged at most by the TTL), or of older data computed within the bound.
        const ok = answer.version === current || (answer.version < current && at - answer.computedAt <= maxStaleMs);
        expect({ seed, step, ok }).toEqual({ seed, step, ok: true });
      }
    }
  });

  it('with minRefreshMs: after a data change, recomputes only once the answer is that old', async () => {
    const memo = new AsyncReadModelMemo<string>(300_000, 64, 10_000, 5_000);
    await memo.get('k', 'v1', 0, async () => 'a1');
    let computed = 0;
    const compute = async () => {
      computed += 1;
      return `a${computed + 1}`;
    };
    expect(memo.get('k', 'v2', 1_000, compute)).toBe('a1'); // 1 s old: served, nothing started
    expect(memo.get('k', 'v3', 4_999, compute)).toBe('a1');
    expect(computed).toBe(0);
    expect(memo.get('k', 'v4', 5_000, compute)).toBe('a1'); // 5 s old: one re-evaluation starts
    expect(computed).toBe(1);
    await Promise.resolve();
    await Promise.resolve();
    expect(memo.get('k', 'v4', 5_001, compute)).toBe('a2'); // of v4, computed at 5,000
    expect(memo.get('k', 'v5', 9_999, compute)).toBe('a2');
    expect(computed).toBe(1);
    // Past the bound nothing stale is served: the caller waits for the new answer.
    const waited = memo.get('k', 'v6', 15_001, compute);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe('a3');
  });

  it('with minRefreshMs: an answer of older data was computed within the bound (random schedules)', async () => {
    const maxStaleMs = 2_000;
    for (let seed = 1; seed <= 10; seed += 1) {
      let state = seed;
      const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const memo = new AsyncReadModelMemo<{ version: number; computedAt: number }>(60_000, 64, maxStaleMs, 1_000);
      let version = 0;
      let now = 0;
      for (let step = 0; step < 300; step += 1) {
        now += Math.floor(next() * 700);
        if (next() < 0.4) version += 1;
        const at = now;
        const current = version;
        const answer = await memo.get('k', String(current), at, async () => {
          await Promise.resolve();
          return { version: current, computedAt: at };
        });
        const ok = answer.version === current || (answer.version < current && at - answer.computedAt <= maxStaleMs);
        expect({ seed, step, ok }).toEqual({ seed, step, ok: true });
      }
    }
  });

  it('with maxStaleMs: one computation at a time while the data keeps changing', async () => {
    const memo = new AsyncReadModelMemo<string>(300_000, 64, 10_000);
    const first = deferred<string>();
    let computed = 0;
    const compute = () => {
      computed += 1;
      return first.promise;
    };
    const a = memo.get('k', 'v1', 0, compute);
    const b = memo.get('k', 'v2', 1_000, compute); // no answer yet: waits for the one in flight
    const c = memo.get('k', 'v3', 2_000, compute);
    expect(computed).toBe(1);
    first.resolve('a1');
    expect([await a, await b, await c]).toEqual(['a1', 'a1', 'a1']);
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
