// RequestAuthorizer with a fake reviewer and a fake clock: modes, token parsing, 401/403 problems,
// TTL caching keyed by the token's hash, failures never cached, and fail-closed routes.
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../../server/api/auth/access-review.js';
import { ANONYMOUS_USER, RequestAuthorizer, type AuthRequest } from '../../../server/api/auth/authorizer.js';
import { PermissionTable, RBAC_EXTENSION } from '../../../server/api/auth/permissions.js';
import { TtlCache } from '../../../server/api/auth/ttl-cache.js';
import { ProblemError, type PermissionDescriptor } from '../../../server/api/problem.js';

const document = {
  paths: {
    '/api/v1/tests/{name}': {
      get: {
        operationId: 'getTest',
        security: [{ kubernetes: [] }],
        [RBAC_EXTENSION]: [
          { verb: 'get', group: 'rehearsal.dev', resource: 'restoretests', scope: 'namespace' },
        ],
      },
      delete: { operationId: 'undeclared', security: [{ kubernetes: [] }] },
    },
  },
};

class FakeReviewer implements AccessReviewer {
  tokenCalls: string[] = [];
  accessCalls: PermissionDescriptor[] = [];
  allow = true;
  fail = false;

  async reviewToken(token: string): Promise<ReviewedUser | null> {
    this.tokenCalls.push(token);
    if (this.fail) throw new Error('apiserver down');
    return token === 'good' ? { username: 'alice', groups: ['devs'] } : null;
  }

  async reviewAccess(_user: ReviewedUser, permission: PermissionDescriptor) {
    this.accessCalls.push(permission);
    return { allowed: this.allow, reason: this.allow ? 'RBAC: allowed' : 'no rule' };
  }
}

const request = (authorization: string | undefined, overrides: Partial<AuthRequest> = {}): AuthRequest => ({
  method: 'GET',
  routePath: '/api/v1/tests/:name',
  authorization,
  query: {},
  params: { name: 'payments' },
  namespace: 'rehearsal-system',
  ...overrides,
});

async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('expected a problem');
}

let clock = 0;
let reviewer: FakeReviewer;
let authorizer: RequestAuthorizer;

beforeEach(() => {
  clock = 1_000_000;
  reviewer = new FakeReviewer();
  authorizer = new RequestAuthorizer({
    mode: 'kubernetes',
    reviewer,
    permissions: new PermissionTable(document),
    defaults: { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const },
    tokenTtlMs: 30_000,
    allowedTtlMs: 20_000,
    deniedTtlMs: 5_000,
    now: () => clock,
  });
});

describe('mode none', () => {
  it('lets every request through as system:anonymous without reviews', async () => {
    const open = new RequestAuthorizer({
      mode: 'none',
      permissions: new PermissionTable(document),
      defaults: { namespace: 'n', veleroNamespace: 'v', backupTool: 'velero' as const },
    });
    await expect(open.authorize(request(undefined, { routePath: undefined }))).resolves.toBe(ANONYMOUS_USER);
  });

  // Issue 26: kube-apiserver names the caller of the aggregation port; none relaxes port 8080 only.
  it('reviews the user the front proxy names, and refuses them what they may not do', async () => {
    const reviewer = new FakeReviewer();
    reviewer.allow = false;
    const open = new RequestAuthorizer({
      mode: 'none',
      reviewer,
      permissions: new PermissionTable(document),
      defaults: { namespace: 'n', veleroNamespace: 'v', backupTool: 'velero' as const },
    });
    const frontProxyUser = { username: 'mallory', groups: ['system:authenticated'] };
    const problem = await problemOf(open.authorize(request(undefined, { frontProxyUser })));
    expect([problem.status, problem.detail]).toEqual([
      403,
      'User "mallory" cannot get restoretests.rehearsal.dev "payments" in namespace "rehearsal-system".',
    ]);
    expect(reviewer.accessCalls).toHaveLength(1);
    reviewer.allow = true;
    open.clearCaches();
    await expect(open.authorize(request(undefined, { frontProxyUser }))).resolves.toMatchObject({ username: 'mallory' });
    await expect(open.authorize(request(undefined))).resolves.toBe(ANONYMOUS_USER);
  });

  it('refuses a front-proxy user (503) when there is no reviewer, rather than let them through', async () => {
    const open = new RequestAuthorizer({
      mode: 'none',
      permissions: new PermissionTable(document),
      defaults: { namespace: 'n', veleroNamespace: 'v', backupTool: 'velero' as const },
    });
    const problem = await problemOf(open.authorize(request(undefined, { frontProxyUser: { username: 'm', groups: [] } })));
    expect(problem.status).toBe(503);
  });

  it('kubernetes mode needs a reviewer', () => {
    expect(
      () =>
        new RequestAuthorizer({
          mode: 'kubernetes',
          permissions: new PermissionTable(document),
          defaults: { namespace: 'n', veleroNamespace: 'v', backupTool: 'velero' as const },
        }),
    ).toThrow('access reviewer');
  });
});

describe('authentication', () => {
  it.each([[undefined], [''], ['Basic Zm9vOmJhcg=='], ['Bearer'], ['Bearer a b']])(
    'answers 401 with a challenge for the header %p',
    async (header) => {
      const problem = await problemOf(authorizer.authorize(request(header)));
      expect([problem.status, problem.extras.headers]).toEqual([
        401,
        { 'WWW-Authenticate': 'Bearer realm="rehearsal"' },
      ]);
      expect(reviewer.tokenCalls).toEqual([]);
    },
  );

  it('accepts the scheme case-insensitively and returns the reviewed user', async () => {
    await expect(authorizer.authorize(request('bearer good'))).resolves.toEqual({
      username: 'alice',
      groups: ['devs'],
    });
    expect(reviewer.tokenCalls).toEqual(['good']);
  });

  it('answers 401 invalid_token for a token the cluster rejects, and caches that briefly', async () => {
    const problem = await problemOf(authorizer.authorize(request('Bearer forged')));
    expect(problem.status).toBe(401);
    expect(problem.extras.headers!['WWW-Authenticate']).toContain('error="invalid_token"');
    await problemOf(authorizer.authorize(request('Bearer forged')));
    expect(reviewer.tokenCalls).toEqual(['forged']);
    clock += 5_001;
    await problemOf(authorizer.authorize(request('Bearer forged')));
    expect(reviewer.tokenCalls).toEqual(['forged', 'forged']);
  });

  it('does not remember a failed review', async () => {
    reviewer.fail = true;
    await expect(authorizer.authorize(request('Bearer good'))).rejects.toThrow('apiserver down');
    reviewer.fail = false;
    await expect(authorizer.authorize(request('Bearer good'))).resolves.toMatchObject({ username: 'alice' });
    expect(reviewer.tokenCalls).toEqual(['good', 'good']);
  });
});

describe('authorization', () => {
  it('reviews the declared permission with the request namespace and name', async () => {
    await authorizer.authorize(request('Bearer good', { query: { namespace: 'team-a' }, namespace: 'team-a' }));
    expect(reviewer.accessCalls).toEqual([
      {
        verb: 'get',
        group: 'rehearsal.dev',
        resource: 'restoretests',
        namespace: 'team-a',
        name: 'payments',
      },
    ]);
  });

  it('caches identity and decisions by token until their TTLs pass', async () => {
    await authorizer.authorize(request('Bearer good'));
    clock += 19_000;
    await authorizer.authorize(request('Bearer good'));
    expect([reviewer.tokenCalls.length, reviewer.accessCalls.length]).toEqual([1, 1]);
    clock += 2_000; // decision (20 s) expired, identity (30 s) not
    await authorizer.authorize(request('Bearer good'));
    expect([reviewer.tokenCalls.length, reviewer.accessCalls.length]).toEqual([1, 2]);
    clock += 10_000;
    await authorizer.authorize(request('Bearer good'));
    expect([reviewer.tokenCalls.length, reviewer.accessCalls.length]).toEqual([2, 2]);
  });

  it('answers 403 naming the user and the missing permission', async () => {
    reviewer.allow = false;
    const problem = await problemOf(authorizer.authorize(request('Bearer good')));
    expect(problem.status).toBe(403);
    expect(problem.detail).toBe(
      'User "alice" cannot get restoretests.rehearsal.dev "payments" in namespace "rehearsal-system".',
    );
    expect(problem.toProblem('/x').missingPermissions).toEqual([
      {
        verb: 'get',
        group: 'rehearsal.dev',
        resource: 'restoretests',
        namespace: 'rehearsal-system',
        name: 'payments',
      },
    ]);
  });

  it('refuses a route without a declaration, before looking at the token', async () => {
    await expect(authorizer.authorize(request('Bearer good', { method: 'DELETE' }))).rejects.toThrow(
      'no RBAC declaration',
    );
    await expect(authorizer.authorize(request('Bearer good', { routePath: undefined }))).rejects.toThrow(
      'no RBAC declaration',
    );
    expect(reviewer.tokenCalls).toEqual([]);
  });
});

describe('TtlCache', () => {
  it('shares one load between concurrent callers and evicts the oldest beyond its bound', async () => {
    let now = 0;
    const cache = new TtlCache<number>(2, () => now);
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([
      cache.getOrLoad('k', load, () => 1000),
      cache.getOrLoad('k', load, () => 1000),
    ]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    await cache.getOrLoad('l', load, () => 1000);
    await cache.getOrLoad('m', load, () => 1000);
    expect(cache.size).toBe(2);
    expect(await cache.getOrLoad('k', load, () => 1000)).toBe(4); // evicted, loaded again
    now += 1001;
    expect(await cache.getOrLoad('m', load, () => 1000)).toBe(5); // expired
  });
});
