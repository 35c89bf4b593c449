// GET /api/v1/sandboxes and DELETE /api/v1/sandboxes/{name} (issue 26) through the generated
// client, checked against openapi.json, over the server's real SandboxAdmin and in-memory
// namespaces: every state is listed with why, only an orphan is removed (with its UID as the
// delete's precondition), anything else is a problem; both need `administer` cluster-wide.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { createRehearsalClient, type ProblemDetails } from '../../openapi/client.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;
const LATER = new Date(NOW.getTime() + 3_600_000).toISOString();

function labels(test: string, run: string, namespace = 'rehearsal-system'): Record<string, string> {
  return {
    'rehearsal.dev/managed-by': 'rehearsal',
    'rehearsal.dev/test': test,
    'rehearsal.dev/test-namespace': namespace,
    'rehearsal.dev/run': run,
  };
}

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  return problem;
}

let keptName = '';

beforeAll(async () => {
  server = await startTestServer({ contract });
  server.cluster.seedTest(restoreTest({ name: 'payments' }));
  const report = restoreReport({ test: 'payments', completedAt: NOW.toISOString(), result: 'fail' });
  server.cluster.seedReport(report);
  keptName = report.spec.sandboxNamespaces[0]!;
  server.namespaces.add(keptName, labels('payments', report.spec.runId), { 'rehearsal.dev/expires-at': LATER });
  server.namespaces.add('rehearsal-gone-abcde', labels('gone', 'abcde', 'team-a'), { 'rehearsal.dev/expires-at': LATER });
  server.namespaces.add('rehearsal-gone-abcdf', labels('gone', 'abcdf', 'team-a'), { 'rehearsal.dev/expires-at': LATER });
  server.namespaces.add('team-c-prod', labels('gone', 'abcde', 'team-a'));
  server.namespaces.add('team-d', {});
});

afterEach(() => {
  expect(contract.failures.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server.close();
});

describe('listSandboxes', () => {
  it('lists every labelled namespace by name, with its state and why', async () => {
    const { data, response } = await server.api.GET('/api/v1/sandboxes');
    expect(response.status).toBe(200);
    expect(data!.map((sandbox) => [sandbox.name, sandbox.state, sandbox.orphaned])).toEqual([
      ['rehearsal-gone-abcde', 'orphaned', true],
      ['rehearsal-gone-abcdf', 'orphaned', true],
      [keptName, 'kept', false],
      ['team-c-prod', 'unrecognised', false],
    ]);
    expect(data![0]).toEqual({
      name: 'rehearsal-gone-abcde',
      uid: server.namespaces.items.get('rehearsal-gone-abcde')!.metadata!.uid,
      test: 'gone',
      testNamespace: 'team-a',
      run: 'abcde',
      state: 'orphaned',
      orphaned: true,
      createdAt: '2026-03-15T10:00:00.000Z',
      expiresAt: LATER,
      message: `its test team-a/gone was deleted; kept until its expiry at ${LATER}`,
    });
  });

  it('lists only orphans with orphaned=true, and refuses a malformed flag', async () => {
    const { data } = await server.api.GET('/api/v1/sandboxes', { params: { query: { orphaned: true } } });
    expect(data!.map((sandbox) => sandbox.name)).toEqual(['rehearsal-gone-abcde', 'rehearsal-gone-abcdf']);
    const bad = await server.fetch('/api/v1/sandboxes?orphaned=maybe');
    expect(bad.status).toBe(400);
    expect((await bad.json()) as ProblemDetails).toMatchObject({ type: 'https://rehearsal.dev/problems/invalid-request' });
  });
});

describe('removeOrphanedSandbox', () => {
  it('removes an orphan at once, with its UID as the precondition', async () => {
    const uid = server.namespaces.items.get('rehearsal-gone-abcde')!.metadata!.uid!;
    const { response } = await server.api.DELETE('/api/v1/sandboxes/{name}', {
      params: { path: { name: 'rehearsal-gone-abcde' }, query: { uid } },
    });
    expect(response.status).toBe(204);
    expect(server.namespaces.deleted).toEqual([{ name: 'rehearsal-gone-abcde', uid }]);
    const { response: again } = await server.api.DELETE('/api/v1/sandboxes/{name}', {
      params: { path: { name: 'rehearsal-gone-abcdf' } },
    });
    expect(again.status).toBe(204);
  });

  it('refuses a sandbox that is not orphaned, an unrecognised one and another UID (409), nothing deleted', async () => {
    server.namespaces.deleted.length = 0;
    server.namespaces.add('rehearsal-gone-abcdg', labels('gone', 'abcdg', 'team-a'), { 'rehearsal.dev/expires-at': LATER });
    const remove = (name: string, uid?: string) =>
      server.api.DELETE('/api/v1/sandboxes/{name}', { params: { path: { name }, query: uid ? { uid } : {} } });
    const kept = expectProblem((await remove(keptName)).error, 409, 'conflict');
    expect(kept.detail).toContain(`namespace "${keptName}" is not an orphaned sandbox (kept:`);
    expectProblem((await remove('team-c-prod')).error, 409, 'conflict');
    const stale = expectProblem((await remove('rehearsal-gone-abcdg', '00000000-0000-4000-8000-999999999999')).error, 409, 'conflict');
    expect(stale.detail).toContain('nothing was removed');
    expect(server.namespaces.deleted).toEqual([]);
    expect(server.namespaces.items.has('rehearsal-gone-abcdg')).toBe(true);
  });

  it('answers 404 for a namespace that is not a sandbox, 400 for a malformed name or uid', async () => {
    const remove = (name: string, uid?: string) =>
      server.api.DELETE('/api/v1/sandboxes/{name}', { params: { path: { name }, query: uid ? { uid } : {} } });
    expectProblem((await remove('team-d')).error, 404, 'not-found');
    expectProblem((await remove('no-such-namespace')).error, 404, 'not-found');
    expectProblem((await remove('Not_A_Name')).error, 400, 'invalid-request');
    expectProblem((await remove('rehearsal-gone-abcdg', 'not a uid')).error, 400, 'invalid-request');
    expect(server.namespaces.deleted).toEqual([]);
  });
});

describe('who may', () => {
  class Reviewer implements AccessReviewer {
    readonly reviews: PermissionDescriptor[] = [];
    async reviewToken(token: string): Promise<ReviewedUser | null> {
      return { 'admin-token': { username: 'alice', groups: [] }, 'editor-token': { username: 'bob', groups: [] } }[token] ?? null;
    }
    async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
      this.reviews.push(permission);
      return { allowed: user.username === 'alice' || permission.verb !== 'administer' };
    }
  }

  it('needs administer restoretests.rehearsal.dev cluster-wide; a non-admin gets 403 naming it', async () => {
    const reviewer = new Reviewer();
    const secured = await startTestServer({ authMode: 'kubernetes', reviewer, contract });
    try {
      secured.namespaces.add('rehearsal-gone-abcde', labels('gone', 'abcde', 'team-a'));
      const as = (token: string) => createRehearsalClient({ baseUrl: secured.baseUrl, fetch: contract.fetch(), token });
      const listed = await as('editor-token').GET('/api/v1/sandboxes');
      const problem = expectProblem(listed.error, 403, 'forbidden');
      expect(problem.missingPermissions).toEqual([{ verb: 'administer', group: 'rehearsal.dev', resource: 'restoretests' }]);
      expect(problem.detail).toContain('administer');
      const removed = await as('editor-token').DELETE('/api/v1/sandboxes/{name}', { params: { path: { name: 'rehearsal-gone-abcde' } } });
      expectProblem(removed.error, 403, 'forbidden');
      expect(secured.namespaces.items.has('rehearsal-gone-abcde')).toBe(true);
      expect((await as('admin-token').GET('/api/v1/sandboxes')).data!.map((sandbox) => sandbox.name)).toEqual(['rehearsal-gone-abcde']);
      expect(reviewer.reviews).toContainEqual({ verb: 'administer', group: 'rehearsal.dev', resource: 'restoretests' });
    } finally {
      await secured.close();
    }
  });
});
