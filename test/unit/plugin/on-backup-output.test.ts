// Tests that run after new backups (issue 32) in the plugin's tables: the SCHEDULE column says
// "each backup" / "every 3rd backup" (after the cron when there is one), and a test without a
// next time says "on next backup" under NEXT RUN, in list and in upcoming.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeApi, fixture } from './support/fake-api.js';
import { runPlugin } from './support/run-plugin.js';

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
  const [base] = fixture<Record<string, unknown>[]>('tests');
  const onBackupOnly = { ...base, name: 'after-backup', schedule: '', nextRunAt: '', onBackup: true, everyNthBackup: 1 };
  const both = { ...base, name: 'nightly-and-backups', onBackup: true, everyNthBackup: 3 };
  fake.on('GET', '/api/v1/tests', { status: 200, body: [onBackupOnly, both] });
  fake.on('GET', '/api/v1/upcoming', {
    status: 200,
    body: [{ name: 'after-backup', namespace: 'rehearsal-system', nextRunAt: '', onNextBackup: true, lastScore: 0, overdue: false }],
  });
});

afterAll(async () => {
  await fake.close();
});

const connection = (): string[] => ['--server', fake.url, '--token', 'unit-test-token'];
const rowOf = (stdout: string, name: string): string => stdout.split('\n').find((line) => line.startsWith(name)) ?? '';

describe('onBackup in tables', () => {
  it('list: the schedule and the next run of tests that run on new backups', async () => {
    const result = await runPlugin(['list', ...connection()]);
    expect(result.code).toBe(0);
    expect(rowOf(result.stdout, 'after-backup')).toMatch(/\beach backup\b.*\bon next backup\b/);
    expect(rowOf(result.stdout, 'nightly-and-backups')).toMatch(/ \+ every 3rd backup\b/);
    expect(rowOf(result.stdout, 'nightly-and-backups')).not.toMatch(/on next backup/);
    expect(fake.problems).toEqual([]);
  });

  it('upcoming: "on next backup" for a test without a next time', async () => {
    const result = await runPlugin(['upcoming', ...connection()]);
    expect(result.code).toBe(0);
    expect(rowOf(result.stdout, 'after-backup')).toMatch(/\bon next backup\b/);
    expect(fake.problems).toEqual([]);
  });
});
