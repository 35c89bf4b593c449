// httpGet.bodyMatch patterns: RE2 syntax, matched in linear time (re2js, a pure-JavaScript port of
// RE2). A backtracking RegExp would let one pattern such as ^(a+)+$ block the event loop for
// seconds on a few dozen bytes — on the leader, long enough for its lease to lapse. RE2 has no
// backreferences or lookaround, which is what makes the guarantee possible, and it is the syntax
// the CRDs promise (the apiserver checks the same syntax at admission with Go's regexp).
import { RE2JS } from 're2js';

export interface BodyPattern {
  /** True when the pattern matches anywhere in the text (like RegExp.test). */
  test(text: string): boolean;
}

export type BodyPatternCompilation = { ok: true; pattern: BodyPattern } | { ok: false; problem: string };

/** The most a pattern may hold (the CRD's maxLength of bodyMatch). */
export const MAX_BODY_PATTERN_LENGTH = 1024;

export function compileBodyPattern(source: string): BodyPatternCompilation {
  if (source.length === 0) return { ok: false, problem: 'must not be empty' };
  if (source.length > MAX_BODY_PATTERN_LENGTH) {
    return { ok: false, problem: `must be at most ${MAX_BODY_PATTERN_LENGTH} characters` };
  }
  try {
    const compiled = RE2JS.compile(source);
    return { ok: true, pattern: { test: (text) => compiled.test(text) } };
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    return { ok: false, problem: `is not an RE2 regular expression: ${reason}` };
  }
}
