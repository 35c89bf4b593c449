// The compliance PDF is sent in the pieces pdfkit wrote: small writes joined, large ones (the
// embedded run file) passed on without a copy, the bytes unchanged.
import { describe, expect, it } from '@jest/globals';
import { joinSmallChunks } from '../../../server/pdf/chunks.js';

describe('joinSmallChunks', () => {
  it('joins small chunks into pieces of about the size and keeps large ones as they are', () => {
    const small = Array.from({ length: 50 }, (_, i) => Buffer.from(`obj ${i} 0 R\n`));
    const large = Buffer.alloc(1000, 7);
    const chunks = [...small.slice(0, 30), large, ...small.slice(30)];
    const joined = joinSmallChunks(chunks, 100);
    expect(Buffer.concat(joined).equals(Buffer.concat(chunks))).toBe(true);
    expect(joined).toContain(large);
    expect(joined.filter((chunk) => chunk !== large).every((chunk) => chunk.length < 100 + 12)).toBe(true);
    expect(joined.length).toBeLessThan(chunks.length / 4);
    expect(joinSmallChunks([], 100)).toEqual([]);
  });
});
