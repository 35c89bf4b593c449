// `npm run bench:scale` — the API benchmark at several sizes (default 100, 1,000 and 3,000
// RestoreTests × --days reports each), one private control plane per size, and one table: p99 per
// endpoint, the server's and the kube-apiserver's resident memory, start-to-ready and the data
// load, so the growth of each cost with the number of tests is visible. Each size runs
// test/bench/api-bench.ts (same flags, background runs included) and keeps its JSON as
// test/.tmp/bench-scale-<tests>.json; --print-only prints the table from those files (sizes run
// separately, e.g. the 1,000-test point from a kept full-size cluster).
//
//   npm run bench:scale -- [--sizes 100,1000,3000] [--days 90] [--cluster-root DIR] [--keep-cluster]
//                          [--runtime dist] [--duration 10] [--no-background] [--print-only]
//                          [--archive [--live 14]]
//
// --archive: each size as a production install with the evidence archive runs it — the newest
// --live runs per test in etcd, the rest of the --days history already archived on a real S3
// server (s3s-fs), the server started with the archive configured (test/bench/archive-history.ts).
// Then etcd (and the apiserver's watch cache) hold a bounded window: --live × tests reports.
//
// Runs that load more than 20,000 reports need the machine-wide lock (flock, see the briefing).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = path.join(repoRoot, 'test/.tmp');

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,3000' },
    days: { type: 'string', default: '90' },
    'cluster-root': { type: 'string', default: path.join(tmpdir(), 'rehearsal-scale') },
    'keep-cluster': { type: 'boolean', default: false },
    runtime: { type: 'string', default: 'dist' },
    duration: { type: 'string', default: '10' },
    background: { type: 'boolean', default: true },
    'print-only': { type: 'boolean', default: false },
    archive: { type: 'boolean', default: false },
    live: { type: 'string', default: '14' },
    // The real path: every run through the apiserver, the server's own first pass archives (timed).
    'archive-real': { type: 'boolean', default: false },
  },
  strict: true,
  allowNegative: true,
});
const sizes = args.sizes!.split(',').map(Number);

interface BenchResult {
  parameters: { tests: number; days: number; reports: number; background?: boolean };
  load: { reused: boolean; totalSeconds: number; reportsPerSecond: number };
  server: { startToReadySeconds: number; rssAtReady: { vmRssMb: number }; rssAfterLoad: { vmRssMb: number } };
  apiserver: { vmRssMb: number } | null;
  controlPlane?: { etcdDbBytes: number; etcdRssBytes: number } | null;
  archive?: {
    liveReports: number;
    archivedReports: number;
    bytes: number;
    uploadSeconds: number;
    serverLoad: { milliseconds: number } | null;
    serverPassSeconds?: number;
  } | null;
  background: { landed: number } | null;
  /** p99 is null (NaN in JSON) when no request of the endpoint was answered. */
  endpoints: { path: string; latencyMs: { p99: number | null }; pass: boolean }[];
  machine: { loadAverageAtStart: number[] };
}

function resultFile(tests: number): string {
  return path.join(tmp, `bench-scale-${tests}.json`);
}

function runSize(tests: number): Promise<void> {
  const flags = [
    '--tests', String(tests),
    '--days', args.days!,
    '--cluster-dir', `${args['cluster-root']}-${tests}`,
    '--runtime', args.runtime!,
    '--duration', args.duration!,
    '--output', resultFile(tests),
    ...(args['keep-cluster'] ? ['--keep-cluster'] : []),
    ...(args.background ? [] : ['--no-background']),
    ...(args.archive || args['archive-real'] ? ['--archive-live', args.live!] : []),
    ...(args['archive-real'] ? ['--archive-real'] : []),
  ];
  console.error(`[scale] ${tests} tests × ${args.days} days: api-bench ${flags.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/bench/api-bench.ts'), ...flags], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`api-bench at ${tests} tests exited with ${code}`));
      resolve();
    });
  });
}

function short(endpoint: string): string {
  return endpoint
    .replace('/api/v1/', '')
    .replace('?framework=soc2&period=90', ' soc2/90')
    .replace('?latest=true', '?latest');
}

function markdownTable(header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
  for (const row of rows) console.log(line(row));
}

const mb = (bytes: number | undefined): string => (bytes === undefined ? '-' : String(Math.round(bytes / 1048576)));

/** The costs whose growth with the number of tests the curve shows. */
function costs(result: BenchResult): Record<string, number | undefined> {
  return {
    'server MB (after)': result.server.rssAfterLoad.vmRssMb,
    'apiserver MB': result.apiserver?.vmRssMb,
    'etcd db MB': result.controlPlane ? result.controlPlane.etcdDbBytes / 1048576 : undefined,
    'start→ready s': result.server.startToReadySeconds,
    'archive load s': result.archive?.serverLoad ? result.archive.serverLoad.milliseconds / 1000 : undefined,
    'archive pass s': result.archive?.serverPassSeconds,
  };
}

function printTable(results: BenchResult[]): void {
  const endpoints = results[0]!.endpoints.map((endpoint) => endpoint.path);
  const header = [
    'tests',
    'reports live / archived',
    ...endpoints.map((endpoint) => `${short(endpoint)} p99`),
    'server MB ready / after',
    'apiserver MB',
    'etcd db MB',
    'ready s (archive load s)',
    'load s',
    'bg runs',
    'load1m',
  ];
  const rows = results.map((result) => [
    String(result.parameters.tests),
    result.archive
      ? `${result.archive.liveReports} / ${result.archive.archivedReports}`
      : `${result.parameters.reports} / 0`,
    ...endpoints.map((endpoint) => {
      const found = result.endpoints.find((candidate) => candidate.path === endpoint);
      if (!found) return '-';
      return found.latencyMs.p99 === null ? 'none!' : `${found.latencyMs.p99.toFixed(1)}${found.pass ? '' : '!'}`;
    }),
    `${result.server.rssAtReady.vmRssMb} / ${result.server.rssAfterLoad.vmRssMb}`,
    result.apiserver ? String(result.apiserver.vmRssMb) : '-',
    mb(result.controlPlane?.etcdDbBytes),
    `${result.server.startToReadySeconds}${result.archive?.serverLoad ? ` (${(result.archive.serverLoad.milliseconds / 1000).toFixed(1)})` : ''}`,
    result.load.reused ? 'reused' : String(result.load.totalSeconds),
    result.background ? String(result.background.landed) : '-',
    String(result.machine.loadAverageAtStart[0]),
  ]);
  markdownTable(header, rows);
  console.log('p99 in ms at 200 req/s; "!" = target missed (p99 < 50 ms, no failures); MB = VmRSS; load1m at the size\'s start');
  if (results.length < 2) return;
  // Growth between consecutive sizes: cost ratio against test ratio. A per-test factor ≤ 1 is
  // linear or better (the cost per test did not grow).
  console.log('');
  const names = Object.keys(costs(results[0]!));
  const growthRows: string[][] = [];
  for (let i = 1; i < results.length; i += 1) {
    const [a, b] = [results[i - 1]!, results[i]!];
    const testRatio = b.parameters.tests / a.parameters.tests;
    const [ca, cb] = [costs(a), costs(b)];
    growthRows.push([
      `${a.parameters.tests} → ${b.parameters.tests} (×${testRatio.toFixed(1)})`,
      ...names.map((name) => {
        const [x, y] = [ca[name], cb[name]];
        if (x === undefined || y === undefined || x <= 0) return '-';
        return `×${(y / x).toFixed(2)} (per test ×${(y / x / testRatio).toFixed(2)})`;
      }),
    ]);
  }
  markdownTable(['tests', ...names], growthRows);
  console.log('per test ×f: the cost per test at the larger size over that at the smaller (≤ 1: linear or better)');
}

async function main(): Promise<void> {
  if (!args['print-only']) for (const tests of sizes) await runSize(tests);
  const results = sizes
    .filter((tests) => existsSync(resultFile(tests)))
    .map((tests) => JSON.parse(readFileSync(resultFile(tests), 'utf8')) as BenchResult);
  if (results.length === 0) throw new Error('no results: run without --print-only first');
  console.log('');
  console.log(`Rehearsal API scale curve (${results.map((r) => `${r.parameters.tests}×${r.parameters.days} d`).join(', ')})`);
  printTable(results);
  writeFileSync(path.join(tmp, 'bench-scale.json'), `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(`bench:scale: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
