// REHEARSAL_AUTH_MODE=kubernetes through the real app: bearer token → TokenReview →
// SubjectAccessReview per declared permission (x-rehearsal-rbac), with a fake reviewer standing in
// for the apiserver. 401/403 are problems that name what is missing, and validate against the spec.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { KubeError } from '../../server/kube/errors.js';
import { createRehearsalClient, type ProblemDetails, type RehearsalApiClient } from '../../openapi/client.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreTest } from './support/fake-cluster.js';
import { startTestServer, type TestServer } from './support/server.js';

class FakeReviewer implements AccessReviewer {
  tokenReviews = 0;
  readonly reviews: (PermissionDescriptor & { user: string })[] = [];
  unavailable = false;
  private readonly users: Record<string, ReviewedUser> = {
    'admin-token': { username: 'alice', groups: ['system:authenticated', 'rehearsal-admins'] },
    'viewer-token': { username: 'bob', groups: ['system:authenticated'] },
  };

  async reviewToken(token: string): Promise<ReviewedUser | null> {
    this.tokenReviews += 1;
    if (this.unavailable) throw new KubeError('Unavailable', 503, 'apiserver overloaded');
    return this.users[token] ?? null;
  }

  async reviewNonResourceAccess(user: ReviewedUser, verb: string, path: string): Promise<{ allowed: boolean }> {
    return { allowed: user.username === 'alice' && verb === 'get' && path === '/metrics' };
  }

  async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
    this.reviews.push({ user: user.username, ...permission });
    if (user.username === 'alice') return { allowed: true };
    return { allowed: permission.verb === 'get' || permission.verb === 'list' };
  }
}

const contract = new ContractValidator(loadDocument());
const reviewer = new FakeReviewer();
let server: TestServer;

function clientWith(token?: string): RehearsalApiClient {
  return createRehearsalClient({
    baseUrl: server.baseUrl,
    fetch: contract.fetch(),
    ...(token ? { token } : {}),
  });
}

beforeAll(async () => {
  server = await startTestServer({ authMode: 'kubernetes', reviewer, contract, triggerWaitMs: 500 });
  server.cluster.seedTest(restoreTest({ name: 'payments' }));
  server.cluster.seedTest(restoreTest({ name: 'shop', namespace: 'team-a' }));
});

afterEach(() => {
  expect(contract.failures.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server.close();
});

describe('unauthenticated paths', () => {
  it('serve health, the OpenAPI document and Swagger UI without a token', async () => {
    for (const path of ['/api/v1/health', '/openapi.json', '/docs/']) {
      expect([path, (await server.rawFetch(path)).status]).toEqual([path, 200]);
    }
    expect(reviewer.tokenReviews).toBe(0);
  });

  it('serve /metrics only to a user allowed to get /metrics (issue 26)', async () => {
    expect((await server.rawFetch('/metrics')).status).toBe(401);
    expect((await server.rawFetch('/metrics', { headers: { authorization: 'Bearer viewer-token' } })).status).toBe(403);
    expect((await server.rawFetch('/metrics', { headers: { authorization: 'Bearer admin-token' } })).status).toBe(200);
  });

  it('publishes the committed OpenAPI document, security requirements included', async () => {
    expect(await (await server.rawFetch('/openapi.json')).json()).toEqual(loadDocument());
  });
});

describe('authentication', () => {
  it('answers 401 with a Bearer challenge when no token is sent', async () => {
    const { error, response } = await clientWith().GET('/api/v1/tests');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="rehearsal"');
    expect((error as ProblemDetails).type).toBe('https://rehearsal.dev/problems/unauthenticated');
  });

  it('answers 401 invalid_token when the cluster rejects the token', async () => {
    const { error, response } = await clientWith('stolen').GET('/api/v1/tests');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((error as ProblemDetails).detail).toBe('The Kubernetes API did not accept the bearer token.');
  });

  it('answers 503 when the apiserver cannot review the token, and does not remember the failure', async () => {
    reviewer.unavailable = true;
    const down = await clientWith('fresh-token').GET('/api/v1/upcoming');
    expect(down.response.status).toBe(503);
    expect((down.error as ProblemDetails).type).toBe('https://rehearsal.dev/problems/kubernetes-unavailable');
    reviewer.unavailable = false;
    const before = reviewer.tokenReviews;
    const again = await clientWith('fresh-token').GET('/api/v1/upcoming');
    expect(again.response.status).toBe(401);
    expect(reviewer.tokenReviews).toBe(before + 1);
  });
});

describe('authorization', () => {
  it('asks cluster-wide list permissions for aggregates, and caches answers per token', async () => {
    const viewer = clientWith('viewer-token');
    reviewer.reviews.length = 0;
    const tokenReviewsBefore = reviewer.tokenReviews;
    expect((await viewer.GET('/api/v1/summary')).response.status).toBe(200);
    expect((await viewer.GET('/api/v1/summary')).response.status).toBe(200);
    expect(reviewer.reviews).toEqual([
      { user: 'bob', verb: 'list', group: 'rehearsal.dev', resource: 'restoretests' },
      { user: 'bob', verb: 'list', group: 'rehearsal.dev', resource: 'restorereports' },
    ]);
    expect(reviewer.tokenReviews - tokenReviewsBefore).toBe(1);
  });

  it('asks namespaced, named permissions for one test', async () => {
    reviewer.reviews.length = 0;
    const { response } = await clientWith('viewer-token').GET('/api/v1/tests/{name}', {
      params: { path: { name: 'shop' }, query: { namespace: 'team-a' } },
    });
    expect(response.status).toBe(200);
    expect(reviewer.reviews).toEqual([
      {
        user: 'bob',
        verb: 'get',
        group: 'rehearsal.dev',
        resource: 'restoretests',
        namespace: 'team-a',
        name: 'shop',
      },
    ]);
  });

  it('narrows the reports permission to the namespace when filtered', async () => {
    reviewer.reviews.length = 0;
    const admin = clientWith('admin-token'); // bob's cluster-wide answer is already cached
    await admin.GET('/api/v1/reports', { params: { query: { test: 'payments' } } });
    await admin.GET('/api/v1/reports');
    expect(reviewer.reviews.map((review) => review.namespace ?? '(cluster)')).toEqual([
      'rehearsal-system',
      '(cluster)',
    ]);
  });

  it('answers 403 naming the missing permission (create in the body namespace)', async () => {
    const { error, response } = await clientWith('viewer-token').POST('/api/v1/tests', {
      body: {
        name: 'orders',
        namespace: 'team-a',
        provider: 'velero',
        sourceNamespaces: ['orders'],
        cron: '@daily',
      },
    });
    expect(response.status).toBe(403);
    const problem = error as ProblemDetails;
    expect(problem.detail).toBe('User "bob" cannot create restoretests.rehearsal.dev in namespace "team-a".');
    expect(problem.missingPermissions).toEqual([
      { verb: 'create', group: 'rehearsal.dev', resource: 'restoretests', namespace: 'team-a' },
    ]);
    expect(server.cluster.getTest('team-a', 'orders')).toBeUndefined();
  });

  it('authorizes trigger as create on restoretests/trigger for the named test', async () => {
    const denied = await clientWith('viewer-token').POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'payments' } },
    });
    expect(denied.response.status).toBe(403);
    expect((denied.error as ProblemDetails).detail).toBe(
      'User "bob" cannot create restoretests/trigger.rehearsal.dev "payments" in namespace "rehearsal-system".',
    );
    reviewer.reviews.length = 0;
    const allowed = await clientWith('admin-token').POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'payments' } },
    });
    expect(allowed.response.status).toBe(200);
    expect(reviewer.reviews).toEqual([
      {
        user: 'alice',
        verb: 'create',
        group: 'rehearsal.dev',
        resource: 'restoretests',
        subresource: 'trigger',
        namespace: 'rehearsal-system',
        name: 'payments',
      },
    ]);
  });

  it('asks for Velero schedules in the Velero namespace', async () => {
    reviewer.reviews.length = 0;
    expect((await clientWith('viewer-token').GET('/api/v1/schedules')).response.status).toBe(200);
    expect(reviewer.reviews).toEqual([
      { user: 'bob', verb: 'list', group: 'velero.io', resource: 'schedules', namespace: 'velero' },
    ]);
  });

  it('lets a permitted user write', async () => {
    const admin = clientWith('admin-token');
    const created = await admin.POST('/api/v1/tests', {
      body: { name: 'orders', provider: 'velero', sourceNamespaces: ['orders'], cron: '@daily' },
    });
    expect(created.response.status).toBe(201);
    const deleted = await admin.DELETE('/api/v1/tests/{name}', { params: { path: { name: 'orders' } } });
    expect(deleted.response.status).toBe(204);
  });
});
