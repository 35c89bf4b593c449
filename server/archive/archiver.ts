// The archiver (leader only): moves reports past the live window (domain/retention/archive-policy.ts) from
// etcd to the evidence archive, and ends the retention of deleted tests' evidence.
//
// Since issue 17's fourth cut it also archives the live reports of deleted tests before they leave
// etcd (retireOrphans; the report cascade calls it), where the garbage collector deleted them.
//
// A move is: build and sign the segment → PUT it → hand its reports to the cache → delete the live
// copies. Restart-safe at every step: a crash before the PUT leaves everything live; a crash after
// it leaves reports both archived and live, which the next pass finds (same name, same digest)
// and finishes by deleting the live copies — nothing is lost, nothing is archived twice. The
// segment key is its sequence range, so a repeated PUT overwrites, never duplicates.
import type { Logger } from 'pino';
import { decideArchive, type ArchiveWindow } from '../domain/retention/archive-policy.js';
import { orderReportsForChain } from '../../protocol/evidence/report-chain.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';
import type { OrphanGroup, ReportOwner } from '../domain/retention/orphan-reports.js';
import type { RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import { deleteReports } from '../kube/delete-reports.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import { keptReports, type ArchiveStore, type TestArchive } from './archive-store.js';
import { buildSegment } from './segment.js';

export interface ArchiverDeps {
  cache: Pick<RehearsalCache, 'listTests' | 'liveReportsOfTest' | 'liveSummariesOfTest' | 'isArchived' | 'addArchived' | 'removeArchived' | 'synced'>;
  client: Pick<RehearsalClient, 'deleteReport'>;
  store: ArchiveStore;
  prefix: string;
  signer: () => EvidenceSigner | undefined;
  window: ArchiveWindow;
  retentionSeconds: number;
  log: Logger;
  now: () => Date;
  /** The live reports of deleted tests, confirmed (engine/report-cascade.ts findOrphanReports). */
  orphans?: () => Promise<OrphanGroup[]>;
  /** Test seam: called between the PUT of a segment and the delete of its live copies. */
  afterUpload?: (segmentKey: string) => Promise<void> | void;
}

export interface PassResult {
  segments: number;
  reports: number;
  bytes: number;
  rawBytes: number;
  liveDeleted: number;
  purgedTests: number;
  milliseconds: number;
}

export class Archiver {
  constructor(private readonly deps: ArchiverDeps) {}

  async pass(): Promise<PassResult> {
    const started = performance.now();
    const result: PassResult = { segments: 0, reports: 0, bytes: 0, rawBytes: 0, liveDeleted: 0, purgedTests: 0, milliseconds: 0 };
    if (!this.deps.cache.synced) return result;
    const signer = this.deps.signer();
    const uids = new Set<string>();
    for (const test of this.deps.cache.listTests()) {
      uids.add(test.metadata.uid ?? '');
      if (signer) await this.archiveTest(test, signer, result);
    }
    await this.endRetention(uids, result);
    result.milliseconds = Math.round(performance.now() - started);
    if (result.segments > 0 || result.liveDeleted > 0 || result.purgedTests > 0) {
      this.deps.log.info(result, 'evidence archive pass');
    }
    return result;
  }

  private async archiveTest(test: RestoreTest, signer: EvidenceSigner, result: PassResult): Promise<void> {
    const namespace = test.metadata.namespace ?? '';
    const uid = test.metadata.uid ?? '';
    const testKey = `${namespace}/${test.metadata.name}`;
    // Most passes move nothing for most tests: decide on the summaries before unpacking reports.
    const summaries = this.deps.cache.liveSummariesOfTest(testKey);
    const quick = decideArchive(
      summaries.map((s) => ({ completedAt: s.spec.completedAt, sequence: 0 })),
      test.spec.historyLimit ?? 90,
      this.deps.window,
      this.deps.now(),
    );
    if (quick.count === 0 && !summaries.some((s) => this.deps.cache.isArchived(`${namespace}/${s.metadata.name}`))) return;
    const live = orderReportsForChain(
      this.deps.cache.liveReportsOfTest(testKey).filter((r) => r.spec.testRef.uid === uid),
    );
    const remaining = await this.finishInterrupted(uid, live, result);
    const decision = decideArchive(
      remaining.map((r) => ({ completedAt: r.spec.completedAt, sequence: r.spec.evidence?.sequence })),
      test.spec.historyLimit ?? 90,
      this.deps.window,
      this.deps.now(),
    );
    if (decision.count === 0) return;
    await this.move({ namespace, name: test.metadata.name, uid }, remaining.slice(0, decision.count), signer, result);
  }

  /**
   * The live reports of deleted tests (engine/report-cascade.ts finds them): all of them are
   * archived, a segment at a time, then deleted from etcd; their retention starts at the next
   * pass (endRetention). Restart-safe like any move. Reports that cannot go into a segment
   * (unsigned, unsequenced) stay live and are named in the log.
   */
  async retireOrphans(): Promise<PassResult> {
    const started = performance.now();
    const result: PassResult = { segments: 0, reports: 0, bytes: 0, rawBytes: 0, liveDeleted: 0, purgedTests: 0, milliseconds: 0 };
    const groups = (await this.deps.orphans?.()) ?? [];
    if (groups.length === 0) return result;
    const signer = this.deps.signer();
    if (!signer) {
      this.deps.log.warn({ tests: groups.length }, 'live reports of deleted tests wait for the signing key to be archived');
      return result;
    }
    for (const group of groups) await this.archiveGone(group, signer, result);
    result.milliseconds = Math.round(performance.now() - started);
    this.deps.log.info(result, 'evidence archive: live reports of deleted tests archived');
    return result;
  }

  private async archiveGone(group: OrphanGroup, signer: EvidenceSigner, result: PassResult): Promise<void> {
    const test = { namespace: group.namespace, name: group.name, uid: group.uid };
    if (!test.uid) {
      this.deps.log.warn({ test: `${test.namespace}/${test.name}` }, 'not archiving reports whose testRef has no uid; they stay live');
      return;
    }
    let remaining = await this.finishInterrupted(test.uid, group.reports, result);
    while (remaining.length > 0) {
      const due = remaining.slice(0, this.deps.window.maxSegment);
      const unsigned = due.findIndex((report) => report.spec.evidence?.sequence === undefined);
      const moving = unsigned < 0 ? due : due.slice(0, unsigned);
      if (moving.length === 0) {
        this.deps.log.warn({ test: `${test.namespace}/${test.name}`, report: due[0]!.metadata.name }, 'not archiving: a report of a deleted test has no chain sequence; it stays live');
        return;
      }
      if (!(await this.move(test, moving, signer, result))) return;
      remaining = remaining.slice(moving.length);
    }
  }

  /**
   * Finishes a move a crash interrupted: reports already archived (same name, same digest) only
   * lose their live copy. Returns the others, in order.
   */
  private async finishInterrupted(uid: string, live: readonly RestoreReport[], result: PassResult): Promise<RestoreReport[]> {
    const archive = this.deps.store.archiveOfUid(uid);
    const archivedDigests = new Set(archive?.segments.flatMap((s) => keptReports(s).map((r) => r.digest)));
    const done = live.filter((report) => this.deps.cache.isArchived(keyOf(report)) && archivedDigests.has(report.spec.evidence?.digest));
    result.liveDeleted += await deleteReports(this.deps.client, done);
    return live.filter((report) => !done.includes(report));
  }

  /** One segment: build, PUT, hand to the cache, delete the live copies. False = refused (logged). */
  private async move(test: ReportOwner, moving: readonly RestoreReport[], signer: EvidenceSigner, result: PassResult): Promise<boolean> {
    const last = this.deps.store.archiveOfUid(test.uid)?.segments.at(-1);
    if (last && (!last.digest || last.problems.length > 0)) {
      this.deps.log.warn({ test: `${test.namespace}/${test.name}`, segment: last.key }, 'not archiving: the newest archived segment does not verify');
      return false;
    }
    const lastDigest = last?.manifest?.lastDigest;
    if (lastDigest && moving[0]!.spec.evidence?.previousDigest !== lastDigest) {
      this.deps.log.warn({ test: `${test.namespace}/${test.name}`, report: moving[0]!.metadata.name }, 'not archiving: the oldest live report does not link to the archive');
      return false;
    }
    const segment = buildSegment(this.deps.prefix, test, moving, last?.digest ?? null, signer, this.deps.now());
    const served = await this.deps.store.putSegment(segment, moving);
    for (const report of served) this.deps.cache.addArchived(report);
    await this.deps.afterUpload?.(segment.key);
    result.segments += 1;
    result.reports += moving.length;
    result.bytes += segment.body.length;
    result.rawBytes += segment.rawBytes;
    result.liveDeleted += await deleteReports(this.deps.client, moving);
    return true;
  }

  /** Deleted tests: a tombstone starts the retention period; after it, the evidence goes. */
  private async endRetention(liveUids: ReadonlySet<string>, result: PassResult): Promise<void> {
    const gone: TestArchive[] = [];
    for (const archive of this.deps.store.archives()) if (!liveUids.has(archive.test.uid)) gone.push(archive);
    const now = this.deps.now();
    for (const archive of gone) {
      await this.deps.store.markDeleted(archive, now);
      const elapsed = (now.getTime() - archive.deletedAt!.getTime()) / 1000;
      if (elapsed < this.deps.retentionSeconds) continue;
      for (const key of await this.deps.store.purge(archive)) this.deps.cache.removeArchived(key);
      result.purgedTests += 1;
      this.deps.log.info({ test: `${archive.test.namespace}/${archive.test.name}`, uid: archive.test.uid }, 'retention ended: archived evidence of a deleted test removed');
    }
  }
}

function keyOf(report: RestoreReport): string {
  return `${report.metadata.namespace ?? ''}/${report.metadata.name}`;
}
