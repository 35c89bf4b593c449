// Reports as CSV (issue 30, web/src/report-csv.ts): read back by an RFC 4180 reader written apart
// from the writer (test/helpers/csv.ts), the rows are the reports, and text a spreadsheet would
// run as a formula comes back with a leading apostrophe.
import { describe, expect, it } from '@jest/globals';
import type { Report } from '../../../web/src/format.js';
import { reportsCsv } from '../../../web/src/report-csv.js';
import { readCsv } from '../../helpers/csv.js';

function report(name: string, overrides: Partial<Report['spec']> = {}): Report {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreReport',
    metadata: { name, namespace: 'team-a' },
    spec: {
      testRef: { namespace: 'team-a', name: 'shop-daily' },
      runId: '20261206-0200',
      trigger: 'scheduled',
      scheduledAt: '2026-12-06T02:00:00Z',
      startedAt: '2026-12-06T02:00:07Z',
      completedAt: '2026-12-06T02:04:11Z',
      sourceNamespaces: ['shop'],
      backup: { name: 'shop-20261206', provider: 'velero', age: '2h0m0s' },
      sandboxNamespaces: ['rh-shop-1'],
      score: 100,
      result: 'pass',
      levels: [],
      checks: [{ name: 'orders', kind: 'sqlQuery', status: 'pass', message: 'ok', duration: '1s' }],
      checkSummary: '1/1 passed',
      completeness: [],
      rto: { measured: '4m4s', target: '10m', withinSLA: true, phases: {} },
      ...overrides,
    },
  } as Report;
}

describe('reportsCsv', () => {
  it('writes a header and one row per report, in order', () => {
    const rows = readCsv(reportsCsv([report('first'), report('second', { result: 'fail', score: 40 })]));
    expect(rows[0]).toEqual([
      'completedAt', 'namespace', 'test', 'result', 'score', 'trigger', 'backup', 'provider', 'backupAge',
      'rto', 'rtoTarget', 'rtoWithinSLA', 'rpo', 'rpoWithinSLA', 'checks', 'failedChecks', 'failure', 'report', 'runId',
    ]);
    expect(rows.slice(1).map((row) => [row[17], row[3], row[4]])).toEqual([
      ['first', 'pass', '100'],
      ['second', 'fail', '40'],
    ]);
    expect(rows[1]).toEqual([
      '2026-12-06T02:04:11Z', 'team-a', 'shop-daily', 'pass', '100', 'scheduled', 'shop-20261206', 'velero', '2h0m0s',
      '4m4s', '10m', 'true', '', '', '1/1 passed', '', '', 'first', '20261206-0200',
    ]);
  });

  it('keeps messages with commas, quotes and line breaks in one cell, and neutralizes formulas', () => {
    const csv = reportsCsv([
      report('=cmd|" /C calc"!A0', {
        result: 'fail',
        checks: [
          { name: 'orders', kind: 'sqlQuery', status: 'fail', message: 'expected "3", got 0\nrows, none', duration: '1s' },
          { name: '@web', kind: 'httpGet', status: 'error', message: '+SUM(1,2)', duration: '1s' },
          { name: 'skipped', kind: 'tcpSocket', status: 'skip', message: '-skipped', duration: '0s' },
        ],
        checkSummary: '0/3 passed; failed: orders, @web (error); 1 skipped',
        failure: { reason: 'ChecksFailed', message: '=1+1' },
      }),
    ]);
    const [, row] = readCsv(csv);
    expect(row?.[17]).toBe(`'=cmd|" /C calc"!A0`);
    expect(row?.[14]).toBe('0/3 passed; failed: orders, @web (error); 1 skipped');
    expect(row?.[15]).toBe('orders (fail): expected "3", got 0\nrows, none\n@web (error): +SUM(1,2)');
    expect(row?.[16]).toBe('ChecksFailed: =1+1');
    // No cell of the file starts with a formula character.
    for (const cell of readCsv(csv).flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('counts passed checks for a report written before checkSummary existed', () => {
    const old = report('old', {
      checks: [
        { name: 'a', kind: 'httpGet', status: 'pass', message: 'ok', duration: '1s' },
        { name: 'b', kind: 'httpGet', status: 'fail', message: 'no', duration: '1s' },
      ],
    });
    delete old.spec.checkSummary;
    expect(readCsv(reportsCsv([old]))[1]?.[14]).toBe('1/2 passed');
    expect(readCsv(reportsCsv([report('none', { checks: [], checkSummary: undefined })]))[1]?.[14]).toBe('no checks ran');
  });

  it('is only the header for no reports', () => {
    expect(readCsv(reportsCsv([]))).toHaveLength(1);
  });
});
