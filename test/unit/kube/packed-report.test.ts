import { describe, expect, it } from '@jest/globals';
import {
  packReport,
  packedReportsJson,
  unpackReport,
  writePackedReportsJson,
} from '../../../server/report-codec/packed-report.js';
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
      expect((await packedReportsJson([packed])).toString('utf8')).toBe(`[${JSON.stringify(report)}]`);
    }
  });

  it('join into the JSON array of the reports, in the order asked', async () => {
    const packed = reports.map(packReport);
    const json = await packedReportsJson([packed[2]!, packed[0]!]);
    expect(JSON.parse(json.toString('utf8'))).toEqual([reports[2], reports[0]]);
    expect((await packedReportsJson([])).toString()).toBe('[]');
  });

  it('written in slices, give the same bytes as joined whole, and stop when the writer says so', async () => {
    const many = Array.from({ length: 250 }, (_, i) => packReport(reports[i % 3]!));
    for (const list of [[], many.slice(0, 3), many]) {
      const chunks: Buffer[] = [];
      await writePackedReportsJson(list, async (chunk) => {
        chunks.push(chunk);
        return true;
      });
      expect(Buffer.concat(chunks).equals(await packedReportsJson(list))).toBe(true);
      // One slice per 100 reports: no chunk holds the whole list.
      expect(chunks).toHaveLength(Math.max(1, Math.ceil(list.length / 100)));
    }
    let calls = 0;
    await writePackedReportsJson(many, async () => {
      calls += 1;
      return false;
    });
    expect(calls).toBe(1);
  });

  it('are a fraction of the JSON (the preset dictionary pays off on small reports)', () => {
    for (const report of reports) {
      expect(packReport(report).length).toBeLessThan(JSON.stringify(report).length / 3);
    }
  });
});
