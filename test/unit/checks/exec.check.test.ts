// exec is tested with a fake SandboxReader ONLY: the integration cluster runs KWOK pods without a
// kubelet, and an exec there would make the apiserver dial fake pod IPs (forbidden by the test
// network rules). The real Exec wiring is exercised in sandbox-reader.kube.test.ts against a
// loopback stand-in for the apiserver's exec WebSocket.

import { describe, expect, it } from '@jest/globals';
import { runExecCheck } from '../../../server/checks/exec.check.js';
import { EXEC_STDOUT_LIMIT, SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import type { ExecCheck, HealthCheck } from '../../../server/domain/resources/resources.js';
import { checkContext, FakeSandboxReader, pod, type FakeCluster } from './fake-sandbox-reader.js';

const NS = 'rehearsal-shop-abc12';
const db = { app: 'db' };

function check(exec: Partial<ExecCheck>): HealthCheck {
  return {
    name: 'db-ping',
    kind: 'exec',
    exec: { selector: db, command: ['pg_isready', '-U', 'postgres'], ...exec },
  };
}

function setup(
  exec: FakeCluster['exec'],
  pods = [
    pod(NS, 'db-1', { labels: db, containers: ['postgres', 'exporter'] }),
    pod(NS, 'db-0', { labels: db, containers: ['postgres', 'exporter'], ready: false }),
    pod(NS, 'db-2', { labels: db, containers: ['postgres', 'exporter'], defaultContainer: 'exporter' }),
  ],
) {
  const reader = new FakeSandboxReader({ pods, ...(exec ? { exec } : {}) });
  return { reader, context: checkContext({ reader, namespace: NS }) };
}

describe('exec check (fake reader only: KWOK pods cannot exec)', () => {
  it('runs the command in the first Ready pod by name and passes on exit code 0', async () => {
    const { reader, context } = setup(async () => ({ exitCode: 0 }));
    expect(await runExecCheck(check({}), context)).toEqual({
      status: 'pass',
      message: `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres exited 0`,
    });
    const execCall = reader.calls.find((call) => call.method === 'exec');
    expect(execCall).toEqual({
      method: 'exec',
      namespace: NS,
      args: ['db-1', 'postgres', ['pg_isready', '-U', 'postgres']],
    });
  });

  it('freshness: the output is the newest data\'s time (timestamp or Unix seconds); anything else fails without showing it', async () => {
    const at = (stdout: string) => setup(async () => ({ exitCode: 0, stdout })).context;
    expect(await runExecCheck(check({ freshness: true }), at('2026-11-28 14:05:03.123456+00\n'))).toEqual({
      status: 'pass',
      message: `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres exited 0; newest data 2026-11-28T14:05:03.123Z`,
      newestData: '2026-11-28T14:05:03.123Z',
    });
    expect((await runExecCheck(check({ freshness: true }), at('1795874703\n'))).newestData).toBe('2026-11-28T14:05:03.000Z');
    expect(await runExecCheck(check({ freshness: true }), at('card 4242 4242'))).toEqual({
      status: 'fail',
      message: `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres exited 0, but its value (14 bytes) is not a timestamp or Unix time: no RPO measured`,
    });
    // Without freshness the output is not looked at.
    expect(await runExecCheck(check({}), at('card 4242 4242'))).not.toHaveProperty('newestData');
  });

  it('freshness: output longer than the 4 KiB kept fails, naming only its size, never its content', async () => {
    const where = `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres exited 0`;
    const overLong = `but its output is longer than ${EXEC_STDOUT_LIMIT} bytes, not a timestamp or Unix time: no RPO measured`;
    // As the real reader hands it over: a timestamp first, then more, cut at the limit.
    const cut = `2026-11-28 14:05:03+00\n${'secret-row '.repeat(400)}`.slice(0, 4000);
    const truncated = setup(async () => ({ exitCode: 0, stdout: cut, stdoutTruncated: true })).context;
    expect(await runExecCheck(check({ freshness: true }), truncated)).toEqual({ status: 'fail', message: `${where}, ${overLong}` });
    // A reader that does not cut: over the limit in bytes, not characters (4096 characters, 4097 bytes: "é" is 2).
    const long = setup(async () => ({ exitCode: 0, stdout: `${'1'.repeat(4095)}é` })).context;
    const outcome = await runExecCheck(check({ freshness: true }), long);
    expect(outcome).toEqual({ status: 'fail', message: `${where}, ${overLong}` });
    expect(outcome.message).not.toMatch(/secret|1111|é/);
    // At the limit exactly, the value is judged as usual (here: not a time, so its size is named).
    const atLimit = setup(async () => ({ exitCode: 0, stdout: 'z'.repeat(EXEC_STDOUT_LIMIT) })).context;
    expect((await runExecCheck(check({ freshness: true }), atLimit)).message).toBe(
      `${where}, but its value (${EXEC_STDOUT_LIMIT} bytes) is not a timestamp or Unix time: no RPO measured`,
    );
    // Without freshness a long output is not looked at.
    expect((await runExecCheck(check({}), truncated)).status).toBe('pass');
  });

  it('fails on another exit code, and honours expectedExitCode', async () => {
    const { context } = setup(async () => ({ exitCode: 2 }));
    expect(await runExecCheck(check({}), context)).toEqual({
      status: 'fail',
      message: `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres exited 2, expected 0`,
    });
    expect((await runExecCheck(check({ expectedExitCode: 2 }), context)).status).toBe('pass');
  });

  it('never puts command arguments (which may hold passwords) into messages', async () => {
    const { context } = setup(async () => ({ exitCode: 1 }));
    const outcome = await runExecCheck(check({ command: ['mysql', '-pS3cr3t!', '-e', 'select 1'] }), context);
    expect(outcome.message).not.toContain('S3cr3t');
    expect(outcome.message).toContain('"mysql" (+3 arguments)');
  });

  it('uses the named container, else the default-container annotation', async () => {
    const calls: string[] = [];
    const { context } = setup(
      async ({ pod: name, container }) => {
        calls.push(`${name}/${container}`);
        return { exitCode: 0 };
      },
      [pod(NS, 'db-2', { labels: db, containers: ['postgres', 'exporter'], defaultContainer: 'exporter' })],
    );
    await runExecCheck(check({}), context);
    await runExecCheck(check({ container: 'postgres' }), context);
    expect(calls).toEqual(['db-2/exporter', 'db-2/postgres']);
    const missing = await runExecCheck(check({ container: 'sidecar' }), context);
    expect(missing).toEqual({
      status: 'error',
      message: 'pod db-2 has no container "sidecar" (containers: postgres, exporter)',
    });
  });

  it('fails when no selected pod is Ready', async () => {
    const { context } = setup(async () => ({ exitCode: 0 }), [pod(NS, 'db-0', { labels: db, ready: false })]);
    expect(await runExecCheck(check({}), context)).toEqual({
      status: 'fail',
      message: `no Ready pod in ${NS} with selector app=db to run "pg_isready" (+2 arguments) in (1 pods matched)`,
    });
  });

  it('is an error when the exec cannot run or is cut off by the timeout', async () => {
    const { context } = setup(async () => {
      throw new SandboxReadError(
        'Forbidden',
        'pods "db-1" is forbidden: cannot create resource "pods/exec"',
        403,
      );
    });
    expect((await runExecCheck(check({}), context)).message).toBe(
      `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres could not run: Forbidden (HTTP 403): pods "db-1" is forbidden: cannot create resource "pods/exec"`,
    );

    const controller = new AbortController();
    const hanging = setup(
      ({ signal }) =>
        new Promise((_, reject) => {
          const abort = () => reject(new SandboxReadError('Timeout', 'aborted'));
          if (signal?.aborted) abort();
          else signal?.addEventListener('abort', abort);
        }),
    );
    const pending = runExecCheck(check({}), {
      ...hanging.context,
      signal: controller.signal,
      timeoutMs: 2_000,
    });
    controller.abort();
    expect(await pending).toEqual({
      status: 'error',
      message: `"pg_isready" (+2 arguments) in ${NS}/db-1 container postgres: no exit status within the 2s timeout`,
    });
  });

  it('rejects an empty command and a bad expectedExitCode', async () => {
    const { context } = setup(async () => ({ exitCode: 0 }));
    expect((await runExecCheck(check({ command: [] }), context)).message).toBe(
      'command must be a non-empty list of strings',
    );
    expect((await runExecCheck(check({ expectedExitCode: 256 }), context)).status).toBe('error');
  });
});
