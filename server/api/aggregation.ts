// The API through the Kubernetes API aggregation layer (decision 0008): APIService
// v1.api.rehearsal.dev makes kube-apiserver proxy /apis/api.rehearsal.dev/v1/... to this HTTPS
// listener, so kubectl users reach the API with their kubeconfig and RBAC decides.
//
// - Every request must come from the front proxy (front-proxy.ts): a client certificate that
//   verifies against the request-header CA with an allowed common name. Anything else is 401,
//   whatever X-Remote-* headers it sends. This port is for kube-apiserver only; direct callers use
//   port 8080 with a bearer token.
// - The caller is the user kube-apiserver names; the same per-operation SubjectAccessReviews as on
//   port 8080 decide (no TokenReview: kube-apiserver already authenticated them).
// - Paths: /apis/api.rehearsal.dev/v1/<rest> is /api/v1/<rest> of the same Express app;
//   .../v1/restore-tests/... is /api/restore-tests/...; .../v1/compliance/overview is the
//   dashboard's unversioned /api/compliance (kube-apiserver authorizes it as "get" on resource
//   compliance, which the user roles grant); .../v1/openapi.json is /openapi.json; the dashboard
//   itself is .../v1/dashboard/<file> → /<file> (one path segment per file, so RBAC's
//   "get dashboard" covers every asset; .../v1/dashboard without the slash redirects to it).
// - Discovery: /apis, /apis/api.rehearsal.dev and /apis/api.rehearsal.dev/v1 (the document the
//   availability controller polls), and an empty /openapi/v2 for kube-apiserver's OpenAPI
//   aggregation (without one it logs an error every minute). The resource list is deliberately EMPTY: the API's answers are
//   not Kubernetes objects (no kind, no List), so announcing e.g. "tests" would make `kubectl get
//   tests` fail to decode them, and the namespace and garbage-collector controllers would try to
//   list and delete them. kube-apiserver authorizes the paths by their shape without discovery.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { ReviewedUser } from './auth/access-review.js';
import {
  authenticateFrontProxy,
  setFrontProxyUser,
  type FrontProxyRejection,
  type RequestHeaderSettings,
} from './auth/front-proxy.js';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from './problem.js';
import { BASELINE_HEADERS } from './security-headers.js';

export const API_GROUP = 'api.rehearsal.dev';
export const API_VERSION = 'v1';
export const AGGREGATED_PREFIX = `/apis/${API_GROUP}/${API_VERSION}`;

/** The aggregated path of the unversioned /api/compliance (the dashboard's Compliance page). */
const COMPLIANCE_OVERVIEW = '/compliance/overview';

const GROUP_VERSION = { groupVersion: `${API_GROUP}/${API_VERSION}`, version: API_VERSION };

export function discoveryDocument(path: string): object | undefined {
  const group = { name: API_GROUP, versions: [GROUP_VERSION], preferredVersion: GROUP_VERSION };
  switch (path.replace(/\/+$/, '')) {
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] };
    case `/apis/${API_GROUP}`:
      return { kind: 'APIGroup', apiVersion: 'v1', ...group };
    case AGGREGATED_PREFIX:
      return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: GROUP_VERSION.groupVersion, resources: [] };
    case '/openapi/v2':
      // kube-apiserver merges every aggregated API's OpenAPI v2 into its own and logs an error
      // each minute for one that has none. No Kubernetes-style resources, so nothing to merge.
      return { swagger: '2.0', info: { title: 'Rehearsal API (aggregated)', version: API_VERSION }, paths: {} };
    default:
      return undefined;
  }
}

/** The app's own path for an aggregated path (query kept), or undefined when it has none. */
export function localPathOf(url: string): string | undefined {
  if (!url.startsWith(`${AGGREGATED_PREFIX}/`)) return undefined;
  const rest = url.slice(AGGREGATED_PREFIX.length);
  if (rest === '/openapi.json' || rest.startsWith('/openapi.json?')) return rest;
  if (rest.startsWith('/dashboard/')) return rest.slice('/dashboard'.length);
  if (rest.startsWith('/restore-tests/')) return `/api${rest}`;
  if (rest === COMPLIANCE_OVERVIEW || rest.startsWith(`${COMPLIANCE_OVERVIEW}?`)) {
    return `/api/compliance${rest.slice(COMPLIANCE_OVERVIEW.length)}`;
  }
  return `/api/v1${rest}`;
}

const REJECTIONS: Record<FrontProxyRejection, string> = {
  'not-configured': 'this port trusts no front proxy yet: the request-header CA (ConfigMap kube-system/extension-apiserver-authentication) is not loaded',
  'no-verified-certificate': 'this port serves the Kubernetes API aggregation layer only: the client certificate is missing or not signed by the request-header CA; call the API on its HTTP port with a bearer token instead',
  'name-not-allowed': "the client certificate's common name is not one of the allowed front-proxy names",
  'no-user': 'the front proxy named no user',
};

function sendJson(response: ServerResponse, status: number, body: object, contentType = 'application/json'): void {
  response.writeHead(status, { ...BASELINE_HEADERS, 'Content-Type': contentType });
  response.end(JSON.stringify(body));
}

function unauthenticated(request: IncomingMessage, response: ServerResponse, reason: FrontProxyRejection): void {
  sendJson(
    response,
    401,
    {
      type: `${PROBLEM_TYPE_BASE}unauthenticated`,
      title: 'Authentication required',
      status: 401,
      detail: REJECTIONS[reason],
      instance: (request.url ?? '/').split('?')[0],
    },
    PROBLEM_CONTENT_TYPE,
  );
}

export interface AggregationHandlerOptions {
  /** The Express app that serves /api/... (createApp), shared with the HTTP listener. */
  app: (request: IncomingMessage, response: ServerResponse) => void;
  requestHeader: () => RequestHeaderSettings | undefined;
  log: Logger;
}

/** The request handler of the aggregation listener (exported for tests with a plain socket). */
export function aggregationHandler(options: AggregationHandlerOptions) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const socket = request.socket as TLSSocket;
    const certificate = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
    const commonName = certificate?.subject?.CN;
    const outcome = authenticateFrontProxy(
      { verified: socket.authorized === true, commonName: Array.isArray(commonName) ? commonName[0] : commonName },
      request.headersDistinct,
      options.requestHeader(),
    );
    if ('rejected' in outcome) {
      options.log.debug({ reason: outcome.rejected, path: request.url }, 'aggregation request not from the front proxy');
      unauthenticated(request, response, outcome.rejected);
      return;
    }
    const url = request.url ?? '/';
    const path = url.split('?')[0]!;
    const discovery = request.method === 'GET' ? discoveryDocument(path) : undefined;
    if (discovery) {
      sendJson(response, 200, discovery);
      return;
    }
    if (path === `${AGGREGATED_PREFIX}/dashboard`) {
      // The dashboard's asset URLs are relative: they need the trailing slash.
      response.writeHead(301, { ...BASELINE_HEADERS, Location: `${AGGREGATED_PREFIX}/dashboard/` });
      response.end();
      return;
    }
    const local = localPathOf(url);
    if (!local) {
      sendJson(
        response,
        404,
        { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `no such path: ${path}`, reason: 'NotFound', code: 404 },
      );
      return;
    }
    const user: ReviewedUser = outcome.user;
    setFrontProxyUser(request, user);
    // Express keeps an originalUrl it finds: problem bodies then name, as their instance, the path
    // the caller used (/apis/api.rehearsal.dev/v1/...), not the local one it is served from.
    (request as IncomingMessage & { originalUrl?: string }).originalUrl = url;
    request.url = local;
    options.app(request, response);
  };
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

async function readTls(files: TlsFiles): Promise<{ cert: string; key: string }> {
  const [cert, key] = await Promise.all([readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
  return { cert, key };
}

export interface AggregationServerOptions extends AggregationHandlerOptions {
  host: string;
  port: number;
  tls: TlsFiles;
  /** Called back with new settings when the request-header ConfigMap changes. */
  onRequestHeaderChange: (listener: () => void) => void;
  /** How often the certificate files are re-read (a renewed Secret is picked up; default 60 s). */
  tlsReloadIntervalMs?: number;
}

export interface AggregationServer {
  server: Server;
  port(): number;
  close(): Promise<void>;
}

/**
 * The HTTPS listener. Client certificates are requested but not required by TLS (so a request
 * without one gets a readable 401 instead of a handshake failure); the CA that verifies them is
 * the request-header CA alone, never the system roots.
 */
export async function startAggregationServer(options: AggregationServerOptions): Promise<AggregationServer> {
  let tls = await readTls(options.tls);
  const context = () => {
    const ca = options.requestHeader()?.clientCa;
    return { cert: tls.cert, key: tls.key, ...(ca ? { ca } : {}) };
  };
  const server = createServer(
    { ...context(), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
    aggregationHandler(options),
  );
  const refresh = (): void => {
    try {
      server.setSecureContext(context());
    } catch (error) {
      options.log.error({ err: error }, 'cannot apply the new TLS settings of the aggregation port; keeping the old ones');
    }
  };
  options.onRequestHeaderChange(refresh);
  const reload = setInterval(() => {
    readTls(options.tls).then(
      (fresh) => {
        if (fresh.cert === tls.cert && fresh.key === tls.key) return;
        tls = fresh;
        refresh();
        options.log.info('aggregation port: serving certificate reloaded');
      },
      (error: unknown) => options.log.warn({ err: error }, 'aggregation port: cannot re-read the serving certificate'),
    );
  }, options.tlsReloadIntervalMs ?? 60_000);
  reload.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.log.info({ host: options.host, port }, 'aggregated API (HTTPS, front-proxy authentication) listening');
  return {
    server,
    port: () => port,
    async close() {
      clearInterval(reload);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
