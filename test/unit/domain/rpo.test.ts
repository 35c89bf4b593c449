// The measured RPO (issue 27): what a freshness check's value reads as, and the RPO of a run.
import { describe, expect, it } from '@jest/globals';
import { measureRpo, parseDataTimestamp } from '../../../server/domain/run/rpo.js';
import type { CheckResult, RestoreTest } from '../../../server/domain/resources/resources.js';

const test = (maxRPO?: string) => ({ spec: { sla: maxRPO ? { maxRPO } : undefined } }) as unknown as RestoreTest;
const fresh = (name: string, newestData?: string): CheckResult => ({
  name,
  kind: 'sqlQuery',
  status: newestData ? 'pass' : 'fail',
  message: '',
  duration: '0.1s',
  ...(newestData ? { newestData } : {}),
});

describe('parseDataTimestamp', () => {
  it.each([
    ['2026-11-28T14:05:03Z', '2026-11-28T14:05:03.000Z'],
    ['2026-11-28T14:05:03.5+01:00', '2026-11-28T13:05:03.500Z'],
    ['2026-11-28 14:05:03.123456+00', '2026-11-28T14:05:03.123Z'], // PostgreSQL timestamptz text
    ['2026-11-28 14:05:03-0530', '2026-11-28T19:35:03.000Z'],
    ['2026-11-28 14:05:03', '2026-11-28T14:05:03.000Z'], // MySQL DATETIME: UTC
    ['  1795874703.25\n', '2026-11-28T14:05:03.250Z'], // Unix seconds (stat -c %Y, extract(epoch ...))
  ])('%j → %s', (text, iso) => {
    expect(parseDataTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', '42', '2026-13-45 99:99:99', '2026-11-28', 'card 4242'])('%j is not a time', (text) => {
    expect(parseDataTimestamp(text)).toBeUndefined();
  });
});

describe('measureRpo', () => {
  const requested = '2026-11-28T14:10:00.000Z';

  it('restore request time minus the newest restored data, against maxRPO', () => {
    expect(measureRpo(test('1h'), requested, [fresh('orders', '2026-11-28T14:05:03.000Z')])).toEqual({
      check: 'orders',
      newestData: '2026-11-28T14:05:03.000Z',
      measured: '4m57s',
      measuredSeconds: 297,
      target: '1h',
      withinSLA: true,
    });
    expect(measureRpo(test('1m'), requested, [fresh('orders', '2026-11-28T14:05:03.000Z')])?.withinSLA).toBe(false);
  });

  it('with several freshness checks the oldest data decides (the application that loses the most)', () => {
    const rpo = measureRpo(test(), requested, [fresh('cache', '2026-11-28T14:09:00.000Z'), fresh('orders', '2026-11-28T13:00:00.000Z'), fresh('web')]);
    expect(rpo).toMatchObject({ check: 'orders', measuredSeconds: 4200 });
    expect(rpo).not.toHaveProperty('withinSLA');
  });

  it('no freshness finding, or no restore request: no RPO', () => {
    expect(measureRpo(test('1h'), requested, [fresh('web')])).toBeUndefined();
    expect(measureRpo(test('1h'), undefined, [fresh('orders', '2026-11-28T14:05:03.000Z')])).toBeUndefined();
  });

  it('data newer than the request (clocks apart) is an RPO of 0, never negative', () => {
    expect(measureRpo(test(), requested, [fresh('orders', '2026-11-28T14:10:30.000Z')])?.measuredSeconds).toBe(0);
  });
});
