// kubeconfig → how to reach the Rehearsal API, with which credentials.
//
// Default: through the Kubernetes API aggregation layer (APIService v1.api.rehearsal.dev),
//   <cluster>/apis/api.rehearsal.dev/v1/...   for the API's /api/v1/...
// authenticated as kubectl would be: static credentials (bearer token, client certificate, CA,
// insecure-skip-tls-verify, tls-server-name) applied by the plugin itself, everything else (exec
// and auth-provider plugins, token files, impersonation, proxy-url, in-cluster) by
// @kubernetes/client-node's KubeConfig, whose undici dispatcher and headers we then use for every
// request (kubeconfig.ts says why there are two paths). No port-forward needed. kube-apiserver
// authenticates the user and passes the identity on; RBAC decides twice: kube-apiserver for the
// path (e.g. "list" on tests.api.rehearsal.dev), Rehearsal for the operation (e.g. "list" on
// restoretests.rehearsal.dev); the ClusterRoles rehearsal-viewer and rehearsal-editor grant both.
//
// With --service-proxy: the older route through the service proxy,
//   <cluster>/api/v1/namespaces/rehearsal-system/services/rehearsal-api:8080/proxy/api/v1/...
// which needs services/proxy and passes no credentials on (so only an API in auth mode none
// accepts it).
//
// With --server URL (e.g. http://localhost:8080 through `kubectl port-forward`), requests go
// straight to the API and carry --token or else the kubeconfig user's bearer token, if any. A
// token is never sent over plain http to a host that is not loopback (anyone on the path could
// replay it against the cluster) unless --insecure-send-token says so.
import { CliError } from './errors.js';
import type { Env } from './io.js';
import { readKubeconfig, type KubeconfigChoice, type SimpleCredentials } from './kubeconfig.js';

export type FetchLike = (request: Request) => Promise<Response>;

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
  server?: string;
  token?: string;
  serviceNamespace: string;
  service: string;
  servicePort: string;
  /** Per-request timeout in ms; 0 = none. */
  requestTimeoutMs: number;
  env: Env;
  /** false when nothing needs the kubeconfig in --server mode (--token and -n given). */
  wantKubeconfig: boolean;
  /** Use the service proxy instead of the aggregated API. */
  serviceProxy?: boolean;
  /** --insecure-send-token: send a bearer token over plain http to a host that is not loopback. */
  insecureSendToken?: boolean;
}

/** The Kubernetes API with the kubeconfig's credentials (for live run progress). */
export interface KubeAccess {
  server: string;
  get(apiPath: string): Promise<Response>;
}

export interface Connection {
  mode: 'aggregated' | 'proxy' | 'direct';
  /** Prefix of every API path (/api/v1/...); fetch maps the paths for the aggregated API. */
  baseUrl: string;
  /** What requests go to, for messages. */
  target: string;
  fetch: FetchLike;
  contextName?: string;
  /** The kubeconfig context's namespace (kubectl's default namespace), if it sets one. */
  contextNamespace?: string;
  kube?: KubeAccess;
  service: { namespace: string; name: string; port: string };
}

export const API_GROUP = 'api.rehearsal.dev';
export const API_SERVICE = `v1.${API_GROUP}`;
export const AGGREGATED_PREFIX = `/apis/${API_GROUP}/v1`;

/**
 * The aggregated path of an API path (query kept): /api/v1/X → /apis/api.rehearsal.dev/v1/X,
 * /api/restore-tests/X → .../v1/restore-tests/X, /openapi.json → .../v1/openapi.json (the server's
 * server/api/aggregation.ts maps them back).
 */
export function aggregatedPath(apiPath: string): string {
  if (apiPath.startsWith('/api/v1/')) return `${AGGREGATED_PREFIX}${apiPath.slice('/api/v1'.length)}`;
  if (apiPath.startsWith('/api/restore-tests/')) return `${AGGREGATED_PREFIX}${apiPath.slice('/api'.length)}`;
  if (apiPath === '/openapi.json' || apiPath.startsWith('/openapi.json?')) return `${AGGREGATED_PREFIX}${apiPath}`;
  return apiPath;
}

/** The service proxy path of a Service port, as the Kubernetes API server serves it. */
export function serviceProxyPath(namespace: string, service: string, port: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(service)}:${encodeURIComponent(port)}/proxy`;
}

export async function connect(options: ConnectOptions): Promise<Connection> {
  const service = { namespace: options.serviceNamespace, name: options.service, port: options.servicePort };
  if (options.server !== undefined) return connectDirect(options, service);
  const choice = await readKubeconfig(options);
  if (!choice) {
    throw new CliError('no kubeconfig found (KUBECONFIG, --kubeconfig or ~/.kube/config)', [
      'point --kubeconfig at one, or reach the API directly: kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080 and --server http://localhost:8080',
    ]);
  }
  const kube = await kubeAccess(choice, options);
  if (!options.serviceProxy) {
    const base = kube.server.replace(/\/+$/, '');
    return {
      mode: 'aggregated',
      baseUrl: base,
      target: `the Rehearsal API (APIService ${API_SERVICE}) through the Kubernetes API server ${kube.server}`,
      fetch: async (request) => {
        if (!request.url.startsWith(base)) return kube.fetch(request);
        const url = `${base}${aggregatedPath(request.url.slice(base.length))}`;
        return kube.fetch(new Request(url, { method: request.method, headers: request.headers, body: await requestBody(request) }));
      },
      contextName: choice.contextName,
      contextNamespace: choice.namespace,
      kube,
      service,
    };
  }
  return {
    mode: 'proxy',
    baseUrl: `${kube.server}${serviceProxyPath(service.namespace, service.name, service.port)}`,
    target: `service ${service.namespace}/${service.name}:${service.port} through the Kubernetes API server ${kube.server}`,
    fetch: kube.fetch,
    contextName: choice.contextName,
    contextNamespace: choice.namespace,
    kube,
    service,
  };
}

async function connectDirect(options: ConnectOptions, service: Connection['service']): Promise<Connection> {
  let server: URL;
  try {
    server = new URL(options.server!);
    if (server.protocol !== 'http:' && server.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new CliError(`invalid --server "${options.server}": expected a URL such as http://localhost:8080`, [], 2);
  }
  const baseUrl = server.toString().replace(/\/+$/, '');
  // The kubeconfig is optional here: it may give a token, the default namespace and live progress.
  let choice: KubeconfigChoice | undefined;
  const explicit = options.kubeconfig !== undefined || options.context !== undefined;
  if (options.wantKubeconfig || explicit) {
    try {
      choice = await readKubeconfig(options);
    } catch (error) {
      if (explicit) throw error;
    }
  }
  // Built on first use only: most commands never talk to the Kubernetes API in this mode.
  let access: Promise<FullKubeAccess> | undefined;
  const lazyAccess = () => (access ??= kubeAccess(choice!, options));
  const kube: KubeAccess | undefined = choice && { server: choice.server, get: async (apiPath) => (await lazyAccess()).get(apiPath) };
  const authorization = async (): Promise<string | undefined> => {
    if (options.token !== undefined) return options.token === '' ? undefined : `Bearer ${options.token}`;
    if (!choice) return undefined;
    if (choice.simple) return choice.simple.token ? `Bearer ${choice.simple.token}` : undefined;
    // exec / auth-provider / token-file users: client-node produces the token.
    const header = await (await lazyAccess()).authorization().catch(() => undefined);
    return header?.startsWith('Bearer ') ? header : undefined;
  };
  const timeoutMs = options.requestTimeoutMs;
  const exposed = server.protocol === 'http:' && !isLoopback(server.hostname) && !options.insecureSendToken;
  const fetchDirect: FetchLike = async (request) => {
    const headers = new Headers(request.headers);
    const value = await authorization();
    if (value && exposed) {
      throw new CliError(
        `refusing to send a bearer token over plain http to ${server.host}`,
        [
          'use https, or a loopback address (kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080 and --server http://localhost:8080)',
          'or pass --insecure-send-token if this network path is trusted',
        ],
      );
    }
    if (value) headers.set('Authorization', value);
    return globalThis.fetch(request.url, {
      method: request.method,
      headers,
      body: await requestBody(request),
      ...(timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
  };
  return {
    mode: 'direct',
    baseUrl,
    target: `the Rehearsal API at ${baseUrl}`,
    fetch: fetchDirect,
    contextName: choice?.contextName,
    contextNamespace: choice?.namespace,
    kube,
    service,
  };
}

/** localhost, 127.0.0.0/8 or ::1: a token sent there does not cross a network. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

async function requestBody(request: Request): Promise<ArrayBuffer | undefined> {
  if (request.method === 'GET' || request.method === 'HEAD' || request.body === null) return undefined;
  return request.arrayBuffer();
}

interface FullKubeAccess extends KubeAccess {
  fetch: FetchLike;
  /** The Authorization header the credentials produce, if any. */
  authorization(): Promise<string | undefined>;
}

function kubeAccess(choice: KubeconfigChoice, options: ConnectOptions): Promise<FullKubeAccess> {
  return choice.simple
    ? simpleAccess(choice.server, choice.simple, options.requestTimeoutMs)
    : clientNodeAccess(choice, options.requestTimeoutMs);
}

function sender(
  server: string,
  timeoutMs: number,
  send: (url: string, init: { method: string; headers: Record<string, string>; body?: ArrayBuffer; signal?: AbortSignal }) => Promise<Response>,
  authHeaders: () => Promise<Record<string, string>>,
): FullKubeAccess {
  const request = async (url: string, method: string, requestHeaders: Headers, body?: ArrayBuffer): Promise<Response> => {
    const merged: Record<string, string> = {};
    requestHeaders.forEach((value, key) => {
      merged[key] = value;
    });
    for (const [key, value] of Object.entries(await authHeaders())) merged[key] = value;
    return send(url, { method, headers: merged, body, ...(timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {}) });
  };
  return {
    server,
    fetch: async (input) => request(input.url, input.method, input.headers, await requestBody(input)),
    get: (apiPath) => request(`${server}${apiPath}`, 'GET', new Headers({ Accept: 'application/json' })),
    authorization: async () => {
      const headers = await authHeaders();
      return headers.Authorization ?? headers.authorization;
    },
  };
}

/** Static credentials, applied by the plugin: a bearer token, a client certificate, a CA. */
async function simpleAccess(server: string, credentials: SimpleCredentials, timeoutMs: number): Promise<FullKubeAccess> {
  const headers: Record<string, string> = credentials.token ? { Authorization: `Bearer ${credentials.token}` } : {};
  const tls =
    server.startsWith('https:') &&
    (credentials.ca || credentials.cert || credentials.key || credentials.insecureSkipTlsVerify || credentials.serverName);
  if (!tls) {
    return sender(server, timeoutMs, (url, init) => globalThis.fetch(url, init), async () => headers);
  }
  const undici = await import('undici');
  const dispatcher = new undici.Agent({
    connect: {
      ...(credentials.ca ? { ca: credentials.ca } : {}),
      ...(credentials.cert ? { cert: credentials.cert } : {}),
      ...(credentials.key ? { key: credentials.key } : {}),
      ...(credentials.serverName ? { servername: credentials.serverName } : {}),
      rejectUnauthorized: !credentials.insecureSkipTlsVerify,
    },
  });
  return sender(
    server,
    timeoutMs,
    async (url, init) => (await undici.fetch(url, { ...init, dispatcher })) as unknown as Response,
    async () => headers,
  );
}

const REFRESH_AUTH_AFTER_MS = 60_000;

/**
 * Everything else, through @kubernetes/client-node's KubeConfig: it turns the kubeconfig's
 * cluster and user into an undici dispatcher (TLS, proxy-url) and headers (exec and auth-provider
 * plugins, token files, basic auth, impersonation). Headers are refreshed after a minute so
 * exec-plugin tokens stay valid during a long `trigger --wait`.
 */
async function clientNodeAccess(choice: KubeconfigChoice, timeoutMs: number): Promise<FullKubeAccess> {
  const [{ KubeConfig, RequestContext }, undici] = await Promise.all([import('@kubernetes/client-node'), import('undici')]);
  const config = new KubeConfig();
  if (choice.files.length === 0) {
    config.loadFromCluster();
  } else {
    for (const [index, file] of choice.files.entries()) {
      const one = new KubeConfig();
      try {
        one.loadFromFile(file);
      } catch (error) {
        throw new CliError(`cannot load kubeconfig ${file}: ${(error as Error).message}`);
      }
      if (index === 0) {
        config.loadFromOptions({ clusters: one.clusters, users: one.users, contexts: one.contexts, currentContext: one.currentContext });
      } else {
        // Like kubectl: the first file to define a name wins.
        for (const cluster of one.clusters) if (!config.getCluster(cluster.name)) config.clusters.push(cluster);
        for (const user of one.users) if (!config.getUser(user.name)) config.users.push(user);
        for (const context of one.contexts) if (!config.getContextObject(context.name)) config.contexts.push(context);
      }
    }
    config.setCurrentContext(choice.contextName);
  }
  const authenticate = async () => {
    const context = new RequestContext(choice.server, 'GET');
    try {
      await config.applySecurityAuthentication(context);
    } catch (error) {
      throw new CliError(`cannot use the credentials of kubeconfig context "${choice.contextName}": ${(error as Error).message}`);
    }
    return { headers: context.getHeaders(), dispatcher: context.getDispatcher() };
  };
  const first = await authenticate();
  const dispatcher = first.dispatcher;
  let headers = first.headers;
  let authenticatedAt = Date.now();
  return sender(
    choice.server,
    timeoutMs,
    async (url, init) => (await undici.fetch(url, { ...init, ...(dispatcher ? { dispatcher } : {}) })) as unknown as Response,
    async () => {
      if (Date.now() - authenticatedAt > REFRESH_AUTH_AFTER_MS) {
        const fresh = await authenticate();
        if (fresh.dispatcher && fresh.dispatcher !== dispatcher) void fresh.dispatcher.close();
        headers = fresh.headers;
        authenticatedAt = Date.now();
      }
      return headers;
    },
  );
}

/** A readable reason for a failed fetch (undici wraps the socket error in `cause`). */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure?.name === 'TimeoutError' || failure?.name === 'AbortError') {
    return `no answer within ${Math.round(timeoutMs / 1000)}s`;
  }
  const cause = failure?.cause;
  if (cause?.message) return cause.message;
  if (cause?.code) return cause.code;
  return failure?.message ?? String(error);
}
