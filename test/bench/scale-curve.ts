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
  },
  strict: true,
  allowNegative: true,
});
const sizes = args.sizes!.split(',').map(Number);

interface BenchResult {
  parameters: { tests: number; days: number; reports: number; background?: boolean };
  load: { reused: boolean; totalSeconds: number; reportsPerSecond: number };
  server: { startToReadySeconds: number; rssAfterLoad: { vmRssMb: number } };
  apiserver: { vmRssMb: number } | null;
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

function printTable(results: BenchResult[]): void {
  const endpoints = results[0]!.endpoints.map((endpoint) => endpoint.path);
  const header = [
    'tests',
    'reports',
    ...endpoints.map((endpoint) => `${short(endpoint)} p99`),
    'server MB',
    'apiserver MB',
    'ready s',
    'load s',
    'bg runs',
    'load1m',
  ];
  const rows = results.map((result) => [
    String(result.parameters.tests),
    String(result.parameters.reports),
    ...endpoints.map((endpoint) => {
      const found = result.endpoints.find((candidate) => candidate.path === endpoint);
      if (!found) return '-';
      return found.latencyMs.p99 === null ? 'none!' : `${found.latencyMs.p99.toFixed(1)}${found.pass ? '' : '!'}`;
    }),
    String(result.server.rssAfterLoad.vmRssMb),
    result.apiserver ? String(result.apiserver.vmRssMb) : '-',
    String(result.server.startToReadySeconds),
    result.load.reused ? 'reused' : String(result.load.totalSeconds),
    result.background ? String(result.background.landed) : '-',
    String(result.machine.loadAverageAtStart[0]),
  ]);
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('p99 in ms at 200 req/s; "!" = target missed (p99 < 50 ms, no failures); MB = VmRSS after the measurement');
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
