// Remembers read models that are expensive to derive from the caches (a 90-day compliance
// evaluation walks every one of up to 90,000 runs: hundreds of milliseconds on the event loop, so
// computing it per request caps the endpoint at a few requests per second and stalls every other
// one). An entry is reused while the data it was computed from is unchanged (the caller's
// `version`, e.g. the report index's version plus a fingerprint of the tests) and it is younger
// than the TTL, which bounds how long time-dependent parts (ages, windows, what is "pending") can
// lag the clock. A reused answer carries the generatedAt of its computation, so it never claims to
// be newer than it is.
import type { RestoreTest } from '../../domain/resources/resources.js';

export interface MemoEntry<T> {
  version: string;
  computedAtMs: number;
  value: T;
}

/**
 * What the compliance responses read from the tests: which test declares which source namespaces
 * (the scope). Status writes, which the engine makes on every run, leave it unchanged.
 */
export function testScopeFingerprint(tests: readonly RestoreTest[]): string {
  const parts: string[] = [];
  for (const test of tests) {
    const sources = (test.spec.backupSource?.namespaces ?? []).map((source) => source.name).join(',');
    parts.push(`${test.metadata.namespace ?? ''}/${test.metadata.name}=${sources}`);
  }
  return parts.sort().join('\n');
}

interface PendingEntry<T> extends MemoEntry<T | undefined> {
  pending?: Promise<T>;
}

/**
 * A memo for answers computed asynchronously (cooperatively, see runSteps). An answer that
 * only aged is served once more while its replacement is computed; after a data change callers
 * wait for the new one (coalesced: one computation per key and version) — unless `maxStaleMs` is
 * set: then an answer computed at most that long ago is still served after a data change while
 * the new one is computed, so with runs finishing every second callers do not queue behind
 * evaluation after evaluation. Bound: every answer served was computed within the last
 * `maxStaleMs` (plus one evaluation, when it waited for the one in flight) and reflects every change
 * made before its computation started (its generatedAt).
 *
 * `minRefreshMs` (< maxStaleMs): after a data change, an answer younger than this is served
 * without starting a new computation. With data changing every second, recomputing as soon as the
 * previous computation ended kept a core busy with back-to-back evaluations; this caps them at one
 * per `minRefreshMs` per key and leaves the bound above as it is.
 */
export class AsyncReadModelMemo<T> {
  private readonly entries = new Map<string, PendingEntry<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 64,
    private readonly maxStaleMs = 0,
    private readonly minRefreshMs = 0,
  ) {}

  get(key: string, version: string, nowMs: number, compute: () => Promise<T>): T | Promise<T> {
    const entry = this.entries.get(key);
    if (
      entry &&
      entry.version !== version &&
      entry.value !== undefined &&
      nowMs >= entry.computedAtMs &&
      nowMs - entry.computedAtMs <= this.maxStaleMs
    ) {
      // Within the staleness bound: the previous answer, while (at most) one newer one is computed,
      // started once the previous one is minRefreshMs old.
      if (!entry.pending && nowMs - entry.computedAtMs >= this.minRefreshMs)
        this.start(key, entry, version, nowMs, compute);
      return entry.value;
    }
    // With a staleness bound, one computation at a time: when data changes faster than an
    // evaluation takes (a run a second, an evaluation of 1 s under load), starting one per
    // version piled them up until none finished. The caller gets the one in flight, which reflects
    // every change made before it started.
    if (entry?.pending && entry.version !== version && this.maxStaleMs > 0) return entry.pending;
    if (entry && entry.version === version) {
      const young = nowMs >= entry.computedAtMs && nowMs - entry.computedAtMs < this.ttlMs;
      if (entry.value !== undefined && young) return entry.value;
      if (entry.pending) return entry.value ?? entry.pending;
      if (entry.value !== undefined) {
        this.start(key, entry, version, nowMs, compute);
        return entry.value; // aged only: the previous answer while the new one is computed
      }
    }
    const fresh: PendingEntry<T> = { version, computedAtMs: nowMs, value: undefined };
    this.start(key, fresh, version, nowMs, compute);
    this.entries.delete(key);
    this.entries.set(key, fresh);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return fresh.pending!;
  }

  private start(
    key: string,
    entry: PendingEntry<T>,
    version: string,
    nowMs: number,
    compute: () => Promise<T>,
  ): void {
    const pending = compute();
    entry.pending = pending;
    pending.then(
      (value) => {
        if (this.entries.get(key) !== entry) return;
        this.entries.set(key, { version, computedAtMs: nowMs, value });
      },
      () => {
        // Not remembered: the next request tries again.
        if (this.entries.get(key) !== entry) return;
        if (entry.value !== undefined) entry.pending = undefined;
        else this.entries.delete(key);
      },
    );
  }
}

/**
 * Runs a stepwise computation (a generator that yields between steps) on the event loop, giving
 * way to other work whenever a slice has used `sliceMs`: a long evaluation then delays other
 * requests by at most about one slice instead of by its whole duration. 4 ms: a request takes a
 * few turns of the loop (headers, handler, write), each of which may follow a slice; at 8 ms a
 * 0.3 s evaluation under bench:api's 200 req/s left requests queued up to 200 ms (issue 17).
 */
export async function runSteps<T>(steps: Generator<void, T>, sliceMs = 4): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
