// kubectl restoretest dashboard: a local proxy on 127.0.0.1 that forwards the browser's requests to
// the aggregated API with the kubeconfig's credentials, only for Rehearsal's paths, only for its
// own Host, until Ctrl-C. The "Kubernetes API server" here is a loopback stand-in that records
// what reaches it.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { browserCommand } from '../../../cmd/kubectl-restoretest/commands/dashboard.js';
import { normalisedTarget } from '../../../cmd/kubectl-restoretest/dashboard-proxy.js';
import { expectGolden } from './support/golden.js';
import { runPlugin, writeKubeconfig } from './support/run-plugin.js';

let upstream: Server;
let upstreamUrl: string;
const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/apis/api.rehearsal.dev/v1/dashboard/') {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-cache' });
        res.end('<!doctype html><title>Rehearsal</title>');
      } else if (req.url?.startsWith('/apis/api.rehearsal.dev/v1/tests')) {
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
        res.end(req.method === 'POST' ? body : '[]');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(() => {
  upstream.close();
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A request with a chosen Host header and a raw path (fetch normalises paths and fixes Host). */
function getWithHost(port: number, path: string, host: string, extra: { method?: string; headers?: Record<string, string> } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: '127.0.0.1', port, path, method: extra.method ?? 'GET', headers: { Host: host, ...extra.headers } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    call.on('error', reject);
    call.end();
  });
}

describe('kubectl restoretest dashboard', () => {
  it('serves the dashboard through the aggregated API with the kubeconfig token until interrupted', async () => {
    const kubeconfig = writeKubeconfig(upstreamUrl, { token: 'jane-token' });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const observed: Record<string, unknown> = {};
    const result = await runPlugin(['dashboard', '--kubeconfig', kubeconfig, '--port', String(port), '--no-browser'], {
      untilInterrupted: async () => {
        const page = await fetch(`${base}/apis/api.rehearsal.dev/v1/dashboard/`);
        observed.page = [page.status, page.headers.get('cache-control'), await page.text()];
        const created = await fetch(`${base}/apis/api.rehearsal.dev/v1/tests`, {
          method: 'POST',
          // What the dashboard's page sends with a write (a browser adds Origin itself).
          headers: { 'Content-Type': 'application/json', Origin: base },
          body: '{"name":"shop"}',
        });
        observed.created = [created.status, await created.text()];
        observed.outside = (await fetch(`${base}/api/v1/namespaces/kube-system/secrets`)).status;
        observed.rebinding = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', 'evil.example:80');
      },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('dashboard', result.stdout.replace(String(port), 'PORT').replace(upstreamUrl, 'UPSTREAM'));
    expect(observed).toEqual({
      page: [200, 'no-cache', '<!doctype html><title>Rehearsal</title>'],
      created: [201, '{"name":"shop"}'],
      outside: 404,
      rebinding: 403,
    });
    // Only the two Rehearsal requests reached the API server, each with the user's credentials.
    expect(seen.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`)).toEqual([
      'GET /apis/api.rehearsal.dev/v1/dashboard/ Bearer jane-token',
      'POST /apis/api.rehearsal.dev/v1/tests Bearer jane-token',
    ]);
    // Stopped: the port is free again.
    await expect(fetch(`${base}/apis/api.rehearsal.dev/v1/dashboard/`)).rejects.toThrow();
  });

  it('refuses paths that leave the Rehearsal prefix once normalised, and requests from other sites (issue 26)', async () => {
    const kubeconfig = writeKubeconfig(upstreamUrl, { token: 'jane-token' });
    const port = await freePort();
    const host = `127.0.0.1:${port}`;
    const statuses: Record<string, number> = {};
    const before = seen.length;
    const result = await runPlugin(['dashboard', '--kubeconfig', kubeconfig, '--port', String(port), '--no-browser'], {
      untilInterrupted: async () => {
        for (const path of [
          '/apis/api.rehearsal.dev/v1/%2e%2e/%2e%2e/%2e%2e/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
          '/apis/api.rehearsal.dev/v1/%2E%2E/%2E%2E/%2E%2E/api/v1/namespaces/kube-system/secrets',
          '/apis/api.rehearsal.dev/v1/../../../api/v1/namespaces/kube-system/secrets',
          '/apis/api.rehearsal.dev/v1/.%2e/.%2e/.%2e/version',
          '/apis/api.rehearsal.dev/v1/dashboard/%2e%2e%2f%2e%2e%2f%2e%2e%2fversion',
          '/apis/api.rehearsal.dev/v1/tests%5c..%5c..%5c..%5cversion',
          '/apis/api.rehearsal.dev/v1/%zz',
        ]) {
          statuses[path] = await getWithHost(port, path, host);
        }
        statuses['cross-site GET'] = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', host, { headers: { Origin: 'https://evil.example' } });
        statuses['cross-site POST'] = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', host, {
          method: 'POST',
          headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
        });
        statuses['POST without Origin'] = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', host, { method: 'POST' });
        statuses['Sec-Fetch-Site cross-site'] = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', host, {
          headers: { 'Sec-Fetch-Site': 'cross-site' },
        });
        statuses['own GET'] = await getWithHost(port, '/apis/api.rehearsal.dev/v1/tests', host, { headers: { Origin: `http://${host}` } });
      },
    });
    expect(result.code).toBe(0);
    expect(Object.values(statuses).slice(0, 7)).toEqual([400, 400, 400, 400, 400, 400, 400]);
    expect(statuses).toMatchObject({
      'cross-site GET': 403,
      'cross-site POST': 403,
      'POST without Origin': 403,
      'Sec-Fetch-Site cross-site': 403,
      'own GET': 200,
    });
    // Nothing but the one allowed request reached the API server.
    expect(seen.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /apis/api.rehearsal.dev/v1/tests']);
  });

  it('normalises a target the way the upstream request will read it', () => {
    expect(normalisedTarget('/apis/api.rehearsal.dev/v1/tests?namespace=a&x=%2e')).toBe('/apis/api.rehearsal.dev/v1/tests?namespace=a&x=%2e');
    expect(normalisedTarget('/apis/api.rehearsal.dev/v1/dashboard/app-1.js')).toBe('/apis/api.rehearsal.dev/v1/dashboard/app-1.js');
    expect(normalisedTarget('//evil.example/x')).toBeUndefined();
    expect(normalisedTarget('http://evil.example/x')).toBeUndefined();
    expect(normalisedTarget('/a/%2e/b')).toBeUndefined();
    expect(normalisedTarget('/a/b%2Fc')).toBeUndefined();
  });

  it('rejects a port out of range before connecting', async () => {
    const result = await runPlugin(['dashboard', '--port', '70000', '--no-browser']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: invalid --port 70000: expected 0-65535\n');
  });

  it('opens $BROWSER, the platform opener, or nothing on a Linux without a display', () => {
    expect(browserCommand({ BROWSER: 'firefox' }, 'linux')).toEqual(['firefox', []]);
    expect(browserCommand({}, 'darwin')).toEqual(['open', []]);
    expect(browserCommand({ DISPLAY: ':0' }, 'linux')).toEqual(['xdg-open', []]);
    expect(browserCommand({}, 'linux')).toBeUndefined();
  });
});
