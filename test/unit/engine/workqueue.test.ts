import { describe, expect, it } from '@jest/globals';
import { WorkQueue } from '../../../server/engine/workqueue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Timers under the test's control: fire(ms) runs every timer due by then. */
function fakeTimers() {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 0;
  return {
    setTimer: (fn: () => void, ms: number) => {
      const id = next++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimer: (handle: unknown) => {
      const index = timers.findIndex((timer) => timer.id === handle);
      if (index >= 0) timers.splice(index, 1);
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((entry) => entry.at <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.fn();
      }
    },
    pending: () => timers.map((timer) => timer.at - now),
  };
}

describe('WorkQueue', () => {
  it('holds a waiting key once however often it is added', async () => {
    const seen: string[] = [];
    const gate = deferred();
    const queue = new WorkQueue(
      async (key) => {
        seen.push(key);
        if (key === 'busy') await gate.promise;
      },
      { concurrency: 1 },
    );
    queue.add('busy'); // occupies the only worker
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    gate.resolve();
    await queue.whenIdle();
    expect(seen).toEqual(['busy', 'a', 'b']);
  });

  it('never processes one key twice at the same time, and reruns a key added meanwhile', async () => {
    const gate = deferred();
    let active = 0;
    let peak = 0;
    let runs = 0;
    const queue = new WorkQueue(
      async () => {
        active++;
        peak = Math.max(peak, active);
        runs++;
        if (runs === 1) await gate.promise;
        active--;
      },
      { concurrency: 4 },
    );
    queue.add('k');
    await Promise.resolve();
    queue.add('k'); // while the first pass runs
    queue.add('k');
    gate.resolve();
    await queue.whenIdle();
    await queue.whenIdle();
    expect(peak).toBe(1);
    expect(runs).toBe(2);
  });

  it('runs different keys concurrently up to the limit', async () => {
    const gates = [deferred(), deferred(), deferred()];
    let active = 0;
    let peak = 0;
    const queue = new WorkQueue(
      async (key) => {
        active++;
        peak = Math.max(peak, active);
        await gates[Number(key)]!.promise;
        active--;
      },
      { concurrency: 2 },
    );
    ['0', '1', '2'].forEach((key) => queue.add(key));
    await Promise.resolve();
    expect(peak).toBe(2);
    gates.forEach((gate) => gate.resolve());
    await queue.whenIdle();
    expect(peak).toBe(2);
  });

  it('retries a failing key with exponential backoff and forgets it after success', async () => {
    const timers = fakeTimers();
    let attempts = 0;
    const errors: string[] = [];
    const queue = new WorkQueue(
      async () => {
        attempts++;
        if (attempts < 4) throw new Error(`attempt ${attempts}`);
      },
      { concurrency: 1, baseBackoffMs: 100, maxBackoffMs: 250, setTimer: timers.setTimer, clearTimer: timers.clearTimer },
      undefined,
      (_key, error) => errors.push((error as Error).message),
    );
    queue.add('k');
    await queue.whenIdle();
    expect(timers.pending()).toEqual([100]);
    timers.advance(100);
    await queue.whenIdle();
    expect(timers.pending()).toEqual([200]);
    timers.advance(200);
    await queue.whenIdle();
    expect(timers.pending()).toEqual([250]); // capped
    timers.advance(250);
    await queue.whenIdle();
    expect(attempts).toBe(4);
    expect(errors).toEqual(['attempt 1', 'attempt 2', 'attempt 3']);
  });

  it('keeps the earliest of two delayed adds', () => {
    const timers = fakeTimers();
    const queue = new WorkQueue(async () => undefined, { concurrency: 1, setTimer: timers.setTimer, clearTimer: timers.clearTimer });
    queue.addAfter('k', 1000);
    queue.addAfter('k', 5000);
    expect(timers.pending()).toEqual([1000]);
    queue.addAfter('k', 10);
    expect(timers.pending()).toEqual([10]);
  });

  it('accepts nothing after stop until resumed', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue(async (key) => void seen.push(key), { concurrency: 1 });
    queue.stop();
    queue.add('a');
    await queue.whenIdle();
    expect(seen).toEqual([]);
    queue.resume();
    queue.add('b');
    await queue.whenIdle();
    expect(seen).toEqual(['b']);
  });
});
