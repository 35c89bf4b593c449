import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { PreparedJson } from '../../../server/api/responses/prepared-json.js';
import { ResponseCache } from '../../../server/api/responses/response-cache.js';

function setup() {
  const state = { version: 'v1', now: 1_000 };
  const responses = new ResponseCache(
    {
      get version() {
        return state.version;
      },
    },
    () => state.now,
  );
  return { state, responses };
}

const text = (prepared: PreparedJson) => prepared.body.toString('utf8');

describe('PreparedJson', () => {
  it('has an ETag that depends only on the body, and a gzip form of the same bytes', async () => {
    const a = PreparedJson.of({ items: [1, 2, 3] });
    const b = PreparedJson.of({ items: [1, 2, 3] });
    const c = PreparedJson.of({ items: [1, 2, 4] });
    expect(a.etag).toBe(b.etag);
    expect(a.etag).not.toBe(c.etag);
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(gunzipSync(await a.gzipped()).equals(a.body)).toBe(true);
    expect(a.gzipped()).toBe(a.gzipped()); // compressed once
  });
});

describe('ResponseCache', () => {
  it('reuses an answer while the data version and the TTL hold, and recomputes after either changes', () => {
    const { state, responses } = setup();
    let calls = 0;
    const compute = () => ({ call: ++calls });
    expect(text(responses.json('k', 1_000, compute))).toBe('{"call":1}');
    state.now += 999;
    expect(text(responses.json('k', 1_000, compute))).toBe('{"call":1}');
    state.now += 1;
    expect(text(responses.json('k', 1_000, compute))).toBe('{"call":2}');
    state.version = 'v2';
    expect(text(responses.json('k', 1_000, compute))).toBe('{"call":3}');
    expect(text(responses.json('other', 1_000, compute))).toBe('{"call":4}');
    state.now -= 10; // the clock went back: the entry could be from the future
    expect(text(responses.json('k', 1_000, compute))).toBe('{"call":5}');
  });

  it('does not remember a failed computation', () => {
    const { responses } = setup();
    expect(() =>
      responses.json('k', 1_000, () => {
        throw new Error('not ready');
      }),
    ).toThrow('not ready');
    expect(text(responses.json('k', 1_000, () => 'ok'))).toBe('"ok"');
  });

  it('serves an aged async answer while its replacement is built, but waits after a data change', async () => {
    const { state, responses } = setup();
    const builds: ((body: string) => void)[] = [];
    const build = () => new Promise<Buffer>((resolve) => builds.push((body) => resolve(Buffer.from(body))));

    const first = responses.jsonAsync('r', 5_000, build);
    expect(first).toBeInstanceOf(Promise);
    expect(responses.jsonAsync('r', 5_000, build)).toBe(first); // one build for concurrent requests
    builds.shift()!('[1]');
    expect(text(await first)).toBe('[1]');
    expect(text(await responses.jsonAsync('r', 5_000, build))).toBe('[1]');
    expect(builds).toHaveLength(0);

    state.now += 5_000; // aged only: the old answer, at once, while a rebuild starts
    const aged = responses.jsonAsync('r', 5_000, build);
    expect(aged).toBeInstanceOf(PreparedJson);
    expect(text(aged as PreparedJson)).toBe('[1]');
    expect(builds).toHaveLength(1);
    expect(responses.jsonAsync('r', 5_000, build)).toBe(aged); // no second rebuild
    builds.shift()!('[1,2]');
    // Swapped in once built and compressed (gzip runs on the thread pool).
    const current = () => text(responses.jsonAsync('r', 5_000, build) as PreparedJson);
    for (let tries = 0; tries < 200 && current() !== '[1,2]'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(current()).toBe('[1,2]');
    expect(builds).toHaveLength(0);

    state.version = 'v2'; // data changed: the new answer or nothing
    const changed = responses.jsonAsync('r', 5_000, build);
    expect(changed).toBeInstanceOf(Promise);
    builds.shift()!('[3]');
    expect(text(await changed)).toBe('[3]');
  });

  it('forgets a failed async build so the next request tries again', async () => {
    const { responses } = setup();
    await expect(
      responses.jsonAsync('r', 1_000, () => Promise.reject(new Error('inflate failed'))),
    ).rejects.toThrow('inflate failed');
    expect(text(await responses.jsonAsync('r', 1_000, async () => Buffer.from('[]')))).toBe('[]');
  });

  it('keeps the body of a value another memo shares (same object, same PreparedJson)', () => {
    const { responses } = setup();
    const value = { framework: 'soc2' };
    expect(responses.forValue(value)).toBe(responses.forValue(value));
    expect(responses.forValue({ framework: 'soc2' })).not.toBe(responses.forValue(value));
  });
});

describe('ResponseCache: bounded by bytes', () => {
  const versioned = { version: 'v1' };
  const body = (bytes: number) => 'x'.repeat(bytes - 2); // JSON string: two quotes

  it('evicts the least recently built entries once their bodies pass the budget', () => {
    const responses = new ResponseCache(versioned, () => 0, 256, 10_000, 10_000);
    for (const key of ['a', 'b', 'c']) responses.json(key, 1_000, () => body(2_000)); // 4,000 each
    expect(responses.size).toEqual({ entries: 2, bytes: 8_000 });
    let recomputed = 0;
    responses.json('a', 1_000, () => (recomputed++, body(2_000)));
    expect(recomputed).toBe(1); // "a" went first
    responses.json('c', 1_000, () => (recomputed++, body(2_000)));
    expect(recomputed).toBe(1); // "c" stayed
  });

  it('serves an answer larger than the largest entry without keeping it', async () => {
    const responses = new ResponseCache(versioned, () => 0, 256, 100_000, 10_000);
    responses.json('small', 1_000, () => body(100));
    const big = await responses.jsonAsync('big', 1_000, async () => Buffer.from(JSON.stringify(body(6_000))));
    expect(big.body.length).toBe(6_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(responses.size).toEqual({ entries: 1, bytes: 200 });
  });
});
