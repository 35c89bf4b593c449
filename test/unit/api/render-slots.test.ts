// The PDF render limit: a request beyond the slots is refused at once (503 pdf-busy, Retry-After),
// and a slot is given back whether the render succeeded or failed.
import { describe, expect, it } from '@jest/globals';
import { ProblemError } from '../../../server/api/problem.js';
import { RenderSlots } from '../../../server/api/services/render-slots.js';

function deferred(): {
  promise: Promise<string>;
  resolve: (value: string) => void;
  reject: (error: Error) => void;
} {
  let resolve!: (value: string) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('RenderSlots', () => {
  it('runs up to `size` renders at once and refuses the next with pdf-busy and Retry-After', async () => {
    const slots = new RenderSlots(2, 5);
    const first = deferred();
    const second = deferred();
    const a = slots.run(() => first.promise);
    const b = slots.run(() => second.promise);
    expect(slots.inUse).toBe(2);
    let refused: unknown;
    let ran = false;
    try {
      await slots.run(async () => {
        ran = true;
        return 'third';
      });
    } catch (error) {
      refused = error;
    }
    expect(ran).toBe(false);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({
      slug: 'pdf-busy',
      status: 503,
      extras: { headers: { 'Retry-After': '5' } },
    });
    first.resolve('one');
    await expect(a).resolves.toBe('one');
    await expect(slots.run(async () => 'after')).resolves.toBe('after');
    second.reject(new Error('render failed'));
    await expect(b).rejects.toThrow('render failed');
    expect(slots.inUse).toBe(0);
  });
});
