// Lists a tenant may read (issue 30), through the real app with a fake reviewer standing in for
// the apiserver's SubjectAccessReviews: a cluster-wide reader gets every namespace; a tenant who
// may list only in team-a gets team-a, told how many namespaces were left out; naming a namespace
// they may not list is a 403 problem; the aggregates (summary, daily, alerts, upcoming, coverage)
// count only what the tenant may read. Every answer is checked against openapi.json.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { createRehearsalClient, type ProblemDetails, type RehearsalApiClient } from '../../openapi/client.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { startTestServer, type TestServer } from './support/server.js';

const USERS: Record<string, ReviewedUser> = {
  'admin-token': { username: 'alice', groups: [] },
  'tenant-token': { username: 'carol', groups: [] },
  'auditor-token': { username: 'dave', groups: [] },
};

/** alice: everything; carol: Rehearsal lists in team-a, Velero's objects; dave: carol's, plus list namespaces. */
class TenantReviewer implements AccessReviewer {
  async reviewToken(token: string): Promise<ReviewedUser | null> {
    return USERS[token] ?? null;
  }

  async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
    if (user.username === 'alice') return { allowed: true };
    if (permission.group === 'velero.io') return { allowed: permission.namespace === 'velero' };
    if (permission.resource === 'namespaces') return { allowed: user.username === 'dave' };
    return { allowed: permission.verb === 'list' && permission.namespace === 'team-a' };
  }
}

const contract = new ContractValidator(loadDocument());
let server: TestServer;

function clientWith(token: string): RehearsalApiClient {
  return createRehearsalClient({ baseUrl: server.baseUrl, fetch: contract.fetch(), token });
}
const admin = (): RehearsalApiClient => clientWith('admin-token');
const tenant = (): RehearsalApiClient => clientWith('tenant-token');

const scheduled = { phase: 'Idle' as const, nextRunAt: '2026-03-16T02:00:00Z' };

beforeAll(async () => {
  server = await startTestServer({ authMode: 'kubernetes', reviewer: new TenantReviewer(), contract });
  server.cluster.seedTest(restoreTest({ name: 'payments', status: scheduled }));
  server.cluster.seedTest(restoreTest({ name: 'shop', namespace: 'team-a', sources: ['team-a'], status: scheduled }));
  server.cluster.seedTest(restoreTest({ name: 'ledger', namespace: 'team-b', sources: ['team-b'], status: scheduled }));
  server.cluster.seedReport(restoreReport({ test: 'payments', completedAt: '2026-03-15T06:00:00Z' }));
  server.cluster.seedReport(restoreReport({ test: 'shop', namespace: 'team-a', completedAt: '2026-03-15T06:10:00Z', result: 'fail' }));
  server.cluster.seedReport(restoreReport({ test: 'ledger', namespace: 'team-b', completedAt: '2026-03-15T06:20:00Z', result: 'fail' }));
  server.inventory.inventory = {
    schedules: [
      {
        name: 'nightly',
        cron: '0 1 * * *',
        paused: false,
        includedNamespaces: ['payments', 'team-a', 'team-b'],
        excludedNamespaces: [],
        lastBackup: '2026-03-15T01:04:10Z',
      },
    ],
    backups: [],
    clusterNamespaces: [],
  };
});

afterEach(() => {
  expect(contract.failures.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server.close();
});

const OMITTED = 'rehearsal-omitted-namespaces';
const OMITTED_NAMES = 'rehearsal-omitted-namespace-names';

describe('GET /api/v1/tests', () => {
  it('gives a cluster-wide reader every test and no omitted namespaces', async () => {
    const { data, response } = await admin().GET('/api/v1/tests');
    expect(data?.map((test) => `${test.namespace}/${test.name}`)).toEqual(['rehearsal-system/payments', 'team-a/shop', 'team-b/ledger']);
    expect(response.headers.get(OMITTED)).toBeNull();
  });

  it('gives a tenant their namespace and says how many were left out, not which', async () => {
    const { data, response } = await tenant().GET('/api/v1/tests');
    expect(response.status).toBe(200);
    expect(data?.map((test) => `${test.namespace}/${test.name}`)).toEqual(['team-a/shop']);
    expect(response.headers.get(OMITTED)).toBe('2');
    expect(response.headers.get(OMITTED_NAMES)).toBeNull();
  });

  it('names the left-out namespaces to a caller who may list namespaces', async () => {
    const { data, response } = await clientWith('auditor-token').GET('/api/v1/tests');
    expect(data?.map((test) => test.name)).toEqual(['shop']);
    expect(response.headers.get(OMITTED_NAMES)).toBe('rehearsal-system, team-b');
  });

  it('answers the namespace asked for, and a 403 problem for one the tenant may not list', async () => {
    const mine = await tenant().GET('/api/v1/tests', { params: { query: { namespace: 'team-a' } } });
    expect(mine.data?.map((test) => test.name)).toEqual(['shop']);
    expect(mine.response.headers.get(OMITTED)).toBeNull();
    const theirs = await tenant().GET('/api/v1/tests', { params: { query: { namespace: 'team-b' } } });
    expect(theirs.response.status).toBe(403);
    expect(theirs.response.headers.get('content-type')).toContain('application/problem+json');
    expect((theirs.error as ProblemDetails).missingPermissions).toEqual([
      { verb: 'list', group: 'rehearsal.dev', resource: 'restoretests', namespace: 'team-b' },
    ]);
  });

  it('narrows a cluster-wide reader to the namespace asked for', async () => {
    const { data } = await admin().GET('/api/v1/tests', { params: { query: { namespace: 'team-b' } } });
    expect(data?.map((test) => test.name)).toEqual(['ledger']);
  });
});

describe('GET /api/v1/reports', () => {
  it('pages and latest lists hold only the tenant’s reports', async () => {
    for (const latest of [false, true]) {
      const { data, response } = await tenant().GET('/api/v1/reports', { params: { query: { latest } } });
      expect(data?.map((report) => report.metadata.namespace)).toEqual(['team-a']);
      expect(response.headers.get(OMITTED)).toBe('2');
    }
    const { data } = await admin().GET('/api/v1/reports');
    expect(data).toHaveLength(3);
  });

  it('refuses another namespace’s test with a 403', async () => {
    const { response } = await tenant().GET('/api/v1/reports', { params: { query: { test: 'ledger', namespace: 'team-b' } } });
    expect(response.status).toBe(403);
  });
});

describe('aggregates count only what the tenant may read', () => {
  it('summary', async () => {
    const mine = await tenant().GET('/api/v1/summary');
    expect(mine.data).toMatchObject({ totalTests: 1, testsLastNight: 1, totalFailures: 1, namespacesCovered: 1 });
    expect(mine.response.headers.get(OMITTED)).toBe('2');
    const all = await admin().GET('/api/v1/summary');
    expect(all.data).toMatchObject({ totalTests: 3, testsLastNight: 3, totalFailures: 2, namespacesCovered: 3 });
  });

  it('daily', async () => {
    const mine = await tenant().GET('/api/v1/summary/daily', { params: { query: { days: 1 } } });
    expect(mine.data).toEqual([{ date: '2026-03-15', score: 40, tests: 1, failures: 1 }]);
    const all = await admin().GET('/api/v1/summary/daily', { params: { query: { days: 1 } } });
    expect(all.data?.[0]).toMatchObject({ tests: 3, failures: 2 });
  });

  it('alerts', async () => {
    const { data } = await tenant().GET('/api/v1/alerts');
    expect(data?.map((alert) => `${alert.namespace}/${alert.testName}`)).toEqual(['team-a/shop']);
    expect((await admin().GET('/api/v1/alerts')).data).toHaveLength(2);
  });

  it('upcoming', async () => {
    const { data } = await tenant().GET('/api/v1/upcoming');
    expect(data?.map((entry) => entry.name)).toEqual(['shop']);
    expect((await admin().GET('/api/v1/upcoming')).data).toHaveLength(3);
  });

  it('coverage', async () => {
    const { data, response } = await tenant().GET('/api/v1/coverage');
    expect(response.status).toBe(200);
    expect(data?.namespaces.map((entry) => [entry.namespace, entry.tests])).toEqual([['team-a', ['team-a/shop']]]);
    expect(data).toMatchObject({ backedUp: 1 });
    expect(response.headers.get(OMITTED)).toBe('2');
    expect((await admin().GET('/api/v1/coverage')).data?.backedUp).toBe(3);
  });
});
