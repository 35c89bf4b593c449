// The peak resident set size of this process while an async task runs, sampled every few ms
// (plus once before and after), so a test can say how much memory one operation took.
export async function measurePeakRss<T>(
  task: () => Promise<T>,
): Promise<{ result: T; baselineBytes: number; peakBytes: number }> {
  const baselineBytes = process.memoryUsage.rss();
  let peakBytes = baselineBytes;
  const sample = (): void => {
    peakBytes = Math.max(peakBytes, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await task();
    sample();
    return { result, baselineBytes, peakBytes };
  } finally {
    clearInterval(timer);
  }
}

export const MiB = 1024 * 1024;
