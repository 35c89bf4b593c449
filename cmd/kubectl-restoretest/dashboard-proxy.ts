// The local end of `kubectl restoretest dashboard`: an HTTP server on 127.0.0.1 that forwards the
// browser's requests with the kubeconfig's credentials (like `kubectl proxy`, but only to
// Rehearsal). Through the aggregated API only paths under /apis/api.rehearsal.dev/v1/ pass, so
// the proxy never lends the user's identity to the rest of the cluster; the dashboard then runs
// with the user's own RBAC. Requests whose Host is not this proxy are refused (DNS rebinding), and
// so are requests another site's page sends (an Origin other than this proxy's, or a write without
// one: the browser would attach the user's identity to them).
//
// The path is checked as the upstream will read it (issue 26): the URL parser that builds the
// upstream request resolves "." and ".." segments, "%2e%2e" included, so a path that started with
// the Rehearsal prefix could end anywhere in the Kubernetes API. It is normalised first, the
// normalised path is what is checked and what is forwarded, and segments that decode to a dot
// segment, a slash or a backslash are refused outright.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGGREGATED_PREFIX, type Connection } from './connect.js';

export interface DashboardProxy {
  /** Where to point the browser. */
  url: string;
  close(): Promise<void>;
}

// Not forwarded: hop-by-hop headers, and what fetch already undid (it decompresses bodies).
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length']);
const FORWARDED_REQUEST_HEADERS = ['accept', 'content-type', 'if-none-match', 'if-modified-since'];

/** The path the dashboard is served at on the target of `connection`. */
export function dashboardPath(connection: Pick<Connection, 'mode'>): string {
  return connection.mode === 'aggregated' ? `${AGGREGATED_PREFIX}/dashboard/` : '/';
}

function allowed(connection: Pick<Connection, 'mode'>, path: string): boolean {
  if (connection.mode !== 'aggregated') return true;
  return path.startsWith(`${AGGREGATED_PREFIX}/`) || path === `${AGGREGATED_PREFIX}/dashboard`;
}

/**
 * The request target as the upstream request will carry it ("/path?query", dot segments resolved
 * the way the URL parser resolves them), or undefined for a target no page of the dashboard sends:
 * a segment that still decodes to "." or "..", a "/" or a "\" (encoded separators are read as
 * separators by some servers and not by others), or malformed percent-encoding.
 */
export function normalisedTarget(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(target, 'http://proxy.invalid');
  } catch {
    return undefined;
  }
  if (url.origin !== 'http://proxy.invalid') return undefined; // "//host/..." names another host
  // The raw target too: "%2e%2e" and ".." were resolved above, and must not have been there at all.
  const rawPath = target.split('?')[0]!;
  for (const segment of [...url.pathname.split('/'), ...rawPath.split('/')]) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\')) return undefined;
  }
  return `${url.pathname}${url.search}`;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Whether the browser says the request comes from another site's page. */
function crossSite(request: IncomingMessage, ownOrigins: Set<string>): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) return !ownOrigins.has(origin);
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  // A write without an Origin: browsers send one with every cross-origin write, and nothing but
  // the dashboard's pages needs this proxy. Refused, so no page can act with the user's credentials.
  return !SAFE_METHODS.has(request.method ?? 'GET');
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(`${message}\n`);
}

export async function startDashboardProxy(
  connection: Pick<Connection, 'mode' | 'baseUrl' | 'fetch'>,
  options: { port?: number } = {},
): Promise<DashboardProxy> {
  let ownHosts: Set<string> = new Set();
  let ownOrigins: Set<string> = new Set();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!ownHosts.has(request.headers.host ?? '')) return refuse(response, 403, 'forbidden: unexpected Host header');
    if (crossSite(request, ownOrigins)) return refuse(response, 403, 'forbidden: the request comes from another site');
    const path = normalisedTarget(request.url ?? '/');
    if (path === undefined) return refuse(response, 400, 'bad request: the path has dot segments or encoded separators');
    if (!allowed(connection, path.split('?')[0]!)) return refuse(response, 404, `not a Rehearsal path: ${path}`);
    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const body = await readBody(request);
    const upstream = await connection.fetch(
      new Request(`${connection.baseUrl.replace(/\/+$/, '')}${path}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body ? { body: new Uint8Array(body) } : {}),
        redirect: 'manual',
      }),
    );
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE_HEADERS.has(name)) out[name] = value;
    });
    const bytes = Buffer.from(await upstream.arrayBuffer());
    response.writeHead(upstream.status, { ...out, 'content-length': String(bytes.length) });
    response.end(bytes);
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 502, `cannot reach the Rehearsal API: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  ownHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  ownOrigins = new Set([...ownHosts].map((host) => `http://${host}`));
  return {
    url: `http://127.0.0.1:${port}${dashboardPath(connection)}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
