// A small bounded cache with per-entry expiry for authentication and authorization answers. Values
// are promises, so concurrent requests with the same token share one review; a review that
// fails (apiserver unreachable) is dropped at once instead of being remembered.

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value for key, or load() remembered for ttl(value) milliseconds. */
  getOrLoad(key: string, load: () => Promise<V>, ttl: (value: V) => number): Promise<V> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    if (cached) this.entries.delete(key);
    // Until the answer arrives the entry lives briefly; the answer sets its real expiry.
    const entry = { value: load(), expiresAt: now + 60_000 };
    this.entries.set(key, entry);
    this.evict();
    entry.value.then(
      (value) => {
        if (this.entries.get(key) === entry) entry.expiresAt = this.now() + ttl(value);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }

  private evict(): void {
    if (this.entries.size <= this.maxEntries) return;
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full: drop the oldest insertions (Map iterates in insertion order).
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
