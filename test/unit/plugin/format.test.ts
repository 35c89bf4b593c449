// The small pure pieces: kubectl's relative ages, the table layout, value checks.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { humanDuration, percent, until } from '../../../cmd/kubectl-restoretest/output/format.js';
import { renderTable } from '../../../cmd/kubectl-restoretest/output/table.js';
import { checkTimeZone, parseDuration } from '../../../cmd/kubectl-restoretest/validate.js';
import { PLUGIN_VERSION } from '../../../cmd/kubectl-restoretest/version.js';
import { describeStage } from '../../../cmd/kubectl-restoretest/commands/follow-run.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration (kubectl\'s)', () => {
  it.each([
    [-3 * S, '<invalid>'],
    [-1 * S, '0s'],
    [0, '0s'],
    [59 * S, '59s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [5 * M + 30 * S, '5m30s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [4 * H + 12 * M, '4h12m'],
    [8 * H + 59 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [800 * D, '2y70d'],
    [9 * 365 * D, '9y'],
  ])('%d ms → %s', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });

  it('says "now" for a due run and <none> for no run', () => {
    const now = new Date('2026-03-15T12:00:00Z');
    expect(until('2026-03-15T11:59:00Z', now)).toBe('now');
    expect(until('', now)).toBe('<none>');
    expect(until('2026-03-15T16:00:00Z', now)).toBe('in 4h');
  });

  it('formats fractions as percentages', () => {
    expect(percent(0.9126)).toBe('91.3%');
    expect(percent(1)).toBe('100.0%');
  });
});

describe('renderTable', () => {
  it('pads every column but the last by 3, minimum width 6, no trailing blanks', () => {
    expect(renderTable(['A', 'LONGER HEADER', 'C'], [['x', 'y', ''], ['wider value', 'z', 'last']])).toBe(
      'A             LONGER HEADER   C\n' + 'x             y\n' + 'wider value   z               last\n',
    );
  });
});

describe('values', () => {
  it.each([
    ['90s', 90],
    ['15m', 900],
    ['1h30m', 5400],
    ['11m35s', 695],
    ['1h', 3600],
  ])('duration %s = %d s', (value, seconds) => {
    expect(parseDuration(value)).toBe(seconds);
  });

  it.each(['', '15', '1d', '5 m', 'm', '1.5h'])('rejects duration %j', (value) => {
    expect(parseDuration(value)).toBeUndefined();
  });

  it('accepts IANA zones only', () => {
    expect(checkTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(() => checkTimeZone('+01:00')).toThrow('invalid --timezone');
    expect(() => checkTimeZone('europe/berlin')).toThrow('invalid --timezone');
  });
});

describe('live stages', () => {
  it('describes status.currentRun: restore → pods ready → checks → score', () => {
    expect(describeStage({ status: { handledTrigger: 'old' } }, 'new')).toBe('waiting for the engine to pick up the trigger');
    expect(describeStage({ status: { handledTrigger: 'new' } }, 'new')).toBeUndefined();
    expect(describeStage({ status: { currentRun: { id: 'r', stage: 'Restoring', backup: { name: 'b' } } } }, 'new')).toBe('restoring backup b');
    expect(
      describeStage({ status: { currentRun: { id: 'r', stage: 'Finalizing', failure: { reason: 'TTLExceeded', message: '' } } } }, 'x'),
    ).toBe('run failed (TTLExceeded); writing the report');
  });
});

describe('version', () => {
  it('is package.json\'s', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PLUGIN_VERSION).toBe(pkg.version);
  });
});
