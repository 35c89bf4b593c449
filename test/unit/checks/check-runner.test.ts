import { describe, expect, it } from '@jest/globals';
import type { CheckExecutor } from '../../../server/checks/check.js';
import { runCheck, runChecks, type RunChecksOptions } from '../../../server/checks/check-runner.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck } from '../../../server/domain/resources/resources.js';
import { FakeSandboxReader } from './fake-sandbox-reader.js';

const namespaces = [{ source: 'shop', sandbox: 'rt-shop-1' }];

function options(overrides: Partial<RunChecksOptions> = {}): RunChecksOptions {
  return { reader: new FakeSandboxReader(), targets: new StaticTargetResolver({}), namespaces, ...overrides };
}

const exec = (name: string, timeout?: string): HealthCheck => ({
  name,
  kind: 'exec',
  ...(timeout ? { timeout } : {}),
  exec: { command: ['true'] },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a refused connection (a just-restored Service, kube-proxy not yet forwarding)', () => {
  it('is tried again until the target answers, and the result is what the target then said', async () => {
    let attempts = 0;
    const executor: CheckExecutor = async () => {
      attempts += 1;
      return attempts < 3
        ? { status: 'error', message: 'connection refused (ECONNREFUSED)', refused: true }
        : { status: 'pass', message: 'GET / returned 200' };
    };
    const result = await runCheck(exec('web', '20s'), options({ executors: { exec: executor } }));
    expect([attempts, result.status, result.message]).toEqual([3, 'pass', 'GET / returned 200']);
  });

  it('is the result once the check\'s timeout ends the retries, without the retry mark', async () => {
    let attempts = 0;
    const executor: CheckExecutor = async () => {
      attempts += 1;
      return { status: 'fail', message: 'TCP web:80: connection refused (ECONNREFUSED)', refused: true };
    };
    const result = await runCheck(exec('web', '2s'), options({ executors: { exec: executor } }));
    expect(result).toMatchObject({ status: 'fail', message: 'TCP web:80: connection refused (ECONNREFUSED)' });
    expect(result).not.toHaveProperty('refused');
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  it('other failures are not tried again', async () => {
    let attempts = 0;
    const executor: CheckExecutor = async () => {
      attempts += 1;
      return { status: 'fail', message: 'GET / returned 503, expected 200' };
    };
    const result = await runCheck(exec('web', '20s'), options({ executors: { exec: executor } }));
    expect([attempts, result.status]).toEqual([1, 'fail']);
  });
});

describe('runChecks', () => {
  it('returns results in the given order whatever order they finish in', async () => {
    const delays: Record<string, number> = { a: 120, b: 10, c: 60, d: 0 };
    const executor: CheckExecutor = async (check) => {
      await sleep(delays[check.name] ?? 0);
      return { status: 'pass', message: `done ${check.name}` };
    };
    const results = await runChecks(
      ['a', 'b', 'c', 'd'].map((name) => exec(name)),
      options({ concurrency: 3, executors: { exec: executor } }),
    );
    expect(results.map((result) => result.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(results.map((result) => result.message)).toEqual(['done a', 'done b', 'done c', 'done d']);
    expect(results.every((result) => result.kind === 'exec')).toBe(true);
  });

  it('never runs more checks at once than the concurrency allows', async () => {
    let running = 0;
    let peak = 0;
    const executor: CheckExecutor = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(20);
      running -= 1;
      return { status: 'pass', message: 'ok' };
    };
    await runChecks(
      Array.from({ length: 7 }, (_, i) => exec(`c${i}`)),
      options({ concurrency: 2, executors: { exec: executor } }),
    );
    expect(peak).toBe(2);
    await runChecks(
      Array.from({ length: 3 }, (_, i) => exec(`c${i}`)),
      options({ concurrency: 1, executors: { exec: executor } }),
    );
    expect(peak).toBe(2);
  });

  it('turns a throwing executor into an error result', async () => {
    const executor: CheckExecutor = async () => {
      throw new TypeError('boom');
    };
    const [result] = await runChecks([exec('x')], options({ executors: { exec: executor } }));
    expect(result).toMatchObject({ status: 'error', message: 'the check failed unexpectedly: boom' });
  });

  it('reports an executor that ignores its signal as timed out after its own timeout', async () => {
    const executor: CheckExecutor = () => new Promise(() => undefined); // never settles
    const clockStart = Date.now();
    const [result] = await runChecks([exec('stuck', '1s')], options({ executors: { exec: executor } }));
    expect(result).toMatchObject({ status: 'error', message: 'timed out after 1s' });
    // 1s timeout + 500ms grace for the executor to report on its own.
    expect(Date.now() - clockStart).toBeLessThan(3_000);
    expect(result?.duration).toMatch(/^1\.[5-9]s$/);
  });

  it("keeps an aborted executor's own message when it reports within the grace period", async () => {
    const executor: CheckExecutor = (_check, context) =>
      new Promise((resolve) =>
        context.signal.addEventListener('abort', () => resolve({ status: 'fail', message: 'no connection' })),
      );
    const [result] = await runChecks([exec('slow', '1s')], options({ executors: { exec: executor } }));
    expect(result).toMatchObject({ status: 'fail', message: 'no connection' });
  });

  it('passes the configured or default timeout to the executor', async () => {
    const seen: number[] = [];
    const executor: CheckExecutor = async (_check, context) => {
      seen.push(context.timeoutMs);
      return { status: 'pass', message: '' };
    };
    await runChecks(
      [exec('a'), exec('b', '1m30s'), exec('c', '1h')],
      options({ concurrency: 1, executors: { exec: executor } }),
    );
    await runChecks([exec('d')], options({ defaultTimeout: '10s', executors: { exec: executor } }));
    expect(seen).toEqual([30_000, 90_000, 10_000]);
  });

  it('rejects invalid and excessive timeouts, unknown kinds and runs without sandboxes', async () => {
    const results = await runChecks(
      [
        exec('bad', 'soon'),
        exec('fraction', '1.5s'),
        exec('zero', '0s'),
        exec('huge', '11m'),
        { name: 'k', kind: 'grpc' as 'exec' },
      ],
      options(),
    );
    expect(results.map((result) => result.message)).toEqual([
      'timeout "soon" is not a positive duration like 30s or 1m30s',
      'timeout "1.5s" is not a positive duration like 30s or 1m30s',
      'timeout "0s" is not a positive duration like 30s or 1m30s',
      'timeout "11m" exceeds the maximum of 10m',
      'unknown check kind "grpc" (known: podsReady, httpGet, tcpSocket, sqlQuery, resourceExists, exec, file)',
    ]);
    expect(results.every((result) => result.status === 'error')).toBe(true);
    const [none] = await runChecks([exec('x')], options({ namespaces: [] }));
    expect(none?.message).toBe('the run has no sandbox namespaces to check');
  });

  it('measures durations with the injected clock and formats them as seconds with one decimal', async () => {
    let now = 1_000;
    const executor: CheckExecutor = async () => {
      now += 1_234;
      return { status: 'pass', message: 'ok' };
    };
    const result = await runCheck(exec('x'), options({ clock: () => now, executors: { exec: executor } }));
    expect(result).toEqual({ name: 'x', kind: 'exec', status: 'pass', message: 'ok', duration: '1.2s' });
  });

  it('stops the remaining checks when the run is cancelled', async () => {
    const controller = new AbortController();
    const executor: CheckExecutor = (_check, context) =>
      new Promise((resolve) => {
        controller.abort();
        if (context.signal.aborted) resolve({ status: 'error', message: 'stopped' });
      });
    const results = await runChecks(
      [exec('a'), exec('b')],
      options({ signal: controller.signal, concurrency: 1, executors: { exec: executor } }),
    );
    expect(results.map((result) => result.message)).toEqual(['stopped', 'not run: the run was stopped']);
  });

  it('ends a check whose executor never settles when the run is cancelled during its start', async () => {
    const controller = new AbortController();
    const executor: CheckExecutor = () => {
      controller.abort();
      return new Promise(() => undefined);
    };
    const [result] = await runChecks(
      [exec('a')],
      options({ signal: controller.signal, executors: { exec: executor } }),
    );
    expect(result).toMatchObject({ status: 'error', message: 'cancelled: the run was stopped' });
  });

  it('keeps messages short', async () => {
    const executor: CheckExecutor = async () => ({ status: 'fail', message: 'x'.repeat(5_000) });
    const [result] = await runChecks([exec('x')], options({ executors: { exec: executor } }));
    expect(result?.message.length).toBe(500);
  });

  it('returns an empty list for no checks', async () => {
    expect(await runChecks([], options())).toEqual([]);
  });
});
