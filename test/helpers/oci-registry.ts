// A real OCI registry on 127.0.0.1 for the chart's push and `helm install oci://…` (issue 30):
// CNCF Distribution's `registry`, built from its Go module by deploy/tools/build-go-tools.sh
// (cached by version; test/setup.sh builds it in the helm+promtool step), serving a temporary
// filesystem store over plain HTTP, as a test registry on the loopback does. Helm talks to it with
// --plain-http; the real node's containerd never pulls from it (the chart is what travels, not the
// image).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './cluster-info.js';
import { closedLoopbackPort } from './kube.js';

export interface OciRegistry {
  /** host:port, as `oci://<host>/…` references name it. */
  host: string;
  /** oci://host:port/<repository>: where `helm push` puts a chart and `helm install` finds it. */
  reference(repository: string): string;
  /** The registry's last log lines, for a failure message. */
  log(): string;
  stop(): Promise<void>;
}

const LOG_LINES = 100;

/** The cached registry binary (built once per version). */
export function registryBinary(): string {
  return execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'registry'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

/** Distribution's configuration: filesystem storage in `root`, HTTP on 127.0.0.1:port only. */
export function registryConfig(root: string, port: number): string {
  return JSON.stringify({
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: root }, delete: { enabled: true } },
    // One instance: the secret only signs its own upload state (set so it does not warn).
    http: { addr: `127.0.0.1:${port}`, secret: randomBytes(16).toString('hex') },
  });
}

/** Starts the registry and resolves once `GET /v2/` answers 200 (the OCI distribution base check). */
export async function startOciRegistry(options: { timeoutMs?: number } = {}): Promise<OciRegistry> {
  const binary = registryBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-oci-registry-'));
  const port = await closedLoopbackPort();
  const configFile = path.join(dir, 'config.yml');
  // JSON is YAML: Distribution reads its configuration file as YAML.
  writeFileSync(configFile, registryConfig(path.join(dir, 'storage'), port));
  const lines: string[] = [];
  const child: ChildProcess = spawn(binary, ['serve', configFile], {
    // No OTLP collector here: Distribution 3 exports traces by default and would log each failure.
    env: { ...process.env, OTEL_TRACES_EXPORTER: 'none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - LOG_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));

  const host = `127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (!exited) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`the OCI registry ${exited} before it answered:\n${lines.join('\n')}`);
    }
    const status = await fetch(`http://${host}/v2/`)
      .then((answer) => answer.status)
      .catch(() => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the OCI registry on ${host} did not answer GET /v2/ (last status ${status}):\n${lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    host,
    reference: (repository) => `oci://${host}/${repository}`,
    log: () => lines.join('\n'),
    stop,
  };
}
