// One zlib state for many small raw-deflate inputs (issue 12: a zlib stream per report left a
// native dictionary copy behind each call). Every input must come out exactly as zlib's one-shot
// functions give it, whatever came before it: the reset between inputs must re-apply the
// dictionary, a failed input must not poison the next one, and the output must grow when needed.
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { RawDeflater, RawInflater } from '../../../server/report-codec/raw-zlib.js';

const dictionary = Buffer.from(
  JSON.stringify({ kind: 'RestoreReport', spec: { result: 'pass', checks: [{ name: 'api-health', status: 'pass', message: 'HTTP 200 after 2 attempts' }] } }).repeat(20),
);
const pack = (text: string, dict: Buffer = dictionary): Buffer => deflateRawSync(Buffer.from(text, 'utf8'), { dictionary: dict, level: 3 });
const texts = Array.from({ length: 200 }, (_, i) =>
  JSON.stringify({
    kind: 'RestoreReport',
    metadata: { name: `shop-${i}` },
    spec: { result: i % 7 === 0 ? 'fail' : 'pass', checks: [{ name: 'api-health', status: 'pass', message: `HTTP 200 after ${i} attempts “✓” 🦊` }], noise: randomBytes(i % 50).toString('hex') },
  }),
);

describe('RawInflater', () => {
  it('reuses one zlib state on this Node (the fallback, inflateRawSync per call, is the slow path)', () => {
    expect(new RawInflater({ dictionary }).reusesZlibState).toBe(true);
  });

  it('inflates each input exactly like inflateRawSync, in any order, the dictionary re-applied after every reset', () => {
    const inflater = new RawInflater({ dictionary });
    const packed = texts.map((text) => pack(text));
    // The packed form refers to the dictionary (it is much shorter than plain deflate).
    expect(packed[1]!.length).toBeLessThan(deflateRawSync(Buffer.from(texts[1]!)).length * 0.8);
    const order = [...texts.keys(), ...[...texts.keys()].reverse(), 3, 3, 150, 3];
    for (const i of order) {
      const inflated = inflater.inflate(packed[i]!);
      expect(inflated.toString('utf8')).toBe(texts[i]);
      expect(inflated.equals(inflateRawSync(packed[i]!, { dictionary }))).toBe(true);
    }
  });

  it('needs the right dictionary', () => {
    const packed = pack(texts[5]!);
    const other = new RawInflater({ dictionary: Buffer.from('x'.repeat(dictionary.length)) });
    let result: string | undefined;
    try {
      result = other.inflate(packed).toString('utf8');
    } catch {
      result = undefined; // zlib may also notice a distance it cannot resolve
    }
    expect(result).not.toBe(texts[5]);
    // Data deflated without a dictionary inflates without one too.
    const plain = new RawInflater({ dictionary: Buffer.alloc(0) });
    expect(plain.inflate(deflateRawSync(Buffer.from(texts[9]!))).toString('utf8')).toBe(texts[9]);
  });

  it('a view is valid until the next call; inflate() returns bytes of its own', () => {
    const inflater = new RawInflater({ dictionary });
    const own = inflater.inflate(pack(texts[1]!));
    const view = inflater.view(pack(texts[2]!));
    expect(view.toString('utf8')).toBe(texts[2]);
    inflater.view(pack(texts[3]!));
    expect(own.toString('utf8')).toBe(texts[1]);
  });

  it('grows its output for large inputs and bounds it by maxOutputLength', () => {
    const large = randomBytes(150_000).toString('base64'); // 200,000 characters, several times the scratch buffer
    const inflater = new RawInflater({ dictionary, maxOutputLength: 250_000 });
    expect(inflater.inflate(pack(large)).toString('utf8')).toBe(large);
    expect(inflater.inflate(pack(texts[0]!)).toString('utf8')).toBe(texts[0]);
    const bomb = deflateRawSync(Buffer.alloc(1_000_000, 'a'), { dictionary, level: 9 });
    expect(bomb.length).toBeLessThan(2_000);
    expect(() => inflater.inflate(bomb)).toThrow(/larger than 250000 bytes/);
    expect(() => new RawInflater({ dictionary, maxOutputLength: 100 }).inflate(pack(texts[0]!))).toThrow(/larger than 100 bytes/);
    // The next input after a refused one comes out whole.
    expect(inflater.inflate(pack(texts[4]!)).toString('utf8')).toBe(texts[4]);
  });

  it('throws on corrupt or truncated input and inflates the next input correctly', () => {
    const inflater = new RawInflater({ dictionary });
    const good = pack(texts[6]!);
    expect(() => inflater.inflate(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]))).toThrow();
    expect(inflater.inflate(good).toString('utf8')).toBe(texts[6]);
    expect(() => inflater.inflate(good.subarray(0, good.length - 5))).toThrow(/unexpected end of file/);
    expect(inflater.inflate(good).toString('utf8')).toBe(texts[6]);
    expect(() => inflater.inflate(Buffer.alloc(0))).toThrow();
    expect(inflater.inflate(pack(texts[7]!)).toString('utf8')).toBe(texts[7]);
  });
});

describe('RawDeflater', () => {
  it('reuses one zlib state on this Node', () => {
    expect(new RawDeflater({ dictionary, level: 3 }).reusesZlibState).toBe(true);
  });

  it('gives the bytes deflateRawSync gives, for every input in any order, and they inflate back', () => {
    for (const level of [3, 9]) {
      const deflater = new RawDeflater({ dictionary, level });
      const inflater = new RawInflater({ dictionary });
      for (const i of [...texts.keys(), 0, 0, 17, ...[...texts.keys()].reverse()]) {
        const input = Buffer.from(texts[i]!, 'utf8');
        const deflated = deflater.deflate(input);
        expect(deflated.equals(deflateRawSync(input, { dictionary, level }))).toBe(true);
        expect(inflater.view(deflated).toString('utf8')).toBe(texts[i]);
      }
    }
  });

  it('grows its output for input that does not compress', () => {
    const deflater = new RawDeflater({ dictionary, level: 3 });
    const noise = randomBytes(100_000);
    const deflated = deflater.deflate(noise);
    expect(deflated.length).toBeGreaterThan(noise.length);
    expect(inflateRawSync(deflated, { dictionary }).equals(noise)).toBe(true);
    expect(deflater.deflate(Buffer.from(texts[2]!)).equals(pack(texts[2]!))).toBe(true);
  });
});
