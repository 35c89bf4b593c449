import { describe, expect, it } from '@jest/globals';
import {
  CRON_MACROS,
  ScheduleError,
  decideSchedule,
  isValidTimeZone,
  latestInstantBetween,
  nextRunAfter,
  scheduleIntervalSeconds,
  validateCron,
  type ScheduleDecision,
  type ScheduleInput,
} from '../../../server/domain/run/schedule.js';

const at = (text: string): Date => new Date(text);

describe('validateCron', () => {
  it.each([
    ['0 2 * * *', '0 2 * * *'],
    ['*/15 * * * *', '*/15 * * * *'],
    ['0 0 * * MON-FRI', '0 0 * * MON-FRI'],
    ['0 9 * * THU', '0 9 * * THU'],
    ['0 0 1 JAN *', '0 0 1 JAN *'],
    ['0 0 L * *', '0 0 L * *'],
    ['0 0 * * 1#1', '0 0 * * 1#1'],
    ['5,35 1-3 */2 * 0,6', '5,35 1-3 */2 * 0,6'],
    ['  0   2 * * *  ', '0 2 * * *'],
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@monthly', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
  ])('accepts %j as %j', (cron, expression) => {
    expect(validateCron(cron)).toEqual({ ok: true, expression });
  });

  it('lists exactly the documented macros', () => {
    expect([...CRON_MACROS].sort()).toEqual(
      ['@annually', '@daily', '@hourly', '@midnight', '@monthly', '@weekly', '@yearly'].sort(),
    );
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['0 0 2 * * *', /5 fields.*got 6/],
    ['* * * *', /got 4/],
    ['0 0 0 1 1 * 2026', /got 7/],
    ['*', /got 1/],
    ['@minutely', /unknown cron macro/],
    ['@secondly', /unknown cron macro/],
    ['@weekdays', /unknown cron macro/],
    ['@every 1h', /unknown cron macro/],
    ['@Daily', /unknown cron macro/],
    ['60 * * * *', /invalid cron expression/],
    ['0 24 * * *', /invalid cron expression/],
    ['0 0 32 * *', /invalid cron expression/],
    ['0 0 * 13 *', /invalid cron expression/],
    ['0 0 * * 8', /invalid cron expression/],
    ['a b c d e', /invalid cron expression/],
    ['*/0 * * * *', /invalid cron expression/],
    ['0 0 31 2 *', /invalid cron expression/],
    ['H * * * *', /must not use H/],
    ['H/5 * * * *', /must not use H/],
    ['0 H(0-5) * * *', /must not use H/],
  ])('rejects %j', (cron, message) => {
    const result = validateCron(cron);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });
});

describe('isValidTimeZone', () => {
  it.each([
    'UTC',
    'Etc/UTC',
    'Europe/Berlin',
    'America/New_York',
    'America/Argentina/Buenos_Aires',
    'Asia/Kolkata',
    'US/Eastern',
    'Etc/GMT+5',
  ])('accepts %s', (zone) => expect(isValidTimeZone(zone)).toBe(true));

  it.each(['', 'utc', 'europe/berlin', '+01:00', '-05:00', 'Mars/Olympus_Mons', 'Europe/Berlin ', 'Local'])(
    'rejects %j',
    (zone) => expect(isValidTimeZone(zone)).toBe(false),
  );
});

describe('nextRunAfter', () => {
  it.each([
    ['0 2 * * *', 'UTC', '2026-03-10T01:00:00Z', '2026-03-10T02:00:00.000Z'],
    // strictly after: an instant equal to `after` is not next
    ['0 2 * * *', 'UTC', '2026-03-10T02:00:00Z', '2026-03-11T02:00:00.000Z'],
    ['@hourly', 'UTC', '2026-03-10T10:59:59Z', '2026-03-10T11:00:00.000Z'],
    ['*/15 * * * *', 'UTC', '2026-03-10T10:07:00Z', '2026-03-10T10:15:00.000Z'],
    // 02:00 in Berlin is 01:00Z in winter (CET) and 00:00Z in summer (CEST)
    ['0 2 * * *', 'Europe/Berlin', '2026-01-15T00:00:00Z', '2026-01-15T01:00:00.000Z'],
    ['0 2 * * *', 'Europe/Berlin', '2026-07-14T23:00:00Z', '2026-07-15T00:00:00.000Z'],
    // Friday afternoon -> Monday 09:30 EDT (DST began 2026-03-08) = 13:30Z
    ['30 9 * * 1-5', 'America/New_York', '2026-03-06T15:00:00Z', '2026-03-09T13:30:00.000Z'],
    // 02:30 does not exist in Berlin on 2026-03-29: it runs once, an hour later (03:30 CEST)
    ['30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-29T01:30:00.000Z'],
    // 02:30 happens twice on 2026-10-25: it runs once, at the first (CEST) occurrence
    ['30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', '2026-10-25T00:30:00.000Z'],
    ['30 2 * * *', 'Europe/Berlin', '2026-10-25T00:30:00Z', '2026-10-26T01:30:00.000Z'],
    ['@yearly', 'UTC', '2026-03-10T00:00:00Z', '2027-01-01T00:00:00.000Z'],
    ['0 0 29 2 *', 'UTC', '2026-03-01T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('%s in %s after %s is %s', (cron, zone, after, expected) => {
    expect(nextRunAfter(cron, zone, at(after))?.toISOString()).toBe(expected);
  });

  it('throws a ScheduleError for an invalid cron or zone', () => {
    expect(() => nextRunAfter('0 0 0 * * *', 'UTC', at('2026-01-01T00:00:00Z'))).toThrow(ScheduleError);
    try {
      nextRunAfter('0 2 * * *', 'Mars/Olympus', at('2026-01-01T00:00:00Z'));
      throw new Error('expected a ScheduleError');
    } catch (error) {
      expect(error).toBeInstanceOf(ScheduleError);
      expect((error as ScheduleError).reason).toBe('InvalidTimeZone');
    }
  });
});

describe('latestInstantBetween', () => {
  it.each([
    ['0 2 * * *', 'UTC', '2026-03-08T00:00:00Z', '2026-03-10T05:00:00Z', '2026-03-10T02:00:00.000Z'],
    // the upper bound is inclusive
    ['0 2 * * *', 'UTC', '2026-03-08T00:00:00Z', '2026-03-10T02:00:00Z', '2026-03-10T02:00:00.000Z'],
    // the lower bound is exclusive
    ['0 2 * * *', 'UTC', '2026-03-10T02:00:00Z', '2026-03-10T05:00:00Z', null],
    ['0 2 * * *', 'UTC', '2026-03-10T03:00:00Z', '2026-03-11T01:59:59Z', null],
    [
      '0 2 * * *',
      'Europe/Berlin',
      '2026-01-01T00:00:00Z',
      '2026-01-15T12:00:00Z',
      '2026-01-15T01:00:00.000Z',
    ],
    // a year of every-minute instants is still a single backwards step
    ['* * * * *', 'UTC', '2025-03-10T00:00:00Z', '2026-03-10T10:07:30Z', '2026-03-10T10:07:00.000Z'],
  ])('%s in %s within (%s, %s] is %s', (cron, zone, after, upTo, expected) => {
    expect(latestInstantBetween(cron, zone, at(after), at(upTo))?.toISOString() ?? null).toBe(expected);
  });
});

describe('scheduleIntervalSeconds', () => {
  it.each([
    ['0 2 * * *', 'UTC', '2026-03-10T12:00:00Z', 86_400],
    ['*/15 * * * *', 'UTC', '2026-03-10T12:00:00Z', 900],
    ['@hourly', 'UTC', '2026-03-10T12:00:00Z', 3600],
    ['0 9 * * 1', 'UTC', '2026-03-10T12:00:00Z', 604_800],
    // the gap between the NEXT two instants: from Thursday it is Friday -> Monday
    ['0 9 * * 1-5', 'UTC', '2026-03-05T10:00:00Z', 259_200],
    ['0 9 * * 1-5', 'UTC', '2026-03-06T10:00:00Z', 86_400],
    // across the spring DST change in Berlin the day is 23 hours long
    ['0 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 82_800],
  ])('%s in %s at %s is %i s', (cron, zone, now, seconds) => {
    expect(scheduleIntervalSeconds(cron, zone, at(now))).toBe(seconds);
  });
});

describe('decideSchedule', () => {
  const base: ScheduleInput = {
    cron: '0 2 * * *',
    timezone: 'UTC',
    createdAt: at('2026-03-01T00:00:00Z'),
    now: at('2026-03-01T01:00:00Z'),
    runInProgress: false,
  };

  type Expected = {
    action: ScheduleDecision['action'];
    reason: string;
    instant?: string;
    nextRunAt?: string | null;
    lateSeconds?: number;
  };

  const cases: [string, Partial<ScheduleInput>, Expected][] = [
    [
      'never scheduled, not yet due',
      {},
      { action: 'wait', reason: 'NotDue', nextRunAt: '2026-03-01T02:00:00.000Z' },
    ],
    [
      'never scheduled, due 30 s ago',
      { now: at('2026-03-01T02:00:30Z') },
      {
        action: 'run',
        reason: 'ScheduleDue',
        instant: '2026-03-01T02:00:00.000Z',
        nextRunAt: '2026-03-02T02:00:00.000Z',
      },
    ],
    [
      'due exactly now',
      { now: at('2026-03-01T02:00:00Z') },
      {
        action: 'run',
        reason: 'ScheduleDue',
        instant: '2026-03-01T02:00:00.000Z',
        nextRunAt: '2026-03-02T02:00:00.000Z',
      },
    ],
    [
      'instant already acted on',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-01T02:05:00Z') },
      { action: 'wait', reason: 'NotDue', nextRunAt: '2026-03-02T02:00:00.000Z' },
    ],
    [
      '59 min 59 s late still runs',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-02T02:59:59Z') },
      { action: 'run', reason: 'ScheduleDue', instant: '2026-03-02T02:00:00.000Z' },
    ],
    [
      'exactly one hour late is missed',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-02T03:00:00Z') },
      {
        action: 'skip-missed',
        reason: 'MissedSchedule',
        instant: '2026-03-02T02:00:00.000Z',
        lateSeconds: 3600,
      },
    ],
    [
      'down for three days, recovered 30 min after an instant: one run, no burst',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-04T02:30:00Z') },
      {
        action: 'run',
        reason: 'ScheduleDue',
        instant: '2026-03-04T02:00:00.000Z',
        nextRunAt: '2026-03-05T02:00:00.000Z',
      },
    ],
    [
      'down for three days, recovered 3 h after an instant: skipped',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-04T05:00:00Z') },
      {
        action: 'skip-missed',
        reason: 'MissedSchedule',
        instant: '2026-03-04T02:00:00.000Z',
        nextRunAt: '2026-03-05T02:00:00.000Z',
        lateSeconds: 10_800,
      },
    ],
    [
      'due while a run is in progress',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-02T02:00:10Z'), runInProgress: true },
      {
        action: 'skip-overlap',
        reason: 'RunInProgress',
        instant: '2026-03-02T02:00:00.000Z',
        nextRunAt: '2026-03-03T02:00:00.000Z',
      },
    ],
    [
      'missed while a run is in progress: missed wins',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-02T04:00:00Z'), runInProgress: true },
      {
        action: 'skip-missed',
        reason: 'MissedSchedule',
        instant: '2026-03-02T02:00:00.000Z',
        lateSeconds: 7200,
      },
    ],
    [
      'run in progress, nothing due',
      { lastScheduleTime: at('2026-03-01T02:00:00Z'), now: at('2026-03-01T02:30:00Z'), runInProgress: true },
      { action: 'wait', reason: 'NotDue', nextRunAt: '2026-03-02T02:00:00.000Z' },
    ],
    [
      'an instant equal to creation time never runs',
      { createdAt: at('2026-03-01T02:00:00Z'), now: at('2026-03-01T02:10:00Z') },
      { action: 'wait', reason: 'NotDue', nextRunAt: '2026-03-02T02:00:00.000Z' },
    ],
    [
      'lastScheduleTime null behaves like never scheduled',
      { lastScheduleTime: null, now: at('2026-03-01T02:10:00Z') },
      { action: 'run', reason: 'ScheduleDue', instant: '2026-03-01T02:00:00.000Z' },
    ],
    [
      'custom missed-run window of 5 minutes',
      { now: at('2026-03-01T02:06:00Z'), missedRunWindowSeconds: 300 },
      {
        action: 'skip-missed',
        reason: 'MissedSchedule',
        instant: '2026-03-01T02:00:00.000Z',
        lateSeconds: 360,
      },
    ],
    [
      'evaluated in the test time zone',
      { timezone: 'Europe/Berlin', now: at('2026-03-01T01:00:30Z') },
      {
        action: 'run',
        reason: 'ScheduleDue',
        instant: '2026-03-01T01:00:00.000Z',
        nextRunAt: '2026-03-02T01:00:00.000Z',
      },
    ],
    [
      'an empty time zone means UTC',
      { timezone: '', now: at('2026-03-01T02:00:30Z') },
      { action: 'run', reason: 'ScheduleDue', instant: '2026-03-01T02:00:00.000Z' },
    ],
    [
      'time zone defaults to UTC',
      { timezone: undefined, now: at('2026-03-01T02:00:30Z') },
      { action: 'run', reason: 'ScheduleDue', instant: '2026-03-01T02:00:00.000Z' },
    ],
    [
      'suspended',
      { suspend: true, now: at('2026-03-01T02:00:30Z') },
      { action: 'suspended', reason: 'Suspended' },
    ],
    ['invalid cron', { cron: '0 0 2 * * *' }, { action: 'invalid', reason: 'InvalidCron' }],
    [
      'invalid cron while suspended',
      { cron: 'nope', suspend: true },
      { action: 'invalid', reason: 'InvalidCron' },
    ],
    ['invalid time zone', { timezone: 'Mars/Olympus' }, { action: 'invalid', reason: 'InvalidTimeZone' }],
  ];

  it.each(cases)('%s', (_title, overrides, expected) => {
    const decision = decideSchedule({ ...base, ...overrides });
    expect(decision.action).toBe(expected.action);
    expect(decision.reason).toBe(expected.reason);
    expect(decision.message.length).toBeGreaterThan(0);
    if (expected.instant !== undefined)
      expect('instant' in decision && decision.instant.toISOString()).toBe(expected.instant);
    if (expected.nextRunAt !== undefined) {
      expect('nextRunAt' in decision && (decision.nextRunAt?.toISOString() ?? null)).toBe(expected.nextRunAt);
    }
    if (expected.lateSeconds !== undefined) {
      expect(decision.action === 'skip-missed' && decision.lateSeconds).toBe(expected.lateSeconds);
    }
  });

  it('messages name the instant and the next run', () => {
    const decision = decideSchedule({
      ...base,
      lastScheduleTime: at('2026-03-01T02:00:00Z'),
      now: at('2026-03-04T05:00:00Z'),
    });
    expect(decision.message).toBe(
      'skipped the run due 2026-03-04T02:00:00.000Z: 10800s late, beyond the 3600s missed-run window; next run 2026-03-05T02:00:00.000Z',
    );
  });

  it('never throws, even for garbage input', () => {
    expect(decideSchedule({ ...base, cron: undefined as unknown as string }).action).toBe('invalid');
  });

  // A controller that stores `instant` as lastScheduleTime and polls every 10 minutes runs every
  // instant exactly once; after an outage it runs at most once.
  function simulate(cron: string, from: string, to: string, down: [string, string] | null): string[] {
    const runs: string[] = [];
    let last: Date | null = null;
    for (let now = at(from).getTime(); now <= at(to).getTime(); now += 600_000) {
      if (down && now >= at(down[0]).getTime() && now < at(down[1]).getTime()) continue;
      const decision = decideSchedule({
        cron,
        timezone: 'UTC',
        createdAt: at(from),
        lastScheduleTime: last,
        now: new Date(now),
        runInProgress: false,
      });
      if (decision.action === 'run') runs.push(decision.instant.toISOString());
      if ('instant' in decision) last = decision.instant;
    }
    return runs;
  }

  it('simulation: every instant runs exactly once', () => {
    expect(simulate('0 */6 * * *', '2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z', null)).toEqual([
      '2026-03-01T06:00:00.000Z',
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T18:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
  });

  it('simulation: an outage spanning several instants yields one late run on recovery', () => {
    // Down 05:50-19:20: at 19:20 the latest instant (18:00) is 80 min late -> missed, nothing runs.
    // Down until 18:50 instead: 18:00 is 50 min late -> runs once; 06:00 and 12:00 never burst.
    expect(
      simulate('0 */6 * * *', '2026-03-01T00:00:00Z', '2026-03-01T23:59:00Z', [
        '2026-03-01T05:50:00Z',
        '2026-03-01T19:20:00Z',
      ]),
    ).toEqual([]);
    expect(
      simulate('0 */6 * * *', '2026-03-01T00:00:00Z', '2026-03-01T23:59:00Z', [
        '2026-03-01T05:50:00Z',
        '2026-03-01T18:50:00Z',
      ]),
    ).toEqual(['2026-03-01T18:00:00.000Z']);
  });
});
