// Which Kubernetes RBAC permissions each operation needs. Declared once per operation with
// @Extension('x-rehearsal-rbac', [...]) in the controllers, so the OpenAPI document tells clients
// and cluster admins exactly what to grant; at run time the authorizer reads the same
// declarations back from the document (one source of truth). A secured operation without a
// declaration is refused (fail closed), and a unit test keeps every operation declared.
//
// Trigger is authorized as `create restoretests/trigger` (a subresource-style permission, like
// `create pods/exec`): triggering a run does not need the right to edit a test's spec, and the
// same attributes apply when the API is later served through the aggregation layer.
import type { PermissionDescriptor } from '../problem.js';

export const RBAC_EXTENSION = 'x-rehearsal-rbac';

/**
 * Where the namespace of a permission comes from:
 * - cluster: a cluster-wide permission (aggregates and lists span every namespace);
 * - namespace: the request's one namespace (query `namespace`, else the server's namespace; see
 *   request-namespace.ts); the object name is the path parameter `name` when there is one;
 * - readable: a list narrowed to what the caller may read (issue 30): the request's namespace when
 *   it names one with `namespace` (or `test`), else cluster-wide when the caller may, else the
 *   namespaces where they may (readable-namespaces.ts); never a 403 without a named namespace;
 * - velero: the configured Velero namespace;
 * - server: the server's own namespace, with the rule's fixed `name` if it has one (objects of the
 *   installation itself, such as the published evidence keys);
 * - collection: the request's namespace like `namespace`, but never an object name (a list of the
 *   objects in it, e.g. the reports of the test named in the path).
 */
export type RbacScope = 'cluster' | 'namespace' | 'readable' | 'velero' | 'server' | 'collection';

export interface RbacRule {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** A fixed object name (scope server only). */
  name?: string;
  scope: RbacScope;
  /**
   * Asked only when the server's backup tool (REHEARSAL_BACKUP_TOOL) is this one: coverage and
   * test drafts read that tool's objects, so the caller must be allowed to read those (issue 32).
   */
  backupTool?: 'velero' | 'kasten' | 'trilio';
}

// Plain object literals without a type annotation, `as const` or `satisfies`: tsoa reads these
// initializers when it writes the spec, and @Extension only accepts index-compatible types.
// PermissionTable checks the shape of every declaration it reads back (and refuses malformed ones).
export const LIST_TESTS = {
  verb: 'list',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'cluster',
};
export const LIST_REPORTS = {
  verb: 'list',
  group: 'rehearsal.dev',
  resource: 'restorereports',
  scope: 'cluster',
};
/** The lists a tenant reads (tests, reports, the dashboard's aggregates): see scope readable. */
export const LIST_TESTS_READABLE = {
  verb: 'list',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'readable',
};
export const LIST_REPORTS_READABLE = {
  verb: 'list',
  group: 'rehearsal.dev',
  resource: 'restorereports',
  scope: 'readable',
};
export const GET_TEST = { verb: 'get', group: 'rehearsal.dev', resource: 'restoretests', scope: 'namespace' };
export const CREATE_TEST = {
  verb: 'create',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'namespace',
};
export const UPDATE_TEST = {
  verb: 'update',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'namespace',
};
export const DELETE_TEST = {
  verb: 'delete',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'namespace',
};
export const TRIGGER_TEST = {
  verb: 'create',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  subresource: 'trigger',
  scope: 'namespace',
};
/** The reports of the test named in the path (PDF test report): a list in its namespace. */
export const LIST_REPORTS_OF_TEST = {
  verb: 'list',
  group: 'rehearsal.dev',
  resource: 'restorereports',
  scope: 'collection',
};
/**
 * The published evidence public keys: whoever may read the ConfigMap that publishes them may read
 * them through the API.
 */
export const GET_EVIDENCE_KEYS = {
  verb: 'get',
  group: '',
  resource: 'configmaps',
  name: 'rehearsal-evidence-public-keys',
  scope: 'server',
};
/** GET /api/v1/schedules: Velero's Schedules, whichever tool coverage reads. */
export const LIST_VELERO_SCHEDULES = {
  verb: 'list',
  group: 'velero.io',
  resource: 'schedules',
  scope: 'velero',
};

// What coverage and test drafts read of the configured backup tool (issue 32): one set per tool,
// each asked only when that tool is the server's (RbacRule.backupTool). Kasten keeps its Policies
// in its own namespace or an application's and its RestorePoints in the applications'
// namespaces, Trilio its BackupPlans, schedule Policies and Backups in the applications':
// listed across namespaces, so the caller needs the cluster-wide list.
export const COVERAGE_VELERO_SCHEDULES = {
  verb: 'list',
  group: 'velero.io',
  resource: 'schedules',
  scope: 'velero',
  backupTool: 'velero',
};
export const COVERAGE_VELERO_BACKUPS = {
  verb: 'list',
  group: 'velero.io',
  resource: 'backups',
  scope: 'velero',
  backupTool: 'velero',
};
export const COVERAGE_KASTEN_POLICIES = {
  verb: 'list',
  group: 'config.kio.kasten.io',
  resource: 'policies',
  scope: 'cluster',
  backupTool: 'kasten',
};
export const COVERAGE_KASTEN_RESTORE_POINTS = {
  verb: 'list',
  group: 'apps.kio.kasten.io',
  resource: 'restorepoints',
  scope: 'cluster',
  backupTool: 'kasten',
};
export const COVERAGE_TRILIO_BACKUP_PLANS = {
  verb: 'list',
  group: 'triliovault.trilio.io',
  resource: 'backupplans',
  scope: 'cluster',
  backupTool: 'trilio',
};
export const COVERAGE_TRILIO_POLICIES = {
  verb: 'list',
  group: 'triliovault.trilio.io',
  resource: 'policies',
  scope: 'cluster',
  backupTool: 'trilio',
};
export const COVERAGE_TRILIO_BACKUPS = {
  verb: 'list',
  group: 'triliovault.trilio.io',
  resource: 'backups',
  scope: 'cluster',
  backupTool: 'trilio',
};

/**
 * Administrators' operations across every namespace (the sandbox namespaces): the custom verb
 * `administer` on restoretests cluster-wide (ClusterRole rehearsal-admin bound by a
 * ClusterRoleBinding), the same verb the admin-only fields of a test ask for in its namespace.
 */
export const ADMINISTER_CLUSTER = {
  verb: 'administer',
  group: 'rehearsal.dev',
  resource: 'restoretests',
  scope: 'cluster',
};

const BACKUP_TOOLS: readonly string[] = ['velero', 'kasten', 'trilio'];
const SCOPES: readonly RbacScope[] = ['cluster', 'namespace', 'readable', 'velero', 'server', 'collection'];

function isRbacRule(value: unknown): value is RbacRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return (
    typeof rule.verb === 'string' &&
    typeof rule.group === 'string' &&
    typeof rule.resource === 'string' &&
    (rule.subresource === undefined || typeof rule.subresource === 'string') &&
    (rule.name === undefined || (typeof rule.name === 'string' && rule.scope === 'server')) &&
    (rule.backupTool === undefined || BACKUP_TOOLS.includes(rule.backupTool as string)) &&
    SCOPES.includes(rule.scope as RbacScope)
  );
}

/** What a permission depends on in one request. */
export interface RequestFacts {
  /** The request's one namespace, resolved once (request-namespace.ts); never re-read from the body. */
  namespace: string;
  query: Record<string, unknown>;
  params: Record<string, unknown>;
}

export interface ScopeDefaults {
  /** The server's namespace (decision 0003). */
  namespace: string;
  veleroNamespace: string;
  /** The server's backup tool (REHEARSAL_BACKUP_TOOL): rules for another tool are not asked. */
  backupTool: 'velero' | 'kasten' | 'trilio';
}

/** Whether a rule is asked on this server (a rule for another backup tool is not). */
export function appliesTo(rule: RbacRule, defaults: Pick<ScopeDefaults, 'backupTool'>): boolean {
  return rule.backupTool === undefined || rule.backupTool === defaults.backupTool;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Whether a request narrows a readable list to its one namespace (`namespace`, or `test` in it). */
export function namesNamespace(facts: Pick<RequestFacts, 'query'>): boolean {
  return nonEmptyString(facts.query.test) !== undefined || nonEmptyString(facts.query.namespace) !== undefined;
}

/** The concrete permission a rule asks for in one request. */
export function permissionFor(
  rule: RbacRule,
  facts: RequestFacts,
  defaults: ScopeDefaults,
): PermissionDescriptor {
  const permission: PermissionDescriptor = { verb: rule.verb, group: rule.group, resource: rule.resource };
  if (rule.subresource) permission.subresource = rule.subresource;
  switch (rule.scope) {
    case 'cluster':
      break;
    case 'velero':
      permission.namespace = defaults.veleroNamespace;
      break;
    case 'server':
      permission.namespace = defaults.namespace;
      if (rule.name) permission.name = rule.name;
      break;
    case 'collection':
      permission.namespace = facts.namespace;
      break;
    case 'readable':
      // Without a named namespace: the cluster-wide permission, the first thing the resolution asks.
      if (namesNamespace(facts)) permission.namespace = facts.namespace;
      break;
    case 'namespace': {
      permission.namespace = facts.namespace;
      const name = nonEmptyString(facts.params.name);
      if (name) permission.name = name;
      break;
    }
  }
  return permission;
}

/** "/api/v1/tests/{name}" → "/api/v1/tests/:name" (how Express and tsoa's routes name it). */
export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface OperationRules {
  operationId: string;
  secured: boolean;
  rules: RbacRule[];
}

/** The RBAC declarations of every operation of an OpenAPI document, by method and Express path. */
export class PermissionTable {
  private readonly byRoute = new Map<string, OperationRules>();

  constructor(document: unknown) {
    const paths = (document as { paths?: Record<string, Record<string, unknown>> })?.paths ?? {};
    for (const [path, item] of Object.entries(paths)) {
      for (const method of HTTP_METHODS) {
        const operation = item[method] as
          { operationId?: string; security?: unknown[]; [RBAC_EXTENSION]?: unknown } | undefined;
        if (!operation) continue;
        const declared = operation[RBAC_EXTENSION];
        const rules = Array.isArray(declared) ? declared.filter(isRbacRule) : [];
        if (Array.isArray(declared) && rules.length !== declared.length) {
          throw new Error(`${method.toUpperCase()} ${path}: malformed ${RBAC_EXTENSION} declaration`);
        }
        this.byRoute.set(`${method.toUpperCase()} ${expressPath(path)}`, {
          operationId: operation.operationId ?? `${method} ${path}`,
          secured: Array.isArray(operation.security) ? operation.security.length > 0 : false,
          rules,
        });
      }
    }
  }

  /** HEAD is answered by the GET route. */
  lookup(method: string, routePath: string): OperationRules | undefined {
    const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.byRoute.get(`${verb} ${routePath}`);
  }

  operations(): OperationRules[] {
    return [...this.byRoute.values()];
  }
}
