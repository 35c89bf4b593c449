// Remembers read models that are expensive to derive from the caches (a 90-day compliance
// evaluation walks every one of up to 90,000 runs: hundreds of milliseconds on the event loop, so
// computing it per request caps the endpoint at a few requests per second and stalls every other
// one). An entry is reused while the data it was computed from is unchanged (the caller's
// `version`, e.g. the report index's version plus a fingerprint of the tests) and it is younger
// than the TTL, which bounds how long time-dependent parts (ages, windows, what is "pending") can
// lag the clock. A reused answer carries the generatedAt of its computation, so it never claims to
// be newer than it is.
import type { RestoreTest } from '../../domain/resources.js';

export interface MemoEntry<T> {
  version: string;
  computedAtMs: number;
  value: T;
}

export class ReadModelMemo<T> {
  private readonly entries = new Map<string, MemoEntry<T>>();

  constructor(
    private readonly ttlMs: number,
    /** Distinct keys kept (e.g. framework × period); the least recently computed goes first. */
    private readonly maxEntries = 64,
  ) {}

  get(key: string, version: string, nowMs: number, compute: () => T): T {
    const entry = this.entries.get(key);
    // A clock that went backwards (tests, NTP) also invalidates: the entry could be from the future.
    if (
      entry &&
      entry.version === version &&
      nowMs >= entry.computedAtMs &&
      nowMs - entry.computedAtMs < this.ttlMs
    ) {
      return entry.value;
    }
    const value = compute();
    this.entries.delete(key);
    this.entries.set(key, { version, computedAtMs: nowMs, value });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
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
