// httpGet against a REAL HTTP server on 127.0.0.1, reached through the StaticTargetResolver.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChecks } from '../../../server/checks/check-runner.js';
import { runHttpGetCheck } from '../../../server/checks/http-get.check.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck, HttpGetCheck } from '../../../server/domain/resources/resources.js';
import { checkContext, FakeSandboxReader } from './fake-sandbox-reader.js';

let server: Server;
let port: number;
let closedPort: number;
const seen: IncomingMessage[] = [];

async function listen(target: Server): Promise<number> {
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  return (target.address() as AddressInfo).port;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request);
    switch (request.url) {
      case '/healthz':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('status: ok\n');
        return;
      case '/down':
        response.writeHead(503).end('maintenance');
        return;
      case '/moved':
        response.writeHead(302, { location: '/healthz' }).end();
        return;
      case '/big':
        // The marker sits beyond the 256 KiB the check reads.
        response.writeHead(200).end(`${'x'.repeat(300 * 1024)}MARKER`);
        return;
      case '/evil':
        // The classic catastrophic-backtracking input for ^(a+)+$: 60 a's and one character that
        // makes the match fail (a backtracking RegExp needs ~2^60 steps: it never returns).
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`${'a'.repeat(60)}!`);
        return;
      case '/evil-big':
        response.writeHead(200).end(`${'a'.repeat(256 * 1024 - 1)}!`);
        return;
      case '/hang':
        return; // never answers
      default:
        response.writeHead(404).end();
    }
  });
  port = await listen(server);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function httpCheck(httpGet: Partial<HttpGetCheck>, extra: Partial<HealthCheck> = {}): HealthCheck {
  return { name: 'web', kind: 'httpGet', httpGet: { service: 'web', port: 80, ...httpGet }, ...extra };
}

function context(timeoutMs = 5_000, signal?: AbortSignal) {
  return checkContext({
    targets: new StaticTargetResolver({
      'web:80': `127.0.0.1:${port}`,
      'gone:80': `127.0.0.1:${closedPort}`,
    }),
    timeoutMs,
    ...(signal ? { signal } : {}),
  });
}

describe('httpGet check against a real HTTP server', () => {
  it('passes on the expected status (default 200) at the resolved loopback target', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/healthz' }), context());
    expect(outcome).toEqual({ status: 'pass', message: `GET http://127.0.0.1:${port}/healthz returned 200` });
    expect(seen.at(-1)?.url).toBe('/healthz');
    expect(seen.at(-1)?.headers['user-agent']).toBe('rehearsal-health-check');
  });

  it('defaults the path to /', async () => {
    const outcome = await runHttpGetCheck(httpCheck({}), context());
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toBe(`GET http://127.0.0.1:${port}/ returned 404, expected 200`);
  });

  it('fails on an unexpected status', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/down' }), context());
    expect(outcome).toEqual({
      status: 'fail',
      message: `GET http://127.0.0.1:${port}/down returned 503, expected 200`,
    });
  });

  it('passes when the configured expectedStatus is returned', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/down', expectedStatus: 503 }), context());
    expect(outcome.status).toBe('pass');
  });

  it('does not follow redirects', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/moved' }), context());
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toContain('returned 302, expected 200 (redirect to /healthz, not followed)');
    const redirect = await runHttpGetCheck(httpCheck({ path: '/moved', expectedStatus: 302 }), context());
    expect(redirect.status).toBe('pass');
  });

  it('passes when the body matches bodyMatch', async () => {
    const outcome = await runHttpGetCheck(
      httpCheck({ path: '/healthz', bodyMatch: '^status: (ok|green)\\n' }),
      context(),
    );
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toBe(
      `GET http://127.0.0.1:${port}/healthz returned 200 and the body (11 bytes) matched /^status: (ok|green)\\n/`,
    );
  });

  it('fails when the body does not match, without copying the body into the message', async () => {
    const outcome = await runHttpGetCheck(
      httpCheck({ path: '/healthz', bodyMatch: 'status: degraded' }),
      context(),
    );
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toBe(
      `GET http://127.0.0.1:${port}/healthz returned 200 but the body (11 bytes) did not match /status: degraded/`,
    );
  });

  it('reads at most 256 KiB of the body for bodyMatch', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/big', bodyMatch: 'MARKER' }), context());
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toContain('the first 262144 bytes of the body did not match /MARKER/');
  });

  it('reports an invalid bodyMatch as a configuration error without a request', async () => {
    const before = seen.length;
    const outcome = await runHttpGetCheck(
      httpCheck({ path: '/healthz', bodyMatch: '([unclosed' }),
      context(),
    );
    expect(outcome.status).toBe('error');
    expect(outcome.message).toMatch(/^bodyMatch is not an RE2 regular expression: .*missing closing ]/);
    expect(seen.length).toBe(before);
  });

  it('rejects syntax RE2 does not have (backreferences, lookahead) as a configuration error', async () => {
    for (const pattern of ['(a)\\1', 'a(?=b)']) {
      const outcome = await runHttpGetCheck(httpCheck({ path: '/healthz', bodyMatch: pattern }), context());
      expect(outcome.status).toBe('error');
      expect(outcome.message).toMatch(/^bodyMatch is not an RE2 regular expression: /);
    }
  });

  // No clock: a backtracking engine needs ~2^60 steps for 60 a's and "!" (it would never answer,
  // the test hangs), RE2 answers at once. How fast RE2 is lies with body-pattern.ts, not this check.
  it('answers ^(a+)+$ against 60 a\'s and "!", which a backtracking engine never finishes, with a clear fail', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/evil', bodyMatch: '^(a+)+$' }), context());
    expect(outcome).toEqual({
      status: 'fail',
      message: `GET http://127.0.0.1:${port}/evil returned 200 but the body (61 bytes) did not match /^(a+)+$/`,
    });
  });

  it('answers the same pattern on the full 256 KiB the check reads', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ path: '/evil-big', bodyMatch: '^(a+)+$' }), context());
    expect(outcome).toEqual({
      status: 'fail',
      message: `GET http://127.0.0.1:${port}/evil-big returned 200 but the first 262144 bytes of the body did not match /^(a+)+$/`,
    });
  });

  it('reports connection refused as error (no answer to judge)', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ service: 'gone' }), context());
    expect(outcome).toEqual({
      status: 'error',
      message: `GET http://127.0.0.1:${closedPort}/ failed: connection refused (ECONNREFUSED)`,
      refused: true, // the runner tries it again for a moment (a just-restored Service)
    });
  });

  it('reports a server that never answers as a timeout once the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const outcome = await runHttpGetCheck(httpCheck({ path: '/hang' }), context(300, controller.signal));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcome).toEqual({
      status: 'error',
      message: `GET http://127.0.0.1:${port}/hang: no complete response within the 300ms timeout`,
    });
  });

  it('enforces the per-check timeout through the runner, with a measured duration', async () => {
    const [result] = await runChecks([httpCheck({ path: '/hang' }, { timeout: '1s' })], {
      reader: new FakeSandboxReader(),
      targets: new StaticTargetResolver({ 'web:80': `127.0.0.1:${port}` }),
      namespaces: [{ source: 'shop', sandbox: 'rehearsal-shop-abc12' }],
    });
    expect(result?.status).toBe('error');
    expect(result?.message).toContain('no complete response within the 1s timeout');
    expect(result?.duration).toMatch(/^1\.[0-4]s$/);
  });

  it('refuses a Service the static resolver has no entry for (never falls back to DNS)', async () => {
    const outcome = await runHttpGetCheck(httpCheck({ service: 'api', port: 8080 }), context());
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain(
      'no static target configured for Service rehearsal-shop-abc12/api port 8080',
    );
  });

  it('rejects a missing httpGet block, a bad scheme, path and expectedStatus', async () => {
    expect(await runHttpGetCheck({ name: 'x', kind: 'httpGet' }, context())).toEqual({
      status: 'error',
      message: 'check of kind httpGet has no "httpGet" block',
    });
    const badScheme = httpCheck({ scheme: 'ftp' as 'http' });
    expect((await runHttpGetCheck(badScheme, context())).message).toBe(
      'scheme must be http or https, got "ftp"',
    );
    expect((await runHttpGetCheck(httpCheck({ path: 'healthz' }), context())).message).toBe(
      'path must start with "/", got "healthz"',
    );
    expect((await runHttpGetCheck(httpCheck({ expectedStatus: 42 }), context())).status).toBe('error');
  });
});
