// Kymaros's manager (controller + API in one Go process) built from a source tree given on the
// command line and run out of cluster against the benchmark's control plane. Nothing of Kymaros
// is kept in this repository: the binary is cached outside it, keyed by version.
//
// Built as its Dockerfile builds it (-s -w, Version stamped; CGO as the machine's Go defaults, so
// the module build cache is shared with other Go builds here), with one change made at
// build time through `go build -overlay` (the tree is not touched): its API server listens on
// ":<port>" (every interface) and this machine's rule is loopback only, so the overlay binds
// 127.0.0.1. The probe address and metrics are flags (loopback, off).
//
// The process is capped: GOMEMLIMIT (soft: the Go GC works harder near it) and an address-space
// limit through prlimit (hard: past it the Go runtime cannot map memory and dies with "out of
// memory"), so a collapse under load costs the machine at most that much.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

const run = promisify(execFile);
const API_SERVER_SOURCE = 'internal/api/server.go';
const ALL_INTERFACES = 'fmt.Sprintf(":%d", s.port)';
const LOOPBACK = 'fmt.Sprintf("127.0.0.1:%d", s.port)';

export interface ManagerBuild {
  binary: string;
  version: string;
  /** null when the cached binary was reused. */
  buildSeconds: number | null;
  sizeMb: number;
}

/** The chart's appVersion: the bench refuses a tree whose version is not the one asked for. */
export function sourceVersion(sourceDir: string): string {
  const chart = readFileSync(path.join(sourceDir, 'charts/kymaros/Chart.yaml'), 'utf8');
  const version = /^appVersion:\s*"?([^"\s]+)"?/m.exec(chart)?.[1];
  if (!version) throw new Error(`${sourceDir}: no appVersion in charts/kymaros/Chart.yaml`);
  return version;
}

export async function buildManager(
  sourceDir: string,
  expectedVersion: string,
  log: (message: string) => void,
): Promise<ManagerBuild> {
  const version = sourceVersion(sourceDir);
  if (`v${version}` !== expectedVersion && version !== expectedVersion)
    throw new Error(`${sourceDir} is Kymaros ${version}, not ${expectedVersion}`);
  const cacheDir = path.join(homedir(), '.cache/rehearsal-peer', `build-v${version}`);
  const binary = path.join(cacheDir, 'manager');
  const sizeMb = (): number => Math.round(statSync(binary).size / 1024 / 102.4) / 10;
  if (existsSync(binary)) return { binary, version, buildSeconds: null, sizeMb: sizeMb() };

  mkdirSync(cacheDir, { recursive: true });
  const original = path.join(sourceDir, API_SERVER_SOURCE);
  const source = readFileSync(original, 'utf8');
  if (!source.includes(ALL_INTERFACES))
    throw new Error(`${API_SERVER_SOURCE}: listen address not found, cannot bind it to loopback`);
  const patched = path.join(cacheDir, 'server.go');
  writeFileSync(patched, source.replace(ALL_INTERFACES, LOOPBACK));
  const overlay = path.join(cacheDir, 'overlay.json');
  writeFileSync(overlay, JSON.stringify({ Replace: { [original]: patched } }));

  log(`building Kymaros ${version} manager (go build, nice 10) into ${binary}`);
  const t0 = performance.now();
  const ldflags = `-s -w -X 'github.com/kymaroshq/kymaros/internal/api.Version=${version}'`;
  await run(
    'nice',
    [
      '-n',
      '10',
      'go',
      'build',
      '-trimpath',
      `-overlay=${overlay}`,
      `-ldflags=${ldflags}`,
      '-o',
      binary,
      './cmd',
    ],
    { cwd: sourceDir, maxBuffer: 16 * 1024 * 1024 },
  );
  return { binary, version, buildSeconds: Math.round((performance.now() - t0) / 100) / 10, sizeMb: sizeMb() };
}

export interface ManagerLimits {
  /** GOMEMLIMIT in MiB (soft). */
  goMemLimitMb: number;
  /** Address-space limit in MiB (hard, prlimit --as). */
  addressSpaceMb: number;
}

export interface RunningManager {
  child: ChildProcess;
  origin: string;
  /** The tail of its output (for the report when it dies). */
  output: () => string;
  /** Why it exited, once it has: exit code or signal. */
  exit: () => string | null;
}

export function startManager(options: {
  binary: string;
  kubeconfig: string;
  namespace: string;
  apiPort: number;
  probePort: number;
  limits: ManagerLimits;
  logFile: string;
}): RunningManager {
  const { limits } = options;
  const child = spawn(
    'prlimit',
    [
      `--as=${limits.addressSpaceMb * 1024 * 1024}`,
      '--',
      options.binary,
      `--api-port=${options.apiPort}`,
      `--health-probe-bind-address=127.0.0.1:${options.probePort}`,
      '--metrics-bind-address=0',
      '--static-dir=',
      '--zap-log-level=error',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: homedir(),
        KUBECONFIG: options.kubeconfig,
        POD_NAMESPACE: options.namespace,
        GOMEMLIMIT: `${limits.goMemLimitMb}MiB`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: Buffer): void => {
    chunks.push(chunk);
    size += chunk.length;
    // Its JSON log lines (one per reconcile) add up; the tail is what explains a death.
    while (size > 4 * 1024 * 1024 && chunks.length > 1) size -= chunks.shift()!.length;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exitReason: string | null = null;
  child.once('exit', (code, signal) => {
    exitReason = signal ? `killed by ${signal}` : `exited with ${code}`;
    writeFileSync(options.logFile, Buffer.concat(chunks));
  });
  return {
    child,
    origin: `http://127.0.0.1:${options.apiPort}`,
    output: () => Buffer.concat(chunks).toString().slice(-3000),
    exit: () => exitReason,
  };
}

export async function stopManager(manager: RunningManager): Promise<void> {
  if (manager.child.exitCode !== null || manager.child.signalCode !== null) return;
  const exited = new Promise((resolve) => manager.child.once('exit', resolve));
  manager.child.kill('SIGTERM');
  const timer = setTimeout(() => manager.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
