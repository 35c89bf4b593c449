// `npm run bench:memory` — what one request adds to the server's resident memory (issue 12:
// "no single request raises RSS by more than 50 MB"). The server (memory-server.ts: the real app
// over the benchmark's 90,000 reports, in memory) runs as a child process with the Deployment's
// Node flags; each request is sent alone, after the previous one finished, and the bench reads the
// child's /proc/<pid>/status: VmRSS before, the peak during (VmHWM, reset before each request
// through /proc/<pid>/clear_refs) and VmRSS after. Each request runs twice: cold (nothing cached)
// and warm. Prints a table and writes test/.tmp/bench-memory.json; exits 1 when a request's peak
// raise passes the limit.
//
//   npm run bench:memory -- [--tests 1000] [--days 90] [--limit-mb 50] [--pdf]
//
// --pdf adds the two PDF endpoints (off by default: a few seconds each at 90,000 reports). The
// compliance PDF aggregates runs per test, lists only exceptions and at most 100 rows per
// per-target / per-test table (decision 0016).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deployedRuntime } from './deployed-runtime.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = path.join(repoRoot, 'test/.tmp');
const { values: args } = parseArgs({
  options: {
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '90' },
    'limit-mb': { type: 'string', default: '50' },
    pdf: { type: 'boolean', default: false },
  },
});
const limitMb = Number(args['limit-mb']);

function memory(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 102.4) / 10, hwmMb: Math.round(kb('VmHWM') / 102.4) / 10 };
}

/** Resets VmHWM to the current RSS (Linux: "5" to clear_refs), so the next reading is this request's peak. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}


interface Row {
  request: string;
  pass: 'cold' | 'warm';
  status: number;
  bodyKiB: number;
  rssBeforeMb: number;
  peakMb: number;
  rssAfterMb: number;
  peakRaiseMb: number;
  ms: number;
}

async function main(): Promise<void> {
  mkdirSync(tmp, { recursive: true });
  const runtime = deployedRuntime();
  // --expose-gc only lets the server report its live heap (a full GC before it does).
  const child = spawn(process.execPath, [...runtime.nodeFlags, '--expose-gc', '--import', 'tsx', path.join(repoRoot, 'test/bench/memory-server.ts')], {
    cwd: repoRoot,
    env: { ...process.env, ...runtime.env, BENCH_TESTS: args.tests, BENCH_DAYS: args.days },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const t0 = Date.now();
  const ready = await new Promise<{ port: number; reports: number; heapMb: number; buildMs: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`memory server exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\d+) (\d+) ([\d.]+) (\d+)/.exec(chunk.toString());
      if (match) resolve({ port: Number(match[1]), reports: Number(match[2]), heapMb: Number(match[3]), buildMs: Number(match[4]) });
    });
  });
  const pid = child.pid!;
  const origin = `http://127.0.0.1:${ready.port}`;
  console.error(`[bench] ${ready.reports} reports in memory, server ready in ${Math.round((Date.now() - t0) / 1000)} s, node ${runtime.nodeFlags.join(' ')}`);
  try {
    const first = (await (await fetch(`${origin}/api/v1/tests`)).json()) as { name: string }[];
    await new Promise((resolve) => setTimeout(resolve, 3000)); // let start-up garbage settle
    const loaded = memory(pid);
    console.error(`[bench] after load: RSS ${loaded.rssMb} MB, heap used ${ready.heapMb} MB (live, at ready), population built in ${ready.buildMs} ms`);
    const test = first[0]!.name;
    const requests: [string, Record<string, string>][] = [
      ['/api/v1/reports?days=90', {}],
      ['/api/v1/reports?days=90&limit=5000', {}],
      ['/api/v1/reports?days=90&limit=5000', { 'accept-encoding': 'gzip' }],
      ['/api/v1/reports?days=60&limit=5000', {}],
      ['/api/v1/reports?days=30&limit=5000', {}],
      ['/api/v1/reports?latest=true', {}],
      ['/api/v1/reports?latest=true&days=90', { 'accept-encoding': 'gzip' }],
      [`/api/v1/reports?test=${test}&namespace=rehearsal-bench&days=90`, {}],
      ['/api/v1/tests', {}],
      ['/api/v1/summary', {}],
      ['/api/v1/summary/daily?days=90', {}],
      ['/api/v1/alerts?hours=2160', {}],
      ['/api/v1/upcoming', {}],
      ['/api/v1/compliance?framework=soc2&period=90', {}],
      ['/api/compliance?period=90', {}],
    ];
    if (args.pdf) {
      requests.push(
        ['/api/v1/compliance/pdf?framework=soc2&period=90', {}],
        [`/api/restore-tests/${test}/report.pdf?period=90&namespace=rehearsal-bench`, {}],
      );
    }
    const rows: Row[] = [];
    for (const pass of ['cold', 'warm'] as const) {
      for (const [request, headers] of requests) {
        const before = memory(pid);
        resetPeak(pid);
        const started = performance.now();
        const response = await fetch(origin + request, { headers: { 'accept-encoding': 'identity', ...headers } });
        const body = await response.arrayBuffer();
        const ms = Math.round(performance.now() - started);
        const after = memory(pid);
        rows.push({
          request: headers['accept-encoding'] ? `${request} (gzip)` : request,
          pass,
          status: response.status,
          bodyKiB: Math.round(body.byteLength / 1024),
          rssBeforeMb: before.rssMb,
          peakMb: after.hwmMb,
          rssAfterMb: after.rssMb,
          peakRaiseMb: Math.round((after.hwmMb - before.rssMb) * 10) / 10,
          ms,
        });
      }
    }
    // The pages of the largest list, followed to the end (5,000 at a time), one request after another.
    let next: string | undefined = '/api/v1/reports?days=90&limit=5000';
    let pages = 0;
    const pagesBefore = memory(pid);
    let pagesPeakRaise = 0;
    while (next) {
      const before = memory(pid);
      resetPeak(pid);
      const response: Response = await fetch(origin + next, { headers: { 'accept-encoding': 'identity' } });
      await response.arrayBuffer();
      pagesPeakRaise = Math.max(pagesPeakRaise, memory(pid).hwmMb - before.rssMb);
      next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
      pages += 1;
    }
    const pagesAfter = memory(pid);

    const width = Math.max(...rows.map((row) => row.request.length));
    console.log(`${'GET'.padEnd(width)}  pass  status  body KiB  ms     RSS before  peak    RSS after  peak raise MB`);
    for (const row of rows) {
      console.log(
        `${row.request.padEnd(width)}  ${row.pass}  ${String(row.status).padStart(6)}  ${String(row.bodyKiB).padStart(8)}  ${String(row.ms).padStart(5)}  ${row.rssBeforeMb.toFixed(1).padStart(10)}  ${row.peakMb.toFixed(1).padStart(6)}  ${row.rssAfterMb.toFixed(1).padStart(9)}  ${row.peakRaiseMb.toFixed(1).padStart(13)}`,
      );
    }
    const worst = rows.reduce((a, b) => (b.peakRaiseMb > a.peakRaiseMb ? b : a));
    console.log(`\nall ${pages} pages of /api/v1/reports?days=90&limit=5000 in turn: RSS ${pagesBefore.rssMb} → ${pagesAfter.rssMb} MB, largest peak raise of one page ${pagesPeakRaise.toFixed(1)} MB`);
    console.log(`worst single request: ${worst.request} (${worst.pass}): RSS ${worst.rssBeforeMb} MB before, peak ${worst.peakMb} MB, ${worst.rssAfterMb} MB after: +${worst.peakRaiseMb} MB (limit ${limitMb} MB) ${worst.peakRaiseMb <= limitMb ? 'PASS' : 'FAIL'}`);
    writeFileSync(path.join(tmp, 'bench-memory.json'), `${JSON.stringify({ generatedAt: new Date().toISOString(), reports: ready.reports, rows, pages: { count: pages, before: pagesBefore, after: pagesAfter, peakRaiseMb: pagesPeakRaise }, worst }, null, 2)}\n`);
    process.exitCode = worst.peakRaiseMb <= limitMb && pagesPeakRaise <= limitMb ? 0 : 1;
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
