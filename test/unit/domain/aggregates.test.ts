import { describe, expect, it } from '@jest/globals';
import {
  alerts,
  daily,
  namespacesCovered,
  summary,
  testResponse,
  upcoming,
  OVERDUE_AFTER_SECONDS,
} from '../../../server/domain/read-models/aggregates.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { makeReport, makeTest } from './fixtures.js';

const NOW = new Date('2026-03-31T12:00:00Z');

describe('summary (window [now - 24h, now])', () => {
  const tests = [
    makeTest({ name: 'a', sources: ['a', 'shared'] }),
    makeTest({ name: 'b', sources: ['b', 'shared'] }),
    makeTest({ name: 'c', sources: ['c'] }),
  ];
  const reports = [
    makeReport({
      test: 'a',
      completedAt: '2026-03-31T10:00:00Z',
      score: 95,
      result: 'pass',
      rtoSeconds: 600,
    }),
    // exactly 24 h before now: inside (inclusive start)
    makeReport({
      test: 'a',
      completedAt: '2026-03-30T12:00:00Z',
      score: 80,
      result: 'partial',
      rtoSeconds: 900,
    }),
    // a failed run without a measured RTO: counted in scores, not in averageRTO
    makeReport({ test: 'b', completedAt: '2026-03-31T11:00:00Z', score: 40, result: 'fail', aborted: true }),
    // one second too old
    makeReport({ test: 'b', completedAt: '2026-03-30T11:59:59Z', score: 10, result: 'fail', rtoSeconds: 60 }),
    // after now
    makeReport({ test: 'c', completedAt: '2026-03-31T12:00:01Z', score: 0, result: 'fail', rtoSeconds: 60 }),
  ];

  it.each([
    ['an array', reports],
    ['an index', ReportIndex.from(reports)],
  ])('computes decision 0005 from %s', (_how, source) => {
    expect(summary(tests, source, NOW)).toEqual({
      averageScore: 72, // (95 + 80 + 40) / 3 = 71.67
      totalTests: 3,
      testsLastNight: 2, // a and b
      totalFailures: 1,
      totalPartial: 1,
      averageRTO: '12m30s', // (600 + 900) / 2
      namespacesCovered: 4, // a, b, c, shared
    });
  });

  it('is all zeros without runs', () => {
    expect(summary([], [], NOW)).toEqual({
      averageScore: 0,
      totalTests: 0,
      testsLastNight: 0,
      totalFailures: 0,
      totalPartial: 0,
      averageRTO: '0s',
      namespacesCovered: 0,
    });
  });

  it('rounds the mean score half up and the RTO down', () => {
    const result = summary(
      [],
      [
        makeReport({ test: 'a', completedAt: '2026-03-31T10:00:00Z', score: 95, rtoSeconds: 100 }),
        makeReport({
          test: 'a',
          completedAt: '2026-03-31T11:00:00Z',
          score: 50,
          result: 'fail',
          rtoSeconds: 101,
        }),
      ],
      NOW,
    );
    expect(result.averageScore).toBe(73); // 72.5
    expect(result.averageRTO).toBe('1m40s'); // 100.5 s
    expect(result.testsLastNight).toBe(1);
  });

  it('counts distinct source namespaces across tests', () => {
    expect(namespacesCovered(tests)).toBe(4);
  });
});

describe('daily (one entry per UTC day ending today, oldest first)', () => {
  const reports = [
    makeReport({ test: 'a', completedAt: '2026-03-31T10:00:00Z', score: 95 }),
    makeReport({ test: 'b', completedAt: '2026-03-31T00:00:00Z', score: 40, result: 'fail' }),
    makeReport({ test: 'c', completedAt: '2026-03-31T23:59:59Z', score: 0, result: 'fail' }),
    makeReport({ test: 'a', completedAt: '2026-03-30T23:59:59.999Z', score: 80, result: 'partial' }),
    makeReport({ test: 'b', completedAt: '2026-03-30T00:00:00Z', score: 11, result: 'fail' }),
    makeReport({ test: 'a', completedAt: '2026-03-27T12:00:00Z', score: 99 }),
  ];

  it('fills days without runs with zeros', () => {
    expect(daily(reports, 4, NOW)).toEqual([
      { date: '2026-03-28', score: 0, tests: 0, failures: 0 },
      { date: '2026-03-29', score: 0, tests: 0, failures: 0 },
      { date: '2026-03-30', score: 46, tests: 2, failures: 1 }, // (80 + 11) / 2 = 45.5
      { date: '2026-03-31', score: 45, tests: 3, failures: 2 }, // (95 + 40 + 0) / 3
    ]);
  });

  it.each([
    [1, ['2026-03-31']],
    [2.9, ['2026-03-30', '2026-03-31']],
    [0, []],
    [-3, []],
    [Number.NaN, []],
  ])('days=%d gives %j', (days, dates) => {
    expect(daily(reports, days, NOW).map((day) => day.date)).toEqual(dates);
  });

  it('30 days end today and start 29 days earlier', () => {
    const result = daily(ReportIndex.from(reports), 30, NOW);
    expect(result).toHaveLength(30);
    expect(result[0]!.date).toBe('2026-03-02');
    expect(result[29]!.date).toBe('2026-03-31');
    expect(result.find((day) => day.date === '2026-03-27')).toEqual({
      date: '2026-03-27',
      score: 99,
      tests: 1,
      failures: 0,
    });
  });

  it('crosses a year boundary', () => {
    expect(daily([], 3, new Date('2026-01-01T00:30:00Z')).map((day) => day.date)).toEqual([
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
    ]);
  });
});

describe('alerts (newest first, one per run)', () => {
  const tests = [
    makeTest({ name: 't1', maxRTO: '15m', alertOnExceed: true }),
    makeTest({ name: 't2', maxRTO: '15m', alertOnExceed: false }),
    makeTest({ name: 't3' }),
    makeTest({ name: 't4' }),
    makeTest({ name: 't5' }),
  ];
  const reports = [
    // t1: the previous run lies before the 48 h window but still counts for the regression
    makeReport({
      test: 't1',
      runId: 't1a',
      completedAt: '2026-03-28T02:00:00Z',
      score: 95,
      rtoSeconds: 600,
      rtoTarget: '15m',
    }),
    makeReport({
      test: 't1',
      runId: 't1b',
      completedAt: '2026-03-30T02:00:00Z',
      score: 80,
      result: 'partial',
      rtoSeconds: 600,
      rtoTarget: '15m',
    }),
    makeReport({
      test: 't1',
      runId: 't1c',
      completedAt: '2026-03-31T02:00:00Z',
      score: 30,
      result: 'fail',
      rtoSeconds: 1200,
      rtoTarget: '15m',
      failure: { reason: 'ChecksFailed', message: '2 of 3 checks failed' },
    }),
    // t2: an RTO breach without alertOnExceed, and a drop of 8 points: nothing
    makeReport({ test: 't2', completedAt: '2026-03-30T03:00:00Z', score: 100 }),
    makeReport({
      test: 't2',
      completedAt: '2026-03-31T03:00:00Z',
      score: 92,
      rtoSeconds: 1200,
      rtoTarget: '15m',
    }),
    // t3: a drop of exactly 10 is not a regression
    makeReport({ test: 't3', completedAt: '2026-03-30T04:00:00Z', score: 90 }),
    makeReport({ test: 't3', completedAt: '2026-03-31T04:00:00Z', score: 80, result: 'partial' }),
    // t4: a drop of 11 is
    makeReport({ test: 't4', runId: 't4b', completedAt: '2026-03-30T05:00:00Z', score: 91 }),
    makeReport({
      test: 't4',
      runId: 't4c',
      completedAt: '2026-03-31T05:00:00Z',
      score: 80,
      result: 'partial',
    }),
    // t5: the very first run fails without a failure block
    makeReport({ test: 't5', runId: 't5a', completedAt: '2026-03-31T06:00:00Z', score: 0, result: 'fail' }),
  ];

  const expected48 = [
    {
      timestamp: '2026-03-31T06:00:00.000Z',
      testName: 't5',
      namespace: 'rehearsal-system',
      score: 0,
      prevScore: 0,
      result: 'fail',
      message: 'run t5a: failed with score 0',
    },
    {
      timestamp: '2026-03-31T05:00:00.000Z',
      testName: 't4',
      namespace: 'rehearsal-system',
      score: 80,
      prevScore: 91,
      result: 'partial',
      message: 'run t4c: score regressed from 91 to 80',
    },
    {
      timestamp: '2026-03-31T02:00:00.000Z',
      testName: 't1',
      namespace: 'rehearsal-system',
      score: 30,
      prevScore: 80,
      result: 'fail',
      message:
        'run t1c: failed (ChecksFailed: 2 of 3 checks failed); score regressed from 80 to 30; RTO 20m exceeded target 15m',
    },
    {
      timestamp: '2026-03-30T02:00:00.000Z',
      testName: 't1',
      namespace: 'rehearsal-system',
      score: 80,
      prevScore: 95,
      result: 'partial',
      message: 'run t1b: score regressed from 95 to 80',
    },
  ];

  it.each([
    ['an array', reports],
    ['an index', ReportIndex.from(reports)],
  ])('finds failures, regressions and SLA breaches in 48 h from %s', (_how, source) => {
    expect(alerts(tests, source, 48, NOW)).toEqual(expected48);
  });

  it('a shorter window keeps only its runs', () => {
    expect(alerts(tests, reports, 12, NOW).map((alert) => alert.message.slice(0, 8))).toEqual([
      'run t5a:',
      'run t4c:',
      'run t1c:',
    ]);
  });

  it('reports an SLA breach alone when it is the only condition', () => {
    const only = [
      makeReport({
        test: 't1',
        runId: 'sla',
        completedAt: '2026-03-31T11:00:00Z',
        score: 96,
        rtoSeconds: 1000,
        rtoTarget: '15m',
      }),
    ];
    expect(alerts(tests, only, 48, NOW)).toEqual([
      {
        timestamp: '2026-03-31T11:00:00.000Z',
        testName: 't1',
        namespace: 'rehearsal-system',
        score: 96,
        prevScore: 0,
        result: 'pass',
        message: 'run sla: RTO 16m40s exceeded target 15m',
      },
    ]);
  });

  it('uses the controller verdict when the report has no measured seconds', () => {
    const report = makeReport({
      test: 't1',
      runId: 'v',
      completedAt: '2026-03-31T11:00:00Z',
      score: 96,
      rtoTarget: '15m',
    });
    report.spec.rto.withinSLA = false;
    expect(alerts(tests, [report], 48, NOW)[0]!.message).toBe('run v: RTO exceeded its target');
  });

  it('is empty without runs', () => {
    expect(alerts(tests, [], 48, NOW)).toEqual([]);
  });
});

// Issue 30: the thresholds come from the cluster-wide defaults (ConfigMap rehearsal-cluster-defaults).
describe('alerts with the cluster thresholds (backup age, consecutive failures)', () => {
  const tests = [makeTest({ name: 'old' }), makeTest({ name: 'flaky' })];
  const reports = [
    makeReport({ test: 'old', runId: 'o1', completedAt: '2026-03-31T07:30:00Z', backupAge: '30h' }),
    makeReport({ test: 'old', runId: 'o2', completedAt: '2026-03-31T09:00:00Z', backupAge: '50h' }),
    makeReport({ test: 'flaky', runId: 'f1', completedAt: '2026-03-31T06:00:00Z', result: 'pass' }),
    makeReport({ test: 'flaky', runId: 'f2', completedAt: '2026-03-31T07:00:00Z', result: 'fail' }),
    makeReport({ test: 'flaky', runId: 'f3', completedAt: '2026-03-31T08:00:00Z', result: 'fail' }),
    makeReport({ test: 'flaky', runId: 'f4', completedAt: '2026-03-31T09:30:00Z', result: 'fail' }),
  ];
  const messages = (thresholds?: Parameters<typeof alerts>[4], source: Parameters<typeof alerts>[1] = reports): string[] =>
    alerts(tests, source, 24, NOW, thresholds).map((alert) => alert.message);

  // The index holds compact summaries: the backup age must survive summarising.
  it.each([
    ['full reports', reports],
    ['an index', ReportIndex.from(reports)],
  ] as const)('by default (48h, 3 in a row), over %s: the 50h-old backup, and the third failure in a row says so', (_name, source) => {
    expect(messages(undefined, source)).toEqual([
      'run f4: failed with score 30; at least 3 failed runs in a row',
      'run o2: restored a backup 50h old, older than 48h',
      'run f3: failed with score 30',
      'run f2: failed with score 30; score regressed from 95 to 30',
    ]);
  });

  it('a lower backup age and a shorter streak change the list at once', () => {
    expect(messages({ maxBackupAgeSeconds: 24 * 3600, consecutiveFailures: 2 })).toEqual([
      'run f4: failed with score 30; at least 2 failed runs in a row',
      'run o2: restored a backup 50h old, older than 24h',
      'run f3: failed with score 30; at least 2 failed runs in a row',
      'run o1: restored a backup 30h old, older than 24h',
      'run f2: failed with score 30; score regressed from 95 to 30',
    ]);
  });

  it('a streak broken by a pass starts again', () => {
    const broken = [
      makeReport({ test: 'flaky', runId: 'b1', completedAt: '2026-03-31T06:00:00Z', result: 'fail' }),
      makeReport({ test: 'flaky', runId: 'b2', completedAt: '2026-03-31T07:00:00Z', result: 'pass' }),
      makeReport({ test: 'flaky', runId: 'b3', completedAt: '2026-03-31T08:00:00Z', result: 'fail' }),
    ];
    expect(alerts(tests, broken, 24, NOW, { maxBackupAgeSeconds: 48 * 3600, consecutiveFailures: 2 }).map((alert) => alert.message)).toEqual([
      'run b3: failed with score 30; score regressed from 95 to 30',
      'run b1: failed with score 30',
    ]);
  });
});

describe('upcoming (overdue first, then by nextRunAt ascending)', () => {
  it('orders, breaks ties by namespace then name, and leaves out unscheduled and suspended tests', () => {
    const tests = [
      makeTest({ name: 'x', status: { nextRunAt: '2026-04-01T02:00:00Z', lastScore: 88 } }),
      makeTest({ name: 'y', status: { nextRunAt: '2026-03-31T13:00:00Z' } }),
      makeTest({
        name: 'w',
        namespace: 'apps',
        status: { nextRunAt: '2026-03-31T13:00:00Z', lastScore: 70 },
      }),
      makeTest({ name: 'z' }),
      makeTest({ name: 's', suspend: true, status: { nextRunAt: '2026-03-31T12:30:00Z' } }),
      makeTest({ name: 'bad', status: { nextRunAt: 'soon' } }),
    ];
    expect(upcoming(tests, NOW)).toEqual([
      { name: 'w', namespace: 'apps', nextRunAt: '2026-03-31T13:00:00Z', lastScore: 70, overdue: false },
      { name: 'y', namespace: 'rehearsal-system', nextRunAt: '2026-03-31T13:00:00Z', lastScore: 0, overdue: false },
      { name: 'x', namespace: 'rehearsal-system', nextRunAt: '2026-04-01T02:00:00Z', lastScore: 88, overdue: false },
    ]);
  });

  it('lists overdue runs first, most overdue first, and marks them', () => {
    const queued = (scheduledAt: string, trigger: 'schedule' | 'manual' = 'schedule') => ({
      id: 'r1234',
      trigger,
      scheduledAt,
      queuedAt: scheduledAt,
      stage: 'Queued' as const,
    });
    const tests = [
      makeTest({ name: 'soon', status: { nextRunAt: '2026-03-31T12:30:00Z' } }),
      // The engine was down: nextRunAt stayed at an instant that passed.
      makeTest({ name: 'missed-3h', status: { nextRunAt: '2026-03-31T09:00:00Z', lastScore: 91 } }),
      makeTest({ name: 'missed-2m', status: { nextRunAt: '2026-03-31T11:58:00Z' } }),
      // Within the minute after its time: due now, not (yet) overdue.
      makeTest({ name: 'due-now', status: { nextRunAt: '2026-03-31T11:59:30Z' } }),
      // A scheduled run waiting for a run slot: nextRunAt already names the following instant.
      makeTest({ name: 'queued', status: { nextRunAt: '2026-04-01T02:00:00Z', currentRun: queued('2026-03-31T10:00:00Z') } }),
      // A manual run waiting in the queue is no missed schedule: its next scheduled run is shown.
      makeTest({ name: 'manual', status: { nextRunAt: '2026-04-01T02:00:00Z', currentRun: queued('2026-03-31T10:00:00Z', 'manual') } }),
      // Running, not queued: the next instant is what is upcoming.
      makeTest({
        name: 'running',
        status: { nextRunAt: '2026-04-01T03:00:00Z', currentRun: { ...queued('2026-03-31T10:00:00Z'), stage: 'Restoring' } },
      }),
      makeTest({ name: 'paused', suspend: true, status: { nextRunAt: '2026-03-30T02:00:00Z' } }),
    ];
    expect(upcoming(tests, NOW).map((entry) => [entry.name, entry.nextRunAt, entry.overdue])).toEqual([
      ['missed-3h', '2026-03-31T09:00:00Z', true],
      ['queued', '2026-03-31T10:00:00Z', true],
      ['missed-2m', '2026-03-31T11:58:00Z', true],
      ['due-now', '2026-03-31T11:59:30Z', false],
      ['soon', '2026-03-31T12:30:00Z', false],
      ['manual', '2026-04-01T02:00:00Z', false],
      ['running', '2026-04-01T03:00:00Z', false],
    ]);
    expect(upcoming(tests, NOW)[0]).toEqual({ name: 'missed-3h', namespace: 'rehearsal-system', nextRunAt: '2026-03-31T09:00:00Z', lastScore: 91, overdue: true });
    // The boundary: exactly OVERDUE_AFTER_SECONDS late is not yet overdue; a millisecond more is.
    const edge = (at: string) => upcoming([makeTest({ name: 'e', status: { nextRunAt: at } })], NOW)[0]!.overdue;
    expect(OVERDUE_AFTER_SECONDS).toBe(60);
    expect(edge('2026-03-31T11:59:00.000Z')).toBe(false);
    expect(edge('2026-03-31T11:58:59.999Z')).toBe(true);
  });

  it('lists a test that runs on new backups only as "on next backup", after the timed ones (issue 32)', () => {
    const onBackupOnly = makeTest({ name: 'a-backups', spec: { schedule: { onBackup: { everyNth: 1 } } } });
    const both = makeTest({ name: 'both', spec: { schedule: { cron: '0 2 * * *', onBackup: {} } }, status: { nextRunAt: '2026-04-01T02:00:00Z' } });
    const cronOnly = makeTest({ name: 'cron', status: { nextRunAt: '2026-03-31T13:00:00Z' } });
    const suspended = makeTest({ name: 'paused', spec: { schedule: { onBackup: {}, suspend: true } } });
    const second = makeTest({ name: 'b-backups', spec: { schedule: { onBackup: { everyNth: 2 } } } });
    expect(upcoming([second, onBackupOnly, both, cronOnly, suspended], NOW)).toEqual([
      { name: 'cron', namespace: 'rehearsal-system', nextRunAt: '2026-03-31T13:00:00Z', lastScore: 0, overdue: false },
      { name: 'both', namespace: 'rehearsal-system', nextRunAt: '2026-04-01T02:00:00Z', onNextBackup: true, lastScore: 0, overdue: false },
      { name: 'a-backups', namespace: 'rehearsal-system', nextRunAt: '', onNextBackup: true, lastScore: 0, overdue: false },
      { name: 'b-backups', namespace: 'rehearsal-system', nextRunAt: '', onNextBackup: true, lastScore: 0, overdue: false },
    ]);
  });
});

describe('testResponse (the API mapping of decision 0005)', () => {
  it('maps a test that has run', () => {
    const test = makeTest({
      name: 'payments',
      sources: ['payments', 'payments-db'],
      cron: '0 3 * * *',
      maxRTO: '15m',
      status: {
        phase: 'Completed',
        lastScore: 93,
        lastResult: 'pass',
        lastRunAt: '2026-03-31T03:12:00Z',
        nextRunAt: '2026-04-01T03:00:00Z',
      },
    });
    expect(testResponse(test)).toEqual({
      name: 'payments',
      namespace: 'rehearsal-system',
      provider: 'velero',
      schedule: '0 3 * * *',
      phase: 'Completed',
      lastScore: 93,
      lastResult: 'pass',
      lastRunAt: '2026-03-31T03:12:00Z',
      nextRunAt: '2026-04-01T03:00:00Z',
      sourceNamespaces: ['payments', 'payments-db'],
      rtoTarget: '15m',
      backupName: 'latest',
      timezone: 'UTC',
      onBackup: false,
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      healthCheckPolicy: '',
      rpoTarget: '',
      alertOnExceed: false,
      historyLimit: 90,
    });
  });

  it('carries every field CreateTestInput expresses, as the spec sets them', () => {
    const test = makeTest({
      name: 'orders',
      maxRTO: '20m',
      alertOnExceed: true,
      spec: {
        provider: 'kasten',
        backupSource: { backupName: 'orders-weekly', namespaces: [{ name: 'orders' }] },
        schedule: { cron: '@daily', timezone: 'Europe/Berlin' },
        sandbox: { namespacePrefix: 'rt', ttl: '3h', networkIsolation: 'none' },
        healthCheckPolicy: 'orders-checks',
        historyLimit: 30,
        sla: { maxRTO: '20m', maxRPO: '24h', alertOnExceed: true },
        logCollection: { lines: 300, containers: 'all', previous: false },
      },
    });
    expect(testResponse(test)).toMatchObject({
      provider: 'kasten',
      schedule: '@daily',
      rtoTarget: '20m',
      rpoTarget: '24h',
      backupName: 'orders-weekly',
      timezone: 'Europe/Berlin',
      namespacePrefix: 'rt',
      ttl: '3h',
      networkIsolation: 'none',
      healthCheckPolicy: 'orders-checks',
      alertOnExceed: true,
      historyLimit: 30,
      // An omitted logCollection field reads back as its default.
      logCollection: { lines: 300, containers: 'all', initContainers: true, previous: false, events: true },
    });
  });

  it('uses empty strings and 0 for a test that never ran, Idle phase, no SLA', () => {
    expect(testResponse(makeTest({ name: 'fresh' }))).toEqual({
      name: 'fresh',
      namespace: 'rehearsal-system',
      provider: 'velero',
      schedule: '0 2 * * *',
      phase: 'Idle',
      lastScore: 0,
      lastResult: '',
      lastRunAt: '',
      nextRunAt: '',
      sourceNamespaces: ['fresh'],
      rtoTarget: '',
      backupName: 'latest',
      timezone: 'UTC',
      onBackup: false,
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      healthCheckPolicy: '',
      rpoTarget: '',
      alertOnExceed: false,
      historyLimit: 90,
    });
  });

  it('shows no next run while suspended', () => {
    const test = makeTest({
      name: 's',
      suspend: true,
      status: { phase: 'Failed', nextRunAt: '2026-04-01T03:00:00Z' },
    });
    expect(testResponse(test).nextRunAt).toBe('');
    expect(testResponse(test).phase).toBe('Failed');
  });
});
