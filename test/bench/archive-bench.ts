// npm run bench:archive [-- --tests 600 --per-test 30]: the evidence archive's costs on a real S3
// server (s3s-fs): bytes per archived report and the compression ratio, the time to upload the
// segments, and what a server start pays to load them (time and memory of the cache it fills).
// Reports are the fixtures' realistic ones, signed and chained with sequences, one segment per test.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { ArchiveStore } from '../../server/archive/archive-store.js';
import { S3Client } from '../../server/archive/s3-client.js';
import { buildSegment } from '../../server/archive/segment.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { withEvidence } from '../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../server/evidence/signing-key.js';
import { RehearsalCache } from '../../server/kube/rehearsal-cache.js';
import { makeReport, makeRestoreTest, PAYMENTS_CHECKS } from '../fixtures/evidence/reports.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { startS3Server } from '../helpers/s3-server.js';

const { values } = parseArgs({ options: { tests: { type: 'string', default: '600' }, 'per-test': { type: 'string', default: '30' } } });
const tests = Number(values.tests);
const perTest = Number(values['per-test']);
if (tests * perTest > 20_000) throw new Error('more than 20,000 reports: take the machine-wide lock (briefing) and raise this guard');

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
const key = generateSigningKey();
const s3 = await startS3Server(path.join(repoRoot, 'test/.tmp/archive-bench'));
try {
  const client = new S3Client({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
  const prefix = 'rehearsal/evidence/';
  let bytes = 0;
  let raw = 0;
  let buildMs = 0;
  let putMs = 0;
  const start = new Date('2026-01-01T00:00:00Z');
  for (let t = 0; t < tests; t++) {
    const test = makeRestoreTest(`app-${t}`, [`ns-${t}`], { maxRTO: '15m', uid: `uid-${t}`, checks: PAYMENTS_CHECKS });
    const reports: RestoreReport[] = [];
    let previous: string | undefined;
    for (let i = 0; i < perTest; i++) {
      const report = withEvidence(makeReport(test, i, start, { result: i % 7 === 6 ? 'fail' : 'pass', rtoSeconds: 600 + i }), previous, key, i + 1);
      previous = report.spec.evidence!.digest;
      reports.push(report);
    }
    let mark = performance.now();
    const segment = buildSegment(prefix, { namespace: 'rehearsal-system', name: test.metadata.name, uid: test.metadata.uid! }, reports, null, key, new Date());
    buildMs += performance.now() - mark;
    mark = performance.now();
    await client.putObject(segment.key, segment.body, 'application/gzip');
    putMs += performance.now() - mark;
    bytes += segment.body.length;
    raw += segment.rawBytes;
  }
  const count = tests * perTest;
  console.log(`archived ${count} reports in ${tests} segments: ${mb(bytes)} stored, ${(bytes / count).toFixed(0)} B/report (raw ${(raw / count).toFixed(0)} B/report, ${(raw / bytes).toFixed(1)}x)`);
  console.log(`build+sign+gzip ${(buildMs / 1000).toFixed(1)} s, upload ${(putMs / 1000).toFixed(1)} s (${(putMs / tests).toFixed(1)} ms per segment)`);

  global.gc?.();
  const before = process.memoryUsage();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({ clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }], users: [{ name: 'none' }], contexts: [{ name: 'none', cluster: 'none', user: 'none' }], currentContext: 'none' });
  const cache = new RehearsalCache(kubeConfig, pino({ level: 'silent' }));
  const store = new ArchiveStore(client, prefix, () => publicKeyRing([key.publicKey]), pino({ level: 'silent' }));
  const mark = performance.now();
  const loaded = await store.load((report) => cache.addArchived(report));
  const loadMs = performance.now() - mark;
  global.gc?.();
  const after = process.memoryUsage();
  console.log(`start: loaded ${loaded.reports} reports from ${loaded.segments} segments in ${(loadMs / 1000).toFixed(1)} s (${loaded.problems.length} problems); heap +${mb(after.heapUsed - before.heapUsed)}, RSS +${mb(after.rss - before.rss)} (${((after.heapUsed - before.heapUsed) / loaded.reports).toFixed(0)} B heap/report)`);
} finally {
  await s3.stop();
}
