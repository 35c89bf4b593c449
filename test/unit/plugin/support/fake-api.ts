// A stand-in for the Rehearsal API (and, for the aggregated and service-proxy routes, for the
// Kubernetes API server in front of it) on 127.0.0.1, serving the canned answers of test/fixtures/plugin/api.
// Every answer to an /api/... request is checked against openapi/openapi.json by the contract
// validator, so the plugin is tested against what the real API may send; `problems` collects
// any answer that does not conform.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractValidator, loadDocument } from '../../../contract/support/contract.js';
import type { components } from '../../../../openapi/client.js';

type Schemas = components['schemas'];

export const FIXTURES = new URL('../../../fixtures/plugin/api/', import.meta.url);

export function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as T;
}

export interface RecordedRequest {
  method: string;
  /** The API path with the service-proxy prefix removed, e.g. /api/v1/tests. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Came through the (fake) service proxy. */
  viaProxy: boolean;
  /** How it came: the aggregated API (default route), the service proxy, or directly (--server). */
  via: 'aggregated' | 'proxy' | 'direct';
}

/** The API server's side of the aggregated route (APIService v1.api.rehearsal.dev). */
export interface AggregatedSettings {
  /** The bearer token the "API server" accepts (kubeconfig user); undefined = any. */
  token?: string;
  /** No APIService: the API server answers a plain 404. */
  missing?: boolean;
  /** The APIService is not available: a plain 503 "service unavailable". */
  unavailable?: boolean;
  /** RBAC refuses the path (a Status 403, before the request reaches the API). */
  forbid?: boolean;
}

export const AGGREGATED_PREFIX = '/apis/api.rehearsal.dev/v1';

/** The API's own path for an aggregated one (what server/api/aggregation.ts does). */
function apiPathOf(aggregated: string): string {
  const rest = aggregated.slice(AGGREGATED_PREFIX.length);
  if (rest === '/openapi.json') return rest;
  if (rest.startsWith('/restore-tests/')) return `/api${rest}`;
  return `/api/v1${rest}`;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Bytes sent as they are (e.g. a PDF), instead of JSON of body. */
  raw?: Buffer;
  headers?: Record<string, string>;
}

export type Handler = (request: RecordedRequest, match: RegExpExecArray) => Reply | Promise<Reply>;

export interface ProxySettings {
  namespace: string;
  service: string;
  port: string;
  /** The bearer token the "API server" accepts (kubeconfig user); undefined = any. */
  token?: string;
  /** Answer every proxied request with 403 Forbidden (no services/proxy permission). */
  forbid?: boolean;
  /** Answer like the API server for a Service without an Endpoints object (404, as if missing). */
  noEndpoints?: boolean;
}

export function problem(status: number, slug: string, title: string, detail: string, extra: Record<string, unknown> = {}): Reply {
  return {
    status,
    body: { type: `https://rehearsal.dev/problems/${slug}`, title, status, detail, instance: '/api/v1', ...extra },
    headers: { 'content-type': 'application/problem+json' },
  };
}

function kubeStatus(code: number, reason: string, message: string, details: Record<string, string> = {}): Reply {
  return {
    status: code,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code },
  };
}

export class FakeApi {
  readonly requests: RecordedRequest[] = [];
  readonly problems: string[] = [];
  proxy: ProxySettings = { namespace: 'rehearsal-system', service: 'rehearsal-api', port: '8080' };
  aggregated: AggregatedSettings = {};
  tests: Schemas['TestResponse'][] = fixture('tests');
  reports: Schemas['RestoreReportResource'][] = fixture('reports');
  /** Page size of GET /api/v1/reports without latest (the real default is 500). */
  reportPageSize = 500;
  /** Headers of list answers without a namespace, e.g. Rehearsal-Omitted-Namespaces (issue 30). */
  omittedHeaders: Record<string, string> = {};
  /** Sandbox names created again since the list (DELETE answers 409 for them). */
  readonly recreated = new Set<string>();
  /** Kubernetes objects served at /apis/... paths (e.g. a RestoreTest for live progress). */
  readonly kubeObjects = new Map<string, () => Reply>();
  private readonly routes: { method: string; pattern: RegExp; handler: Handler }[] = [];
  private readonly validator = new ContractValidator(loadDocument());

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    this.installDefaults();
  }

  static async start(): Promise<FakeApi> {
    const started: { fake?: FakeApi } = {};
    const server = createServer((request, response) => {
      void started.fake!.handle(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.fake = new FakeApi(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return started.fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Adds a route that takes precedence over the ones before it. */
  on(method: string, path: string | RegExp, handler: Handler | Reply): void {
    const pattern = typeof path === 'string' ? new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`) : path;
    this.routes.unshift({ method, pattern, handler: typeof handler === 'function' ? handler : () => handler });
  }

  /** API requests as "METHOD /path?query". */
  get calls(): string[] {
    return this.requests.map((request) => {
      const query = request.query.toString();
      return `${request.method} ${request.path}${query ? `?${query}` : ''}`;
    });
  }

  private installDefaults(): void {
    const ns = (request: RecordedRequest) => request.query.get('namespace') ?? 'rehearsal-system';
    const findTest = (request: RecordedRequest, name: string) =>
      this.tests.find((test) => test.name === name && test.namespace === ns(request));
    const notFound = (request: RecordedRequest, name: string) =>
      problem(404, 'not-found', 'Not found', `RestoreTest "${name}" not found in namespace "${ns(request)}".`);
    const fromInput = (input: Schemas['CreateTestInput'], request: RecordedRequest): Schemas['TestResponse'] => ({
      name: input.name,
      namespace: input.namespace ?? ns(request),
      provider: input.provider,
      schedule: input.cron ?? '',
      phase: 'Idle',
      lastScore: 0,
      lastResult: '',
      lastRunAt: '',
      nextRunAt: input.cron ? '2026-03-16T02:00:00Z' : '',
      ...(input.onBackup ? { onBackup: true, everyNthBackup: input.everyNthBackup ?? 1 } : {}),
      sourceNamespaces: input.sourceNamespaces,
      rtoTarget: input.maxRTO ?? '',
      rpoTarget: input.maxRPO ?? '',
      backupName: input.backupName || 'latest',
      timezone: input.timezone || 'UTC',
      namespacePrefix: input.namespacePrefix || 'rehearsal',
      ttl: input.ttl || '1h',
      networkIsolation: input.networkIsolation || 'strict',
      healthCheckPolicy: input.healthCheckPolicy ?? '',
      alertOnExceed: input.alertOnExceed ?? false,
      historyLimit: input.historyLimit ?? 90,
    });
    this.on('GET', '/openapi.json', () => ({ status: 200, body: loadDocument() }));
    this.on('GET', '/api/v1/tests', (request) => {
      const namespace = request.query.get('namespace');
      if (namespace) return { status: 200, body: this.tests.filter((test) => test.namespace === namespace) };
      return { status: 200, body: this.tests, headers: this.omittedHeaders };
    });
    this.on('POST', '/api/v1/tests', (request) => {
      const created = fromInput(request.body as Schemas['CreateTestInput'], request);
      return {
        status: 201,
        body: created,
        headers: { Location: `/api/v1/tests/${created.name}?namespace=${created.namespace}` },
      };
    });
    this.on('GET', '/api/v1/tests/{name}', (request, [, name]) => {
      const test = findTest(request, name!);
      return test ? { status: 200, body: test } : notFound(request, name!);
    });
    this.on('PUT', '/api/v1/tests/{name}', (request, [, name]) =>
      findTest(request, name!)
        ? { status: 200, body: fromInput(request.body as Schemas['CreateTestInput'], request) }
        : notFound(request, name!),
    );
    this.on('DELETE', '/api/v1/tests/{name}', (request, [, name]) =>
      findTest(request, name!) ? { status: 204 } : notFound(request, name!),
    );
    this.on('POST', '/api/v1/tests/{name}/trigger', (request, [, name]) => {
      const test = findTest(request, name!);
      if (!test) return notFound(request, name!);
      return {
        status: 200,
        body: { ...test, phase: 'Running' },
        headers: { 'Rehearsal-Trigger-State': 'started', 'Rehearsal-Trigger-Request': 'req-1' },
      };
    });
    this.on('GET', '/api/v1/reports', (request) => {
      const test = request.query.get('test');
      const namespace = request.query.get('namespace') ?? (test ? 'rehearsal-system' : undefined);
      let reports = this.reports.filter(
        (report) => (!test || report.spec.testRef.name === test) && (!namespace || report.metadata.namespace === namespace),
      );
      reports = [...reports].sort((a, b) => b.spec.completedAt.localeCompare(a.spec.completedAt));
      const omitted = namespace ? {} : this.omittedHeaders;
      if (request.query.get('latest') === 'true') {
        const seen = new Set<string>();
        reports = reports.filter((report) => {
          const key = `${report.metadata.namespace}/${report.spec.testRef.name}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
        return { status: 200, body: reports, headers: omitted };
      }
      // Pages as the server makes them (decision 0011); this fake's token is the offset.
      const start = Number(request.query.get('continue') ?? 0);
      const page = reports.slice(start, start + this.reportPageSize);
      if (start + this.reportPageSize >= reports.length) return { status: 200, body: page, headers: omitted };
      const next = new URLSearchParams(request.query);
      next.set('continue', String(start + this.reportPageSize));
      return { status: 200, body: page, headers: { ...omitted, Link: `</api/v1/reports?${next.toString()}>; rel="next"` } };
    });
    this.on('GET', '/api/v1/summary', () => ({ status: 200, body: fixture('summary') }));
    this.on('GET', '/api/v1/summary/daily', () => ({ status: 200, body: fixture('daily') }));
    this.on('GET', '/api/v1/alerts', () => ({ status: 200, body: fixture('alerts') }));
    this.on('GET', '/api/v1/upcoming', () => ({ status: 200, body: fixture('upcoming') }));
    this.on('GET', '/api/v1/schedules', () => ({ status: 200, body: fixture('schedules') }));
    this.on('GET', '/api/v1/coverage', () => ({ status: 200, body: fixture('coverage') }));
    this.on('GET', '/api/v1/sandboxes', (request) => {
      const all = fixture<Schemas['SandboxInfo'][]>('sandboxes');
      return { status: 200, body: request.query.get('orphaned') === 'true' ? all.filter((sandbox) => sandbox.orphaned) : all };
    });
    // As the server does: only an orphan, and only with the UID it has (a 409 problem otherwise).
    this.on('DELETE', '/api/v1/sandboxes/{name}', (request, [, name]) => {
      const sandbox = fixture<Schemas['SandboxInfo'][]>('sandboxes').find((entry) => entry.name === name);
      if (!sandbox) return problem(404, 'not-found', 'Not found', `no sandbox namespace "${name}"`);
      const uid = request.query.get('uid');
      if (!sandbox.orphaned || (uid !== null && uid !== sandbox.uid) || this.recreated.has(sandbox.name)) {
        return problem(409, 'conflict', 'Conflict', `namespace "${name}" has uid 77777777-0000-4000-8000-000000000000, not ${uid}: nothing was removed`);
      }
      return { status: 204 };
    });
    this.on('GET', '/api/v1/tests/{name}/diagnosis', () => ({ status: 200, body: fixture('diagnosis') }));
    this.on('GET', '/api/v1/compliance', (request) => ({
      status: 200,
      body: {
        ...fixture<Schemas['ComplianceResponse']>('compliance-soc2'),
        framework: request.query.get('framework'),
        period: Number(request.query.get('period')),
      },
    }));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let path = url.pathname;
    let viaProxy = false;
    let via: RecordedRequest['via'] = 'direct';
    let reply: Reply;
    const prefix = `/api/v1/namespaces/${this.proxy.namespace}/services/${this.proxy.service}:${this.proxy.port}/proxy`;
    const authorization = request.headers.authorization;
    const kubeObject = this.kubeObjects.get(path);
    const plain = (status: number, text: string): Reply => ({
      status,
      raw: Buffer.from(`${text}\n`),
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    if (kubeObject) {
      reply = kubeObject();
    } else if (path.startsWith(`${AGGREGATED_PREFIX}/`)) {
      const settings = this.aggregated;
      if (settings.missing) {
        reply = plain(404, '404 page not found');
      } else if (settings.token !== undefined && authorization !== `Bearer ${settings.token}`) {
        reply = kubeStatus(401, 'Unauthorized', 'Unauthorized');
      } else if (settings.unavailable) {
        reply = plain(503, 'service unavailable');
      } else if (settings.forbid) {
        const [resource, name] = path.slice(AGGREGATED_PREFIX.length + 1).split('/');
        const verb = request.method === 'GET' ? (name ? 'get' : 'list') : request.method === 'POST' ? 'create' : request.method === 'PUT' ? 'update' : 'delete';
        reply = kubeStatus(
          403,
          'Forbidden',
          `${resource}.api.rehearsal.dev${name ? ` "${name}"` : ''} is forbidden: User "jane" cannot ${verb} resource "${resource}" in API group "api.rehearsal.dev" at the cluster scope`,
          { group: 'api.rehearsal.dev', kind: resource!, ...(name ? { name } : {}) },
        );
      } else {
        via = 'aggregated';
        path = apiPathOf(path);
        // The API server authenticates the caller and passes only the identity on (not shown here).
        delete request.headers.authorization;
        reply = await this.route(request, path, url, text, viaProxy, via);
      }
    } else if (path.startsWith('/apis/')) {
      reply = kubeStatus(404, 'NotFound', `${path} not found`);
    } else if (path.startsWith(prefix) || /^\/api\/v1\/namespaces\/[^/]+\/services\/[^/]+\/proxy/.test(path)) {
      if (!path.startsWith(prefix)) {
        const [, , , , namespace, , service] = path.split('/');
        reply = kubeStatus(404, 'NotFound', `services "${service?.split(':')[0]}" not found`, { name: service!, kind: 'services' });
        void namespace;
      } else if (this.proxy.token !== undefined && authorization !== `Bearer ${this.proxy.token}`) {
        reply = kubeStatus(401, 'Unauthorized', 'Unauthorized');
      } else if (this.proxy.noEndpoints) {
        reply = kubeStatus(404, 'NotFound', `services "${this.proxy.service}" not found`, { name: this.proxy.service, kind: 'services' });
      } else if (this.proxy.forbid) {
        reply = kubeStatus(
          403,
          'Forbidden',
          `services "${this.proxy.service}:${this.proxy.port}" is forbidden: User "jane" cannot get resource "services/proxy" in API group "" in the namespace "${this.proxy.namespace}"`,
          { name: `${this.proxy.service}:${this.proxy.port}`, kind: 'services' },
        );
      } else {
        viaProxy = true;
        via = 'proxy';
        path = path.slice(prefix.length) || '/';
        // The API server authenticates the caller and does not pass the credentials on.
        delete request.headers.authorization;
        reply = await this.route(request, path, url, text, viaProxy, via);
      }
    } else {
      reply = await this.route(request, path, url, text, viaProxy, via);
    }
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    const body = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    if (body && !Object.keys(headers).some((key) => key.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    if (path.startsWith('/api/') && !path.startsWith('/api/v1/namespaces/')) {
      const problems = this.validator.check({
        method: request.method ?? 'GET',
        url: `${this.url}${path}`,
        status: reply.status,
        contentType: headers['content-type'] ?? null,
        headers: new Headers(headers),
        body: typeof body === 'string' ? body : body.toString('latin1'),
      });
      this.problems.push(...problems);
    }
    response.writeHead(reply.status, headers);
    response.end(body);
  }

  private async route(request: IncomingMessage, path: string, url: URL, text: string, viaProxy: boolean, via: RecordedRequest['via']): Promise<Reply> {
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path,
      query: url.searchParams,
      headers: request.headers,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      viaProxy,
      via,
    };
    this.requests.push(recorded);
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (match && route.method === recorded.method) return route.handler(recorded, match);
    }
    return problem(404, 'no-such-route', 'No such route', `${recorded.method} ${path} is not an API route`);
  }
}
