// The incremental latest-list answer equals a full rebuild after any sequence of changes, and its
// gzip form (chunks' deflate streams joined into one member) decodes to the body.
import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { IncrementalJsonList, chunkBoundaries, type ListElement } from '../../../server/api/responses/incremental-json-list.js';

/** A small seeded PRNG (mulberry32): failures name their seed and replay. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Report {
  key: string;
  test: string;
  completedAt: number;
  score: number;
  /** Identity changes with content, like the cache's summary object. */
  summary: object;
}

/** A store of reports and the latest-per-test list over it, newest first (as ReportsService). */
class Store {
  readonly reports = new Map<string, Report>();
  reads = 0;

  json = (key: string): Buffer | undefined => {
    this.reads += 1;
    const report = this.reports.get(key);
    return report && Buffer.from(JSON.stringify({ key, test: report.test, score: report.score, at: report.completedAt }));
  };

  latest(): ListElement[] {
    const newest = new Map<string, Report>();
    for (const report of this.reports.values()) {
      const current = newest.get(report.test);
      if (!current || current.completedAt < report.completedAt) newest.set(report.test, report);
    }
    return [...newest.values()]
      .sort((a, b) => b.completedAt - a.completedAt || (a.key < b.key ? 1 : -1))
      .map((report) => ({ key: report.key, group: report.test, source: report.summary }));
  }

  /** What a full rebuild answers: every element's JSON, joined. */
  full(elements: readonly ListElement[]): Buffer {
    const parts = elements.map((element) => this.json(element.key)).filter((part) => part !== undefined);
    return Buffer.from(`[${parts.map((part) => part.toString('utf8')).join(',')}]`);
  }
}

function mutate(store: Store, next: () => number, clock: { now: number }, tests: number): void {
  const roll = next();
  const test = `ns/test-${Math.floor(next() * tests)}`;
  clock.now += 1 + Math.floor(next() * 5);
  if (roll < 0.6) {
    // A run finishes: a new report, the test's newest.
    const key = `ns/r-${clock.now}-${Math.floor(next() * 1e6)}`;
    store.reports.set(key, { key, test, completedAt: clock.now, score: Math.floor(next() * 101), summary: {} });
  } else if (roll < 0.8 && store.reports.size > 0) {
    // A report replaced in place (same key, new content).
    const keys = [...store.reports.keys()];
    const report = store.reports.get(keys[Math.floor(next() * keys.length)]!)!;
    store.reports.set(report.key, { ...report, score: Math.floor(next() * 101), summary: {} });
  } else if (store.reports.size > 0) {
    // A report deleted (pruned, or its test deleted).
    const keys = [...store.reports.keys()];
    store.reports.delete(keys[Math.floor(next() * keys.length)]!);
  }
}

describe('IncrementalJsonList', () => {
  it('equals a full rebuild, body and gzip, after random sequences of changes (12 seeds)', async () => {
    for (let seed = 1; seed <= 12; seed += 1) {
      const next = random(seed);
      const store = new Store();
      const clock = { now: 0 };
      const tests = 5 + Math.floor(next() * 200);
      for (let i = 0; i < tests * 2; i += 1) mutate(store, next, clock, tests);
      const list = new IncrementalJsonList(store.json);
      for (let step = 0; step < 30; step += 1) {
        const changes = Math.floor(next() * 4);
        for (let i = 0; i < changes; i += 1) mutate(store, next, clock, tests);
        const elements = store.latest();
        const prepared = await list.build(elements);
        const expected = store.full(elements);
        expect({ seed, step, body: prepared.body.toString('utf8') }).toEqual({ seed, step, body: expected.toString('utf8') });
        expect(gunzipSync(await prepared.gzipped()).equals(expected)).toBe(true);
        // The ETag is a function of the content (a fresh list, built whole, has the same).
        if (step % 10 === 9) expect((await new IncrementalJsonList(store.json).build(elements)).etag).toBe(prepared.etag);
      }
    }
  }, 60_000);

  it('a new run re-reads only its own report, and the ETag changes', async () => {
    const next = random(7);
    const store = new Store();
    const clock = { now: 0 };
    for (let i = 0; i < 1000; i += 1) {
      clock.now += 1;
      const key = `ns/r-${i}`;
      store.reports.set(key, { key, test: `ns/test-${i}`, completedAt: clock.now, score: 90, summary: {} });
    }
    const list = new IncrementalJsonList(store.json);
    const before = await list.build(store.latest());
    expect(store.reads).toBe(1000);
    store.reads = 0;
    const key = 'ns/r-new';
    store.reports.set(key, { key, test: `ns/test-${Math.floor(next() * 1000)}`, completedAt: 5000, score: 10, summary: {} });
    const after = await list.build(store.latest());
    expect(store.reads).toBe(1);
    expect(after.etag).not.toBe(before.etag);
    expect(after.body.equals(store.full(store.latest()))).toBe(true);
  });

  it('leaves out an element whose JSON vanished, and does not keep that chunk', async () => {
    const store = new Store();
    for (let i = 0; i < 40; i += 1) {
      const key = `ns/r-${i}`;
      store.reports.set(key, { key, test: `ns/test-${i}`, completedAt: i, score: 1, summary: {} });
    }
    const elements = store.latest();
    const gone = elements[3]!;
    const report = store.reports.get(gone.key)!;
    store.reports.delete(gone.key);
    const list = new IncrementalJsonList(store.json);
    const partial = await list.build(elements);
    expect(JSON.parse(partial.body.toString('utf8'))).toHaveLength(39);
    store.reports.set(gone.key, report); // back (e.g. the watch caught up)
    const whole = await list.build(elements);
    expect(JSON.parse(whole.body.toString('utf8'))).toHaveLength(40);
    expect(gunzipSync(await whole.gzipped()).equals(whole.body)).toBe(true);
  });

  it('answers an empty list', async () => {
    const prepared = await new IncrementalJsonList(() => undefined).build([]);
    expect(prepared.body.toString()).toBe('[]');
    expect(gunzipSync(await prepared.gzipped()).toString()).toBe('[]');
    expect(prepared.etag).toMatch(/^"[\w-]+"$/);
  });

  it('cuts chunks by content: moving one element to the front changes at most three chunks', () => {
    const elements: ListElement[] = Array.from({ length: 1000 }, (_, i) => ({
      key: `ns/r-${i}`,
      group: `ns/test-${i}`,
      source: {},
    }));
    const signature = (list: readonly ListElement[]) =>
      new Set(chunkBoundaries(list).map((chunk) => chunk.map((element) => element.key).join(',')));
    const before = signature(elements);
    expect(before.size).toBeGreaterThan(10); // ~1,000 / 32
    const moved = [elements[500]!, ...elements.slice(0, 500), ...elements.slice(501)];
    const after = signature(moved);
    const changed = [...after].filter((chunk) => !before.has(chunk));
    expect(changed.length).toBeLessThanOrEqual(3);
  });
});
