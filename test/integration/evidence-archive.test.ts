// The evidence archive on the real control plane with a real S3 server (s3s-fs): reports past the
// live window move to signed, hash-chained, gzip'd segments and leave etcd; every reader (the API,
// compliance, `kubectl restoretest verify`) sees live + archived as one history; a crash between
// the upload and the delete of the live copies loses and duplicates nothing; tampering with a
// segment is named; a deleted test's live reports are archived before they leave etcd, and its
// archived evidence stays until its retention period ends.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { S3Client } from '../../server/archive/s3-client.js';
import { evaluateCompliance } from '../../server/domain/compliance/evaluation.js';
import { ReportIndex } from '../../server/domain/read-models/report-index.js';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import { withEvidence } from '../../server/evidence/evidence.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const binDir = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');
const HISTORY = 30;
const DAY = 86_400_000;
let fixture: EngineFixture;
let s3: S3Server;
let kubeconfigPath: string;
let rehearsal: Rehearsal | undefined;
let crashAfterUpload = false;
const complianceNow = new Date(Date.now() + 3_600_000);

function serverOptions(retention: string, extra: Record<string, string> = {}) {
  return {
    kubeconfigPath,
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: {
      REHEARSAL_ARCHIVE_S3_ENDPOINT: s3.endpoint,
      REHEARSAL_ARCHIVE_S3_BUCKET: s3.bucket,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      REHEARSAL_ARCHIVE_AFTER: '168h',
      REHEARSAL_ARCHIVE_KEEP_LIVE: '5',
      REHEARSAL_ARCHIVE_SEGMENT_MIN: '10',
      REHEARSAL_ARCHIVE_SEGMENT_MAX: '12',
      REHEARSAL_ARCHIVE_RETENTION: retention,
      REHEARSAL_ARCHIVE_INTERVAL_SECONDS: '3600',
      ...extra,
    },
  };
}

async function start(retention = '9600h'): Promise<Rehearsal> {
  await rehearsal?.stop();
  rehearsal = await startInProcess(
    serverOptions(retention),
    {
      archiveAfterUpload: (segmentKey) => {
        // Only this file's segments: earlier files may leave reports of deleted tests behind
        // (their namespaces still terminating), and the archiver rightly archives those too.
        if (!crashAfterUpload || !segmentKey.includes(`/${fixture.testNamespace}/`)) return;
        crashAfterUpload = false;
        throw new Error('simulated crash between the segment upload and the delete of the live copies');
      },
    },
  );
  return rehearsal;
}

/**
 * Earlier files delete their RestoreTests and namespaces without waiting: their reports (which
 * carry no ownerReference) can outlive the tests while a namespace terminates, and this file's
 * archive would rightly archive and purge them too, muddling its counts. They are deleted first.
 */
async function deleteOrphanReportsOfEarlierFiles(): Promise<void> {
  const group = { group: 'rehearsal.dev', version: 'v1alpha1' };
  const tests = (await fixture.custom.listClusterCustomObject({ ...group, plural: 'restoretests' })) as { items: RestoreTest[] };
  const uids = new Set(tests.items.map((t) => t.metadata.uid));
  const reports = (await fixture.custom.listClusterCustomObject({ ...group, plural: 'restorereports' })) as { items: RestoreReport[] };
  for (const report of reports.items.filter((r) => !uids.has(r.spec.testRef.uid))) {
    await fixture.custom
      .deleteNamespacedCustomObject({ ...group, namespace: report.metadata.namespace!, plural: 'restorereports', name: report.metadata.name })
      .catch(() => undefined); // gone already with its namespace
  }
}

beforeAll(async () => {
  fixture = await createEngineFixture('archive');
  // Retried: right after the CRDs are (re)installed the apiserver answers 429 "storage is (re)initializing".
  await waitFor(() => deleteOrphanReportsOfEarlierFiles().then(() => true), { description: 'earlier files\' orphan reports deleted' });
  s3 = await startS3Server(path.join(repoRoot, 'test/.tmp/evidence-archive'));
  kubeconfigPath = await rehearsalKubeconfig('evidence-archive.kubeconfig');
  await start();
}, 180_000);

afterAll(async () => {
  await rehearsal?.stop();
  await s3?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

function verify(name: string): Promise<{ code: number; stdout: string }> {
  const args = ['restoretest', 'verify', name, '-n', fixture.testNamespace, '--server', `http://127.0.0.1:${rehearsal!.port()}`];
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      { env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, KUBECONFIG: testKubeconfigPath(), NO_COLOR: '1' }, timeout: 120_000 },
      (error, stdout) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout });
      },
    );
  });
}

/** Every report of the namespace through the API (no test filter: also works once the test is gone). */
async function apiReports(server: Rehearsal = rehearsal!): Promise<RestoreReport[]> {
  const url = `http://127.0.0.1:${server.port()}/api/v1/reports?namespace=${fixture.testNamespace}&days=3650&limit=5000`;
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as RestoreReport[];
}

function compliance(name: string): unknown {
  const cache = rehearsal!.cache;
  return evaluateCompliance({
    framework: 'soc2',
    periodDays: 90,
    now: complianceNow,
    tests: cache.listTests().filter((t) => t.metadata.namespace === fixture.testNamespace),
    reports: ReportIndex.from(cache.reportsOfTest(fixture.testNamespace, name)),
    verify: (report) => rehearsal!.evidence.verify(report),
  });
}

/** This file's objects in the bucket (other files' leftover reports are archived there too). */
function segmentFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(s3.bucketDir, full));
    }
  };
  walk(s3.bucketDir);
  return out.filter((file) => !file.includes('.s3s') && file.includes(`/${fixture.testNamespace}/`)).sort();
}

describe('the evidence archive (real S3: s3s-fs)', () => {
  const name = uniqueTestName('arch');
  let history: RestoreReport[] = [];
  let newest: RestoreReport;
  let allLiveCompliance: unknown;

  it('moves reports past the live window to segments; etcd keeps the window; readers see one history', async () => {
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    // A real run gives a report the CRD accepts; 30 days of history are made from it, signed with
    // the server's own key and chained (sequence 1..30, one run every two days), then a second real
    // run chains to them (sequence 31).
    await trigger(fixture, name);
    const [template] = await waitForReports(fixture, name, 1);
    await fixture.custom.deleteNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: fixture.testNamespace, plural: 'restorereports', name: template!.metadata.name });
    await waitFor(() => rehearsal!.cache.reportsOfTest(fixture.testNamespace, name).length === 0, { description: 'template report gone' });
    const key = rehearsal!.evidenceKeys.signingKey()!.key;
    let previous: string | undefined;
    for (let i = 1; i <= HISTORY; i++) {
      const started = new Date(Date.now() - (62 - 2 * i) * DAY);
      const runId = `h${String(i).padStart(3, '0')}`;
      const spec = { ...template!.spec, runId, startedAt: started.toISOString(), completedAt: new Date(started.getTime() + 60_000).toISOString() } as RestoreReport['spec'];
      delete spec.evidence;
      if (i % 5 === 0) {
        // Every fifth run failed (score 40 is a fail whatever capped it).
        spec.result = 'fail';
        spec.score = 40;
        delete spec.resultCap;
      }
      if (spec.scheduledAt) spec.scheduledAt = started.toISOString();
      const unsigned: RestoreReport = {
        apiVersion: template!.apiVersion,
        kind: 'RestoreReport',
        metadata: { name: `${name}-${runId}`, namespace: fixture.testNamespace, labels: template!.metadata.labels, ownerReferences: template!.metadata.ownerReferences },
        spec,
      };
      const signed = withEvidence(unsigned, previous, key, i);
      previous = signed.spec.evidence!.digest;
      await fixture.custom.createNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: fixture.testNamespace, plural: 'restorereports', body: signed });
    }
    await trigger(fixture, name);
    await waitForReports(fixture, name, HISTORY + 1);
    history = (await listReports(fixture, name)).sort((a, b) => a.spec.evidence!.sequence! - b.spec.evidence!.sequence!);
    newest = history.at(-1)!;
    expect(newest.spec.evidence?.sequence).toBe(HISTORY + 1);
    expect(newest.spec.evidence?.previousDigest).toBe(history[HISTORY - 1]!.spec.evidence!.digest);
    await waitFor(() => rehearsal!.cache.reportsOfTest(fixture.testNamespace, name).length === HISTORY + 1, { description: 'all reports cached' });
    expect((await verify(name)).code).toBe(0);
    allLiveCompliance = compliance(name);

    // A crash between the upload and the delete of the live copies: the segment is stored, the
    // live copies stay, nothing is served twice.
    crashAfterUpload = true;
    const crashed = await rehearsal!.archive!.pass();
    expect(crashed).toBeUndefined(); // the pass failed (logged)
    expect(segmentFiles().filter((f) => f.endsWith('.jsonl.gz'))).toHaveLength(1);
    expect(await listReports(fixture, name)).toHaveLength(HISTORY + 1);
    expect((await apiReports()).length).toBe(HISTORY + 1);

    // The restarted process loads the archive, finishes the move and archives the next segment.
    // An API-only replica (a follower) started beside it keeps serving the whole history: it
    // re-reads a test's archive when the leader deletes live copies it has no archived copy of.
    await start();
    expect((await apiReports()).length).toBe(HISTORY + 1);
    const follower = await startInProcess(serverOptions('9600h', { REHEARSAL_CONTROLLER: 'false' }));
    const started = performance.now();
    const pass = await rehearsal!.archive!.pass();
    const passMs = performance.now() - started;
    expect(pass).toMatchObject({ segments: 1, reports: 12, liveDeleted: 24 });
    expect(await rehearsal!.archive!.pass()).toMatchObject({ segments: 0, liveDeleted: 0 }); // 3 due < 10: they wait
    const segments = segmentFiles().filter((f) => f.endsWith('.jsonl.gz'));
    expect(segments).toHaveLength(2);
    expect(segments[0]).toMatch(/0000000001-0000000012\.jsonl\.gz$/);
    expect(segments[1]).toMatch(/0000000013-0000000024\.jsonl\.gz$/);
    await waitFor(async () => (await listReports(fixture, name)).length === HISTORY + 1 - 24, { description: 'live copies deleted from etcd' });
    await waitFor(() => rehearsal!.cache.liveSummariesOfTest(`${fixture.testNamespace}/${name}`).length === 7, { description: 'cache sees 7 live' });

    // The S3 client follows ListObjectsV2 pages (one key per page here) and signs every request.
    const s3Client = new S3Client({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
    expect((await s3Client.listObjects('rehearsal/', 1)).map((o) => o.key)).toEqual(segments);
    await expect(new S3Client({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: 'wrong' }).listObjects('rehearsal/')).rejects.toThrow(/answered 403/);

    await waitFor(async () => (await apiReports(follower)).length === HISTORY + 1 && follower.cache.liveSummariesOfTest(`${fixture.testNamespace}/${name}`).length === 7, {
      description: 'the follower to serve live + the segment the leader wrote after its start',
    });
    expect(follower.cache.archivedCount).toBe(24);
    await follower.stop();

    const served = await apiReports();
    expect(served.map((r) => r.metadata.name).sort()).toEqual(history.map((r) => r.metadata.name).sort());
    expect(compliance(name)).toEqual(allLiveCompliance);
    const verdict = await verify(name);
    expect(verdict.stdout).toContain(`${HISTORY + 1}/${HISTORY + 1} reports verified`);
    expect(verdict.code).toBe(0);

    const bytes = segments.reduce((sum, file) => sum + readFileSync(path.join(s3.bucketDir, file)).length, 0);
    const raw = segments.reduce((sum, file) => sum + gunzipSync(readFileSync(path.join(s3.bucketDir, file))).length, 0);
    console.log(`archive: pass ${passMs.toFixed(0)} ms (12 archived + 24 live deleted); ${bytes} bytes for 24 reports = ${(bytes / 24).toFixed(0)} B/report, raw ${(raw / 24).toFixed(0)} B/report, ratio ${(raw / bytes).toFixed(1)}x`);
  }, 300_000);

  it('names a tampered segment, and a deleted one', async () => {
    const [first, second] = segmentFiles().filter((f) => f.endsWith('.jsonl.gz'));
    const firstPath = path.join(s3.bucketDir, first!);
    const original = readFileSync(firstPath);
    const lines = gunzipSync(original).toString('utf8').split('\n');
    // Turn the failed run of sequence 5 into a pass, as someone with write access to the bucket could.
    const edited = lines.map((line) => (line.includes(`"sequence":5,`) ? line.replace('"result":"fail"', '"result":"pass"') : line));
    expect(edited).not.toEqual(lines);
    writeFileSync(firstPath, gzipSync(edited.join('\n')));
    await start();
    const tampered = await verify(name);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain(`archive: ${first}: content digest mismatch: the archived reports were changed`);
    expect(tampered.stdout).toMatch(new RegExp(`${history[4]!.metadata.name}: digest mismatch.*\\(archived in ${first!.replace(/[.]/g, '\\.')}\\)`));
    expect(compliance(name)).not.toEqual(allLiveCompliance); // the edited run is no longer evidence

    writeFileSync(firstPath, original);
    const secondPath = path.join(s3.bucketDir, second!);
    const secondBytes = readFileSync(secondPath);
    rmSync(secondPath);
    await start();
    const missing = await verify(name);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`${history[24]!.metadata.name}: missing predecessor`);
    expect(missing.stdout).toContain(`a report between ${history[11]!.metadata.name} and ${history[24]!.metadata.name} was deleted`);

    writeFileSync(secondPath, secondBytes);
    await start();
    expect((await verify(name)).code).toBe(0);
  }, 240_000);

  it('archives a deleted test live reports, then keeps its archived evidence until the retention period ends', async () => {
    await start('20s');
    const digests = new Map(history.map((r) => [r.metadata.name, r.spec.evidence!.digest]));
    // The 7 live reports carry no ownerReference (the writer's, and the history made from its
    // template): no garbage collector deletes them unarchived. The server archives them (a crash
    // after the upload first: the next pass finishes without a second segment), then deletes them.
    expect(history.every((r) => r.metadata.ownerReferences === undefined)).toBe(true);
    crashAfterUpload = true;
    await fixture.custom.deleteNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: fixture.testNamespace, plural: 'restoretests', name });
    await waitFor(() => rehearsal!.cache.getTest(fixture.testNamespace, name) === undefined, { description: 'test gone from the cache' });
    await waitFor(() => !crashAfterUpload, { description: 'the orphans segment uploaded (and the crash simulated)' });
    expect(await listReports(fixture, name)).toHaveLength(7);
    await rehearsal!.cascade.pass();
    await waitFor(async () => (await listReports(fixture, name)).length === 0, { timeoutMs: 30_000, description: 'live reports archived, then deleted' });
    const segments = segmentFiles().filter((f) => f.endsWith('.jsonl.gz'));
    expect(segments).toHaveLength(3);
    expect(segments[2]).toMatch(/0000000025-0000000031\.jsonl\.gz$/);
    // All 31 readable through the API after the test is gone, unchanged.
    await waitFor(async () => (await apiReports()).length === HISTORY + 1, { description: 'the whole history served' });
    const served = await apiReports();
    expect(new Map(served.map((r) => [r.metadata.name, r.spec.evidence!.digest]))).toEqual(digests);

    // Purge counts are not compared exactly: earlier files' deleted tests are archived and
    // purged by this server too. This file's objects are what must stay, then go.
    await rehearsal!.archive!.pass();
    expect(segmentFiles().some((f) => f.endsWith('deleted.json'))).toBe(true);
    await start('20s'); // a restart in between: the tombstone keeps the deletion time
    expect((await apiReports()).length).toBe(HISTORY + 1);
    await rehearsal!.archive!.pass();
    expect(segmentFiles().filter((f) => f.endsWith('.jsonl.gz'))).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    expect((await rehearsal!.archive!.pass())!.purgedTests).toBeGreaterThanOrEqual(1);
    expect(segmentFiles()).toEqual([]);
    expect((await apiReports()).length).toBe(0);
  }, 240_000);
});
