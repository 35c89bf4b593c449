// The old-form migration (leader only, each report-cascade pass): reports stored before issue 17's
// fourth cut carry an ownerReference to their RestoreTest, which hands them to the garbage
// collector, unarchived, when the test is deleted. Where that leaves the evidence unchanged
// (domain/retention/old-report-forms.ts), the reference is removed, so the report cascade archives
// them like any other. Each pass looks at every live report (the cache; unpacking one costs ~6 µs,
// in slices between which other work runs), so reports an older replica still writes during a
// rolling upgrade are migrated too. A patch that loses a race (the report changed or went) is left
// to the next pass.
import type { Logger } from 'pino';
import { decideOldForm } from '../domain/retention/old-report-forms.js';
import { isKind } from '../kube/errors.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';

const SLICE = 200;

export interface ReportMigrationDeps {
  cache: Pick<RehearsalCache, 'liveReport'> & { liveReports(): Iterable<{ key: string }> };
  client: Pick<RehearsalClient, 'replaceReportOwnerReferences'>;
  log: Logger;
}

export interface ReportMigrationResult {
  migrated: number;
  /** Old-form reports whose reference must stay (their evidence names the test through it). */
  kept: number;
}

export class ReportMigration {
  /** Reports already said to stay in the old form: said once, not every pass. */
  private readonly warned = new Set<string>();

  constructor(private readonly deps: ReportMigrationDeps) {}

  async pass(): Promise<ReportMigrationResult> {
    const { cache, client, log } = this.deps;
    const result: ReportMigrationResult = { migrated: 0, kept: 0 };
    let seen = 0;
    for (const { key } of [...cache.liveReports()]) {
      if (++seen % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const report = cache.liveReport(key);
      if (!report) continue;
      const decision = decideOldForm(report);
      if (decision.action === 'none') continue;
      if (decision.action === 'keep') {
        result.kept += 1;
        if (!this.warned.has(key)) {
          this.warned.add(key);
          log.warn({ report: key }, `report stays in the old form (an ownerReference to its RestoreTest): ${decision.reason}; the garbage collector deletes it with its test, unarchived`);
        }
        continue;
      }
      try {
        await client.replaceReportOwnerReferences(report.metadata.namespace ?? '', report.metadata.name, report.metadata.resourceVersion ?? '', decision.keep);
        result.migrated += 1;
      } catch (error) {
        if (isKind(error, 'Unavailable')) throw error;
        log.info({ report: key, err: error }, 'an old-form report changed or went while being migrated; looked at again at the next pass');
      }
    }
    if (result.migrated > 0) {
      log.info(result, 'migrated reports stored in the old form: their ownerReference to the RestoreTest removed (evidence unchanged), so they are archived, not garbage-collected, when their test goes');
    }
    return result;
  }
}
