// `npm run bench:api` — the read API at production scale: 1,000 RestoreTests and 90,000
// RestoreReports (90 days × 1,000 tests) in a private control plane, the server as a child process
// (API only, auth none), then an open-loop load of 200 requests/s for 10 s per endpoint on
// loopback. Prints a table with the targets (p99 < 50 ms at 200 rps, resident memory < 400 MB)
// and writes test/.tmp/bench-api.json. A script that prints numbers, not a test: it exits 0 even
// when a target is missed (exit 1 only when the benchmark itself could not run).
//
//   npm run bench:api -- [--cluster-dir DIR | --kubeconfig PATH] [--keep-cluster]
//                        [--tests 1000] [--days 90] [--rate 200] [--duration 10]
//                        [--runtime tsx|dist] [--server-root DIR] [--only summary ...]
//                        [--server-arg=--cpu-prof ...]
//
// Without --kubeconfig it starts (or reuses, when already running) the control plane of
// test/cluster/up.sh in --cluster-dir (default $TMPDIR/rehearsal-bench-cluster) and stops it at the end
// unless --keep-cluster. Data already present (same counts) is reused, so a kept cluster makes
// reruns skip the load. --runtime dist compiles the server (tsconfig.build.json → dist/) and runs
// the JavaScript, as a production image would; tsx (default) runs the sources like the tests do.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import {
  BENCH_NAMESPACE,
  restoreReport,
  restoreTest,
  testShape,
  testStatus,
  type BenchTestShape,
} from './bench-data.js';
import { packReport } from '../../server/report-codec/report-encoding.js';
import { deployedRuntime } from './deployed-runtime.js';
import { BackgroundRuns, deleteBackgroundReports } from './background-runs.js';
import {
  archiveEnv,
  archiveHistory,
  archiveLoadOf,
  ensureSigningKey,
  firstArchivePass,
  sequencedReport,
  startArchiveStore,
  testUids,
  type ArchivedHistory,
} from './archive-history.js';
import { ControlPlaneMemory, type MemorySample } from './control-plane-memory.js';
import type { S3Server } from '../helpers/s3-server.js';
import { KubeBulkClient, forEachBounded } from './kube-bulk.js';
import { runOpenLoop, type LoadResult } from './load-generator.js';
import { cpuTicks, rssOf, waitUntilSettled } from './process-stats.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = path.join(repoRoot, 'test/.tmp');
const GROUP_PATH = '/apis/rehearsal.dev/v1alpha1';

const TARGET_P99_MS = 50;
const TARGET_RSS_MB = 400;
const ENDPOINTS = [
  '/api/v1/summary',
  '/api/v1/summary/daily',
  '/api/v1/tests',
  '/api/v1/reports?latest=true',
  '/api/v1/alerts',
  '/api/v1/compliance?framework=soc2&period=90',
  '/api/v1/upcoming',
];

const { values: args } = parseArgs({
  options: {
    // Outside the repository: Jest would take etcd's *.snap files under test/ for obsolete snapshots.
    'cluster-dir': { type: 'string', default: path.join(tmpdir(), 'rehearsal-bench-cluster') },
    kubeconfig: { type: 'string' },
    'keep-cluster': { type: 'boolean', default: false },
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '48' },
    'server-arg': { type: 'string', multiple: true, default: [] },
    runtime: { type: 'string', default: 'tsx' },
    // Run the server from another checkout (e.g. a worktree with a candidate fix) against the same data.
    'server-root': { type: 'string' },
    only: { type: 'string', multiple: true },
    // What the load generator accepts: gzip, as browsers and dashboards send, or identity.
    'accept-encoding': { type: 'string', default: 'gzip' },
    // Load (or check) the data and stop: with --keep-cluster, prepares a cluster for later runs.
    'load-only': { type: 'boolean', default: false },
    // One run finishes every second while measuring (background-runs.ts); --no-background: quiet data.
    background: { type: 'boolean', default: true },
    // Where the JSON goes (bench:scale runs several sizes, possibly beside another bench run).
    output: { type: 'string', default: path.join(tmp, 'bench-api.json') },
    // With the evidence archive (archive-history.ts): the newest N runs per test in etcd, the
    // older --days minus N already archived on a real S3 server (s3s-fs); 0 = no archive.
    'archive-live': { type: 'string', default: '0' },
    // The real path instead: every run through the apiserver, then the server (controller on) moves
    // the older ones itself in its first archive pass, which is timed.
    'archive-real': { type: 'boolean', default: false },
  },
  strict: true,
  allowNegative: true,
});
const testCount = Number(args.tests);
const days = Number(args.days);
const rate = Number(args.rate);
const durationSeconds = Number(args.duration);
const concurrency = Number(args.concurrency);
const serverRoot = path.resolve(args['server-root'] ?? repoRoot);
const archiveLive = Number(args['archive-live']);
const archiving = archiveLive > 0 && archiveLive < days;
const archiveReal = archiving && args['archive-real'];
/** Runs per test written through the apiserver (the live window when the history is pre-archived). */
const liveDays = archiving && !archiveReal ? archiveLive : days;

function log(message: string): void {
  // The time of day, to line phases up with the server's log (e.g. --trace-gc, stall loggers).
  console.error(`[bench ${new Date().toISOString().slice(11, 23)}] ${message}`);
}

function seconds(ms: number): number {
  return Math.round(ms / 10) / 100;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

// ---------------------------------------------------------------- cluster and CRDs

async function ensureCluster(): Promise<{ kubeconfig: string; started: boolean }> {
  if (args.kubeconfig) return { kubeconfig: args.kubeconfig, started: false };
  const dir = args['cluster-dir']!;
  const t0 = performance.now();
  const { stdout } = await run('bash', [path.join(repoRoot, 'test/cluster/up.sh'), dir], { cwd: repoRoot });
  log(`control plane in ${dir} ready in ${seconds(performance.now() - t0)} s`);
  return { kubeconfig: stdout.trim().split('\n').pop()!, started: true };
}

async function installCrds(kubeconfig: string): Promise<void> {
  const kubectl = (...rest: string[]) =>
    run('kubectl', ['--kubeconfig', kubeconfig, ...rest], { cwd: repoRoot });
  await kubectl('apply', '--server-side', '--force-conflicts', '-k', path.join(repoRoot, 'crds'));
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
}

// ---------------------------------------------------------------- data load

interface LoadTimings {
  reused: boolean;
  testsSeconds: number;
  statusSeconds: number;
  reportsSeconds: number;
  reportsPerSecond: number;
  totalSeconds: number;
}

async function countObjects(kube: KubeBulkClient, plural: string): Promise<number> {
  const response = await kube.request<{ items: unknown[]; metadata: { remainingItemCount?: number } }>(
    'GET',
    // No label selector: the apiserver reports remainingItemCount only for unfiltered lists (the
    // namespace is the benchmark's own).
    `${GROUP_PATH}/namespaces/${BENCH_NAMESPACE}/${plural}?limit=1`,
  );
  if (response.status !== 200) throw new Error(`list ${plural}: HTTP ${response.status}`);
  return response.body.items.length + (response.body.metadata.remainingItemCount ?? 0);
}

async function createOrGet(
  kube: KubeBulkClient,
  plural: string,
  body: { metadata: { name: string } },
): Promise<{ metadata: { uid: string; resourceVersion: string } }> {
  const collection = `${GROUP_PATH}/namespaces/${BENCH_NAMESPACE}/${plural}`;
  for (let attempt = 1; ; attempt += 1) {
    const created = await kube.request<{
      metadata: { uid: string; resourceVersion: string };
      message?: string;
    }>('POST', collection, body);
    if (created.status === 201) return created.body;
    if (created.status === 409) {
      const existing = await kube.request<{ metadata: { uid: string; resourceVersion: string } }>(
        'GET',
        `${collection}/${body.metadata.name}`,
      );
      if (existing.status === 200) return existing.body;
    }
    // 429 (apiserver max-in-flight) and 5xx under load: back off and retry a few times.
    if ((created.status === 429 || created.status >= 500) && attempt < 8) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      continue;
    }
    throw new Error(
      `create ${plural}/${body.metadata.name}: HTTP ${created.status} ${created.body?.message ?? ''}`,
    );
  }
}

function progress(label: string, total: number, started: number): (done: number) => void {
  let last = 0;
  return (done) => {
    const now = performance.now();
    if (done === total || now - last > 10_000) {
      last = now;
      log(`${label}: ${done}/${total} (${Math.round(done / ((now - started) / 1000))}/s)`);
    }
  };
}

async function loadData(kube: KubeBulkClient, now: number): Promise<LoadTimings> {
  const t0 = performance.now();
  const namespace = await kube.request('POST', '/api/v1/namespaces', { metadata: { name: BENCH_NAMESPACE } });
  if (namespace.status !== 201 && namespace.status !== 409)
    throw new Error(`create namespace: HTTP ${namespace.status}`);
  const shapes: BenchTestShape[] = Array.from({ length: testCount }, (_, index) =>
    testShape(index, testCount),
  );
  await deleteBackgroundReports(kube); // an interrupted earlier run's
  const [existingTests, existingReports] = [
    await countObjects(kube, 'restoretests'),
    await countObjects(kube, 'restorereports'),
  ];
  if (existingTests === testCount && existingReports === testCount * liveDays) {
    log(`data present (${existingTests} tests, ${existingReports} reports): load skipped`);
    return {
      reused: true,
      testsSeconds: 0,
      statusSeconds: 0,
      reportsSeconds: 0,
      reportsPerSecond: 0,
      totalSeconds: 0,
    };
  }
  if (existingTests > 0 || existingReports > 0) {
    log(`partial data (${existingTests} tests, ${existingReports} reports): creating what is missing`);
  }

  const uids = new Map<string, { uid: string }>();
  const tTests = performance.now();
  await forEachBounded(
    shapes,
    concurrency,
    async (shape) => {
      const created = await createOrGet(kube, 'restoretests', restoreTest(shape));
      uids.set(shape.name, created.metadata);
    },
    progress('RestoreTests', shapes.length, tTests),
  );
  const testsSeconds = seconds(performance.now() - tTests);

  // The status an engine would have written (nextRunAt feeds /upcoming, lastScore the test list).
  const tStatus = performance.now();
  await forEachBounded(
    shapes,
    concurrency,
    async (shape) => {
      const written = await kube.request(
        'PATCH',
        `${GROUP_PATH}/namespaces/${BENCH_NAMESPACE}/restoretests/${shape.name}/status`,
        { status: testStatus(shape, now) },
        'application/merge-patch+json',
      );
      if (written.status !== 200)
        throw new Error(
          `status of ${shape.name}: HTTP ${written.status} ${JSON.stringify(written.body).slice(0, 300)}`,
        );
    },
    progress('RestoreTest status', shapes.length, tStatus),
  );
  const statusSeconds = seconds(performance.now() - tStatus);

  // Reports, oldest day first (the order an engine writes them), interleaved across tests.
  const jobs: [BenchTestShape, number][] = [];
  for (let runIndex = liveDays - 1; runIndex >= 0; runIndex -= 1)
    for (const shape of shapes) jobs.push([shape, runIndex]);
  const tReports = performance.now();
  await forEachBounded(
    jobs,
    concurrency,
    async ([shape, runIndex]) => {
      const owner = uids.get(shape.name)!;
      // With the archive, the chain's sequence numbers (the archived runs precede these).
      const report = archiving
        ? sequencedReport(shape, runIndex, days, now, owner)
        : restoreReport(shape, runIndex, now, owner);
      // Stored as the engine's report writer stores it: the detail blocks packed into spec.details.
      await createOrGet(kube, 'restorereports', packReport(report));
    },
    progress('RestoreReports', jobs.length, tReports),
  );
  const reportsMs = performance.now() - tReports;
  return {
    reused: false,
    testsSeconds,
    statusSeconds,
    reportsSeconds: seconds(reportsMs),
    reportsPerSecond: Math.round(jobs.length / (reportsMs / 1000)),
    totalSeconds: seconds(performance.now() - t0),
  };
}

// ---------------------------------------------------------------- the server under test

interface ServerUnderTest {
  child: ChildProcess;
  origin: string;
  startToListeningSeconds: number;
  startToReadySeconds: number;
  logFile: string;
  output: () => string;
}

/** The kube-apiserver's memory, when the bench runs the control plane (its pid file). */
function apiserverRss(): { vmRssMb: number; vmHwmMb: number } | undefined {
  if (args.kubeconfig) return undefined;
  try {
    const pid = Number(
      readFileSync(path.join(args['cluster-dir']!, 'pids/kube-apiserver.pid'), 'utf8').trim(),
    );
    return rssOf(pid);
  } catch {
    return undefined;
  }
}

/** etcd's db size and memory and the apiserver's live heap (our control plane only). */
async function controlPlaneSample(): Promise<MemorySample | undefined> {
  if (args.kubeconfig) return undefined;
  const dir = args['cluster-dir']!;
  const kubeconfig = path.join(dir, 'kubeconfig');
  try {
    return await new ControlPlaneMemory(dir, 'kubectl', kubeconfig).sample();
  } catch (error) {
    log(`control plane sample failed: ${String(error)}`);
    return undefined;
  }
}

async function startServer(
  kubeconfig: string,
  extraEnv: Record<string, string> = {},
): Promise<ServerUnderTest> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const logFile = path.join(tmp, 'bench-api-server.log');
  // node --import tsx: one process (tsx's CLI would fork a second one, and VmRSS must be the server's).
  const entry = args.runtime === 'dist' ? ['dist/server/main.js'] : ['--import', 'tsx', 'server/main.ts'];
  const deployed = deployedRuntime();
  log(`server runtime as deployed: node ${deployed.nodeFlags.join(' ')} ${JSON.stringify(deployed.env)}`);
  const child = spawn(process.execPath, [...deployed.nodeFlags, ...(args['server-arg'] ?? []), ...entry], {
    cwd: serverRoot,
    env: {
      ...process.env,
      ...deployed.env,
      KUBECONFIG: kubeconfig,
      REHEARSAL_HOST: '127.0.0.1',
      REHEARSAL_PORT: String(port),
      REHEARSAL_AUTH_MODE: 'none',
      REHEARSAL_CONTROLLER: 'false',
      REHEARSAL_NAMESPACE: BENCH_NAMESPACE,
      REHEARSAL_LOG_LEVEL: 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const t0 = performance.now();
  const output: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
  child.once('exit', () => writeFileSync(logFile, Buffer.concat(output)));
  let listening: number | undefined;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(
        `server exited with ${child.exitCode}: ${Buffer.concat(output).toString().slice(-2000)}`,
      );
    if (performance.now() - t0 > 900_000) {
      child.kill('SIGKILL'); // never leave a server behind
      throw new Error('server not ready within 900 s');
    }
    try {
      const response = await fetch(`${origin}/api/v1/health`);
      listening ??= performance.now();
      if (response.ok && ((await response.json()) as { status: string }).status === 'ok') break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const ready = performance.now();
  return {
    child,
    origin,
    startToListeningSeconds: seconds((listening ?? ready) - t0),
    startToReadySeconds: seconds(ready - t0),
    logFile,
    output: () => Buffer.concat(output).toString('utf8'),
  };
}

async function stopServer(server: ServerUnderTest): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The cache holds what was loaded: 1,000 tests and one run per test and day. */
async function sanityCheck(
  origin: string,
): Promise<{ totalTests: number; runsIn90Days: number; upcoming: number }> {
  const get = async <T>(pathAndQuery: string): Promise<T> => {
    const response = await fetch(origin + pathAndQuery);
    if (!response.ok) throw new Error(`${pathAndQuery}: HTTP ${response.status}`);
    return (await response.json()) as T;
  };
  const summary = await get<{ totalTests: number }>('/api/v1/summary');
  const daily = await get<{ tests: number }[]>(`/api/v1/summary/daily?days=${days + 1}`);
  const upcoming = await get<unknown[]>('/api/v1/upcoming');
  return {
    totalTests: summary.totalTests,
    runsIn90Days: daily.reduce((sum, day) => sum + day.tests, 0),
    upcoming: upcoming.length,
  };
}

/** A few requests per endpoint first (JIT, lazy initialisation), at most 5 or 10 s each. */
async function warmUp(origin: string, endpoints: readonly string[]): Promise<void> {
  for (const endpoint of endpoints) {
    const started = performance.now();
    for (let i = 0; i < 5 && performance.now() - started < 10_000; i += 1) {
      const response = await fetch(origin + endpoint);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`warm-up ${endpoint}: HTTP ${response.status}`);
    }
  }
}

/** Waits (up to 2 min) until the server answers health quickly again: a backlog must not leak into the next endpoint. */
async function waitUntilIdle(origin: string): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < 120_000) {
    const t0 = performance.now();
    try {
      const response = await fetch(`${origin}/api/v1/health`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (performance.now() - t0 < 20) return;
    } catch {
      // busy
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// ---------------------------------------------------------------- report

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

function printTable(
  results: (LoadResult & { loadAverage1m: number; serverCpuMsPerRequest: number })[],
  rss: { vmRssMb: number; vmHwmMb: number },
): void {
  const rows = results.map((r) => {
    const pass = r.failed === 0 && r.latencyMs.p99 < TARGET_P99_MS && r.throughput >= rate * 0.95;
    return [
      r.path,
      `${r.ok}/${r.sent}`,
      r.throughput.toFixed(1),
      r.latencyMs.p50.toFixed(1),
      r.latencyMs.p99.toFixed(1),
      r.latencyMs.max.toFixed(1),
      r.serviceMs.mean.toFixed(1),
      (r.meanResponseBytes / 1024).toFixed(1),
      r.serverCpuMsPerRequest.toFixed(2),
      r.loadAverage1m.toFixed(1),
      pass ? 'PASS' : 'FAIL',
    ];
  });
  const header = [
    'endpoint (GET)',
    'ok/sent',
    'rps',
    'p50 ms',
    'p99 ms',
    'max ms',
    'mean svc ms',
    'KiB/resp',
    'cpu ms/req',
    'load1m',
    `p99<${TARGET_P99_MS}ms`,
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => pad(cell, widths[i]!, i > 0 && i < cells.length - 1)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log(
    `server resident memory after load: VmRSS ${rss.vmRssMb} MB (peak VmHWM ${rss.vmHwmMb} MB)  target < ${TARGET_RSS_MB} MB  ${rss.vmRssMb < TARGET_RSS_MB ? 'PASS' : 'FAIL'}`,
  );
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  mkdirSync(tmp, { recursive: true });
  const machine = {
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
  log(
    `machine: ${machine.nproc} cores (${machine.cpuModel}), node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')}`,
  );
  const cluster = await ensureCluster();
  let server: ServerUnderTest | undefined;
  let background: BackgroundRuns | undefined;
  let s3: S3Server | undefined;
  const kube = await KubeBulkClient.fromKubeconfig(cluster.kubeconfig, concurrency);
  try {
    await installCrds(cluster.kubeconfig);
    const now = Date.now();
    log(
      `loading ${testCount} RestoreTests and ${testCount * days} RestoreReports (${concurrency} requests in flight)`,
    );
    const load = await loadData(kube, now);
    if (!load.reused) {
      log(
        `load: tests ${load.testsSeconds} s, status ${load.statusSeconds} s, reports ${load.reportsSeconds} s (${load.reportsPerSecond}/s), total ${load.totalSeconds} s`,
      );
    }

    if (args['load-only']) return;
    if (args.runtime === 'dist') {
      log('compiling the server (tsconfig.build.json → dist/)');
      // tsc emits even when another change in the tree has type errors; the server is what matters here.
      await run(
        process.execPath,
        [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        { cwd: serverRoot },
      ).catch((error: { stdout?: string }) =>
        log(`tsc reported errors (emitted anyway): ${(error.stdout ?? '').slice(0, 500)}`),
      );
    } else if (args.runtime !== 'tsx') {
      throw new Error(`--runtime must be tsx or dist, not ${args.runtime}`);
    }
    let archived: ArchivedHistory | undefined;
    const serverEnv: Record<string, string> = {};
    if (archiveReal) {
      s3 = await startArchiveStore(`${args['cluster-dir']!}-archive`);
      await ensureSigningKey(kube);
      Object.assign(serverEnv, archiveEnv(s3, archiveLive), {
        REHEARSAL_LOG_LEVEL: 'info',
        REHEARSAL_CONTROLLER: 'true',
        REHEARSAL_ARCHIVE_INTERVAL_SECONDS: '5',
      });
    } else if (archiving) {
      const workDir = `${args['cluster-dir']!}-archive`;
      s3 = await startArchiveStore(workDir);
      const key = await ensureSigningKey(kube);
      log(`archiving runs ${liveDays}…${days - 1} of each test to s3s-fs (${s3.endpoint}, ${workDir})`);
      archived = await archiveHistory({
        s3,
        key,
        shapes: Array.from({ length: testCount }, (_, index) => testShape(index, testCount)),
        uids: await testUids(kube),
        live: liveDays,
        days,
        now,
        log,
      });
      log(
        `archive: ${archived.reports} reports in ${archived.segments} segments, ${Math.round(archived.bytes / 1024)} KiB ` +
          `(${Math.round(archived.bytes / archived.reports)} B/report); build ${archived.buildSeconds} s, upload ${archived.uploadSeconds} s`,
      );
      // Info level: the server logs how long its archive load took ("evidence archive loaded").
      Object.assign(serverEnv, archiveEnv(s3, archiveLive), { REHEARSAL_LOG_LEVEL: 'info' });
    }
    log(
      `starting the server (API only, auth none, ${args.runtime}${archiving ? ', evidence archive on' : ''})`,
    );
    server = await startServer(cluster.kubeconfig, serverEnv);
    const archiveLoad = archiving ? archiveLoadOf(server.output()) : undefined;
    if (archiveLoad)
      log(
        `server loaded the archive (${archiveLoad.reports} reports, ${archiveLoad.segments} segments) in ${archiveLoad.milliseconds} ms`,
      );
    if (archiveReal) {
      const pass = await firstArchivePass(server.output, log);
      archived = {
        segments: pass.segments,
        reports: pass.reports,
        bytes: pass.bytes,
        rawBytes: pass.rawBytes,
        buildSeconds: 0,
        uploadSeconds: 0,
        serverPassSeconds: pass.milliseconds / 1000,
        liveDeleted: pass.liveDeleted,
      };
      log(
        `server's first archive pass: ${pass.reports} reports in ${pass.segments} segments, ${pass.liveDeleted} live copies deleted, ${pass.milliseconds} ms`,
      );
    }
    const rssAtReady = rssOf(server.child.pid!);
    log(
      `server: listening+ready ${server.startToReadySeconds} s after spawn (caches synced); VmRSS ${rssAtReady.vmRssMb} MB`,
    );
    // The server verifies every stored report's evidence in the background after the sync: that
    // would otherwise be measured as the first endpoints' latency.
    const settleSeconds = await waitUntilSettled(server.child.pid!);
    const rssSettled = rssOf(server.child.pid!);
    log(
      `server settled (background work done) ${settleSeconds} s after ready; VmRSS ${rssSettled.vmRssMb} MB`,
    );
    const sanity = await sanityCheck(server.origin);
    log(
      `cache holds ${sanity.totalTests} tests, ${sanity.runsIn90Days} runs in the daily series, ${sanity.upcoming} upcoming`,
    );
    if (sanity.totalTests !== testCount || sanity.runsIn90Days !== testCount * days) {
      throw new Error(`the server's cache does not hold the loaded data: ${JSON.stringify(sanity)}`);
    }
    const endpoints = args.only?.length
      ? ENDPOINTS.filter((endpoint) => args.only!.some((only) => endpoint.includes(only)))
      : ENDPOINTS;
    await warmUp(server.origin, endpoints);
    background = args.background ? new BackgroundRuns(kube, testCount) : undefined;
    background?.start();
    const results: (LoadResult & { loadAverage1m: number; serverCpuMsPerRequest: number })[] = [];
    for (const endpoint of endpoints) {
      log(`${endpoint}: ${rate} req/s for ${durationSeconds} s`);
      const ticksBefore = cpuTicks(server.child.pid!);
      const result = await runOpenLoop({
        origin: server.origin,
        path: endpoint,
        rate,
        durationSeconds,
        headers: { 'accept-encoding': args['accept-encoding']! },
      });
      // Other work on the machine shows up in the latencies; the 1-minute load average says how much.
      // The server's CPU time per answered request (ticks of 10 ms): unlike latency, it does not
      // depend on how many other processes share the cores (it includes the background runs' share).
      const cpuMs = (cpuTicks(server.child.pid!) - ticksBefore) * 10;
      results.push({
        ...result,
        loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
        serverCpuMsPerRequest: Math.round((cpuMs / Math.max(1, result.ok)) * 100) / 100,
      });
      log(
        `  p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ${result.throughput} req/s, ${result.failed} failed ${JSON.stringify(result.statuses)}`,
      );
      log(
        `  slowest (due at, ms): ${result.slowest.map((slow) => `${slow.dueAt} ${slow.latencyMs}`).join(', ')}; generator lag max ${result.maxFireLagMs} ms`,
      );
      await waitUntilIdle(server.origin);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const backgroundStats = await background?.stop();
    const rss = rssOf(server.child.pid!);
    const apiserver = apiserverRss();
    const controlPlane = await controlPlaneSample();

    console.log('');
    console.log(
      `Rehearsal API benchmark: ${testCount} RestoreTests, ${testCount * days} RestoreReports, ${rate} req/s open loop for ${durationSeconds} s per endpoint, Accept-Encoding: ${args['accept-encoding']}, ${machine.nproc} cores`,
    );
    console.log(
      load.reused
        ? 'data load: reused (already present)'
        : `data load: ${load.totalSeconds} s (RestoreTests ${load.testsSeconds} s + status ${load.statusSeconds} s, RestoreReports ${load.reportsSeconds} s = ${load.reportsPerSecond}/s)`,
    );
    console.log(
      `server start to ready (caches synced): ${server.startToReadySeconds} s; VmRSS at ready ${rssAtReady.vmRssMb} MB; ` +
        `settled (background evidence verification done) ${settleSeconds} s later, VmRSS ${rssSettled.vmRssMb} MB`,
    );
    console.log(
      backgroundStats
        ? `background: ${backgroundStats.landed} runs finished during the measurement (a RestoreReport + test status each, 1/s; ${backgroundStats.failed} writes failed, slowest ${backgroundStats.maxWriteMs} ms)`
        : 'background: none (--no-background)',
    );
    console.log('');
    printTable(results, rss);
    if (apiserver)
      console.log(
        `kube-apiserver resident memory: VmRSS ${apiserver.vmRssMb} MB (peak VmHWM ${apiserver.vmHwmMb} MB)`,
      );
    if (controlPlane) {
      const mb = (bytes: number) => Math.round(bytes / 1048576);
      console.log(
        `etcd: VmRSS ${mb(controlPlane.etcdRssBytes)} MB, db ${mb(controlPlane.etcdDbBytes)} MB (in use ${mb(controlPlane.etcdDbInUseBytes)} MB); apiserver live heap ${mb(controlPlane.apiserverHeapLiveBytes)} MB`,
      );
    }
    if (archived) {
      console.log(
        `evidence archive: ${testCount * days - archived.reports} reports live in etcd, ${archived.reports} archived (${archived.segments} segments, ${Math.round(archived.bytes / 1024)} KiB); server archive load ${archiveLoad ? `${archiveLoad.milliseconds} ms` : 'not logged'}`,
      );
    }

    const output = path.resolve(args.output!);
    writeFileSync(
      output,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          machine,
          parameters: {
            tests: testCount,
            days,
            reports: testCount * days,
            rate,
            durationSeconds,
            loadConcurrency: concurrency,
            runtime: args.runtime,
            background: args.background,
            acceptEncoding: args['accept-encoding'],
            serverRoot,
          },
          targets: { p99Ms: TARGET_P99_MS, rssMb: TARGET_RSS_MB },
          load,
          server: {
            startToReadySeconds: server.startToReadySeconds,
            readyToSettledSeconds: settleSeconds,
            rssAtReady,
            rssSettled,
            rssAfterLoad: rss,
          },
          apiserver: apiserver ?? null,
          controlPlane: controlPlane ?? null,
          archive: archived
            ? {
                liveReports: testCount * days - archived.reports,
                archivedReports: archived.reports,
                path: archiveReal ? 'server pass' : 'pre-built',
                ...archived,
                serverLoad: archiveLoad ?? null,
              }
            : null,
          background: backgroundStats ?? null,
          endpoints: results.map((result) => ({
            ...result,
            pass:
              result.failed === 0 && result.latencyMs.p99 < TARGET_P99_MS && result.throughput >= rate * 0.95,
          })),
          memoryPass: rss.vmRssMb < TARGET_RSS_MB,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\nresults: ${path.relative(repoRoot, output)}`);
  } finally {
    if (server) await stopServer(server);
    // The kept cluster must hold the loaded data only: background reports go, statuses come back.
    await background
      ?.restore()
      .catch((error: unknown) => log(`background clean-up failed: ${String(error)}`));
    await kube.close();
    await s3?.stop();
    if (cluster.started && !args['keep-cluster']) {
      await run('bash', [path.join(repoRoot, 'test/cluster/down.sh'), args['cluster-dir']!]);
      log('control plane stopped');
    } else if (cluster.started) {
      log(
        `control plane kept: KUBECONFIG=${cluster.kubeconfig}; stop it with bash test/cluster/down.sh ${args['cluster-dir']}`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
