// `npm run bench:peer` — Rehearsal side by side with the peer, Kymaros v0.6.9 (issue 17): both
// servers against the same control plane binaries, over the same data (bench-data.ts's tests and
// daily runs; Kymaros's copy mapped field by field by peer/kymaros-mapping.ts), measured with the
// same open-loop generator on their common endpoints, plus start to ready and resident memory.
// Kymaros is built from a source tree given with --peer-src (nothing of it is in this repository;
// the binary is cached in ~/.cache/rehearsal-peer) and runs capped (GOMEMLIMIT + prlimit --as);
// a collapse under load (timeouts, out of memory) is a row of the table, not an error.
//
//   npm run bench:peer -- --peer-src DIR [--peer-version v0.6.9] [--cluster-dir DIR | --kubeconfig PATH]
//                         [--keep-cluster] [--tests 1000] [--days 7] [--rate 20] [--duration 10]
//                         [--connections 64] [--go-mem-limit-mb 2048] [--address-space-mb 6144]
//                         [--runtime tsx|dist] [--build-only]
//
// Order: Kymaros's data is loaded first, then bench:api loads ours (reused when present), starts
// our server, measures it and stops it; then Kymaros's manager is started and measured alone.
// Prints the table and writes test/.tmp/bench-peer.json; exit 1 only when the bench could not run.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { KubeBulkClient } from './kube-bulk.js';
import { buildManager } from './peer/kymaros-manager.js';
import { installKymarosCrds, loadKymarosData } from './peer/kymaros-load.js';
import { measureKymaros } from './peer/measure-kymaros.js';
import { compareEndpoints, printComparison, type OursSide } from './peer/peer-table.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = path.join(repoRoot, 'test/.tmp');

/** The endpoints both servers have (Kymaros: internal/api/server.go), each with its defaults. */
const COMMON_ENDPOINTS = [
  '/api/v1/summary',
  '/api/v1/summary/daily',
  '/api/v1/tests',
  '/api/v1/reports?latest=true',
  '/api/v1/alerts',
  '/api/v1/upcoming',
];

const { values: args } = parseArgs({
  options: {
    'peer-src': { type: 'string' },
    'peer-version': { type: 'string', default: 'v0.6.9' },
    'cluster-dir': { type: 'string', default: path.join(tmpdir(), 'rehearsal-peer-cluster') },
    kubeconfig: { type: 'string' },
    'keep-cluster': { type: 'boolean', default: false },
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '7' },
    rate: { type: 'string', default: '20' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '48' },
    'go-mem-limit-mb': { type: 'string', default: '2048' },
    'address-space-mb': { type: 'string', default: '6144' },
    runtime: { type: 'string', default: 'tsx' },
    'build-only': { type: 'boolean', default: false },
  },
  strict: true,
});
const testCount = Number(args.tests);
const days = Number(args.days);
const rate = Number(args.rate);
const durationSeconds = Number(args.duration);

function log(message: string): void {
  console.error(`[peer] ${message}`);
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

async function ensureCluster(): Promise<{ kubeconfig: string; started: boolean }> {
  if (args.kubeconfig) return { kubeconfig: args.kubeconfig, started: false };
  const { stdout } = await run('bash', [path.join(repoRoot, 'test/cluster/up.sh'), args['cluster-dir']!], {
    cwd: repoRoot,
  });
  return { kubeconfig: stdout.trim().split('\n').pop()!, started: true };
}

/** Our side: bench:api itself (same generator, same data), on the common endpoints only. */
async function measureOurs(kubeconfig: string): Promise<OursSide> {
  const output = path.join(tmp, 'bench-api.json');
  const benchArgs = [
    '--import',
    'tsx',
    path.join(repoRoot, 'test/bench/api-bench.ts'),
    '--kubeconfig',
    kubeconfig,
    ...['--tests', String(testCount), '--days', String(days), '--rate', String(rate)],
    ...[
      '--duration',
      String(durationSeconds),
      '--runtime',
      args.runtime!,
      '--concurrency',
      args.concurrency!,
    ],
    ...COMMON_ENDPOINTS.flatMap((endpoint) => ['--only', endpoint]),
  ];
  const started = Date.now();
  const child = spawn(process.execPath, benchArgs, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.pipe(process.stderr);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0 || !existsSync(output)) throw new Error(`bench:api exited with ${code}`);
  const result = JSON.parse(readFileSync(output, 'utf8')) as {
    generatedAt: string;
    server: OursSide & { rssAfterLoad: OursSide['rssAfterLoad'] };
    endpoints: OursSide['endpoints'];
  };
  if (Date.parse(result.generatedAt) < started) throw new Error(`${output} is older than this run`);
  // --only matches substrings: /api/v1/summary also selects /api/v1/summary/daily (wanted here).
  return {
    endpoints: result.endpoints.filter((endpoint) => COMMON_ENDPOINTS.includes(endpoint.path)),
    startToReadySeconds: result.server.startToReadySeconds,
    rssAtReady: result.server.rssAtReady,
    rssAfterLoad: result.server.rssAfterLoad,
  };
}

async function main(): Promise<void> {
  if (!args['peer-src'])
    throw new Error('--peer-src DIR (a Kymaros source tree, e.g. its v0.6.9 tag) is required');
  const sourceDir = path.resolve(args['peer-src']);
  mkdirSync(tmp, { recursive: true });
  const build = await buildManager(sourceDir, args['peer-version']!, log);
  log(
    `Kymaros ${build.version} manager: ${build.binary}, ${build.sizeMb} MB, ${build.buildSeconds === null ? 'cached' : `built in ${build.buildSeconds} s`}`,
  );
  if (args['build-only']) return;

  const loadAtStart = loadavg().map((value) => Math.round(value * 100) / 100);
  const cluster = await ensureCluster();
  const kube = await KubeBulkClient.fromKubeconfig(cluster.kubeconfig, Number(args.concurrency));
  const now = Date.now();
  try {
    await installKymarosCrds(cluster.kubeconfig, sourceDir);
    log(`loading ${testCount} tests and ${testCount * days} reports into Kymaros's CRDs`);
    const kymarosLoad = await loadKymarosData({
      kube,
      testCount,
      days,
      now,
      concurrency: Number(args.concurrency),
      log,
    });
    log(
      `Kymaros data: ${kymarosLoad.reused ? 'reused' : `${kymarosLoad.seconds} s (${kymarosLoad.reportsPerSecond} reports/s)`}`,
    );

    const ours = await measureOurs(cluster.kubeconfig);
    const t0 = performance.now();
    const kymaros = await measureKymaros({
      binary: build.binary,
      kubeconfig: cluster.kubeconfig,
      ports: { api: await freePort(), probe: await freePort() },
      limits: {
        goMemLimitMb: Number(args['go-mem-limit-mb']),
        addressSpaceMb: Number(args['address-space-mb']),
      },
      logFile: path.join(tmp, 'bench-peer-kymaros.log'),
      testCount,
      reportCount: testCount * days,
      endpoints: COMMON_ENDPOINTS,
      rate,
      durationSeconds,
      connections: Number(args.connections),
      log,
    });
    log(`Kymaros measured in ${Math.round(performance.now() - t0) / 1000} s; exit: ${kymaros.exit}`);

    const rows = compareEndpoints(ours, kymaros);
    console.log('');
    console.log(
      `Rehearsal vs Kymaros ${build.version}: ${testCount} tests, ${testCount * days} reports (${days} days), ${rate} req/s open loop for ${durationSeconds} s per endpoint, ${args.connections} connections, ${cpus().length} cores; load average at start ${loadAtStart.join(' ')}`,
    );
    console.log(
      `Kymaros capped at GOMEMLIMIT ${args['go-mem-limit-mb']} MiB, address space ${args['address-space-mb']} MiB; binary ${build.sizeMb} MB${build.buildSeconds === null ? '' : `, built in ${build.buildSeconds} s`}`,
    );
    console.log('');
    const pass = printComparison(ours, kymaros, rows);
    console.log(
      `\nall targets: ${pass ? 'PASS' : 'FAIL'}; load average per endpoint (ours, theirs): ${rows
        .map((row) => {
          const mine = ours.endpoints.find((e) => e.path === row.path)?.loadAverage1m;
          const theirs = kymaros.endpoints.find((e) => e.path === row.path)?.loadAverage1m;
          return `${row.path.replace('/api/v1/', '')} ${mine}/${theirs}`;
        })
        .join(', ')}`,
    );
    const output = path.join(tmp, 'bench-peer.json');
    writeFileSync(
      output,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          parameters: { ...args, tests: testCount, days, reports: testCount * days, rate, durationSeconds },
          loadAverageAtStart: loadAtStart,
          build,
          kymarosLoad,
          ours,
          kymaros,
          rows,
          pass,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`results: ${path.relative(repoRoot, output)}`);
  } finally {
    await kube.close();
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
  console.error(`bench:peer: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
