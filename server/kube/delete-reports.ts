// Deleting many live RestoreReports: the archiver after a segment is stored, the report cascade
// after a test is deleted. One after another took ~0.1 s per report under load (hours for a
// 90-day history at 1,000 tests), so DELETE_CONCURRENCY at a time; the order does not matter.
import type { RestoreReport } from '../domain/resources/resources.js';
import { isKind } from './errors.js';
import type { RehearsalClient } from './rehearsal-client.js';

/** Deletes in flight at once. */
const DELETE_CONCURRENCY = 8;

/** Deletes the reports; one already gone counts as not deleted. Returns how many were deleted. */
export async function deleteReports(
  client: Pick<RehearsalClient, 'deleteReport'>,
  reports: readonly RestoreReport[],
): Promise<number> {
  let deleted = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < reports.length) {
      const report = reports[next++]!;
      try {
        await client.deleteReport(report.metadata.namespace ?? '', report.metadata.name);
        deleted += 1;
      } catch (error) {
        if (!isKind(error, 'NotFound')) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, reports.length) }, () => worker()));
  return deleted;
}
