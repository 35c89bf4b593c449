import { describe, expect, it } from '@jest/globals';
import type { CheckResult, DependencyEntry as Dependency, ScoreLevelName } from '../../../server/domain/resources/resources.js';
import {
  capResult,
  LEVEL_MAX_POINTS,
  resultForScore,
  scoreRun,
  type ScoringInput,
} from '../../../server/domain/run/scoring.js';

const check = (name: string, status: CheckResult['status']): CheckResult => ({
  name,
  kind: 'httpGet',
  status,
  message: '',
  duration: '1s',
});

const perfect: ScoringInput = {
  restoreSucceeded: true,
  restorePartiallyFailed: false,
  restoreWarnings: 0,
  restoreErrors: 0,
  itemsRestored: 120,
  completeness: [
    { kind: 'Deployment', backedUp: 3, restored: 3 },
    { kind: 'Secret', backedUp: 2, restored: 2 },
    { kind: 'ConfigMap', backedUp: 5, restored: 5 },
  ],
  pods: { expected: 4, ready: 4 },
  checks: [check('web', 'pass'), check('db', 'pass'), check('cache', 'pass')],
  crossNamespace: [],
  rtoSeconds: 600,
  maxRtoSeconds: 900,
};

function points(input: Partial<ScoringInput>): Record<ScoreLevelName, number> {
  const outcome = scoreRun({ ...perfect, ...input });
  return Object.fromEntries(outcome.levels.map((level) => [level.name, level.points])) as Record<
    ScoreLevelName,
    number
  >;
}

describe('scoreRun', () => {
  it('a perfect run scores 100 with the six levels in order', () => {
    const outcome = scoreRun(perfect);
    expect(outcome.score).toBe(100);
    expect(outcome.result).toBe('pass');
    expect(outcome.levels.map((level) => [level.name, level.points, level.maxPoints, level.tested])).toEqual([
      ['restoreIntegrity', 25, 25, true],
      ['completeness', 20, 20, true],
      ['podStartup', 20, 20, true],
      ['healthChecks', 20, 20, true],
      ['crossNamespace', 10, 10, true],
      ['rtoWithinSLA', 5, 5, true],
    ]);
    expect(Object.values(LEVEL_MAX_POINTS).reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('a failed restore leaves every level untested at 0 and fails', () => {
    const outcome = scoreRun({
      ...perfect,
      restoreSucceeded: false,
      failure: { reason: 'RestoreFailed', message: 'x' },
    });
    expect(outcome.score).toBe(0);
    expect(outcome.result).toBe('fail');
    expect(outcome.levels).toHaveLength(6);
    for (const level of outcome.levels) {
      expect(level).toMatchObject({
        points: 0,
        tested: false,
        detail: 'not tested: the restore failed (RestoreFailed)',
      });
    }
  });

  it('a run that failed after a good restore is a fail whatever its points', () => {
    const outcome = scoreRun({ ...perfect, failure: { reason: 'TTLExceeded', message: 'ran past ttl' } });
    expect(outcome.score).toBe(100);
    expect(outcome.result).toBe('fail');
  });

  describe('restore integrity (25; PartiallyFailed: 20 x (items - errors) / items)', () => {
    it.each<[string, Partial<ScoringInput>, number]>([
      ['Completed, no warnings', {}, 25],
      ['Completed with warnings costs nothing', { restoreWarnings: 3 }, 25],
      [
        'PartiallyFailed, 1 error in 100 items: floor(19.8)',
        { restorePartiallyFailed: true, restoreErrors: 1, itemsRestored: 100 },
        19,
      ],
      [
        'PartiallyFailed, 0 errors reported: capped at 20',
        { restorePartiallyFailed: true, restoreErrors: 0, itemsRestored: 100 },
        20,
      ],
      [
        'PartiallyFailed, half the items errored',
        { restorePartiallyFailed: true, restoreErrors: 50, itemsRestored: 100 },
        10,
      ],
      [
        'PartiallyFailed, 1 error in 3 items: floor(13.33)',
        { restorePartiallyFailed: true, restoreErrors: 1, itemsRestored: 3 },
        13,
      ],
      [
        'PartiallyFailed without an item count',
        { restorePartiallyFailed: true, restoreErrors: 2, itemsRestored: 0 },
        0,
      ],
      ['more errors than items', { restorePartiallyFailed: true, restoreErrors: 200, itemsRestored: 100 }, 0],
      [
        'errors without the PartiallyFailed flag are treated alike',
        { restoreErrors: 10, itemsRestored: 100 },
        18,
      ],
    ])('%s -> %i', (_title, input, expected) => {
      expect(points(input).restoreIntegrity).toBe(expected);
    });

    it('explains itself', () => {
      const level = scoreRun({
        ...perfect,
        restorePartiallyFailed: true,
        restoreErrors: 1,
        restoreWarnings: 2,
        itemsRestored: 100,
      }).levels[0]!;
      expect(level.detail).toBe(
        'restore partially failed: 1 error and 2 warnings in 100 items; at most 20 points after errors',
      );
      expect(scoreRun(perfect).levels[0]!.detail).toBe('restore completed: 120 items, 0 warnings, 0 errors');
    });
  });

  describe('completeness (20, mean of restored/backed-up per kind)', () => {
    it.each<[string, ScoringInput['completeness'], number, boolean]>([
      ['all complete', perfect.completeness, 20, true],
      // (1 + 1/2 + 4/5) / 3 = 0.7667 -> 15.33
      [
        'three kinds, two incomplete',
        [
          { kind: 'Deployment', backedUp: 3, restored: 3 },
          { kind: 'Secret', backedUp: 2, restored: 1 },
          { kind: 'ConfigMap', backedUp: 5, restored: 4 },
        ],
        15,
        true,
      ],
      // 0.7 * 20 is 13.999999999999998 in floating point: an exact 14 must stay 14
      ['exact proportion 7/10', [{ kind: 'ConfigMap', backedUp: 10, restored: 7 }], 14, true],
      [
        'more restored than backed up counts as complete',
        [{ kind: 'Pod', backedUp: 3, restored: 5 }],
        20,
        true,
      ],
      [
        'a kind missing entirely',
        [
          { kind: 'Secret', backedUp: 1, restored: 0 },
          { kind: 'Service', backedUp: 1, restored: 1 },
        ],
        10,
        true,
      ],
      [
        'kinds with nothing backed up are ignored',
        [
          { kind: 'Job', backedUp: 0, restored: 0 },
          { kind: 'Service', backedUp: 2, restored: 2 },
        ],
        20,
        true,
      ],
      ['no counts: not tested', [], 0, false],
      ['only empty kinds: not tested', [{ kind: 'Job', backedUp: 0, restored: 0 }], 0, false],
    ])('%s -> %i', (_title, completeness, expected, tested) => {
      const level = scoreRun({ ...perfect, completeness }).levels[1]!;
      expect(level.points).toBe(expected);
      expect(level.tested).toBe(tested);
    });

    it('names the incomplete kinds', () => {
      const level = scoreRun({
        ...perfect,
        completeness: [
          { kind: 'Deployment', backedUp: 3, restored: 3 },
          { kind: 'Secret', backedUp: 2, restored: 1 },
        ],
      }).levels[1]!;
      expect(level.detail).toBe('1/2 kinds complete; incomplete: Secret 1/2');
    });
  });

  describe('pod startup (20, ready / expected)', () => {
    it.each<[ScoringInput['pods'], number, string]>([
      [{ expected: 4, ready: 4 }, 20, '4/4 pods ready'],
      [{ expected: 4, ready: 3 }, 15, '3/4 pods ready'],
      [{ expected: 3, ready: 1 }, 6, '1/3 pods ready'],
      [{ expected: 3, ready: 0 }, 0, '0/3 pods ready'],
      [{ expected: 4, ready: 5 }, 20, '4/4 pods ready'],
      [{ expected: 0, ready: 0 }, 20, 'no pods expected in the backup'],
    ])('%j -> %i', (pods, expected, detail) => {
      const level = scoreRun({ ...perfect, pods }).levels[2]!;
      expect(level.points).toBe(expected);
      expect(level.detail).toBe(detail);
    });
  });

  describe('health checks (20, passed / (total - skipped))', () => {
    it.each<[string, CheckResult[], number, boolean, string]>([
      ['all pass', perfect.checks, 20, true, '3/3 checks passed'],
      [
        'one fail, one skipped: 2/3',
        [check('a', 'pass'), check('b', 'pass'), check('c', 'fail'), check('d', 'skip')],
        13,
        true,
        '2/3 checks passed (1 skipped); not passed: c (fail)',
      ],
      [
        'an error counts as not passed',
        [check('a', 'pass'), check('b', 'error')],
        10,
        true,
        '1/2 checks passed; not passed: b (error)',
      ],
      ['all failed', [check('a', 'fail')], 0, true, '0/1 checks passed; not passed: a (fail)'],
      [
        'all skipped: not tested',
        [check('a', 'skip'), check('b', 'skip')],
        0,
        false,
        'not tested: no health check ran (2 skipped)',
      ],
      ['no checks: not tested', [], 0, false, 'not tested: no health check ran'],
    ])('%s -> %i', (_title, checks, expected, tested, detail) => {
      const level = scoreRun({ ...perfect, checks }).levels[3]!;
      expect([level.points, level.tested, level.detail]).toEqual([expected, tested, detail]);
    });

    it('lists at most five failing checks', () => {
      const checks = Array.from({ length: 7 }, (_, i) => check(`c${i}`, 'fail'));
      expect(scoreRun({ ...perfect, checks }).levels[3]!.detail).toBe(
        '0/7 checks passed; not passed: c0 (fail), c1 (fail), c2 (fail), c3 (fail), c4 (fail) and 2 more',
      );
    });
  });

  describe('cross-namespace dependencies (10)', () => {
    const dependency = (status: Dependency['status']): Dependency => ({ from: 'ConfigMap/shop/app', to: `${status}.ns`, status });
    it.each<[Dependency['status'][] | null, number]>([
      [[], 10],
      [['restored', 'reachable', 'restored'], 10],
      [['restored', 'reachable', 'production'], 6],
      [['missing', 'unreachable', 'production', 'restored'], 2],
      [['production'], 0],
      [null, 0],
    ])('%j -> %i', (statuses, expected) => {
      const crossNamespace = statuses === null ? null : statuses.map(dependency);
      expect(points({ crossNamespace }).crossNamespace).toBe(expected);
    });

    it('is not tested when the restored objects could not be read', () => {
      const level = scoreRun({ ...perfect, crossNamespace: null }).levels[4]!;
      expect([level.tested, level.detail]).toEqual([false, 'not tested: the restored objects were not read for references']);
    });

    it('names what is not satisfied, within the 256 characters of a detail', () => {
      const level = scoreRun({
        ...perfect,
        crossNamespace: [
          dependency('restored'),
          { from: `ConfigMap/shop/${'x'.repeat(250)}`, to: 'api.shop', status: 'production' },
        ],
      }).levels[4]!;
      expect(level.detail.startsWith('1/2 cross-namespace dependencies satisfied; not satisfied: ConfigMap/shop/xxx')).toBe(true);
      expect(level.detail.length).toBeLessThanOrEqual(256);
      expect(level.detail.endsWith('…')).toBe(true);
    });
  });

  describe('RTO within SLA (5; over target: 5 x target / measured)', () => {
    it.each<[number, number | undefined, number, string]>([
      [600, undefined, 5, 'RTO 10m; no RTO target (no SLA)'],
      [600, 900, 5, 'RTO 10m within target 15m'],
      [900, 900, 5, 'RTO 15m within target 15m'],
      [1200, 900, 3, 'RTO 20m exceeds target 15m'],
      [901, 900, 4, 'RTO 15m1s exceeds target 15m'],
      [1800, 900, 2, 'RTO 30m exceeds target 15m'],
      [9000, 900, 0, 'RTO 2h30m exceeds target 15m'],
    ])('%i s vs %s -> %i', (rtoSeconds, maxRtoSeconds, expected, detail) => {
      const input: ScoringInput = { ...perfect, rtoSeconds };
      if (maxRtoSeconds === undefined) delete input.maxRtoSeconds;
      else input.maxRtoSeconds = maxRtoSeconds;
      const level = scoreRun(input).levels[5]!;
      expect([level.points, level.detail]).toEqual([expected, detail]);
    });
  });

  it('sums the levels: 19 + 15 + 15 + 13 + 6 + 3 = 71 (partial)', () => {
    const outcome = scoreRun({
      ...perfect,
      restorePartiallyFailed: true,
      restoreErrors: 1,
      itemsRestored: 100,
      completeness: [
        { kind: 'Deployment', backedUp: 3, restored: 3 },
        { kind: 'Secret', backedUp: 2, restored: 1 },
        { kind: 'ConfigMap', backedUp: 5, restored: 4 },
      ],
      pods: { expected: 4, ready: 3 },
      checks: [check('a', 'pass'), check('b', 'pass'), check('c', 'fail'), check('d', 'skip')],
      crossNamespace: [
        { from: 'ConfigMap/a/x', to: 'db.b', status: 'restored' },
        { from: 'ConfigMap/a/x', to: 'api.c', status: 'reachable' },
        { from: 'ConfigMap/a/x', to: 'web.a', status: 'production' },
      ],
      rtoSeconds: 1200,
    });
    expect(outcome.levels.map((level) => level.points)).toEqual([19, 15, 15, 13, 6, 3]);
    expect(outcome.score).toBe(71);
    expect(outcome.result).toBe('partial');
  });
});

describe('resultForScore (pass >= 90, partial 70-89, fail < 70)', () => {
  it.each([
    [100, 'pass'],
    [90, 'pass'],
    [89, 'partial'],
    [70, 'partial'],
    [69, 'fail'],
    [0, 'fail'],
  ])('%i -> %s', (score, result) => {
    expect(resultForScore(score)).toBe(result);
  });
});

describe('capResult: a failed check caps the result (decision 0004)', () => {
  const check = (name: string, status: CheckResult['status']): CheckResult => ({ name, kind: 'sqlQuery', status, message: '', duration: '0.1s' });
  const critical = (name: string): boolean => name === 'orders';

  it.each([
    ['pass', [check('web', 'pass')], 'pass', undefined],
    ['pass', [check('web', 'fail')], 'partial', { check: 'web', critical: false, result: 'partial' }],
    ['pass', [check('web', 'error')], 'partial', { check: 'web', critical: false, result: 'partial' }],
    ['pass', [check('web', 'skip')], 'pass', undefined],
    ['pass', [check('web', 'fail'), check('orders', 'fail')], 'fail', { check: 'orders', critical: true, result: 'fail' }],
    ['partial', [check('orders', 'error')], 'fail', { check: 'orders', critical: true, result: 'fail' }],
    ['partial', [check('web', 'fail')], 'partial', undefined], // already partial: nothing was capped
    ['fail', [check('orders', 'fail')], 'fail', undefined],
    ['pass', [check('orders', 'pass'), check('web', 'fail')], 'partial', { check: 'web', critical: false, result: 'partial' }],
  ] as const)('%s with %j → %s', (result, checks, want, cap) => {
    expect(capResult(result, checks, critical)).toEqual(cap ? { result: want, cap } : { result: want });
  });
});
