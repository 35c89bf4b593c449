// Why a call to the Rehearsal API failed, as one readable CliError with hints. Three kinds of
// answers can fail: RFC 9457 problems from the API itself, answers of the Kubernetes API server in
// front of it (RBAC on the aggregated paths, an APIService that is missing or unavailable; RBAC on
// services/proxy, a missing Service, no endpoints), and no answer at all. Each connection mode
// (direct, aggregated, proxy) fails in its own ways, so the hints name that mode's remedy.
import { isProblemDetails, type components } from '../../openapi/client.js';
import { AGGREGATED_PREFIX, API_GROUP, API_SERVICE, describeFetchError, type Connection } from './connect.js';
import { CliError } from './errors.js';
import { firstLine } from './text.js';

export type ProblemDetails = components['schemas']['ProblemDetails'];
type PermissionDescriptor = components['schemas']['PermissionDescriptor'];

export const PORT_FORWARD_HINT =
  'or reach the API through a port-forward: kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080, then --server http://localhost:8080';

/** 402 license-required from a licensed endpoint; the command names what is missing. */
export class LicenseRequiredError extends CliError {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'LicenseRequiredError';
  }
}

/**
 * The error for a non-2xx answer: the service proxy's missing endpoints and the aggregated route's
 * own refusals are told apart first (they need a look at the cluster), then the body speaks.
 */
export async function explainFailedAnswer(
  status: number,
  body: unknown,
  connection: Connection,
  method: string,
  url: string,
): Promise<CliError> {
  return (
    (await explainMissingEndpoints(status, body, connection)) ??
    (await explainAggregated(status, body, connection, method, url)) ??
    errorFromResponse(status, body, connection, method)
  );
}

export function unreachable(connection: Connection, error: unknown, timeoutMs: number): CliError {
  const reason = describeFetchError(error, timeoutMs);
  if (connection.mode !== 'direct') {
    return new CliError(`cannot reach the Kubernetes API server ${connection.kube?.server ?? ''}: ${reason}`, [
      `check the kubeconfig context${connection.contextName ? ` "${connection.contextName}"` : ''} (--context, --kubeconfig), ${PORT_FORWARD_HINT}`,
    ]);
  }
  return new CliError(`cannot reach the Rehearsal API at ${connection.baseUrl}: ${reason}`, [
    `is the port-forward running? kubectl port-forward -n ${connection.service.namespace} svc/${connection.service.name} 8080:${connection.service.port}; or drop --server to go through the Kubernetes API server (APIService ${API_SERVICE})`,
  ]);
}

/** Kubernetes' own error object (from the API server, e.g. its service proxy). */
interface KubeStatus {
  kind: 'Status';
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string };
}

function isKubeStatus(body: unknown): body is KubeStatus {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

/**
 * The service proxy answers 404 "services X not found" both for a missing Service and for one
 * without an Endpoints object (e.g. type ExternalName: the API server proxies only to endpoints
 * backed by Pods). Reading the Service tells the two apart; without permission to read it, the
 * generic message stands.
 */
async function explainMissingEndpoints(status: number, body: unknown, connection: Connection): Promise<CliError | undefined> {
  if (status !== 404 || connection.mode !== 'proxy' || !connection.kube || !isKubeStatus(body) || body.details?.kind !== 'services') {
    return undefined;
  }
  const { namespace, name, port } = connection.service;
  let service: { spec?: { type?: string; externalName?: string } };
  try {
    const response = await connection.kube.get(`/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`);
    if (!response.ok) return undefined;
    service = (await response.json()) as typeof service;
  } catch {
    return undefined;
  }
  const hint = `the service proxy reaches only Services whose endpoints are Pods; ${PORT_FORWARD_HINT}`;
  if (service.spec?.type === 'ExternalName') {
    return new CliError(
      `the Kubernetes API server does not proxy to service ${namespace}/${name}:${port}: it is of type ExternalName (${service.spec.externalName ?? ''}) and has no endpoints`,
      [hint],
    );
  }
  return new CliError(`the Kubernetes API server cannot proxy to service ${namespace}/${name}:${port}: it has no endpoints object`, [
    `is the rehearsal-api Deployment running? kubectl get endpoints -n ${namespace} ${name}; ${hint}`,
  ]);
}

/**
 * The permission kube-apiserver checks on an aggregated path before proxying it, as its request
 * info resolver derives it: /apis/<group>/<version>/<resource>[/<name>[/<subresource>]], the
 * verb from the method (GET without a name is list). No namespace: the paths are cluster-scoped.
 */
export function entrancePermission(method: string, url: string): PermissionDescriptor {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // already a path
  }
  const at = path.indexOf(AGGREGATED_PREFIX);
  const parts = (at >= 0 ? path.slice(at + AGGREGATED_PREFIX.length) : path).split('/').filter(Boolean).map(decodeURIComponent);
  const [resource = '', name, subresource] = parts;
  const upper = method.toUpperCase();
  const verb =
    upper === 'GET' || upper === 'HEAD' ? (name ? 'get' : 'list') : upper === 'DELETE' && !name ? 'deletecollection' : proxyVerb(upper);
  return { verb, group: API_GROUP, resource, ...(subresource ? { subresource } : {}), ...(name ? { name } : {}) };
}

const ROLES_HINT =
  'the ClusterRoles rehearsal-viewer (read) and rehearsal-editor (write) grant what Rehearsal needs, bound with a ClusterRoleBinding (or in a namespace with a RoleBinding, for the rehearsal.dev part)';

const ADMIN_HINT =
  'the ClusterRole rehearsal-admin grants "administer" and the sandboxes entrance: bind it with a RoleBinding for one namespace, a ClusterRoleBinding for all namespaces and for sandboxes';

/** Administrators' permissions are not in the viewer/editor roles: name the role that has them. */
function rolesHint(permissions: readonly PermissionDescriptor[]): string {
  return permissions.some((permission) => permission.verb === 'administer' || permission.resource === 'sandboxes') ? ADMIN_HINT : ROLES_HINT;
}

/** The APIService's Available condition, when the kubeconfig user may read it. */
async function apiServiceCondition(connection: Connection): Promise<string | undefined> {
  try {
    const response = await connection.kube?.get(`/apis/apiregistration.k8s.io/v1/apiservices/${API_SERVICE}`);
    if (!response?.ok) return undefined;
    const object = (await response.json()) as { status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } };
    const available = object.status?.conditions?.find((condition) => condition.type === 'Available');
    if (!available || available.status === 'True') return undefined;
    return `${available.reason ?? 'not available'}: ${available.message ?? ''}`.replace(/: $/, '');
  } catch {
    return undefined;
  }
}

/**
 * What the Kubernetes API server itself answered on the aggregated route: no APIService (a plain
 * 404), an unavailable one (a plain 503), or RBAC refusing the path (a Status 403).
 */
async function explainAggregated(status: number, body: unknown, connection: Connection, method: string, url: string): Promise<CliError | undefined> {
  if (connection.mode !== 'aggregated' || isProblemDetails(body)) return undefined;
  const message = isKubeStatus(body)
    ? (body.message ?? body.reason ?? `HTTP ${status}`)
    : typeof body === 'string' && body.trim() !== ''
      ? firstLine(body)
      : `HTTP ${status}`;
  const server = connection.kube?.server ?? connection.baseUrl;
  const { namespace, name } = connection.service;
  switch (status) {
    case 401:
      return kubeUnauthorized(connection, message);
    case 403: {
      const entrance = entrancePermission(method, url);
      return new CliError(`forbidden: ${describePermission(entrance)}`, [
        `the Kubernetes API server refused the request before it reached Rehearsal (${message})`,
        rolesHint([entrance]),
      ]);
    }
    case 404:
      return new CliError(`the Rehearsal API is not registered with the Kubernetes API server ${server}: no APIService ${API_SERVICE}`, [
        `is Rehearsal installed? kubectl get apiservice ${API_SERVICE}; ${PORT_FORWARD_HINT}`,
      ]);
    case 500:
    case 502:
    case 503:
    case 504: {
      const condition = await apiServiceCondition(connection);
      return new CliError(
        `the Kubernetes API server cannot reach the Rehearsal API (APIService ${API_SERVICE}): ${condition ?? message}`,
        [`is the rehearsal-api Deployment running and ready? kubectl get pods -n ${namespace} -l app.kubernetes.io/name=rehearsal; kubectl get apiservice ${API_SERVICE}; the Service is ${namespace}/${name}; ${PORT_FORWARD_HINT}`],
      );
    }
    default:
      return undefined;
  }
}

/** The Kubernetes API server refused the kubeconfig's credentials, whichever route the call took. */
function kubeUnauthorized(connection: Connection, message: string): CliError {
  return new CliError(`unauthorized: the Kubernetes API server rejected the kubeconfig's credentials (${message})`, [
    `check the context${connection.contextName ? ` "${connection.contextName}"` : ''} and its user; try kubectl auth whoami`,
  ]);
}

/** The RBAC verb the API server checks for a proxied request with this HTTP method. */
export function proxyVerb(method: string): string {
  return ({ GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[
    method.toUpperCase()
  ] ?? method.toLowerCase();
}

export function describePermission(permission: PermissionDescriptor): string {
  const resource = `${permission.resource}${permission.group ? `.${permission.group}` : ''}${permission.subresource ? `/${permission.subresource}` : ''}`;
  const name = permission.name ? ` "${permission.name}"` : '';
  const scope = permission.namespace ? `in namespace ${permission.namespace}` : 'cluster-wide';
  return `you need "${permission.verb}" on ${resource}${name} ${scope}`;
}

export function errorFromResponse(status: number, body: unknown, connection: Connection, method: string): CliError {
  if (isProblemDetails(body)) return problemError(body as ProblemDetails, connection);
  const service = connection.service;
  if (isKubeStatus(body) && connection.mode === 'proxy') {
    const message = body.message ?? body.reason ?? `HTTP ${status}`;
    switch (status) {
      case 401:
        return kubeUnauthorized(connection, message);
      case 403:
        return new CliError(
          `forbidden: you need "${proxyVerb(method)}" on services/proxy "${service.name}" in namespace ${service.namespace}`,
          [
            `the Kubernetes API server refused the service proxy (${message}); ask for a Role granting services/proxy, ${PORT_FORWARD_HINT}`,
          ],
        );
      case 404:
        return new CliError(`service ${service.namespace}/${service.name} not found: is Rehearsal installed in ${service.namespace}?`, [
          `${message}; use --service-namespace/--service/--service-port for another installation, ${PORT_FORWARD_HINT}`,
        ]);
      case 502:
      case 503:
      case 500:
        return new CliError(
          `the Kubernetes API server could not reach service ${service.namespace}/${service.name}:${service.port}: ${message}`,
          [`is the rehearsal-api Deployment running and ready? kubectl get pods -n ${service.namespace}; ${PORT_FORWARD_HINT}`],
        );
      default:
        return new CliError(`the Kubernetes API server answered ${status}: ${message}`);
    }
  }
  const text = typeof body === 'string' ? firstLine(body) : '';
  return new CliError(`unexpected answer from ${connection.target}: HTTP ${status}${text ? `: ${text}` : ''}`, [
    connection.mode === 'direct' ? 'is --server the Rehearsal API (port 8080 of svc/rehearsal-api)?' : PORT_FORWARD_HINT,
  ]);
}

function problemError(problem: ProblemDetails, connection: Connection): CliError {
  const hints: string[] = [];
  for (const field of problem.errors ?? []) hints.push(`${field.field}: ${field.message}`);
  switch (problem.status) {
    case 401: {
      if (connection.mode === 'aggregated') {
        hints.push(
          'Rehearsal did not accept the Kubernetes API server as its front proxy; its log (component aggregation or request-header) says why',
        );
      } else if (connection.mode === 'proxy') {
        hints.push(
          'the Kubernetes API server authenticates you but does not pass your token on through its service proxy, so an API that checks tokens sees none; use --server with a port-forward and --token (e.g. --token "$(kubectl create token NAME)")',
        );
      } else {
        hints.push('send a token the cluster accepts: --token TOKEN, or a kubeconfig user with a bearer token');
      }
      return new CliError(`unauthorized: ${problem.detail}`, hints);
    }
    case 403:
      for (const permission of problem.missingPermissions ?? []) hints.push(describePermission(permission));
      if (rolesHint(problem.missingPermissions ?? []) === ADMIN_HINT) hints.push(ADMIN_HINT);
      else if (connection.mode === 'aggregated') hints.push(ROLES_HINT);
      return new CliError(`forbidden: ${problem.detail}`, hints);
    case 503:
      if (problem.type.endsWith('/not-ready')) hints.push('the API is still loading its caches; try again in a few seconds');
      return new CliError(problem.detail, hints);
    default:
      return new CliError(problem.detail, hints);
  }
}
