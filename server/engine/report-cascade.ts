// The report cascade (leader only): removes the live RestoreReports of deleted RestoreTests.
//
// Reports written since issue 17's fourth cut carry no ownerReference (one map less per report in
// every apiserver), so kube-controller-manager's garbage collector no longer deletes them with
// their test; this does. With the evidence archive on, they are archived first (the archiver
// finishes the test's chain into a segment, then deletes the live copies: restart-safe, never
// archived twice) and kept until the retention period of the deleted test ends — the collector
// deleted them unarchived. With the archive off they are deleted, as the collector did.
//
// When: a moment after the informer reports a deleted test, at the start of leadership (a test
// deleted while no replica led) and every SWEEP_INTERVAL_MS (a missed event). Each pass first
// migrates reports stored in the old form (an ownerReference of kind RestoreTest, written before):
// the reference is removed where the evidence stays the same (engine/report-migration.ts), so
// from then on they are this cascade's, not the collector's; the few it must keep stay the
// collector's, as before. Migrating at the start of leadership matters: after an upgrade the
// collector would delete an old report unarchived the moment its test goes.
// A test that exists with the uid the report names is never touched: the cache proposes, a GET of
// the test from the apiserver decides.
import type { Logger } from 'pino';
import { isOrphan, orphanCandidates, type OrphanGroup } from '../domain/retention/orphan-reports.js';
import type { RestoreReport } from '../domain/resources/resources.js';
import type { ReportSummary } from '../domain/read-models/report-summary.js';
import { orderReportsForChain } from '../../protocol/evidence/report-chain.js';
import { deleteReports } from '../kube/delete-reports.js';
import { isKind } from '../kube/errors.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;
/** Delay after a delete event (and between tries while the cache syncs): deletes come in bursts. */
const AFTER_EVENT_MS = 1_000;

export interface OrphanFinderDeps {
  cache: Pick<RehearsalCache, 'synced' | 'getTest' | 'liveReport'> & {
    liveReports(): Iterable<{ key: string; summary: ReportSummary }>;
  };
  client: Pick<RehearsalClient, 'getTest'>;
}

function ownedByTest(report: RestoreReport): boolean {
  return (report.metadata.ownerReferences ?? []).some((owner) => owner.kind === 'RestoreTest');
}

/** The live reports of deleted tests, without an ownerReference, confirmed against the apiserver. */
export async function findOrphanReports({ cache, client }: OrphanFinderDeps): Promise<OrphanGroup[]> {
  if (!cache.synced) return [];
  const candidates = orphanCandidates(cache.liveReports(), (namespace, name) => {
    const test = cache.getTest(namespace, name);
    return test && (test.metadata.uid ?? '');
  });
  const groups: OrphanGroup[] = [];
  for (const { keys, ...owner } of candidates) {
    const reports = keys.flatMap((key) => cache.liveReport(key) ?? []).filter((report) => !ownedByTest(report));
    if (reports.length === 0) continue;
    let current: string | undefined;
    try {
      current = (await client.getTest(owner.namespace, owner.name)).metadata.uid ?? '';
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
    if (isOrphan(owner.uid, current)) groups.push({ ...owner, reports: orderReportsForChain(reports) });
  }
  return groups;
}

export interface ReportCascadeDeps extends OrphanFinderDeps {
  cache: OrphanFinderDeps['cache'] & Pick<RehearsalCache, 'onTestChange'>;
  client: OrphanFinderDeps['client'] & Pick<RehearsalClient, 'deleteReport'>;
  /** The evidence archive when it is on: it archives the orphans, then deletes them. */
  archive?: { retireOrphans(): Promise<unknown> };
  /** The old-form migration, run first in every pass. */
  migration?: { pass(): Promise<unknown> };
  log: Logger;
  sweepIntervalMs?: number;
}

export class ReportCascade {
  private leading = false;
  private sweep: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: ReportCascadeDeps) {
    deps.cache.onTestChange((event) => {
      if (event === 'delete' && this.leading) this.passSoon();
    });
  }

  /** A pass now; during one in flight, another right after it (it may predate the latest delete). */
  pass(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.once().catch((error: unknown) => {
          this.deps.log.error({ err: error }, 'removing the reports of deleted tests failed; retried at the next pass');
        });
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  startOnLeader(): void {
    this.stopOnLeader();
    this.leading = true;
    this.sweep = setInterval(() => void this.pass(), this.deps.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.sweep.unref();
    this.passSoon();
  }

  stopOnLeader(): void {
    this.leading = false;
    clearInterval(this.sweep);
    clearTimeout(this.soon);
    this.sweep = undefined;
    this.soon = undefined;
  }

  private passSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      if (!this.leading) return;
      // Not synced yet (a new leader): try again shortly, the start sweep must not be lost.
      if (!this.deps.cache.synced) this.passSoon();
      else void this.pass();
    }, AFTER_EVENT_MS);
    this.soon.unref();
  }

  private async once(): Promise<void> {
    await this.deps.migration?.pass();
    if (this.deps.archive) {
      await this.deps.archive.retireOrphans();
      return;
    }
    const groups = await findOrphanReports(this.deps);
    if (groups.length === 0) return;
    const deleted = await deleteReports(this.deps.client, groups.flatMap((group) => group.reports));
    this.deps.log.info({ tests: groups.length, deleted }, 'deleted the live reports of deleted tests');
  }
}
