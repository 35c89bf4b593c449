// Lists a tenant may read (issue 30): how the authorizer resolves the namespaces of a list answer.
// A fake reviewer answers from a table of grants; a fake clock drives the caches.
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../../server/api/auth/access-review.js';
import { RequestAuthorizer, type AuthRequest } from '../../../server/api/auth/authorizer.js';
import { inScope, scopeKey, singleNamespace, type NamespaceScope } from '../../../server/api/auth/namespace-scope.js';
import { LIST_REPORTS_READABLE, LIST_TESTS_READABLE, PermissionTable, RBAC_EXTENSION } from '../../../server/api/auth/permissions.js';
import { ReadableNamespaces } from '../../../server/api/auth/readable-namespaces.js';
import { coverageWithin } from '../../../server/domain/read-models/coverage.js';
import { ProblemError, type PermissionDescriptor } from '../../../server/api/problem.js';

/** Grants as "user verb resource namespace" ("*" = cluster-wide). */
class GrantTable implements AccessReviewer {
  readonly asked: string[] = [];
  constructor(private readonly grants: Set<string>) {}

  async reviewToken(token: string): Promise<ReviewedUser | null> {
    return { username: token, groups: [] };
  }

  async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor) {
    const where = permission.namespace ?? '*';
    this.asked.push(`${user.username} ${permission.verb} ${permission.resource} ${where}`);
    const allowed =
      this.grants.has(`${user.username} ${permission.verb} ${permission.resource} *`) ||
      this.grants.has(`${user.username} ${permission.verb} ${permission.resource} ${where}`);
    return { allowed };
  }
}

const document = {
  paths: {
    '/api/v1/tests': { get: { operationId: 'listTests', security: [{ kubernetes: [] }], [RBAC_EXTENSION]: [LIST_TESTS_READABLE] } },
    '/api/v1/summary': {
      get: { operationId: 'getSummary', security: [{ kubernetes: [] }], [RBAC_EXTENSION]: [LIST_TESTS_READABLE, LIST_REPORTS_READABLE] },
    },
  },
};

const GRANTS = new Set([
  'admin list restoretests *',
  'admin list restorereports *',
  'admin list namespaces *',
  'tenant list restoretests team-a',
  'tenant list restorereports team-a',
  // Reads tests in team-b but not its reports: the summary (both) leaves team-b out.
  'tenant list restoretests team-b',
  'auditor list restoretests team-a',
  'auditor list namespaces *',
]);

let clock: number;
let candidates: string[];
let reviewer: GrantTable;
let authorizer: RequestAuthorizer;

function listRequest(user: string, path: '/api/v1/tests' | '/api/v1/summary', query: Record<string, unknown> = {}): AuthRequest {
  const namespace = typeof query.namespace === 'string' ? query.namespace : 'rehearsal-system';
  return { method: 'GET', routePath: path, authorization: `Bearer ${user}`, query, params: {}, namespace };
}

function namesOf(scope: NamespaceScope): string[] | 'all' {
  return scope.kind === 'all' ? 'all' : [...scope.namespaces].sort();
}

beforeEach(() => {
  clock = 1_000_000;
  candidates = ['rehearsal-system', 'team-a', 'team-b', 'team-c'];
  reviewer = new GrantTable(GRANTS);
  authorizer = new RequestAuthorizer({
    mode: 'kubernetes',
    reviewer,
    permissions: new PermissionTable(document),
    defaults: { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const },
    readable: { candidates: () => candidates, scopeTtlMs: 15_000 },
    now: () => clock,
  });
});

describe('a list without a namespace', () => {
  it('is every namespace for a caller who may list cluster-wide, after one review per permission', async () => {
    const { scope } = await authorizer.authorizeRequest(listRequest('admin', '/api/v1/summary'));
    expect(scope).toEqual({ kind: 'all' });
    expect(reviewer.asked).toEqual(['admin list restoretests *', 'admin list restorereports *']);
  });

  it('is the namespaces a tenant may list, the others reported without their names', async () => {
    const { user, scope } = await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/tests'));
    expect(user.username).toBe('tenant');
    expect(namesOf(scope)).toEqual(['team-a', 'team-b']);
    expect(scope).toMatchObject({ omitted: ['rehearsal-system', 'team-c'], omittedNamesVisible: false });
  });

  it('needs every permission of the operation in a namespace (summary: tests and reports)', async () => {
    const { scope } = await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/summary'));
    expect(namesOf(scope)).toEqual(['team-a']);
    expect(scope).toMatchObject({ omitted: ['rehearsal-system', 'team-b', 'team-c'] });
  });

  it('names the omitted namespaces to a caller who may list namespaces', async () => {
    const { scope } = await authorizer.authorizeRequest(listRequest('auditor', '/api/v1/tests'));
    expect(namesOf(scope)).toEqual(['team-a']);
    expect(scope).toMatchObject({ omitted: ['rehearsal-system', 'team-b', 'team-c'], omittedNamesVisible: true });
  });

  it('is empty, not a 403, for a caller who may read nothing (they may still be given a namespace soon)', async () => {
    const { scope } = await authorizer.authorizeRequest(listRequest('stranger', '/api/v1/tests'));
    expect(namesOf(scope)).toEqual([]);
    expect(scope).toMatchObject({ omitted: candidates });
  });

  it('reuses the resolved scope per caller until it expires or the candidates change', async () => {
    await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/tests'));
    const first = reviewer.asked.length;
    await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/tests'));
    // Only the cluster-wide question again (a denial is kept 5 s): no namespace is reviewed.
    expect(reviewer.asked.length).toBe(first);
    clock += 6_000;
    await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/tests'));
    expect(reviewer.asked.slice(first)).toEqual(['tenant list restoretests *']);
    candidates = [...candidates, 'team-d'];
    const before = reviewer.asked.length;
    const { scope } = await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/tests'));
    expect(scope).toMatchObject({ omitted: ['rehearsal-system', 'team-c', 'team-d'] });
    expect(reviewer.asked.slice(before)).toContain('tenant list restoretests team-d');
  });
});

describe('a list that names its namespace', () => {
  it('is that namespace alone when the caller may list there', async () => {
    const { scope } = await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/summary', { namespace: 'team-a' }));
    expect(namesOf(scope)).toEqual(['team-a']);
    expect(scope).toMatchObject({ omitted: [] });
  });

  it('is a 403 naming the permission and the namespace when the caller may not', async () => {
    const refused = await authorizer.authorizeRequest(listRequest('tenant', '/api/v1/summary', { namespace: 'team-b' })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).status).toBe(403);
    expect((refused as ProblemError).extras.missingPermissions).toEqual([
      { verb: 'list', group: 'rehearsal.dev', resource: 'restorereports', namespace: 'team-b' },
    ]);
  });
});

describe('auth mode none', () => {
  it('shows every namespace, or the one named', async () => {
    const open = new RequestAuthorizer({
      mode: 'none',
      permissions: new PermissionTable(document),
      defaults: { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const },
    });
    expect((await open.authorizeRequest(listRequest('anyone', '/api/v1/tests'))).scope).toEqual({ kind: 'all' });
    expect(namesOf((await open.authorizeRequest(listRequest('anyone', '/api/v1/tests', { namespace: 'team-c' }))).scope)).toEqual(['team-c']);
  });
});

describe('ReadableNamespaces bounds', () => {
  it('reviews at most maxReviewed namespaces, at most `concurrency` at once; the rest are left out', async () => {
    let inFlight = 0;
    let most = 0;
    const reviewed: string[] = [];
    const resolver = new ReadableNamespaces({
      candidates: () => Array.from({ length: 30 }, (_unused, index) => `ns-${String(index).padStart(2, '0')}`),
      maxReviewed: 12,
      concurrency: 3,
    });
    const scope = await resolver.resolve('key', [{ verb: 'list', group: 'rehearsal.dev', resource: 'restoretests' }], async (permission) => {
      if (!permission.namespace) return { allowed: false };
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      reviewed.push(permission.namespace);
      return { allowed: true };
    });
    expect(reviewed).toHaveLength(12);
    expect(most).toBe(3);
    expect(scope.kind === 'some' && scope.namespaces.size).toBe(12);
    expect(scope.kind === 'some' && scope.omitted).toHaveLength(18);
  });
});

describe('scope helpers', () => {
  it('keys and membership', () => {
    const scope: NamespaceScope = { kind: 'some', namespaces: new Set(['b', 'a']), omitted: ['c'], omittedNamesVisible: false };
    expect(scopeKey(scope)).toBe('|ns=a,b');
    expect(scopeKey({ kind: 'all' })).toBe('');
    expect(inScope(scope, 'a')).toBe(true);
    expect(inScope(scope, 'c')).toBe(false);
    expect(inScope(singleNamespace('c'), 'c')).toBe(true);
  });
});

describe('coverageWithin', () => {
  it('keeps the readable namespaces, names only their tests, and counts again', () => {
    const entry = { backedUpBy: ['Schedule/nightly'], lastBackupAt: '', window: '24h0m0s', lastPassedAt: '' };
    const coverage = {
      generatedAt: '2026-03-15T12:00:00.000Z',
      backedUp: 3,
      tested: 2,
      untested: 1,
      namespaces: [
        { ...entry, namespace: 'team-b', status: 'untested' as const, tests: [] },
        { ...entry, namespace: 'team-a', status: 'tested' as const, tests: ['team-a/shop', 'team-b/mirror'] },
        { ...entry, namespace: 'team-c', status: 'tested' as const, tests: ['team-c/x'] },
      ],
    };
    const mine = coverageWithin(coverage, (namespace) => namespace === 'team-a');
    expect(mine).toMatchObject({ backedUp: 1, tested: 1, untested: 0 });
    expect(mine.namespaces.map((each) => [each.namespace, each.tests])).toEqual([['team-a', ['team-a/shop']]]);
  });
});
