// Kymaros's side of the side-by-side: start its manager (capped), time start to ready, let it
// settle, check it holds the loaded data, then the same open-loop load per endpoint as ours. A
// server that stops answering or dies is a result (its row says how), not an error of the bench.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runOpenLoop, type LoadResult } from '../load-generator.js';
import { rssOf, waitUntilSettled, type ResidentMemory } from '../process-stats.js';
import { KYMAROS_NAMESPACE } from './kymaros-mapping.js';
import { startManager, stopManager, type ManagerLimits, type RunningManager } from './kymaros-manager.js';

export interface EndpointOutcome {
  path: string;
  /** Absent when the server was already dead or could not be warmed up. */
  result?: LoadResult;
  /** Why there is no (complete) result: a collapse, in words. */
  collapse?: string;
  loadAverage1m: number;
  rssAfter?: ResidentMemory;
}

export interface KymarosMeasurement {
  startToReadySeconds: number | null;
  settleSeconds: number | null;
  rssAtReady?: ResidentMemory;
  rssSettled?: ResidentMemory;
  rssAfterLoad?: ResidentMemory;
  sanity?: { totalTests: number; reportsInDaily: number; upcoming: number };
  endpoints: EndpointOutcome[];
  exit: string | null;
  /** Fresh processes started after a collapse (each endpoint after one gets its own). */
  restarts: number;
}

const READY_TIMEOUT_MS = 900_000;
const REQUEST_TIMEOUT_MS = 30_000;

function load1m(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

async function getJson<T>(origin: string, pathAndQuery: string): Promise<{ status: number; body?: T }> {
  const response = await fetch(origin + pathAndQuery, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (response.status !== 200) {
    await response.arrayBuffer();
    return { status: response.status };
  }
  return { status: 200, body: (await response.json()) as T };
}

function alive(manager: RunningManager): boolean {
  return manager.exit() === null;
}

/** Ready = its summary answers with every loaded test (the API starts once the caches have synced). */
async function waitReady(manager: RunningManager, testCount: number): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < READY_TIMEOUT_MS && alive(manager)) {
    try {
      const summary = await getJson<{ totalTests: number }>(manager.origin, '/api/v1/summary');
      if (summary.body?.totalTests === testCount) return Math.round(performance.now() - t0) / 1000;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

/** One endpoint: a warm-up request, then the open loop; failures and a death are a collapse. */
async function measureEndpoint(
  manager: RunningManager,
  path: string,
  options: { rate: number; durationSeconds: number; connections: number; log: (message: string) => void },
): Promise<EndpointOutcome> {
  const warm = await getJson(manager.origin, path).catch((error: Error) => ({ status: error.name }));
  if (warm.status !== 200)
    return { path, collapse: `warm-up answered ${warm.status}`, loadAverage1m: load1m() };
  options.log(`Kymaros ${path}: ${options.rate} req/s for ${options.durationSeconds} s`);
  const result = await runOpenLoop({
    origin: manager.origin,
    path,
    rate: options.rate,
    durationSeconds: options.durationSeconds,
    connections: options.connections,
    headers: { 'accept-encoding': 'gzip' },
  });
  const died = alive(manager) ? undefined : `server ${manager.exit()} during the load`;
  const failed = result.failed
    ? `${result.failed} of ${result.sent} failed ${JSON.stringify(result.statuses)}`
    : undefined;
  return {
    path,
    result,
    ...(died || failed ? { collapse: [died, failed].filter(Boolean).join('; ') } : {}),
    loadAverage1m: load1m(),
    ...(alive(manager) ? { rssAfter: rssOf(manager.child.pid!) } : {}),
  };
}

export async function measureKymaros(options: {
  binary: string;
  kubeconfig: string;
  ports: { api: number; probe: number };
  limits: ManagerLimits;
  logFile: string;
  testCount: number;
  reportCount: number;
  endpoints: readonly string[];
  rate: number;
  durationSeconds: number;
  connections: number;
  log: (message: string) => void;
}): Promise<KymarosMeasurement> {
  const { log } = options;
  const launch = (): RunningManager =>
    startManager({
      binary: options.binary,
      kubeconfig: options.kubeconfig,
      namespace: KYMAROS_NAMESPACE,
      apiPort: options.ports.api,
      probePort: options.ports.probe,
      limits: options.limits,
      logFile: options.logFile,
    });
  let manager = launch();
  const outcome: KymarosMeasurement = {
    startToReadySeconds: null,
    settleSeconds: null,
    endpoints: [],
    exit: null,
    restarts: 0,
  };
  try {
    outcome.startToReadySeconds = await waitReady(manager, options.testCount);
    if (outcome.startToReadySeconds === null) {
      outcome.exit = manager.exit() ?? 'not ready in time';
      log(`Kymaros not ready: ${outcome.exit}\n${manager.output()}`);
      return outcome;
    }
    outcome.rssAtReady = rssOf(manager.child.pid!);
    log(`Kymaros ready in ${outcome.startToReadySeconds} s, VmRSS ${outcome.rssAtReady.vmRssMb} MB`);
    // Its controller reconciles every test once after start (nextRunAt written back): wait for that.
    outcome.settleSeconds = await waitUntilSettled(manager.child.pid!, 300_000);
    outcome.rssSettled = rssOf(manager.child.pid!);
    const daily = await getJson<{ tests: number }[]>(manager.origin, '/api/v1/summary/daily?days=365');
    const upcoming = await getJson<unknown[]>(manager.origin, '/api/v1/upcoming');
    outcome.sanity = {
      totalTests: options.testCount,
      reportsInDaily: (daily.body ?? []).reduce((sum, day) => sum + day.tests, 0),
      upcoming: upcoming.body?.length ?? 0,
    };
    log(`Kymaros settled in ${outcome.settleSeconds} s: ${JSON.stringify(outcome.sanity)}`);
    if (outcome.sanity.reportsInDaily !== options.reportCount)
      throw new Error(`Kymaros's cache does not hold the loaded reports: ${JSON.stringify(outcome.sanity)}`);

    for (const path of options.endpoints) {
      if (!alive(manager) || outcome.endpoints.at(-1)?.collapse) {
        // Its handlers go on working for requests the client gave up on (a cache list is not
        // cancelled): after a collapse the next endpoint gets a fresh process, not that backlog.
        await stopManager(manager);
        manager = launch();
        outcome.restarts += 1;
        if ((await waitReady(manager, options.testCount)) === null) {
          const exit = manager.exit() ?? 'not ready in time';
          outcome.endpoints.push({ path, collapse: `restart failed: ${exit}`, loadAverage1m: load1m() });
          continue;
        }
        await settledOrGone(manager.child.pid!, 300_000);
      }
      outcome.endpoints.push(await measureEndpoint(manager, path, options));
      log(
        `  ${JSON.stringify(outcome.endpoints.at(-1)!.result?.latencyMs ?? outcome.endpoints.at(-1)!.collapse)}`,
      );
      // A backlog must not leak into the next endpoint: wait until it is quiet again.
      if (alive(manager)) await settledOrGone(manager.child.pid!, 120_000);
    }
    if (alive(manager)) outcome.rssAfterLoad = rssOf(manager.child.pid!);
    return outcome;
  } finally {
    await stopManager(manager);
    outcome.exit ??= manager.exit();
  }
}

/**
 * waitUntilSettled for a process that may die meanwhile (a collapse ends in the kernel's OOM kill or
 * the address-space cap): its death is the next endpoint's restart, not an error of the bench.
 */
async function settledOrGone(pid: number, maxMs: number): Promise<number | null> {
  try {
    return await waitUntilSettled(pid, maxMs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
