// Remembers the prepared bodies of the read endpoints between requests. An entry is reused while
// the cache's data version is unchanged (any test or report event changes it) and it is younger
// than its time-to-live, which bounds how far windows such as "the last 24 hours" lag the clock.
//
// An entry that only aged (same data) is served once more while its replacement is built, when
// the build is asynchronous (a list of whole reports inflates up to thousands of them on the
// thread pool): requests never queue behind a rebuild that merely moves a time window. After a
// data change, requests wait for the new answer, so a client that just wrote sees its write.
//
// The cache is bounded by bytes, not only by entries: one entry can be a 5,000-report page (15 MB).
// Each entry counts twice its body (the body, and at most as much again for its gzip form); the
// least recently built entries go first. An answer larger than maxEntryBytes (a page of thousands of
// whole reports) is served but not kept, and not compressed ahead: a client paging through a list
// rarely asks for the same page twice, and keeping it would double what the request costs.
import type { ApiCache } from '../ports.js';
import { PreparedJson } from './prepared-json.js';

/** Default budget: a few full pages of reports besides the small dashboard answers. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 48 * 1024 * 1024;
/** Largest entry kept, counted like the budget (twice the body): bodies up to 4 MiB. */
export const DEFAULT_RESPONSE_CACHE_ENTRY_BYTES = 8 * 1024 * 1024;

interface Entry {
  version: string;
  builtAtMs: number;
  /** Settled answer (undefined while the first build runs). */
  ready?: PreparedJson;
  pending?: Promise<PreparedJson>;
}

function costOf(entry: Entry): number {
  return entry.ready ? 2 * entry.ready.length : 0;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byValue = new WeakMap<object, PreparedJson>();
  private bytes = 0;

  constructor(
    private readonly cache: Pick<ApiCache, 'version'>,
    private readonly now: () => number = Date.now,
    /** Distinct keys kept (endpoint × query); the least recently built goes first. */
    private readonly maxEntries = 256,
    /** Bytes kept (see above); the least recently built go first. */
    private readonly maxBytes = DEFAULT_RESPONSE_CACHE_BYTES,
    /** Largest entry kept (see above). */
    private readonly maxEntryBytes = DEFAULT_RESPONSE_CACHE_ENTRY_BYTES,
  ) {}

  /** Bytes the settled entries count for now (tests, metrics). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** The prepared answer for `key`, built with `compute` when missing or out of date. */
  json(key: string, ttlMs: number, compute: () => unknown): PreparedJson {
    const version = this.cache.version;
    const nowMs = this.now();
    const entry = this.entries.get(key);
    if (entry?.ready && entry.version === version && this.young(entry, nowMs, ttlMs)) return entry.ready;
    const ready = PreparedJson.of(compute());
    this.remember(key, { version, builtAtMs: nowMs, ready });
    return ready;
  }

  /** Like json(), for an answer built asynchronously (already serialised). */
  jsonAsync(key: string, ttlMs: number, build: () => Promise<Buffer>): PreparedJson | Promise<PreparedJson> {
    return this.preparedAsync(key, ttlMs, async () => new PreparedJson(await build()));
  }

  /** Like jsonAsync(), for a builder that prepares the answer itself (ETag, gzip form). */
  preparedAsync(
    key: string,
    ttlMs: number,
    build: () => Promise<PreparedJson>,
  ): PreparedJson | Promise<PreparedJson> {
    const version = this.cache.version;
    const nowMs = this.now();
    const entry = this.entries.get(key);
    if (entry && entry.version === version) {
      if (entry.ready && this.young(entry, nowMs, ttlMs)) return entry.ready;
      if (entry.pending) return entry.ready ?? entry.pending;
      if (entry.ready) {
        this.rebuild(key, entry, version, nowMs, build);
        return entry.ready; // aged only: serve it while the new one is built
      }
    }
    const fresh: Entry = { version, builtAtMs: nowMs };
    this.rebuild(key, fresh, version, nowMs, build);
    this.remember(key, fresh);
    return fresh.pending!;
  }

  /** The prepared form of a value another memo already shares between requests (same object = same body). */
  forValue(value: object): PreparedJson {
    let prepared = this.byValue.get(value);
    if (!prepared) {
      prepared = PreparedJson.of(value);
      this.byValue.set(value, prepared);
    }
    return prepared;
  }

  private young(entry: Entry, nowMs: number, ttlMs: number): boolean {
    // A clock that went backwards also invalidates: the entry could be from the future.
    return nowMs >= entry.builtAtMs && nowMs - entry.builtAtMs < ttlMs;
  }

  private rebuild(
    key: string,
    entry: Entry,
    version: string,
    nowMs: number,
    build: () => Promise<PreparedJson>,
  ): void {
    // Large answers are compressed before they are served, so no request waits for that either.
    const pending = build().then(async (prepared) => {
      if (2 * prepared.length <= this.maxEntryBytes) await prepared.gzipped();
      return prepared;
    });
    entry.pending = pending;
    pending.then(
      (ready) => {
        if (this.entries.get(key) !== entry) return;
        this.remember(key, { version, builtAtMs: nowMs, ready });
      },
      () => {
        // A failed build is not remembered: the next request tries again.
        if (this.entries.get(key) === entry) {
          if (entry.ready) entry.pending = undefined;
          else this.forget(key);
        }
      },
    );
  }

  private remember(key: string, entry: Entry): void {
    this.forget(key);
    const cost = costOf(entry);
    if (cost > this.maxBytes || cost > this.maxEntryBytes) return; // served to this request, not kept
    this.entries.set(key, entry);
    this.bytes += cost;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      this.forget(this.entries.keys().next().value!);
    }
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= costOf(entry);
  }
}
