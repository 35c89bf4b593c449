// The evidence archive's objects in S3: segments per RestoreTest uid, and a tombstone per deleted
// test (when its deletion was first seen, which starts its retention period). Loaded once at start
// (one LIST, one GET per segment and per tombstone: never one request per report) and then kept
// in step by this process's own writes; only the leader writes.
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { RestoreReport } from '../domain/resources/resources.js';
import { isPlainObject, parseBoundedJson } from '../domain/common/bounded-json.js';
import { S3Error, type S3Client } from './s3-client.js';
import {
  MAX_SEGMENT_BYTES,
  parseSegmentKey,
  readSegment,
  segmentChainProblems,
  testPrefix,
  type BuiltSegment,
  type ReadSegment,
  type SegmentManifest,
  type SegmentTest,
} from './segment.js';
import { ANNOTATION_PROBLEMS, ANNOTATION_SEGMENT } from '../../protocol/evidence/archive-annotations.js';

/**
 * What the store keeps of a segment once its reports are in the cache: enough to extend the chain,
 * finish an interrupted move and purge — not the reports themselves (the cache holds them packed).
 * Its reports' keys and digests are held as two strings per segment (keptReports reads them): an
 * object and two strings per archived report were ~230 bytes of heap each, 52 MB at 3,000 tests ×
 * 76 archived runs, and three more objects per report for every full GC to mark.
 */
export interface KeptSegment {
  key: string;
  manifest?: SegmentManifest;
  digest?: string;
  problems: string[];
  /** "namespace/name" of each report, in order, joined by "\n". */
  reportKeys: string;
  /**
   * Evidence digest of each report, in order: 32 bytes each (latin1) when every one is
   * "sha256:" + 64 hex digits, as the signer writes them; else the texts ("" for none) joined by "\n".
   */
  reportDigests: { bytes: string } | { texts: string };
}

export interface KeptReport {
  key: string;
  digest: string | undefined;
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;

/** The "namespace/name" and evidence digest of each report of a kept segment, in order. */
export function keptReports(segment: KeptSegment): KeptReport[] {
  if (segment.reportKeys === '') return [];
  const keys = segment.reportKeys.split('\n');
  const stored = segment.reportDigests;
  const digests =
    'bytes' in stored
      ? keys.map((_, i) => `sha256:${Buffer.from(stored.bytes.slice(i * 32, i * 32 + 32), 'latin1').toString('hex')}`)
      : stored.texts.split('\n').map((text) => text || undefined);
  return keys.map((key, i) => ({ key, digest: digests[i] }));
}

function keptSegment(
  segment: { key: string; manifest?: SegmentManifest; digest?: string; problems: string[] },
  reports: readonly KeptReport[],
): KeptSegment {
  const canonical = reports.every((report) => report.digest !== undefined && SHA256.test(report.digest));
  return {
    key: segment.key,
    ...(segment.manifest ? { manifest: segment.manifest } : {}),
    ...(segment.digest ? { digest: segment.digest } : {}),
    problems: segment.problems,
    reportKeys: reports.map((report) => report.key).join('\n'),
    reportDigests: canonical
      ? { bytes: reports.map((report) => Buffer.from(report.digest!.slice(7), 'hex').toString('latin1')).join('') }
      : { texts: reports.map((report) => report.digest ?? '').join('\n') },
  };
}

export interface TestArchive {
  test: SegmentTest;
  /** In key (= chain) order. */
  segments: KeptSegment[];
  /** When the test was first seen deleted (its retention runs from here). */
  deletedAt?: Date;
}

export interface LoadResult {
  segments: number;
  reports: number;
  bytes: number;
  problems: string[];
}

const TOMBSTONE = 'deleted.json';
/** A tombstone is {deletedAt, test}: a few hundred bytes. */
const MAX_TOMBSTONE_BYTES = 4096;

/** When the tombstone says the test was deleted; undefined for anything that is not a tombstone. */
function tombstoneDate(body: Buffer): Date | undefined {
  try {
    const value = parseBoundedJson(body.toString('utf8'), { maxLength: MAX_TOMBSTONE_BYTES, maxDepth: 4 });
    if (!isPlainObject(value) || typeof value.deletedAt !== 'string') return undefined;
    const date = new Date(value.deletedAt);
    return Number.isNaN(date.getTime()) ? undefined : date;
  } catch {
    return undefined;
  }
}
/**
 * Segment GETs in flight while loading: one at a time cost ~20 ms each on loopback (s3s-fs), over
 * a minute at 3,000 tests; eight ahead of the reader cut that ~5×. Bodies are read in order, so
 * at most this many wait in memory.
 */
const LOAD_PREFETCH = 8;

export class ArchiveStore {
  private readonly tests = new Map<string, TestArchive>();

  constructor(
    private readonly s3: S3Client,
    private readonly prefix: string,
    private readonly keys: () => ReadonlyMap<string, KeyObject>,
    private readonly log: Logger,
  ) {}

  /**
   * Reads every segment and tombstone under the prefix; `add` receives each archived report. One
   * test at a time, so only that test's parsed reports are in memory besides what `add` keeps.
   */
  async load(add: (report: RestoreReport) => void): Promise<LoadResult> {
    this.tests.clear();
    const segmentKeys = new Map<string, string[]>();
    const result: LoadResult = { segments: 0, reports: 0, bytes: 0, problems: [] };
    for (const object of await this.s3.listObjects(this.prefix)) {
      const placed = parseSegmentKey(this.prefix, object.key);
      if (placed) {
        this.archiveOf(placed);
        segmentKeys.set(placed.uid, [...(segmentKeys.get(placed.uid) ?? []), object.key]);
      } else if (object.key.endsWith(`/${TOMBSTONE}`)) {
        const [namespace, name, uid] = object.key.slice(this.prefix.length).split('/');
        if (!namespace || !name || !uid) continue;
        const body = await this.s3.getObject(object.key, MAX_TOMBSTONE_BYTES).catch((error: unknown) => {
          if (error instanceof S3Error && error.code === 'TooLarge') return undefined;
          throw error;
        });
        const deletedAt = body && tombstoneDate(body);
        if (deletedAt) this.archiveOf({ namespace, name, uid }).deletedAt = deletedAt;
        else result.problems.push(`${object.key}: not a tombstone (ignored)`);
      }
    }
    const order = [...this.tests.values()].map((archive) => ({ archive, keys: (segmentKeys.get(archive.test.uid) ?? []).sort() }));
    const bodies = new OrderedPrefetch(order.flatMap(({ keys }) => keys), (key) => this.s3.getObject(key, MAX_SEGMENT_BYTES), LOAD_PREFETCH);
    for (const { archive, keys } of order) await this.readSegments(archive, keys, add, result, (key) => bodies.take(key));
    for (const problem of result.problems) this.log.warn({ problem }, 'archived evidence does not verify');
    return result;
  }

  /**
   * Picks up segments another replica (the leader) wrote since this one loaded: a follower calls
   * it when live reports of a test disappear, so its readers keep seeing them, now archived.
   */
  async refresh(test: SegmentTest, add: (report: RestoreReport) => void): Promise<LoadResult> {
    const result: LoadResult = { segments: 0, reports: 0, bytes: 0, problems: [] };
    const known = new Set(this.tests.get(test.uid)?.segments.map((segment) => segment.key));
    const keys = (await this.s3.listObjects(testPrefix(this.prefix, test)))
      .map((object) => object.key)
      .filter((key) => parseSegmentKey(this.prefix, key) && !known.has(key))
      .sort();
    if (keys.length === 0) return result; // nothing new (e.g. a test without archive was deleted)
    await this.readSegments(this.archiveOf(test), keys, add, result, (key) => this.s3.getObject(key, MAX_SEGMENT_BYTES));
    for (const problem of result.problems) this.log.warn({ problem }, 'archived evidence does not verify');
    return result;
  }

  /** Reads segments (in key order, after the ones the archive holds) into the archive and `add`. */
  private async readSegments(
    archive: TestArchive,
    keys: readonly string[],
    add: (report: RestoreReport) => void,
    result: LoadResult,
    get: (key: string) => Promise<Buffer | undefined>,
  ): Promise<void> {
    const segments: ReadSegment[] = [];
    for (const key of keys) {
      let body: Buffer | undefined;
      try {
        body = await get(key);
      } catch (error) {
        // Past the bound: damage like any other, never read into memory.
        if (!(error instanceof S3Error && error.code === 'TooLarge')) throw error;
        result.segments += 1;
        segments.push({ key, reports: [], problems: [`${error.message}: the segment was replaced`] });
        continue;
      }
      if (!body) continue;
      result.segments += 1;
      result.bytes += body.length;
      segments.push(readSegment(key, body, this.prefix, this.keys()));
    }
    const before = archive.segments.at(-1);
    const chain = segmentChainProblems(before ? [before, ...segments] : segments);
    // Problems of a segment with no readable report travel with the next segment's reports, so
    // a reader of the reports (kubectl restoretest verify) still sees which object is damaged.
    let carried: string[] = [];
    for (const segment of segments) {
      const problems = [...segment.problems, ...(chain.get(segment.key) ?? [])];
      archive.segments.push(kept({ ...segment, problems }));
      for (const problem of problems) result.problems.push(`${segment.key}: ${problem}`);
      const named = problems.map((problem) => `${segment.key}: ${problem}`);
      if (segment.reports.length === 0) {
        carried.push(...named);
        continue;
      }
      for (const report of segment.reports) {
        result.reports += 1;
        add(annotated(report, segment.key, [...carried, ...named]));
      }
      carried = [];
    }
    archive.segments.sort((a, b) => a.key.localeCompare(b.key));
  }

  archives(): IterableIterator<TestArchive> {
    return this.tests.values();
  }

  archiveOfUid(uid: string): TestArchive | undefined {
    return this.tests.get(uid);
  }

  /** Stores a segment built by buildSegment; the reports it returns are what readers are given. */
  async putSegment(segment: BuiltSegment, reports: readonly RestoreReport[]): Promise<RestoreReport[]> {
    await this.s3.putObject(segment.key, segment.body, 'application/gzip');
    const archive = this.archiveOf(segment.manifest.test);
    archive.segments = archive.segments.filter((s) => s.key !== segment.key);
    archive.segments.push(kept({ key: segment.key, manifest: segment.manifest, digest: segment.digest, reports, problems: [] }));
    archive.segments.sort((a, b) => a.key.localeCompare(b.key));
    return reports.map((report) => annotated(report, segment.key, []));
  }

  /** Records that the test is gone (once): its retention period starts now. */
  async markDeleted(archive: TestArchive, now: Date): Promise<void> {
    if (archive.deletedAt) return;
    const body = Buffer.from(JSON.stringify({ deletedAt: now.toISOString(), test: archive.test }));
    await this.s3.putObject(`${testPrefix(this.prefix, archive.test)}${TOMBSTONE}`, body, 'application/json');
    archive.deletedAt = now;
  }

  /** Deletes a deleted test's archived evidence (retention over); returns the report keys it held. */
  async purge(archive: TestArchive): Promise<string[]> {
    const keys: string[] = [];
    for (const segment of archive.segments) {
      await this.s3.deleteObject(segment.key);
      for (const report of keptReports(segment)) keys.push(report.key);
    }
    await this.s3.deleteObject(`${testPrefix(this.prefix, archive.test)}${TOMBSTONE}`);
    this.tests.delete(archive.test.uid);
    return keys;
  }

  private archiveOf(test: SegmentTest): TestArchive {
    let archive = this.tests.get(test.uid);
    if (!archive) {
      archive = { test: { namespace: test.namespace, name: test.name, uid: test.uid }, segments: [] };
      this.tests.set(test.uid, archive);
    }
    return archive;
  }
}

/** GETs of `keys` started up to `window` ahead of the reader, which takes them in that order. */
class OrderedPrefetch {
  private readonly pending: { key: string; body: Promise<Buffer | undefined> }[] = [];
  private next = 0;

  constructor(
    private readonly keys: readonly string[],
    private readonly get: (key: string) => Promise<Buffer | undefined>,
    private readonly window: number,
  ) {}

  take(key: string): Promise<Buffer | undefined> {
    while (this.pending.length < this.window && this.next < this.keys.length) {
      const ahead = this.keys[this.next++]!;
      const body = this.get(ahead);
      body.catch(() => undefined); // a failure surfaces when its body is taken
      this.pending.push({ key: ahead, body });
    }
    const first = this.pending.shift();
    if (first?.key !== key) throw new Error(`archive load: expected ${first?.key ?? 'no more segments'}, read ${key}`);
    return first.body;
  }
}

function kept(segment: Omit<ReadSegment, 'reports'> & { reports: readonly RestoreReport[] }): KeptSegment {
  return keptSegment(
    segment,
    segment.reports.map((report) => ({
      key: `${report.metadata?.namespace ?? ''}/${report.metadata?.name}`,
      digest: report.spec?.evidence?.digest,
    })),
  );
}

function annotated(report: RestoreReport, key: string, problems: readonly string[]): RestoreReport {
  const annotations: Record<string, string> = { ...(report.metadata.annotations ?? {}), [ANNOTATION_SEGMENT]: key };
  if (problems.length > 0) annotations[ANNOTATION_PROBLEMS] = JSON.stringify(problems);
  else delete annotations[ANNOTATION_PROBLEMS];
  return { ...report, metadata: { ...report.metadata, annotations } };
}
