// `npm run bench:web` — the dashboard's budget in a real browser (Debian's chromium-headless-shell
// via playwright-core) on loopback:
//   - first contentful paint of the Overview, cold cache       target < 1 s
//   - Tests page with every test listed, interactive            target < 1.5 s
//   - JavaScript shipped (web/dist/*.js, gzip -9)               target < 250 KB
// "Interactive" = navigation start → the list shows all N tests AND a click on a column header
// has re-sorted them (the main thread is free to answer input).
//
//   npm run bench:web -- [--origin http://127.0.0.1:8080] [--tests 1000] [--days 2] [--runs 5]
//                        [--cluster-dir DIR] [--keep-cluster]
//
// With --origin it measures that server as it is. Without, it loads the bench data with
// api-bench (1,000 RestoreTests from bench-data.ts and --days reports per test; the full 90 days =
// 90,000 reports take ~25 min to load here, see README.md), starts the server (API only, auth
// none) on it, measures, and stops both (the cluster stays with --keep-cluster). Prints numbers;
// exits 1 only when the measurement could not run.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../helpers/browser.js';
import { BENCH_NAMESPACE } from './bench-data.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    origin: { type: 'string' },
    tests: { type: 'string', default: '1000' },
    days: { type: 'string', default: '2' },
    runs: { type: 'string', default: '5' },
    // Per checkout: several worktrees on one machine must not share a control plane.
    'cluster-dir': { type: 'string', default: path.join(tmpdir(), `rehearsal-web-budget-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 8)}`) },
    'keep-cluster': { type: 'boolean', default: false },
  },
  strict: true,
});
const runs = Number(args.runs);
const log = (message: string): void => console.error(`[bench:web] ${message}`);

function jsGzipBytes(): { files: number; raw: number; gzip: number } {
  const dist = path.join(repoRoot, 'web/dist');
  let raw = 0;
  let gzip = 0;
  const files = readdirSync(dist).filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const bytes = readFileSync(path.join(dist, file));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: files.length, raw, gzip };
}

async function startServer(kubeconfig: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      KUBECONFIG: kubeconfig,
      REHEARSAL_HOST: '127.0.0.1',
      REHEARSAL_PORT: String(port),
      REHEARSAL_AUTH_MODE: 'none',
      REHEARSAL_CONTROLLER: 'false',
      REHEARSAL_NAMESPACE: BENCH_NAMESPACE,
      REHEARSAL_LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error('server not ready within 600 s');
    }
    try {
      const health = (await (await fetch(`${origin}/api/v1/health`)).json()) as { status: string };
      if (health.status === 'ok') return { origin, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(origin: string): Promise<{ fcp: number[]; interactive: number[]; tests: number }> {
  const tests = ((await (await fetch(`${origin}/api/v1/tests`)).json()) as unknown[]).length;
  const browser = await launchBrowser();
  const fcp: number[] = [];
  const interactive: number[] = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      // A new context each time: cold HTTP cache, as a first visit.
      const overview = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await overview.newPage();
      await page.goto(`${origin}/#/overview`);
      fcp.push(
        await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const found = performance.getEntriesByName('first-contentful-paint')[0];
              if (found) return resolve(found.startTime);
              new PerformanceObserver((list) => resolve(list.getEntries()[0]!.startTime)).observe({ type: 'paint', buffered: true });
            }),
        ),
      );
      await overview.close();

      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const testsPage = await context.newPage();
      await testsPage.goto(`${origin}/#/tests`);
      await testsPage.waitForFunction((n) => document.querySelector('[data-testid="tests-count"]')?.textContent === `${n} of ${n} tests`, tests, {
        timeout: 60_000,
        polling: 'raf',
      });
      const firstName = () => testsPage.locator('tbody tr td a').first().textContent();
      const before = await firstName();
      await testsPage.locator('thead th button.sort').first().click(); // the Name column
      await testsPage.waitForFunction((b) => document.querySelector('tbody tr td a')?.textContent !== b, before, { polling: 'raf' });
      interactive.push(await testsPage.evaluate(() => performance.now()));
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return { fcp, interactive, tests };
}

async function main(): Promise<void> {
  log('building the dashboard (npm run build:web)');
  await run('npm', ['run', '--silent', 'build:web'], { cwd: repoRoot });
  const js = jsGzipBytes();
  let origin = args.origin;
  let cleanup = async (): Promise<void> => undefined;
  if (!origin) {
    const dir = args['cluster-dir']!;
    log(`loading ${args.tests} tests × ${args.days} days of reports with api-bench into ${dir}`);
    await run(
      process.execPath,
      ['--import', 'tsx', 'test/bench/api-bench.ts', '--cluster-dir', dir, '--keep-cluster', '--tests', args.tests!, '--days', args.days!, '--only', 'summary', '--duration', '1', '--rate', '20'],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
    );
    const { stdout } = await run('bash', ['test/cluster/up.sh', dir], { cwd: repoRoot });
    const server = await startServer(stdout.trim().split('\n').pop()!);
    origin = server.origin;
    cleanup = async () => {
      await server.stop();
      if (!args['keep-cluster']) await run('bash', ['test/cluster/down.sh', dir], { cwd: repoRoot });
    };
  }
  try {
    log(`measuring ${origin} (${runs} cold loads per page)`);
    const { fcp, interactive, tests } = await measure(origin);
    const row = (name: string, values: number[], target: number) =>
      `${name.padEnd(44)} median ${median(values).toFixed(0).padStart(5)} ms   max ${Math.max(...values).toFixed(0).padStart(5)} ms   target < ${target} ms   ${Math.max(...values) < target ? 'PASS' : 'FAIL'}`;
    console.log(row('Overview first contentful paint', fcp, 1000));
    console.log(row(`Tests page interactive (${tests} tests)`, interactive, 1500));
    console.log(
      `${'JavaScript shipped (gzip -9)'.padEnd(44)} ${(js.gzip / 1024).toFixed(1)} KB in ${js.files} file(s) (${(js.raw / 1024).toFixed(1)} KB raw)   target < 250 KB   ${js.gzip < 250 * 1024 ? 'PASS' : 'FAIL'}`,
    );
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(`[bench:web] ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
