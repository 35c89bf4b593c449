// The benchmark's history with the evidence archive on (bench:api --archive-live N, bench:scale
// --archive): the newest N runs of each test stay in etcd, the older ones are already in the
// archive on a real S3 server (s3s-fs, as the archive tests start it), one segment per test built
// and signed with the archive's own code (buildSegment, the server's evidence signing key) — what
// the server's first archive pass over a 90-day history writes (one segment of everything due).
// Pre-built rather than moved by the server: that path would first write every run through the
// apiserver (270,000 at 3,000 tests) and then delete the archived ones one by one.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { S3Client } from '../../server/archive/s3-client.js';
import { buildSegment } from '../../server/archive/segment.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { SIGNING_KEY_SECRET_KEY, SIGNING_KEY_SECRET_NAME } from '../../server/evidence/evidence-key-objects.js';
import {
  exportPrivateKeyPem,
  generateSigningKey,
  importPrivateKeyPem,
  type SigningKey,
} from '../../server/evidence/signing-key.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { BENCH_NAMESPACE, restoreReport, type BenchTestShape } from './bench-data.js';
import { forEachBounded, type KubeBulkClient } from './kube-bulk.js';

export const ARCHIVE_PREFIX = 'rehearsal/evidence/';

export interface ArchivedHistory {
  segments: number;
  reports: number;
  bytes: number;
  rawBytes: number;
  buildSeconds: number;
  uploadSeconds: number;
  /** --archive-real: the server's own first pass (moving and deleting), instead of the build. */
  serverPassSeconds?: number;
  liveDeleted?: number;
}

/**
 * A report of the history with its chain sequence (1 = the oldest of `days`), as the engine's
 * signer numbers them: the archive moves only sequenced reports.
 */
export function sequencedReport(
  shape: BenchTestShape,
  run: number,
  days: number,
  now: number,
  owner: { uid: string },
): RestoreReport {
  const report = restoreReport(shape, run, now, owner);
  report.spec.evidence = { ...report.spec.evidence!, sequence: days - run };
  return report;
}

/**
 * The server's evidence signing key (Secret rehearsal-signing-key in the bench namespace), created
 * here when absent so the segments' manifests are signed with a key the server trusts.
 */
export async function ensureSigningKey(kube: KubeBulkClient): Promise<SigningKey> {
  const secretPath = `/api/v1/namespaces/${BENCH_NAMESPACE}/secrets`;
  const read = await kube.request<{ data?: Record<string, string> }>('GET', `${secretPath}/${SIGNING_KEY_SECRET_NAME}`);
  const pem = read.status === 200 ? read.body.data?.[SIGNING_KEY_SECRET_KEY] : undefined;
  if (pem) return importPrivateKeyPem(Buffer.from(pem, 'base64').toString('utf8'));
  const key = generateSigningKey();
  const created = await kube.request('POST', secretPath, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: SIGNING_KEY_SECRET_NAME, namespace: BENCH_NAMESPACE },
    data: { [SIGNING_KEY_SECRET_KEY]: Buffer.from(exportPrivateKeyPem(key)).toString('base64') },
  });
  if (created.status !== 201) throw new Error(`create the signing key Secret: HTTP ${created.status}`);
  return key;
}

/** name → uid of the loaded RestoreTests (the segments are filed under the test's uid). */
export async function testUids(kube: KubeBulkClient): Promise<Map<string, string>> {
  const listed = await kube.request<{ items: { metadata: { name: string; uid: string } }[] }>(
    'GET',
    `/apis/rehearsal.dev/v1alpha1/namespaces/${BENCH_NAMESPACE}/restoretests?resourceVersion=0`,
  );
  if (listed.status !== 200) throw new Error(`list restoretests: HTTP ${listed.status}`);
  return new Map(listed.body.items.map((item) => [item.metadata.name, item.metadata.uid]));
}

/** A fresh s3s-fs (its directory emptied) for the archive of one bench run. */
export function startArchiveStore(workDir: string): Promise<S3Server> {
  return startS3Server(path.resolve(workDir));
}

/**
 * The server's environment for the archive on `s3`, its live window the newest `live` runs of each
 * daily test: REHEARSAL_ARCHIVE_KEEP_LIVE, and an age limit just past it (runs are a day apart).
 * Segment sizes and the interval at their defaults.
 */
export function archiveEnv(s3: S3Server, live: number): Record<string, string> {
  return {
    REHEARSAL_ARCHIVE_KEEP_LIVE: String(live),
    REHEARSAL_ARCHIVE_AFTER: `${(live + 1) * 24}h`,
    REHEARSAL_ARCHIVE_S3_ENDPOINT: s3.endpoint,
    REHEARSAL_ARCHIVE_S3_BUCKET: s3.bucket,
    REHEARSAL_ARCHIVE_PREFIX: ARCHIVE_PREFIX,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
}

/**
 * Archives runs `live` … `days - 1` of every test (the older part of the history): one segment
 * per test, uploaded 8 at a time.
 */
export async function archiveHistory(options: {
  s3: S3Server;
  key: SigningKey;
  shapes: readonly BenchTestShape[];
  uids: ReadonlyMap<string, string>;
  live: number;
  days: number;
  now: number;
  log: (message: string) => void;
}): Promise<ArchivedHistory> {
  const { s3, key, shapes, uids, live, days, now } = options;
  const client = new S3Client({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: 'us-east-1',
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const result: ArchivedHistory = { segments: 0, reports: 0, bytes: 0, rawBytes: 0, buildSeconds: 0, uploadSeconds: 0 };
  if (live >= days) return result;
  const started = performance.now();
  let buildMs = 0;
  let lastLog = started;
  await forEachBounded(shapes, 8, async (shape) => {
    const uid = uids.get(shape.name);
    if (!uid) throw new Error(`RestoreTest ${shape.name} not loaded`);
    const mark = performance.now();
    const reports: RestoreReport[] = [];
    for (let run = days - 1; run >= live; run -= 1) reports.push(sequencedReport(shape, run, days, now, { uid }));
    const segment = buildSegment(ARCHIVE_PREFIX, { namespace: BENCH_NAMESPACE, name: shape.name, uid }, reports, null, key, new Date(now));
    buildMs += performance.now() - mark;
    await client.putObject(segment.key, segment.body, 'application/gzip');
    result.segments += 1;
    result.reports += reports.length;
    result.bytes += segment.body.length;
    result.rawBytes += segment.rawBytes;
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      options.log(`archive: ${result.segments}/${shapes.length} segments, ${result.reports} reports`);
    }
  });
  const totalMs = performance.now() - started;
  result.buildSeconds = Math.round(buildMs / 10) / 100;
  // Builds run on this thread between uploads: the rest of the wall time is the upload.
  result.uploadSeconds = Math.round((totalMs - buildMs) / 10) / 100;
  return result;
}

/** Waits (up to 30 min) for the server's first archive pass that moved reports; its log line. */
export async function firstArchivePass(
  output: () => string,
  log: (message: string) => void,
): Promise<{ segments: number; reports: number; bytes: number; rawBytes: number; liveDeleted: number; milliseconds: number }> {
  const started = performance.now();
  for (;;) {
    const line = output()
      .split('\n')
      .find((entry) => entry.includes('"evidence archive pass"'));
    if (line) return JSON.parse(line) as Awaited<ReturnType<typeof firstArchivePass>>;
    if (performance.now() - started > 1_800_000) throw new Error('no archive pass within 30 min');
    if (output().includes('evidence archive pass failed')) log('an archive pass failed (see the server log); waiting for the next');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The server's own account of its archive load ("evidence archive loaded", log level info). */
export function archiveLoadOf(serverOutput: string): { milliseconds: number; segments: number; reports: number; problems: number } | undefined {
  for (const line of serverOutput.split('\n')) {
    if (!line.includes('evidence archive loaded')) continue;
    try {
      const entry = JSON.parse(line) as { milliseconds: number; segments: number; reports: number; problems: number };
      return { milliseconds: entry.milliseconds, segments: entry.segments, reports: entry.reports, problems: entry.problems };
    } catch {
      // not JSON (pretty-printed logs): not reported
    }
  }
  return undefined;
}
