// Starts Rehearsal for tests: in-process (createRehearsal, the same code main.ts runs) or as a
// real child process that a test can kill at any moment.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createRehearsal, type Rehearsal, type RehearsalOverrides } from '../../server/app/rehearsal.js';
import { repoRoot } from './cluster-info.js';
import { waitFor } from './kube.js';

export interface TestServerEnv {
  kubeconfigPath: string;
  veleroNamespace?: string;
  probeTargets?: Record<string, string>;
  maxConcurrentRuns?: number;
  pollIntervalMs?: number;
  leaderElection?: boolean;
  leaseName?: string;
  janitorIntervalSeconds?: number;
  port?: number;
  extra?: Record<string, string>;
}

export function serverEnv(options: TestServerEnv): Record<string, string> {
  return {
    KUBECONFIG: options.kubeconfigPath,
    REHEARSAL_HOST: '127.0.0.1',
    REHEARSAL_PORT: String(options.port ?? 0),
    REHEARSAL_AUTH_MODE: 'none',
    REHEARSAL_VELERO_NAMESPACE: options.veleroNamespace ?? 'velero',
    REHEARSAL_POLL_INTERVAL_MS: String(options.pollIntervalMs ?? 200),
    REHEARSAL_MAX_CONCURRENT_RUNS: String(options.maxConcurrentRuns ?? 5),
    REHEARSAL_LEADER_ELECTION: String(options.leaderElection ?? false),
    REHEARSAL_LEASE_NAME: options.leaseName ?? 'rehearsal-controller',
    REHEARSAL_JANITOR_INTERVAL_SECONDS: String(options.janitorIntervalSeconds ?? 2),
    REHEARSAL_LOG_LEVEL: process.env.REHEARSAL_TEST_LOG_LEVEL ?? 'warn',
    ...(options.probeTargets ? { REHEARSAL_PROBE_TARGETS: JSON.stringify(options.probeTargets) } : {}),
    ...(options.extra ?? {}),
  };
}

export async function startInProcess(options: TestServerEnv, overrides: RehearsalOverrides = {}): Promise<Rehearsal> {
  const env = serverEnv(options);
  const config = loadConfig(env);
  const rehearsal = createRehearsal(config, createLogger(env.REHEARSAL_LOG_LEVEL!), {
    // Far below production's 600 s, yet room for a loaded 2-core machine: with the CPU taken by
    // other work, KWOK's pods took over 20 s to turn Ready and healthy runs failed web-pods.
    podReadyTimeoutSeconds: 60,
    ...overrides,
  });
  await rehearsal.start();
  return rehearsal;
}

/** The sample line of an unlabelled metric as the server's /metrics serves it, e.g. `name 0`. */
export async function metricLine(rehearsal: Rehearsal, name: string): Promise<string | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
  return text.split('\n').find((line) => line.startsWith(`${name} `));
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Kills with SIGKILL (no clean shutdown: the point of crash tests) and waits for the exit. */
  crash(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

/** Runs server/main.ts in a child process (Node 24 + tsx) on a fixed port. */
export async function startProcess(options: TestServerEnv & { port: number; logFile: string }): Promise<ServerProcess> {
  const env = { ...process.env, ...serverEnv(options) };
  // One process, not the tsx CLI (which runs the program in a child of its own): a crash test's
  // SIGKILL must hit the server itself, not a wrapper that leaves the server running as an orphan.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}; see ${options.logFile}`);
      const response = await fetch(`http://127.0.0.1:${options.port}/api/v1/health`);
      return response.ok && ((await response.json()) as { status: string }).status === 'ok';
    },
    // 120 s: a cold tsx start on a loaded 2-core machine took over 60 s.
    { timeoutMs: 120_000, intervalMs: 200, description: 'the server process to become healthy' },
  ).catch((error: unknown) => {
    child.kill('SIGKILL'); // never leave a half-started server behind (it would hold the Lease)
    throw error;
  });
  return {
    child,
    port: options.port,
    async crash() {
      child.kill('SIGKILL');
      await exited;
      // Proof that nothing else kept serving (a wrapper process would leave the server running).
      const stillServing = await fetch(`http://127.0.0.1:${options.port}/api/v1/health`, {
        signal: AbortSignal.timeout(2000),
      }).then(
        () => true,
        () => false,
      );
      if (stillServing) throw new Error(`the server on port ${options.port} still answers after SIGKILL`);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
