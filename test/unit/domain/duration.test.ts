import { describe, expect, it } from '@jest/globals';
import { formatDuration, isDuration, parseDuration } from '../../../server/domain/common/duration.js';

describe('parseDuration', () => {
  it.each([
    ['11m35s', 695],
    ['1h', 3600],
    ['90s', 90],
    ['1h30m', 5400],
    ['1h5s', 3605],
    ['2h3m4s', 7384],
    ['0s', 0],
    ['15m', 900],
    ['1m90s', 150],
    ['48h', 172_800],
  ])('%s = %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
    expect(isDuration(text)).toBe(true);
  });

  it.each([
    '',
    ' ',
    '-1h',
    '1d',
    '1.5h',
    '1h 30m',
    '30m1h',
    '1s1m',
    'h',
    '1',
    '1H',
    '100ms',
    '1w',
    ' 1h',
    '1h ',
    '+5m',
    '1e3s',
    '1234567890s',
  ])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
    expect(isDuration(text)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(parseDuration(undefined as unknown as string)).toBeNull();
    expect(parseDuration(60 as unknown as string)).toBeNull();
  });
});

describe('formatDuration', () => {
  it.each([
    [695, '11m35s'],
    [3600, '1h'],
    [0, '0s'],
    [59.999, '59s'],
    [60, '1m'],
    [61, '1m1s'],
    [3605, '1h5s'],
    [5400, '1h30m'],
    [7384, '2h3m4s'],
    [90_000, '25h'],
    [0.4, '0s'],
    [-5, '0s'],
    [Number.NaN, '0s'],
    [Number.POSITIVE_INFINITY, '0s'],
  ])('%d seconds = %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it.each([1, 59, 60, 695, 3599, 3600, 3601, 86_399, 123_456])('round-trips %i', (seconds) => {
    expect(parseDuration(formatDuration(seconds))).toBe(seconds);
  });
});
