// How long other work would wait behind `work`: a 1 ms timer ticks while it runs, and the longest
// gap between two ticks is the longest the event loop was held. Used by bench:domain and the
// latest-warm bench.
import { performance } from 'node:perf_hooks';

export async function eventLoopGapsDuring(work: () => unknown): Promise<{ wallMs: number; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const tick = performance.now();
    maxGapMs = Math.max(maxGapMs, tick - last);
    last = tick;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  maxGapMs = 0;
  last = performance.now();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 5)); // the tick after a blocking call
  clearInterval(ticker);
  return { wallMs, maxGapMs };
}
