// tcpSocket against a REAL TCP listener on 127.0.0.1.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { runTcpSocketCheck } from '../../../server/checks/tcp-socket.check.js';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import type { HealthCheck } from '../../../server/domain/resources/resources.js';
import { checkContext } from './fake-sandbox-reader.js';

let listener: Server;
let openPort: number;
let closedPort: number;
let accepted = 0;
const sockets: Socket[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  listener = createServer((socket) => {
    accepted += 1;
    sockets.push(socket);
  });
  openPort = await listen(listener);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => listener.close(resolve));
});

const tcpCheck = (service: string, port = 5432): HealthCheck => ({
  name: 'db-port',
  kind: 'tcpSocket',
  tcpSocket: { service, port },
});

function context(signal?: AbortSignal) {
  return checkContext({
    targets: new StaticTargetResolver({
      'db:5432': `127.0.0.1:${openPort}`,
      'gone:5432': `127.0.0.1:${closedPort}`,
    }),
    timeoutMs: 2_000,
    ...(signal ? { signal } : {}),
  });
}

describe('tcpSocket check against a real listener', () => {
  it('passes when the port accepts a connection, and closes it', async () => {
    const before = accepted;
    const outcome = await runTcpSocketCheck(tcpCheck('db'), context());
    expect(outcome.status).toBe('pass');
    expect(outcome.message).toMatch(
      new RegExp(`^TCP 127\\.0\\.0\\.1:${openPort} accepted a connection in \\d+ms$`),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accepted).toBe(before + 1);
    expect(sockets.at(-1)?.readableEnded || sockets.at(-1)?.destroyed).toBe(true);
  });

  it('fails when the port refuses connections (connecting is the assertion)', async () => {
    const outcome = await runTcpSocketCheck(tcpCheck('gone'), context());
    expect(outcome).toEqual({
      status: 'fail',
      message: `TCP 127.0.0.1:${closedPort}: connection refused (ECONNREFUSED)`,
      refused: true, // the runner tries it again for a moment (a just-restored Service)
    });
  });

  it('fails with a timeout message when aborted before connecting', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await runTcpSocketCheck(tcpCheck('db'), context(controller.signal));
    expect(outcome).toEqual({
      status: 'fail',
      message: `TCP 127.0.0.1:${openPort}: no connection within the 2s timeout`,
    });
  });

  it('is an error when the target cannot be resolved', async () => {
    const outcome = await runTcpSocketCheck(tcpCheck('db', 3306), context());
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain(
      'no static target configured for Service rehearsal-shop-abc12/db port 3306',
    );
  });
});
