// The plugin's error messages quote the first line of an unexpected answer, cut by code point
// (truncateText, the rule the server cuts its messages with).
import { describe, expect, it } from '@jest/globals';
import { firstLine } from '../../../cmd/kubectl-restoretest/text.js';
import { truncateText } from '../../../protocol/text.js';

describe('truncateText / firstLine', () => {
  it('cuts by code point: an emoji at the edge stays whole or goes, never half of it', () => {
    const edge = `${'x'.repeat(198)}😀tail`; // 😀 is UTF-16 units 198-199
    const cut = truncateText(edge, 200);
    expect(cut).toBe(`${'x'.repeat(198)}😀…`);
    expect(cut.isWellFormed()).toBe(true);
    expect(truncateText(`${'x'.repeat(199)}😀`, 200)).toBe(`${'x'.repeat(199)}😀`); // 200 code points
    expect(truncateText('😀😀😀', 2)).toBe('😀…');
    // .slice(0, 200) would have cut here, leaving a lone high surrogate.
    expect(`${'x'.repeat(199)}😀`.slice(0, 200).isWellFormed()).toBe(false);
  });

  it('takes the first non-empty line of a body and makes it well-formed', () => {
    expect(firstLine('  upstream connect error\nmore\n')).toBe('upstream connect error');
    expect(firstLine(`${'é'.repeat(300)}\n`, 200)).toBe(`${'é'.repeat(199)}…`);
    expect(firstLine('bad \udc00 byte')).toBe('bad \ufffd byte');
  });
});
