// Where a notification may go (issue 26): internal addresses are refused before anything is sent,
// whether written as an IP, an IPv4-mapped IPv6 address or a name that resolves to one; the
// request connects to exactly the address that was checked (a resolver that answers differently
// the second time cannot redirect it); what is recorded is an outcome class, never an error text;
// and the receiver's body is never read. Receivers are real HTTP servers on loopback addresses
// (Linux answers on all of 127.0.0.0/8), made reachable only by an explicit allowance.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildRunNotification } from '../../../server/domain/notifications/run-notification.js';
import { sendToChannel } from '../../../server/notifications/channel-sender.js';
import { DEFAULT_CLUSTER_CIDRS, EgressGuard, EgressRefusedError, type Resolver } from '../../../server/notifications/egress-guard.js';
import { makeReport } from '../domain/fixtures.js';

function guard(options: { allowed?: string[]; resolver?: Resolver; apiServerHosts?: string[] } = {}): EgressGuard {
  return new EgressGuard(
    { allowedCidrs: options.allowed ?? [], clusterCidrs: DEFAULT_CLUSTER_CIDRS, apiServerHosts: options.apiServerHosts ?? [] },
    options.resolver ?? (async () => [{ address: '93.184.215.14', family: 4 }]),
  );
}

describe('EgressGuard', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '169.254.169.254',
    '10.96.0.1',
    '172.20.1.1',
    '192.168.1.10',
    '100.64.0.10',
    '224.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::]',
    '[fe80::1]',
    '[fd00::10]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::ffff:a9fe:a9fe]',
  ])('refuses %s', async (host) => {
    await expect(guard().addressesOf(host)).rejects.toMatchObject({ outcome: 'refused-address' });
  });

  it('refuses a name when any of its addresses is internal, and one that does not resolve', async () => {
    const mixed = guard({ resolver: async () => [{ address: '93.184.215.14', family: 4 }, { address: '169.254.169.254', family: 4 }] });
    await expect(mixed.addressesOf('hooks.example')).rejects.toBeInstanceOf(EgressRefusedError);
    const none = guard({ resolver: async () => Promise.reject(new Error('ENOTFOUND')) });
    await expect(none.addressesOf('nowhere.example')).rejects.toMatchObject({ outcome: 'dns-failed' });
  });

  it('refuses the apiserver, by address or by the name it is reached by', async () => {
    await expect(guard({ apiServerHosts: ['203.0.113.7'] }).addressesOf('203.0.113.7')).rejects.toMatchObject({ outcome: 'refused-address' });
    const byName = guard({
      apiServerHosts: ['api.cluster.example'],
      resolver: async (name) => [{ address: name === 'api.cluster.example' ? '198.51.100.9' : '198.51.100.9', family: 4 }],
    });
    await expect(byName.addressesOf('innocent.example')).rejects.toMatchObject({ outcome: 'refused-address' });
  });

  it('lets public addresses through, and internal ones an administrator allowed', async () => {
    expect(await guard().addressesOf('hooks.slack.com')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(await guard({ allowed: ['10.40.0.0/16'] }).addressesOf('10.40.3.4')).toEqual([{ address: '10.40.3.4', family: 4 }]);
    await expect(guard({ allowed: ['10.40.0.0/16'] }).addressesOf('10.41.3.4')).rejects.toBeInstanceOf(EgressRefusedError);
  });
});

describe('sendToChannel', () => {
  const servers: Server[] = [];
  const hits: Record<string, number> = {};
  let port = 0;

  async function listen(host: string, name: string, body = 'ok'): Promise<number> {
    const server = createServer((request, response) => {
      request.resume();
      hits[name] = (hits[name] ?? 0) + 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(body);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    return (server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    // The same port on two loopback addresses: the allowed receiver and the one a rebinding
    // resolver would send to.
    port = await listen('127.0.0.2', 'allowed');
    await listen('127.0.0.1', 'internal');
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const notification = buildRunNotification(makeReport({ test: 'shop', result: 'fail', completedAt: new Date().toISOString() }), 'failed', undefined);
  const target = (url: string) => ({ type: 'slack' as const, url });

  it('sends nothing to a refused address and records only the class', async () => {
    const before = hits.internal ?? 0;
    const outcome = await sendToChannel(target(`http://127.0.0.1:${port}/hook`), notification, { timeoutMs: 2_000, now: new Date(), guard: guard() });
    expect(outcome).toEqual({ kind: 'rejected', detail: 'refused-address' });
    expect(hits.internal ?? 0).toBe(before);
  });

  it('connects to the address it checked: a second DNS answer cannot move the request (no rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    const before = { allowed: hits.allowed ?? 0, internal: hits.internal ?? 0 };
    const outcome = await sendToChannel(target(`http://rebind.example:${port}/hook`), notification, {
      timeoutMs: 2_000,
      now: new Date(),
      guard: guard({ allowed: ['127.0.0.2/32'], resolver: rebinding }),
    });
    expect(outcome).toEqual({ kind: 'delivered', detail: 'http-2xx' });
    expect(hits.allowed).toBe(before.allowed + 1);
    expect(hits.internal ?? 0).toBe(before.internal);
  });

  it('records classes for failures, never an error text', async () => {
    const closed = await sendToChannel(target('http://127.0.0.2:1/hook'), notification, {
      timeoutMs: 2_000,
      now: new Date(),
      guard: guard({ allowed: ['127.0.0.2/32'] }),
    });
    expect(closed).toEqual({ kind: 'retryable', detail: 'connect-failed' });
    expect(await sendToChannel(target('ftp://example.com/x'), notification, { timeoutMs: 2_000, now: new Date(), guard: guard() })).toEqual({
      kind: 'rejected',
      detail: 'bad-url',
    });
  });

  it('never reads the body: a receiver that streams without end costs one status line', async () => {
    const endless = createServer((request, response) => {
      request.resume();
      response.writeHead(503);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    servers.push(endless);
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.2', resolve));
    const before = process.memoryUsage().arrayBuffers;
    const outcome = await sendToChannel(target(`http://127.0.0.2:${(endless.address() as AddressInfo).port}/`), notification, {
      timeoutMs: 3_000,
      now: new Date(),
      guard: guard({ allowed: ['127.0.0.2/32'] }),
    });
    expect(outcome).toEqual({ kind: 'retryable', detail: 'http-5xx' });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
  });
});
