// KubeSandboxReader with the REAL @kubernetes/client-node (HTTP requests, discovery, pagination,
// error classification, the exec WebSocket protocol) against a loopback stand-in for the API
// server: a node:http server on 127.0.0.1 that answers the few paths the reader uses. Nothing here
// dials a pod or node IP. (The reads against a real kube-apiserver belong to the integration suite.)

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { EXEC_STDOUT_LIMIT, SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import { exitCodeFromStatus, KubeSandboxReader } from '../../../server/checks/sandbox-reader.kube.js';

const NS = 'rehearsal-shop-abc12';
const requests: string[] = [];
const execRequests: URL[] = [];
let server: Server;
let reader: KubeSandboxReader;
const sockets = new Set<Socket>();

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function podJson(name: string, ready: boolean, extra: Record<string, unknown> = {}, volumes?: unknown[]) {
  return {
    metadata: { name, namespace: NS, ...extra },
    spec: { containers: [{ name: 'app' }, { name: 'sidecar' }], ...(volumes ? { volumes } : {}) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

const routes: Record<string, (url: URL) => [number, unknown]> = {
  [`/api/v1/namespaces/${NS}/pods`]: (url) =>
    url.searchParams.get('continue') === 'page-2'
      ? [
          200,
          {
            kind: 'PodList',
            metadata: {},
            items: [
              podJson('web-2', false, { deletionTimestamp: '2026-01-01T00:00:00Z' }, [
                { name: 'data', persistentVolumeClaim: { claimName: 'data-web-2' } },
                { name: 'tmp', emptyDir: {} },
              ]),
            ],
          },
        ]
      : [
          200,
          {
            kind: 'PodList',
            metadata: { continue: 'page-2' },
            items: [
              podJson('web-1', true, {
                annotations: { 'kubectl.kubernetes.io/default-container': 'sidecar' },
              }),
            ],
          },
        ],
  [`/api/v1/namespaces/${NS}/services`]: () => [
    200,
    {
      kind: 'ServiceList',
      metadata: {},
      items: [
        {
          metadata: { name: 'web' },
          spec: {
            type: 'ClusterIP',
            selector: { app: 'web' },
            ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
          },
        },
        { metadata: { name: 'upstream' }, spec: { type: 'ExternalName', externalName: 'localhost' } },
      ],
    },
  ],
  [`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`]: () => [
    200,
    {
      kind: 'EndpointSliceList',
      metadata: {},
      items: [
        {
          metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
          addressType: 'IPv4',
          endpoints: [
            { addresses: ['10.0.0.1'], conditions: { ready: true } },
            { addresses: ['10.0.0.2'], conditions: { ready: false } },
            { addresses: ['10.0.0.3'], conditions: {} }, // nil ready counts as ready
          ],
        },
      ],
    },
  ],
  [`/api/v1/namespaces/${NS}/secrets/db`]: () => [
    200,
    { kind: 'Secret', metadata: { name: 'db' }, data: { username: 'YXBw' } },
  ],
  [`/api/v1/namespaces/${NS}/secrets/missing`]: () => [
    404,
    status(404, 'NotFound', 'secrets "missing" not found'),
  ],
  [`/api/v1/namespaces/${NS}/secrets/locked`]: () => [
    403,
    status(403, 'Forbidden', 'secrets "locked" is forbidden: User "rehearsal" cannot get resource "secrets"'),
  ],
  '/apis/apps/v1': () => [
    200,
    {
      kind: 'APIResourceList',
      groupVersion: 'apps/v1',
      resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['get'] }],
    },
  ],
  '/api/v1': () => [
    200,
    {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['get'] },
        { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['get'] },
      ],
    },
  ],
  [`/apis/apps/v1/namespaces/${NS}/deployments/web`]: () => [
    200,
    { kind: 'Deployment', metadata: { name: 'web' } },
  ],
  [`/apis/apps/v1/namespaces/${NS}/deployments/api`]: () => [
    404,
    status(404, 'NotFound', 'deployments.apps "api" not found'),
  ],
  [`/api/v1/namespaces/${NS}/configmaps/settings`]: () => [
    500,
    status(500, 'InternalError', 'etcdserver: request timed out'),
  ],
};

function answer(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  requests.push(`${request.method} ${url.pathname}${url.search}`);
  const route = routes[url.pathname];
  const [code, body] = route
    ? route(url)
    : [404, status(404, 'NotFound', 'the server could not find the requested resource')];
  response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A single unmasked WebSocket frame (server → client). */
function frame(opcode: number, payload: Buffer): Buffer {
  const header =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, payload.length])
      : Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

/** The exec endpoint: v4 channel protocol, answering the command's exit status on channel 3. */
function upgrade(request: IncomingMessage, socket: Socket): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  execRequests.push(url);
  const pod = url.pathname.split('/')[6]; // /api/v1/namespaces/<ns>/pods/<pod>/exec
  if (pod === 'gone') {
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  const accept = createHash('sha1')
    .update(`${request.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n`,
  );
  const command = url.searchParams.getAll('command');
  if (pod === 'silent') {
    socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
    socket.end();
    return;
  }
  // Output longer than the exec check keeps, in frames of their own: 'chatty' puts a 3-byte "€"
  // across the 4096-byte limit and goes on; 'exact' ends with it on the limit's last byte.
  const out = (text: string) => socket.write(frame(0x2, Buffer.concat([Buffer.from([1]), Buffer.from(text)])));
  if (pod === 'chatty' || pod === 'exact') {
    if (pod === 'chatty') {
      out('x'.repeat(4000));
      out(`${'x'.repeat(94)}€${'y'.repeat(1000)}`);
    } else {
      out(`${'x'.repeat(4093)}€`);
    }
    socket.write(frame(0x2, Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' }))])));
    socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
    socket.end();
    return;
  }
  const exit = Number(command.at(-1));
  const execStatus =
    pod === 'no-container'
      ? status(500, 'InternalError', 'container not found ("nope")')
      : exit === 0
        ? { metadata: {}, status: 'Success' }
        : {
            metadata: {},
            status: 'Failure',
            message: `command terminated with non-zero exit code: exit status ${exit}`,
            reason: 'NonZeroExitCode',
            details: { causes: [{ reason: 'ExitCode', message: String(exit) }] },
          };
  // Standard output on channel 1, as binary frames (the kubelet's), before the status.
  socket.write(frame(0x2, Buffer.concat([Buffer.from([1]), Buffer.from('2026-11-28 14:05:03.2+00\n')])));
  socket.write(frame(0x2, Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(execStatus))])));
  socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
  socket.end();
}

function kubeConfigFor(port: number): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'stand-in', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'rehearsal', token: 'test-token' }],
    contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'rehearsal' }],
    currentContext: 'stand-in',
  });
  return kubeConfig;
}

beforeAll(async () => {
  server = createServer(answer);
  server.on('upgrade', upgrade);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reader = new KubeSandboxReader(kubeConfigFor((server.address() as AddressInfo).port));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('KubeSandboxReader (real client-node against a loopback API stand-in)', () => {
  it('lists pods with a label selector across pages', async () => {
    const pods = await reader.listPods(NS, { app: 'web' });
    expect(pods).toEqual([
      {
        name: 'web-1',
        phase: 'Running',
        ready: true,
        terminating: false,
        containers: ['app', 'sidecar'],
        defaultContainer: 'sidecar',
      },
      // The claims it mounts, by volume name (issue 27: which claim a file-system restore filled).
      { name: 'web-2', phase: 'Running', ready: false, terminating: true, containers: ['app', 'sidecar'], claims: { data: 'data-web-2' } },
    ]);
    const podRequests = requests.filter((line) => line.includes('/pods'));
    expect(podRequests).toEqual([
      `GET /api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb&limit=500`,
      `GET /api/v1/namespaces/${NS}/pods?continue=page-2&labelSelector=app%3Dweb&limit=500`,
    ]);
  });

  it('lists Services and counts ready endpoints in EndpointSlices', async () => {
    expect(await reader.listServices(NS)).toEqual([
      {
        name: 'web',
        type: 'ClusterIP',
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      },
      { name: 'upstream', type: 'ExternalName', ports: [] },
    ]);
    expect(await reader.listEndpointSlices(NS)).toEqual([
      { name: 'web-abc', serviceName: 'web', readyEndpoints: 2, totalEndpoints: 3 },
    ]);
  });

  it('reads a Secret and classifies failures by HTTP status', async () => {
    expect(await reader.getSecret(NS, 'db')).toEqual({ name: 'db', data: { username: 'YXBw' } });
    await expect(reader.getSecret(NS, 'missing')).rejects.toMatchObject({
      name: 'SandboxReadError',
      reason: 'NotFound',
      statusCode: 404,
      message: `read Secret ${NS}/missing: secrets "missing" not found`,
    });
    await expect(reader.getSecret(NS, 'locked')).rejects.toMatchObject({
      reason: 'Forbidden',
      statusCode: 403,
    });
  });

  it('looks up any kind through discovery: exists, not found, unknown kind, cluster-scoped, server error', async () => {
    expect(await reader.getResource('apps/v1', 'Deployment', NS, 'web')).toEqual({ state: 'exists' });
    expect(await reader.getResource('apps/v1', 'Deployment', NS, 'api')).toEqual({
      state: 'not-found',
      message: `read apps/v1 Deployment ${NS}/api: deployments.apps "api" not found`,
    });
    expect(await reader.getResource('example.com/v1', 'Widget', NS, 'w')).toEqual({
      state: 'unknown-kind',
      message: 'the cluster does not serve example.com/v1',
    });
    expect(await reader.getResource('apps/v1', 'Rollout', NS, 'r')).toEqual({
      state: 'unknown-kind',
      message: 'the cluster serves apps/v1 but has no kind Rollout',
    });
    expect((await reader.getResource('v1', 'Namespace', NS, 'x')).state).toBe('error');
    expect(await reader.getResource('v1', 'ConfigMap', NS, 'settings')).toEqual({
      state: 'error',
      reason: 'Unavailable',
      message: `read v1 ConfigMap ${NS}/settings: etcdserver: request timed out`,
    });
  });

  it('is Unavailable, without a status code, when the API server does not answer', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const offline = new KubeSandboxReader(kubeConfigFor(closedPort));
    const failure = await offline.listServices(NS).catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(SandboxReadError);
    expect(failure).toMatchObject({ reason: 'Unavailable', statusCode: undefined });
  });

  it('execs through the WebSocket exec API and reads the exit code from the status channel', async () => {
    // The output is kept (a freshness check reads its timestamp from it).
    expect(await reader.exec(NS, 'db-0', 'postgres', ['sh', '-c', 'exit', '0'])).toEqual({ exitCode: 0, stdout: '2026-11-28 14:05:03.2+00\n' });
    expect(await reader.exec(NS, 'db-0', 'postgres', ['sh', '-c', 'exit', '3'])).toEqual({ exitCode: 3, stdout: '2026-11-28 14:05:03.2+00\n' });
    const url = execRequests.at(-1);
    expect(url?.pathname).toBe(`/api/v1/namespaces/${NS}/pods/db-0/exec`);
    expect(url?.searchParams.get('container')).toBe('postgres');
    expect(url?.searchParams.getAll('command')).toEqual(['sh', '-c', 'exit', '3']);
    expect(url?.searchParams.get('stdout')).toBe('true');
  });

  it('keeps the first 4 KiB of the output: a character cut at the limit is dropped whole, and the cut is said', async () => {
    expect(EXEC_STDOUT_LIMIT).toBe(4096);
    // 4094 + 3 ("€") + 1000 bytes: the kept text ends before the "€", valid UTF-8, no U+FFFD.
    const chatty = await reader.exec(NS, 'chatty', 'app', ['dump']);
    expect(chatty).toEqual({ exitCode: 0, stdout: 'x'.repeat(4094), stdoutTruncated: true });
    // Exactly 4096 bytes, ending in the "€": all kept, nothing cut.
    const exact = await reader.exec(NS, 'exact', 'app', ['dump']);
    expect(exact).toEqual({ exitCode: 0, stdout: `${'x'.repeat(4093)}€` });
    expect(Buffer.byteLength(exact.stdout!)).toBe(EXEC_STDOUT_LIMIT);
  });

  it('rejects when the command cannot start, the stream ends without a status, or the handshake fails', async () => {
    await expect(reader.exec(NS, 'no-container', 'nope', ['true'])).rejects.toMatchObject({
      reason: 'Unavailable',
      statusCode: 500,
      message: `exec in ${NS}/no-container container nope: container not found ("nope")`,
    });
    await expect(reader.exec(NS, 'silent', 'app', ['true'])).rejects.toMatchObject({
      reason: 'Unavailable',
      message: `exec in ${NS}/silent container app: the stream closed without an exit status`,
    });
    await expect(reader.exec(NS, 'gone', 'app', ['true'])).rejects.toMatchObject({
      name: 'SandboxReadError',
      reason: 'Unavailable',
    });
  });

  it('rejects at once when its signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const before = execRequests.length;
    await expect(reader.exec(NS, 'db-0', 'app', ['true'], controller.signal)).rejects.toMatchObject({
      reason: 'Timeout',
    });
    expect(execRequests.length).toBe(before);
  });
});

describe('exitCodeFromStatus', () => {
  it('reads Success as 0 and NonZeroExitCode from its ExitCode cause', () => {
    expect(exitCodeFromStatus({ status: 'Success' })).toBe(0);
    expect(
      exitCodeFromStatus({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '137' }] },
      }),
    ).toBe(137);
    expect(
      exitCodeFromStatus({ status: 'Failure', reason: 'InternalError', message: 'boom' }),
    ).toBeUndefined();
  });
});
