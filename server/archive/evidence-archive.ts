// The evidence archive as one piece for the composition root: the S3 store, the archiver and its
// periodic pass while this replica leads. Every replica loads the archive at start (readers see
// live + archived); only the leader writes to it.
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { ArchiveConfig } from '../config.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';
import { ArchiveStore, type LoadResult } from './archive-store.js';
import { Archiver, type ArchiverDeps, type PassResult } from './archiver.js';
import { S3Client } from './s3-client.js';

/** Deletes of one move arrive together: one re-read after the last of them. */
const REFRESH_DELAY_MS = 2_000;

export interface EvidenceArchiveDeps {
  cache: RehearsalCache;
  client: Pick<RehearsalClient, 'deleteReport'>;
  keyRing: () => ReadonlyMap<string, KeyObject>;
  signer: () => EvidenceSigner | undefined;
  log: Logger;
  now: () => Date;
  afterUpload?: ArchiverDeps['afterUpload'];
  orphans?: ArchiverDeps['orphans'];
  /** Called after a pass or an orphan move that wrote at least one segment (evidence anchors). */
  afterPass?: (result: PassResult) => void;
}

export class EvidenceArchive {
  readonly store: ArchiveStore;
  readonly archiver: Archiver;
  private timer: NodeJS.Timeout | undefined;
  /** Tests whose archive is re-read soon ("namespace/name/uid" → timer). */
  private readonly refreshes = new Map<string, NodeJS.Timeout>();
  private running: Promise<PassResult | undefined> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: ArchiveConfig,
    private readonly deps: EvidenceArchiveDeps,
  ) {
    const s3 = new S3Client(config, deps.now);
    this.store = new ArchiveStore(s3, config.prefix, deps.keyRing, deps.log);
    this.archiver = new Archiver({
      cache: deps.cache,
      client: deps.client,
      store: this.store,
      prefix: config.prefix,
      signer: deps.signer,
      window: { afterSeconds: config.afterSeconds, keepLive: config.keepLive, minSegment: config.minSegment, maxSegment: config.maxSegment },
      retentionSeconds: config.retentionSeconds,
      log: deps.log,
      now: deps.now,
      ...(deps.afterUpload ? { afterUpload: deps.afterUpload } : {}),
      ...(deps.orphans ? { orphans: deps.orphans } : {}),
    });
  }

  /**
   * Reads the archive into the cache (every replica, at start, after the informers synced), then
   * follows the leader's moves: when a live report this replica has no archived copy of is
   * deleted, the test's archive is re-read a moment later (a follower's readers keep seeing it).
   */
  async load(): Promise<LoadResult> {
    this.deps.cache.onReportChange((event, key, _current, previous) => {
      if (event !== 'delete' || !previous || this.deps.cache.isArchived(key)) return;
      const { name, uid } = previous.spec.testRef;
      if (uid) this.refreshSoon({ namespace: previous.metadata.namespace ?? '', name, uid });
    });
    const started = performance.now();
    const result = await this.store.load((report) => this.deps.cache.addArchived(report));
    this.deps.log.info(
      { ...result, problems: result.problems.length, milliseconds: Math.round(performance.now() - started) },
      'evidence archive loaded',
    );
    return result;
  }

  private refreshSoon(test: { namespace: string; name: string; uid: string }): void {
    const id = `${test.namespace}/${test.name}/${test.uid}`;
    if (this.refreshes.has(id)) return;
    const timer = setTimeout(() => {
      this.refreshes.delete(id);
      this.store
        .refresh(test, (report) => this.deps.cache.addArchived(report))
        .catch((error: unknown) => this.deps.log.warn({ err: error, test: id }, 're-reading the archive of a test failed'));
    }, REFRESH_DELAY_MS);
    timer.unref();
    this.refreshes.set(id, timer);
  }

  stop(): void {
    this.stopOnLeader();
    for (const timer of this.refreshes.values()) clearTimeout(timer);
    this.refreshes.clear();
  }

  /** One pass now (or the one in flight); errors are logged, the next pass retries. */
  pass(): Promise<PassResult | undefined> {
    this.running ??= this.exclusive(() => this.archiver.pass(), 'evidence archive pass failed; retried at the next pass').finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Archives the live reports of deleted tests (Archiver.retireOrphans), after any pass in flight. */
  retireOrphans(): Promise<PassResult | undefined> {
    return this.exclusive(() => this.archiver.retireOrphans(), 'archiving the reports of deleted tests failed; retried later');
  }

  /** One archive writer at a time: a pass and an orphan move must not build the same segment. */
  private exclusive(work: () => Promise<PassResult>, failure: string): Promise<PassResult | undefined> {
    const next = this.queue.then(work).then((result) => {
      if (result.segments > 0) this.deps.afterPass?.(result);
      return result;
    }).catch((error: unknown) => {
      this.deps.log.error({ err: error }, failure);
      return undefined;
    });
    this.queue = next;
    return next;
  }

  /**
   * Passes every interval while leading. The first one waits an interval too: a new leader has
   * enough to do at first, and nothing in the live window is urgent (the writer never deletes).
   */
  startOnLeader(): void {
    this.stopOnLeader();
    this.timer = setInterval(() => void this.pass(), this.config.intervalSeconds * 1000);
    this.timer.unref();
  }

  stopOnLeader(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
