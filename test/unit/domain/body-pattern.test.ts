// bodyMatch patterns are RE2: linear-time matching, RE2 syntax only, clear reasons for bad ones.
import { describe, expect, it } from '@jest/globals';
import { compileBodyPattern, MAX_BODY_PATTERN_LENGTH } from '../../../server/domain/test-spec/body-pattern.js';

function compiled(source: string) {
  const result = compileBodyPattern(source);
  if (!result.ok) throw new Error(`expected ${source} to compile: ${result.problem}`);
  return result.pattern;
}

describe('compileBodyPattern', () => {
  it.each([
    ['"status":\\s*"ok"', '{"status": "ok"}', true],
    ['<title>[^<]*Shop', '<title>My Shop</title>', true],
    ['^status: (ok|green)\\n', 'status: green\n', true],
    ['(?i)READY', 'all ready', true],
    ['(?P<word>ok)', 'is ok', true],
    ['^ok$', 'not ok', false],
  ])('%s on %j → %s (search semantics, like RegExp.test)', (source, text, expected) => {
    expect(compiled(source).test(text)).toBe(expected);
  });

  it.each([
    ['^(a+)+$', `${'a'.repeat(60)}!`],
    ['(a|aa)+$', `${'a'.repeat(5000)}!`],
    ['(x+x+)+y', 'x'.repeat(5000)],
    ['^(\\w+\\s?)*$', `${'word '.repeat(2000)}!`],
  ])('%s answers on input a backtracking engine would not finish in years', (source, text) => {
    // No clock: each input takes a backtracking engine exponential time (2^60 steps for the
    // first), so a regression to one hangs this test until Jest's timeout fails it, whatever the
    // machine's load; a linear-time engine answers at once.
    expect(compiled(source).test(text)).toBe(false);
  }, 10_000);

  it.each([
    ['(a)\\1', /invalid escape sequence/],
    ['a(?=b)', /invalid or unsupported Perl syntax/],
    ['(?<!a)b', /invalid named capture/],
    ['[z-a]', /invalid character class range/],
    ['a{1001}', /invalid repeat count/],
    ['(unclosed', /missing closing \)/],
  ])('rejects %s, which is not RE2, naming why', (source, reason) => {
    const result = compileBodyPattern(source);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toMatch(/^is not an RE2 regular expression: /);
      expect(result.problem).toMatch(reason);
    }
  });

  it('rejects an empty or over-long pattern (the CRD bounds)', () => {
    expect(compileBodyPattern('')).toEqual({ ok: false, problem: 'must not be empty' });
    expect(compileBodyPattern('a'.repeat(MAX_BODY_PATTERN_LENGTH + 1))).toEqual({
      ok: false,
      problem: `must be at most ${MAX_BODY_PATTERN_LENGTH} characters`,
    });
  });
});
