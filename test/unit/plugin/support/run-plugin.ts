// Runs kubectl-restoretest in-process (runCli, the same code main.ts runs) with captured output,
// a fixed clock that only moves when the plugin sleeps, and an environment of the test's own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../../../cmd/kubectl-restoretest/cli.js';
import type { Env } from '../../../../cmd/kubectl-restoretest/io.js';

/** The fixed "now" of every plugin unit test. */
export const NOW = new Date('2026-03-15T12:00:00Z');

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  pollIntervalMs?: number;
  /** For long-running commands (dashboard): resolves when the "user" presses Ctrl-C. */
  untilInterrupted?: () => Promise<void>;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A HOME without a kubeconfig, so nothing from the machine running the tests leaks in. */
export const EMPTY_HOME = mkdtempSync(path.join(tmpdir(), 'rh-plugin-home-'));

export async function runPlugin(args: string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  let now = NOW.getTime();
  const env: Env = { HOME: EMPTY_HOME, ...(options.env ?? {}) };
  const code = await runCli(
    args,
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdoutIsTTY: options.stdoutIsTTY ?? false,
      stderrIsTTY: options.stderrIsTTY ?? false,
      env,
      now: () => new Date(now),
      sleep: async (ms) => {
        now += ms;
        await new Promise((resolve) => setImmediate(resolve));
      },
      readStdin: async () => options.stdin ?? '',
      ...(options.untilInterrupted ? { untilInterrupted: options.untilInterrupted } : {}),
    },
    { pollIntervalMs: options.pollIntervalMs },
  );
  return { code, stdout, stderr };
}

/** A kubeconfig for a fake API server on loopback (plain HTTP, token auth). */
export function writeKubeconfig(
  server: string,
  options: { token?: string; namespace?: string; extraContext?: { name: string; namespace?: string } } = {},
): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-kubeconfig-'));
  const file = path.join(dir, 'config');
  const contexts = [
    { name: 'fake', context: { cluster: 'fake', user: 'jane', ...(options.namespace ? { namespace: options.namespace } : {}) } },
    ...(options.extraContext
      ? [{ name: options.extraContext.name, context: { cluster: 'fake', user: 'jane', ...(options.extraContext.namespace ? { namespace: options.extraContext.namespace } : {}) } }]
      : []),
  ];
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'jane', user: options.token ? { token: options.token } : {} }],
      contexts,
      'current-context': 'fake',
    }),
  );
  return file;
}
