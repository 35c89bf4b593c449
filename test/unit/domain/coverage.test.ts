// Coverage of backed-up namespaces (issue 16): which namespaces a backup covers, the RPO window,
// and when a namespace counts as restore-tested.
import { describe, expect, it } from '@jest/globals';
import { withCoverageGap } from '../../../server/domain/compliance/coverage-gap.js';
import { computeCoverage, namespacesOf, schedulesBacking, type BackupInventory } from '../../../server/domain/read-models/coverage.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { makeReport, makeTest } from './fixtures.js';

const NOW = new Date('2026-03-15T12:00:00Z');
const hoursAgo = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

function inventory(partial: Partial<BackupInventory>): BackupInventory {
  return { schedules: [], backups: [], clusterNamespaces: [], ...partial };
}

describe('namespacesOf', () => {
  it.each([
    [['a', 'b'], [], ['x'], ['a', 'b']],
    [[], [], ['x', 'y'], ['x', 'y']],
    [['*'], ['y'], ['x', 'y'], ['x']],
    [['*', 'z'], [], ['x'], ['x', 'z']],
    [['a', 'a'], ['b'], [], ['a']],
  ])('included %j excluded %j over cluster %j → %j', (included, excluded, cluster, expected) => {
    expect(namespacesOf(included, excluded, cluster)).toEqual(expected);
  });
});

describe('computeCoverage', () => {
  const run = (tests: ReturnType<typeof makeTest>[], reports: ReturnType<typeof makeReport>[], inv: BackupInventory) =>
    computeCoverage({ inventory: inv, tests, reports: ReportIndex.from(reports), now: NOW, minimumWindowSeconds: 86_400 });

  it('a namespace with no test is untested; a pass within the window makes it tested', () => {
    const inv = inventory({ backups: [{ name: 'b1', includedNamespaces: ['shop'], excludedNamespaces: [] }] });
    expect(run([], [], inv).namespaces[0]).toMatchObject({ namespace: 'shop', status: 'untested', tests: [] });
    const test = makeTest({ name: 'shop' });
    const failed = makeReport({ test: 'shop', completedAt: hoursAgo(1), result: 'fail' });
    expect(run([test], [failed], inv).namespaces[0]).toMatchObject({ status: 'untested', tests: ['rehearsal-system/shop'] });
    const partial = makeReport({ test: 'shop', completedAt: hoursAgo(1), result: 'partial' });
    expect(run([test], [partial], inv).namespaces[0]!.status).toBe('untested');
    const passed = makeReport({ test: 'shop', completedAt: hoursAgo(2), result: 'pass' });
    expect(run([test], [failed, passed], inv)).toMatchObject({
      backedUp: 1,
      tested: 1,
      untested: 0,
      namespaces: [{ status: 'tested', lastPassedAt: hoursAgo(2) }],
    });
  });

  it.each([
    // cron, age of the newest pass in hours, expected status, window
    ['0 * * * *', 23, 'tested', '24h'], // hourly backups: the 24 h floor applies
    ['0 * * * *', 25, 'stale', '24h'],
    ['0 3 * * 0', 100, 'tested', '168h'], // weekly backups: a weekly restore test suffices
    ['0 3 * * 0', 170, 'stale', '168h'],
  ])('schedule %s, pass %i h ago → %s (window %s)', (cron, age, status, window) => {
    const inv = inventory({
      schedules: [{ name: 's', cron, paused: false, includedNamespaces: ['shop'], excludedNamespaces: [] }],
    });
    const report = makeReport({ test: 'shop', completedAt: hoursAgo(age), result: 'pass' });
    expect(run([makeTest({ name: 'shop' })], [report], inv).namespaces[0]).toMatchObject({ status, window });
  });

  it('skips paused schedules, takes the shortest interval and the newest backup', () => {
    const inv = inventory({
      schedules: [
        { name: 'paused', cron: '* * * * *', paused: true, includedNamespaces: ['gone'], excludedNamespaces: [] },
        { name: 'weekly', cron: '0 3 * * 0', paused: false, includedNamespaces: ['*'], excludedNamespaces: [], lastBackup: hoursAgo(50) },
        { name: 'daily', cron: '0 3 * * *', paused: false, includedNamespaces: ['shop'], excludedNamespaces: [], lastBackup: hoursAgo(9) },
      ],
      backups: [{ name: 'old', includedNamespaces: ['shop'], excludedNamespaces: [], completedAt: hoursAgo(300) }],
      clusterNamespaces: ['shop', 'crm'],
    });
    const coverage = run([], [], inv);
    expect(coverage.namespaces.map((entry) => entry.namespace)).toEqual(['crm', 'shop']);
    expect(coverage.namespaces[1]).toMatchObject({
      backedUpBy: ['Backup/old', 'Schedule/daily', 'Schedule/weekly'],
      lastBackupAt: hoursAgo(9),
      window: '24h',
    });
    expect(coverage.namespaces[0]).toMatchObject({ window: '168h', lastBackupAt: hoursAgo(50) });
  });

  it("counts a schedule whose cron Rehearsal does not read (Velero's @every) as backing up, with no window of its own", () => {
    const inv = inventory({
      schedules: [{ name: 'every', cron: '@every 6h', paused: false, includedNamespaces: ['shop'], excludedNamespaces: [] }],
    });
    expect(run([], [], inv).namespaces).toEqual([
      expect.objectContaining({ namespace: 'shop', status: 'untested', backedUpBy: ['Schedule/every'], window: '24h' }),
    ]);
  });

  it('counts a pass of a multi-namespace test for each namespace it restored', () => {
    const inv = inventory({ backups: [{ name: 'b', includedNamespaces: ['a', 'b', 'c'], excludedNamespaces: [] }] });
    const test = makeTest({ name: 'ab', sources: ['a', 'b'] });
    const report = makeReport({ test: 'ab', sources: ['a', 'b'], completedAt: hoursAgo(1) });
    const statuses = run([test], [report], inv).namespaces.map((entry) => `${entry.namespace}:${entry.status}`);
    expect(statuses).toEqual(['c:untested', 'a:tested', 'b:tested']);
  });
});

describe('withCoverageGap', () => {
  const control = { id: 'CC1', title: 't', status: 'satisfied' as const, evidence: 'CC1 satisfied: ok.' };
  it('leaves a control alone when every backed-up namespace is tested', () => {
    expect(withCoverageGap(control, [])).toBe(control);
  });
  it('names the gap and downgrades satisfied to at_risk; lists at most ten names', () => {
    const names = Array.from({ length: 12 }, (_, index) => `ns-${String(index).padStart(2, '0')}`);
    const gap = withCoverageGap(control, names);
    expect(gap.status).toBe('at_risk');
    expect(gap.evidence).toBe(
      'CC1 satisfied: ok. Gap: 12 backed-up namespaces are not restore-tested within their window: ' +
        'ns-00, ns-01, ns-02, ns-03, ns-04, ns-05, ns-06, ns-07, ns-08, ns-09 and 2 more.',
    );
    expect(withCoverageGap({ ...control, status: 'not_tested' }, ['a']).status).toBe('not_tested');
  });
});

describe('schedulesBacking', () => {
  it('lists the unpaused schedules of a namespace, most frequent first, unreadable crons last', () => {
    const inv = inventory({
      schedules: [
        { name: 'weekly', cron: '0 3 * * 0', paused: false, includedNamespaces: ['*'], excludedNamespaces: [] },
        { name: 'odd', cron: '@every 1h', paused: false, includedNamespaces: ['shop'], excludedNamespaces: [] },
        { name: 'paused', cron: '* * * * *', paused: true, includedNamespaces: ['shop'], excludedNamespaces: [] },
        { name: 'daily', cron: '0 3 * * *', paused: false, includedNamespaces: ['shop'], excludedNamespaces: [] },
        { name: 'other', cron: '0 * * * *', paused: false, includedNamespaces: ['crm'], excludedNamespaces: [] },
      ],
      clusterNamespaces: ['shop', 'crm'],
    });
    expect(schedulesBacking(inv, 'shop', NOW).map((schedule) => schedule.name)).toEqual(['daily', 'weekly', 'odd']);
    expect(schedulesBacking(inv, 'nowhere', NOW)).toEqual([]);
  });
});
