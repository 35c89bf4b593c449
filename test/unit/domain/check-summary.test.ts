// The one line a RestoreReport carries about its checks (issue 30): what kubectl shows an auditor
// in the Checks column and in `kubectl get rrep -o yaml`. Counts, the failed names in the report's
// order, and a bound on its length whatever the number of checks ("+N more").
import { describe, expect, it } from '@jest/globals';
import {
  MAX_CHECK_SUMMARY_LENGTH,
  NO_CHECKS_SUMMARY,
  summarizeChecks,
} from '../../../server/domain/run/check-summary.js';
import type { CheckResult, CheckStatus } from '../../../server/domain/resources/resources.js';

const check = (name: string, status: CheckStatus): CheckResult => ({
  name,
  kind: 'sqlQuery',
  status,
  message: status === 'pass' ? 'ok' : 'not ok',
  duration: '1s',
});

describe('summarizeChecks', () => {
  it.each([
    ['every check passed', [check('pods', 'pass'), check('api', 'pass')], '2/2 passed'],
    [
      'one failed',
      [check('pods', 'pass'), check('api', 'pass'), check('db', 'pass'), check('tls', 'pass'), check('orders-rows', 'fail')],
      '4/5 passed; failed: orders-rows',
    ],
    ['every check failed', [check('api', 'fail'), check('db', 'fail')], '0/2 passed; failed: api, db'],
    ['an errored check counts as not passed, marked', [check('api', 'pass'), check('db', 'error')], '1/2 passed; failed: db (error)'],
    ['skipped checks are counted, not listed', [check('api', 'pass'), check('db', 'skip')], '1/2 passed; 1 skipped'],
    [
      'failed and skipped',
      [check('api', 'fail'), check('db', 'skip'), check('files', 'skip'), check('pods', 'pass')],
      '1/4 passed; failed: api; 2 skipped',
    ],
    ['no check ran (a failed restore)', [], NO_CHECKS_SUMMARY],
  ])('%s', (_case, checks, expected) => {
    expect(summarizeChecks(checks)).toBe(expected);
  });

  it('lists failed names in the report order', () => {
    const checks = [check('zeta', 'fail'), check('alpha', 'pass'), check('beta', 'error'), check('gamma', 'fail')];
    expect(summarizeChecks(checks)).toBe('1/4 passed; failed: zeta, beta (error), gamma');
  });

  it('stays within its bound with 200 failed checks, naming those that fit and counting the rest', () => {
    const checks = Array.from({ length: 200 }, (_, i) => check(`orders-rows-${String(i).padStart(3, '0')}`, i % 4 === 0 ? 'pass' : 'fail'));
    const summary = summarizeChecks(checks);
    expect(summary.length).toBeLessThanOrEqual(MAX_CHECK_SUMMARY_LENGTH);
    const match = /^50\/200 passed; failed: (.+) \+(\d+) more$/.exec(summary);
    expect(match).not.toBeNull();
    const listed = match![1]!.split(', ');
    // The first failed checks, in order, and the count of the others adds up to all 150.
    expect(listed).toEqual(checks.filter((c) => c.status === 'fail').slice(0, listed.length).map((c) => c.name));
    expect(listed.length + Number(match![2])).toBe(150);
    expect(listed.length).toBeGreaterThan(0);
  });

  it('keeps the skipped count after a truncated list', () => {
    const checks = [...Array.from({ length: 40 }, (_, i) => check(`check-number-${i}`, 'fail')), check('later', 'skip')];
    const summary = summarizeChecks(checks);
    expect(summary.length).toBeLessThanOrEqual(MAX_CHECK_SUMMARY_LENGTH);
    expect(summary).toMatch(/^0\/41 passed; failed: check-number-0, .+ \+\d+ more; 1 skipped$/);
  });

  it('counts a failed name too long to list instead of cutting it', () => {
    const long = 'x'.repeat(253);
    expect(summarizeChecks([check(long, 'fail'), check('api', 'pass')])).toBe('1/2 passed; failed: +1 more');
  });

  it('uses the room exactly: a list one character longer than the bound is cut, one that fits is not', () => {
    const head = '0/2 passed; failed: ';
    const room = MAX_CHECK_SUMMARY_LENGTH - head.length;
    const fitting = [check('a'.repeat(room - 2 - 10), 'fail'), check('b'.repeat(10), 'fail')];
    expect(summarizeChecks(fitting)).toBe(`${head}${fitting[0]!.name}, ${fitting[1]!.name}`);
    expect(summarizeChecks(fitting).length).toBe(MAX_CHECK_SUMMARY_LENGTH);
    // One character more: the second name no longer fits; the first does, with room for " +1 more".
    const over = [fitting[0]!, check('b'.repeat(11), 'fail')];
    expect(summarizeChecks(over)).toBe(`${head}${fitting[0]!.name} +1 more`);
  });
});
