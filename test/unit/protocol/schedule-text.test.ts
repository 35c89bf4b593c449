// Schedules in English (issue 30, protocol/schedule-text.ts): what the dashboard shows beside the
// cron. Phrased only when exact; anything else is the cron itself.
import { describe, expect, it } from '@jest/globals';
import { CronExpressionParser } from 'cron-parser';
import {
  backupText,
  describeCron,
  describeSchedule,
  ordinal,
  scheduleAside,
  SCHEDULE_MACROS,
} from '../../../protocol/schedule-text.js';
import { CRON_MACROS, validateCron } from '../../../server/domain/run/schedule.js';

describe('describeCron', () => {
  it.each([
    ['0 2 * * *', 'Europe/Paris', 'daily at 02:00 Europe/Paris'],
    ['*/30 * * * *', 'UTC', 'every 30 minutes'],
    ['0,30 * * * *', 'UTC', 'every 30 minutes'],
    ['5/15 * * * *', 'UTC', 'every 15 minutes from :05'],
    ['* * * * *', 'UTC', 'every minute'],
    ['15 6 * * 1-5', 'UTC', 'weekdays at 06:15 UTC'],
    ['15 6 * * MON-FRI', 'UTC', 'weekdays at 06:15 UTC'],
    ['0 10 * * 6,0', 'UTC', 'weekends at 10:00 UTC'],
    ['0 4 * * 0', 'UTC', 'on Sundays at 04:00 UTC'],
    ['0 4 * * 7', 'UTC', 'on Sundays at 04:00 UTC'],
    ['0 4 * * sun', 'UTC', 'on Sundays at 04:00 UTC'],
    ['30 1 * * 1,4', 'America/New_York', 'on Mondays and Thursdays at 01:30 America/New_York'],
    ['0 3 1 * *', 'UTC', 'monthly on the 1st at 03:00 UTC'],
    ['0 3 1,15 * *', 'UTC', 'monthly on the 1st and 15th at 03:00 UTC'],
    ['0 3 22 * *', 'UTC', 'monthly on the 22nd at 03:00 UTC'],
    ['0 0 1 1 *', 'UTC', 'yearly on the 1st of January at 00:00 UTC'],
    ['0 3 1 1,4,7,10 *', 'UTC', 'on the 1st of January, April, July and October at 03:00 UTC'],
    ['0 2 * 12 *', 'UTC', 'daily in December at 02:00 UTC'],
    ['0 2,14 * * *', 'Asia/Tokyo', 'daily at 02:00 and 14:00 Asia/Tokyo'],
    ['0,30 9 * * *', 'UTC', 'daily at 09:00 and 09:30 UTC'],
    ['0 * * * *', 'UTC', 'hourly'],
    ['20 * * * *', 'UTC', 'hourly at :20'],
    ['0 */6 * * *', 'Europe/Paris', 'every 6 hours from 00:00 Europe/Paris'],
    ['30 2/8 * * *', 'UTC', 'every 8 hours from 02:30 UTC'],
    ['0 0-23/2 * * *', 'UTC', 'every 2 hours from 00:00 UTC'],
    ['0 0,12 * * *', 'UTC', 'daily at 00:00 and 12:00 UTC'],
    ['0 2 * * 0-6', 'UTC', 'daily at 02:00 UTC'],
    ['  0 2 * * *  ', 'UTC', 'daily at 02:00 UTC'],
    ['@daily', 'Europe/Paris', 'daily at 00:00 Europe/Paris'],
    ['@midnight', 'UTC', 'daily at 00:00 UTC'],
    ['@hourly', 'UTC', 'hourly'],
    ['@weekly', 'UTC', 'on Sundays at 00:00 UTC'],
    ['@monthly', 'UTC', 'monthly on the 1st at 00:00 UTC'],
    ['@yearly', 'UTC', 'yearly on the 1st of January at 00:00 UTC'],
    ['@annually', 'UTC', 'yearly on the 1st of January at 00:00 UTC'],
  ])('%s in %s: %s', (cron, zone, expected) => {
    expect(describeCron(cron, zone)).toBe(expected);
  });

  it('says UTC when no zone is given (the server default)', () => {
    expect(describeCron('0 2 * * *')).toBe('daily at 02:00 UTC');
    expect(describeCron('0 2 * * *', '')).toBe('daily at 02:00 UTC');
  });

  it.each([
    ['hour range', '0 9-17 * * 1-5'],
    ['minutes in an hour range', '*/15 9-17 * * *'],
    ['both day fields (cron runs on either)', '0 3 1 * 1'],
    ['last day of the month', '0 3 L * *'],
    ['nth weekday', '0 3 * * 1#2'],
    ['question mark', '0 3 ? * *'],
    ['an uneven minute step', '*/7 * * * *'],
    ['an uneven hour step', '0 */5 * * *'],
    ['more than four times a day', '0 1,3,5,7,9 * * *'],
    ['an interval on some days only', '*/30 * * * 1-5'],
    ['six fields', '0 0 2 * * *'],
    ['four fields', '0 2 * *'],
    ['out of range', '0 25 * * *'],
    ['a reversed range', '0 5-2 * * *'],
    ['an unknown macro', '@fortnightly'],
    ['nonsense', 'not a cron'],
    ['empty', ''],
  ])('falls back to the cron itself: %s', (_case, cron) => {
    expect(describeCron(cron, 'Europe/Paris')).toBe(cron.trim());
  });

  it('phrases daily times the cron really runs at, in the zone it names', () => {
    // The sentence against cron-parser's next runs, in the zone: the same clock time every day.
    const expression = CronExpressionParser.parse('15 6 * * *', { tz: 'Europe/Paris', currentDate: new Date('2026-03-27T12:00:00Z') });
    const wallClock = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const times = new Set(expression.take(5).map((run) => wallClock.format(run.toDate())));
    expect([...times]).toEqual(['06:15']); // across the 29 March 2026 change to summer time
    expect(describeCron('15 6 * * *', 'Europe/Paris')).toBe(`daily at ${[...times][0]} Europe/Paris`);
  });

  it('knows exactly the macros the server accepts, expanded the same way', () => {
    expect(Object.keys(SCHEDULE_MACROS).sort()).toEqual([...CRON_MACROS].sort());
    for (const [macro, expansion] of Object.entries(SCHEDULE_MACROS)) {
      expect(validateCron(macro)).toEqual({ ok: true, expression: expansion });
    }
  });
});

describe('ordinal', () => {
  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [22, '22nd'],
    [23, '23rd'],
    [31, '31st'],
    [111, '111th'],
  ])('%d: %s', (n, expected) => {
    expect(ordinal(n)).toBe(expected);
  });
});

describe('backupText, describeSchedule and scheduleAside', () => {
  it('words a test that runs on new backups', () => {
    expect(backupText()).toBe('on new backups');
    expect(backupText(1)).toBe('on new backups');
    expect(backupText(2)).toBe('every 2nd backup');
    expect(backupText(3)).toBe('every 3rd backup');
    expect(describeSchedule({ schedule: '', onBackup: true })).toBe('on new backups');
    expect(describeSchedule({ schedule: '', onBackup: true, everyNthBackup: 3 })).toBe('every 3rd backup');
    expect(scheduleAside({ schedule: '', onBackup: true, everyNthBackup: 3 })).toBe('every 3rd backup');
  });

  it('joins a cron and new backups', () => {
    const test = { schedule: '0 2 * * *', timezone: 'Europe/Paris', onBackup: true };
    expect(describeSchedule(test)).toBe('daily at 02:00 Europe/Paris; also on new backups');
    expect(scheduleAside(test)).toBe('daily at 02:00 Europe/Paris; also on new backups');
  });

  it('keeps an unphrased cron as it is, and beside it names only the zone', () => {
    const test = { schedule: '0 9-17 * * 1-5', timezone: 'Europe/Paris' };
    expect(describeSchedule(test)).toBe('0 9-17 * * 1-5');
    expect(scheduleAside(test)).toBe('Europe/Paris');
    expect(scheduleAside({ schedule: '0 9-17 * * 1-5' })).toBe('UTC');
    expect(scheduleAside({ ...test, onBackup: true, everyNthBackup: 2 })).toBe('Europe/Paris; also every 2nd backup');
  });

  it('says nothing for a test with neither a cron nor new backups', () => {
    expect(describeSchedule({ schedule: '' })).toBe('');
    expect(scheduleAside({ schedule: '  ', onBackup: false })).toBe('');
  });
});
