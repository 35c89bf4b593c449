// Issue 32 in the per-test PDF: a run's Backup cell says how a randomWithin test drew it.
import { describe, expect, it } from '@jest/globals';
import { runRecordFromReport } from '../../../server/pdf/test-report-data.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../../fixtures/evidence/reports.js';

const test = makeRestoreTest('payments-nightly', ['payments'], { uid: 'uid-payments' });
const base = {
  strategy: 'randomWithin' as const,
  within: '720h',
  windowStart: '2026-01-01T00:00:00.000Z',
  windowEnd: '2026-01-31T00:00:00.000Z',
  seed: '0000000c',
  reason: 'random within 720h',
};

describe('runRecordFromReport: the backup choice', () => {
  it('is "#3 of 7" for a draw, "fallback" when the window held none, absent for latest', () => {
    const report = makeReport(test, 0, PERIOD_START, { result: 'pass', rtoSeconds: 60 });
    const withSelection = (selection: object) => ({ ...report, spec: { ...report.spec, backup: { ...report.spec.backup, selection } } }) as typeof report;
    expect(runRecordFromReport(withSelection({ ...base, candidates: 7, chosen: 3 })).backupChoice).toBe('#3 of 7');
    expect(runRecordFromReport(withSelection({ ...base, candidates: 0, fallback: true })).backupChoice).toBe('fallback');
    expect(runRecordFromReport(report)).not.toHaveProperty('backupChoice');
  });
});
