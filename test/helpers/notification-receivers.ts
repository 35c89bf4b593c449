// Real HTTP receivers on 127.0.0.1 for notification tests: each path records what it received and
// answers as told: ok, fail the first N requests (503), or hang (never answer).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
  at: number;
}

export type Behaviour = { kind: 'ok' } | { kind: 'fail'; times: number } | { kind: 'hang' } | { kind: 'status'; status: number };

export class NotificationReceivers {
  readonly received: ReceivedRequest[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly seen = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private server!: Server;
  url = '';

  static async start(): Promise<NotificationReceivers> {
    const receivers = new NotificationReceivers();
    receivers.server = createServer((request, response) => void receivers.handle(request, response));
    await new Promise<void>((resolve) => receivers.server.listen(0, '127.0.0.1', resolve));
    receivers.url = `http://127.0.0.1:${(receivers.server.address() as AddressInfo).port}`;
    return receivers;
  }

  behave(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  /** Requests to a path that were answered 2xx (what the receiver accepted). */
  accepted(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path === path && (request as { status?: number }).status === 200);
  }

  attempts(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = request.url ?? '/';
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const record: ReceivedRequest & { status?: number } = { path, headers: request.headers, body, json, at: Date.now() };
    this.received.push(record);
    const count = (this.seen.get(path) ?? 0) + 1;
    this.seen.set(path, count);
    const behaviour = this.behaviours.get(path) ?? { kind: 'ok' };
    if (behaviour.kind === 'hang') {
      this.hanging.add(response);
      return;
    }
    const status =
      behaviour.kind === 'status' ? behaviour.status : behaviour.kind === 'fail' && count <= behaviour.times ? 503 : 200;
    record.status = status;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
  }
}

/** Checks X-Rehearsal-Signature (t=..,v1=..) as a receiver would. */
export function verifySignature(header: string | undefined, body: string, key: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', key).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}
