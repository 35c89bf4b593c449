// The compliance PDF's run file (rehearsal-runs.csv.gz, decision 0016): its columns are only ever
// appended, so the RPO columns (issue 27) follow the ones readers already pick by position; each
// line carries the run's measured RPO, its target in seconds and the verdict, read from the report
// index as the PDF reads it.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { periodRuns, runsFileRows } from '../../../server/api/services/compliance-runs.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { buildRunsFile } from '../../../server/pdf/runs-file.js';
import { makeReport } from '../domain/fixtures.js';

/** The file's lines as records of column → cell (cells split naively: no commas in these fixtures' values). */
async function readBack(reports: ReturnType<typeof makeReport>[]): Promise<{ header: string; rows: Record<string, string>[] }> {
  const index = ReportIndex.from(reports);
  const file = await buildRunsFile(runsFileRows(periodRuns(index, { from: '2026-03-01T00:00:00Z', to: '2026-03-31T23:59:59Z' })));
  const [header, ...lines] = gunzipSync(file.bytes).toString('utf8').trimEnd().split('\n');
  const columns = header!.split(',');
  expect(file.info.rows).toBe(lines.length);
  return {
    header: header!,
    rows: lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [columns[i], cell]))),
  };
}

describe('rehearsal-runs.csv.gz', () => {
  it('keeps the existing columns in place and appends rpoSeconds, rpoTargetSeconds, rpoVerdict', async () => {
    const { header } = await readBack([makeReport({ test: 'shop', completedAt: '2026-03-10T02:00:00Z' })]);
    expect(header).toBe(
      'report,testNamespace,test,completedAt,result,score,rtoSeconds,rtoTarget,rtoVerdict,' +
        'evidenceVerified,evidenceDigest,failureReason,rpoSeconds,rpoTargetSeconds,rpoVerdict',
    );
  });

  it("gives each run its measured RPO, the target it was measured against in seconds, and the verdict", async () => {
    const { rows } = await readBack([
      makeReport({ test: 'shop', runId: 'a-met', completedAt: '2026-03-10T02:00:00Z', rtoSeconds: 300, rtoTarget: '15m', rpoSeconds: 1800, rpoTarget: '1h' }),
      makeReport({ test: 'shop', runId: 'b-over', completedAt: '2026-03-11T02:00:00Z', rpoSeconds: 5400, rpoTarget: '1h' }),
      makeReport({ test: 'shop', runId: 'c-none', completedAt: '2026-03-12T02:00:00Z', result: 'fail', failure: { reason: 'ChecksFailed', message: 'x' } }),
      makeReport({ test: 'blog', runId: 'd-free', completedAt: '2026-03-13T02:00:00Z', rpoSeconds: 90 }),
    ]);
    expect(
      rows.map((row) => [row.report, row.rtoSeconds, row.rtoVerdict, row.failureReason, row.rpoSeconds, row.rpoTargetSeconds, row.rpoVerdict]),
    ).toEqual([
      ['shop-a-met', '300', 'met', '', '1800', '3600', 'met'],
      ['shop-b-over', '', 'no-target', '', '5400', '3600', 'breached'],
      ['shop-c-none', '', 'no-target', 'ChecksFailed', '', '', 'unmeasured'],
      ['blog-d-free', '', 'no-target', '', '90', '', 'no-target'],
    ]);
  });
});
