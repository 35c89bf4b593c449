// An open-loop load generator on loopback: request i is due at start + i / rate whatever happened
// to the earlier ones, and its latency is measured from that due time (so a server that falls
// behind shows it in the percentiles instead of silently lowering the rate: no coordinated
// omission). Bounded in count (rate × duration) and in time (per-request timeout).
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface LoadOptions {
  origin: string;
  path: string;
  rate: number;
  durationSeconds: number;
  /** Connections the pool may open (requests beyond wait in its queue, which counts as latency). */
  connections?: number;
  timeoutMs?: number;
  /** Request headers, e.g. Accept-Encoding (bodies are counted as received, not decompressed). */
  headers?: Record<string, string>;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  path: string;
  targetRate: number;
  sent: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  /** Completed responses per second between the first due time and the last response. */
  throughput: number;
  /** From the request's due time to the end of its body, in ms. */
  latencyMs: LatencySummary;
  /** From the moment the request was actually handed to the pool, in ms (excludes generator lag). */
  serviceMs: LatencySummary;
  meanResponseBytes: number;
  /** How late the generator itself fired requests (its own event-loop lag), in ms. */
  maxFireLagMs: number;
  /** The slowest requests: when each was due (time of day, UTC) and its latency, to line up with logs. */
  slowest: { dueAt: string; latencyMs: number }[];
}

export function summarize(values: number[]): LatencySummary {
  if (values.length === 0) return { p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (value: number): number => Math.round(value * 100) / 100;
  return {
    p50: round(rank(0.5)),
    p90: round(rank(0.9)),
    p99: round(rank(0.99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function runOpenLoop(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`load goes to loopback only, not ${options.origin}`);
  const total = Math.max(1, Math.round(options.rate * options.durationSeconds));
  const intervalMs = 1000 / options.rate;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pool = new Pool(url.origin, {
    connections: options.connections ?? 64,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const latencies: number[] = [];
  const dueTimes: number[] = [];
  const service: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  let bytes = 0;
  let maxFireLagMs = 0;
  let lastResponseAt = 0;
  const inFlight: Promise<void>[] = [];
  // Hard bound in time: whatever has not completed by the end of the run plus one timeout is
  // abandoned (counted as failed), so a server that cannot keep up costs seconds, not minutes.
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(() => deadline.abort(), options.durationSeconds * 1000 + timeoutMs);

  const fire = async (due: number): Promise<void> => {
    const sentAt = performance.now();
    maxFireLagMs = Math.max(maxFireLagMs, sentAt - due);
    try {
      const response = await pool.request({
        method: 'GET',
        path: options.path,
        ...(options.headers ? { headers: options.headers } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: deadline.signal,
      });
      let size = 0;
      for await (const chunk of response.body) size += (chunk as Buffer).length;
      const end = performance.now();
      lastResponseAt = Math.max(lastResponseAt, end);
      statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
      if (response.statusCode === 200) {
        ok += 1;
        bytes += size;
        latencies.push(end - due);
        dueTimes.push(due);
        service.push(end - sentAt);
      } else {
        failed += 1;
      }
    } catch (error) {
      const name =
        (error as Error).name === 'AbortError'
          ? 'abandoned-at-deadline'
          : ((error as { code?: string }).code ?? (error as Error).name);
      statuses[name] = (statuses[name] ?? 0) + 1;
      failed += 1;
    }
  };

  const start = performance.now() + 5;
  for (let index = 0; index < total; index += 1) {
    const due = start + index * intervalMs;
    // Timers fire up to ~1 ms late; that lag counts against the server (conservative) and is reported.
    // They can also fire up to ~1 ms early (libuv's clock is in whole ms): sleep again until the due
    // time has come, so no request is sent early (which showed as a negative latency).
    for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
      await sleep(Math.max(1, Math.ceil(wait)));
    }
    inFlight.push(fire(due));
  }
  await Promise.all(inFlight);
  clearTimeout(deadlineTimer);
  await pool.destroy();
  const elapsedSeconds = (lastResponseAt - start) / 1000;
  return {
    path: options.path,
    targetRate: options.rate,
    sent: total,
    ok,
    failed,
    statuses,
    throughput: elapsedSeconds > 0 ? Math.round((ok / elapsedSeconds) * 10) / 10 : 0,
    latencyMs: summarize(latencies),
    serviceMs: summarize(service),
    meanResponseBytes: ok ? Math.round(bytes / ok) : 0,
    maxFireLagMs: Math.round(maxFireLagMs * 100) / 100,
    slowest: slowestOf(latencies, dueTimes, 5),
  };
}

function slowestOf(latencies: number[], dueTimes: number[], count: number): LoadResult['slowest'] {
  return latencies
    .map((latencyMs, index) => ({ latencyMs, due: dueTimes[index]! }))
    .sort((a, b) => b.latencyMs - a.latencyMs)
    .slice(0, count)
    .map(({ latencyMs, due }) => ({
      dueAt: new Date(performance.timeOrigin + due).toISOString().slice(11, 23),
      latencyMs: Math.round(latencyMs * 10) / 10,
    }));
}
