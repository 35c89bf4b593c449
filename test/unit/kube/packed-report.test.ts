import { describe, expect, it } from '@jest/globals';
import {
  packReport,
  packedReportsJson,
  unpackReport,
  unpackReportJson,
} from '../../../server/kube/packed-report.js';
import { makeReport } from '../domain/fixtures.js';

describe('packed reports', () => {
  const reports = [1, 2, 3].map((day) =>
    makeReport({
      test: `app-${day}`,
      completedAt: `2026-03-0${day}T05:00:00Z`,
      result: day === 2 ? 'fail' : 'pass',
      failure:
        day === 2 ? { reason: 'RestoreFailed', message: 'Velero said “PartiallyFailed” ✗' } : undefined,
    }),
  );

  it('unpack to the same report, non-ASCII text included', async () => {
    for (const report of reports) {
      const packed = packReport(report);
      expect(unpackReport(packed)).toEqual(report);
      expect((await unpackReportJson(packed)).toString('utf8')).toBe(JSON.stringify(report));
    }
  });

  it('join into the JSON array of the reports, in the order asked', async () => {
    const packed = reports.map(packReport);
    const json = await packedReportsJson([packed[2]!, packed[0]!]);
    expect(JSON.parse(json.toString('utf8'))).toEqual([reports[2], reports[0]]);
    expect((await packedReportsJson([])).toString()).toBe('[]');
  });

  it('are a fraction of the JSON (the preset dictionary pays off on small reports)', () => {
    for (const report of reports) {
      expect(packReport(report).length).toBeLessThan(JSON.stringify(report).length / 3);
    }
  });
});
