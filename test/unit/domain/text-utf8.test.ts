// Cuts for fields the apiserver limits in bytes (an Event's message: 1,024 bytes of UTF-8).
import { describe, expect, it } from '@jest/globals';
import { truncateUtf8 } from '../../../server/domain/common/text.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

describe('truncateUtf8', () => {
  it('keeps text within the limit unchanged and cuts longer text between code points', () => {
    expect(truncateUtf8('short', 1024)).toBe('short');
    const edge = `${'x'.repeat(1020)}😀tail`; // 😀 (4 bytes) would end at byte 1024
    const cut = truncateUtf8(edge, 1024);
    expect(cut).toBe(`${'x'.repeat(1020)}…`);
    expect(bytes(cut)).toBeLessThanOrEqual(1024);
    expect(cut.isWellFormed()).toBe(true);
  });

  it('counts bytes, not characters: 600 two-byte letters are cut, still well-formed', () => {
    const cut = truncateUtf8('é'.repeat(600), 1024);
    expect(bytes(cut)).toBeLessThanOrEqual(1024);
    expect(cut).toBe(`${'é'.repeat(510)}…`);
  });

  it('never leaves half a surrogate pair, whatever the limit', () => {
    const text = '😀a😀bc😀'.repeat(50);
    for (let max = 3; max < 80; max += 1) {
      const cut = truncateUtf8(text, max);
      expect(cut.isWellFormed()).toBe(true);
      expect(bytes(cut)).toBeLessThanOrEqual(max);
    }
    expect(truncateUtf8('ok \ud83d', 100)).toBe('ok \ufffd');
  });
});
