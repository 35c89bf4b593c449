// The request deadline of the server's KubeConfig, with the REAL @kubernetes/client-node against a
// loopback stand-in for the API server that accepts requests and never answers some of them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { KubeConfigWithTimeouts, loadKubeConfig } from '../../../server/kube/client.js';

let server: Server;
let baseUrl: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (url.pathname === '/api/v1/namespaces' && url.searchParams.get('watch') === 'true') {
      // A watch that stays open and sends one event after 600 ms (longer than the request limit).
      response.writeHead(200, { 'content-type': 'application/json' });
      setTimeout(() => {
        response.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'late' } } })}\n`);
      }, 600);
      return;
    }
    if (url.pathname === '/api/v1/namespaces/quick') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'quick' } }));
      return;
    }
    // Anything else: accepted, never answered (a lost response).
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function configWithTimeout(ms: number): KubeConfigWithTimeouts {
  const kubeConfig = new KubeConfigWithTimeouts(ms);
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'stand-in', server: baseUrl, skipTLSVerify: true }],
    users: [{ name: 'user', token: 'token' }],
    contexts: [{ name: 'ctx', cluster: 'stand-in', user: 'user' }],
    currentContext: 'ctx',
  });
  return kubeConfig;
}

describe('API requests of the server', () => {
  it('give up when the API server never answers, instead of waiting for minutes', async () => {
    const core = configWithTimeout(300).makeApiClient(CoreV1Api);
    const started = Date.now();
    const outcome = await core.readNamespace({ name: 'never' }).then(
      () => 'answered',
      (error: unknown) => (error as Error).name,
    );
    expect(outcome).toBe('TimeoutError');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('still get their answer when it comes in time', async () => {
    const core = configWithTimeout(300).makeApiClient(CoreV1Api);
    expect((await core.readNamespace({ name: 'quick' })).metadata?.name).toBe('quick');
  });

  it('do not cut watches short: those outlive the request limit', async () => {
    const watch = new Watch(configWithTimeout(200));
    const events: string[] = [];
    let ended: unknown = 'open';
    const controller = await watch.watch(
      '/api/v1/namespaces',
      {},
      (type, object: { metadata: { name: string } }) => events.push(`${type} ${object.metadata.name}`),
      (error) => {
        ended = error ?? null;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(events).toEqual(['ADDED late']);
    expect(ended).toBe('open');
    controller.abort();
  });

  it('apply to the KubeConfig the server loads from a kubeconfig file', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'rehearsal-kubeconfig-'));
    const file = path.join(directory, 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: stand-in, cluster: {server: "${baseUrl}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: user, user: {token: token}}]',
        'contexts: [{name: ctx, context: {cluster: stand-in, user: user}}]',
        'current-context: ctx',
      ].join('\n'),
    );
    try {
      const kubeConfig = loadKubeConfig(file, 300);
      expect(kubeConfig).toBeInstanceOf(KubeConfigWithTimeouts);
      const outcome = await kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespace({ name: 'never' })
        .then(
          () => 'answered',
          (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
        );
      expect(outcome).toMatch(/^TimeoutError/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
