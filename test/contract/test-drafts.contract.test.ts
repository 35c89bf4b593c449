// GET /api/v1/test-drafts through the generated client, checked against openapi.json (issue 32):
// drafts for the backed-up namespaces without a test, or the ones named; a caller who may not list
// a namespace's workloads gets nothing of it and the answer says so; nothing is written.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { createRehearsalClient, type ProblemDetails } from '../../openapi/client.js';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreTest } from './support/fake-cluster.js';
import { startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  return problem;
}

function seedShop(target: TestServer): void {
  target.workloads.facts.set('shop', {
    workloads: [
      {
        kind: 'Deployment',
        name: 'web',
        replicas: 2,
        selector: { app: 'web' },
        podLabels: { app: 'web' },
        containers: [
          { name: 'web', image: 'example/shop-web:1.4', ports: [{ name: 'http', containerPort: 8080 }], httpProbes: [{ probe: 'readiness', path: '/healthz', port: 'http' }], env: [], envFromSecrets: [] },
        ],
      },
      {
        kind: 'StatefulSet',
        name: 'db',
        replicas: 1,
        selector: { app: 'db' },
        podLabels: { app: 'db' },
        containers: [
          {
            name: 'postgres',
            image: 'postgres:16',
            ports: [{ containerPort: 5432 }],
            httpProbes: [],
            env: [
              { name: 'POSTGRES_DB', value: 'shop' },
              { name: 'POSTGRES_USER', secretKeyRef: { name: 'db-credentials', key: 'username' } },
              { name: 'POSTGRES_PASSWORD', secretKeyRef: { name: 'db-credentials', key: 'password' } },
            ],
            envFromSecrets: [],
          },
        ],
      },
    ],
    services: [
      { name: 'web', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
      { name: 'db', selector: { app: 'db' }, ports: [{ port: 5432 }] },
    ],
  });
}

beforeAll(async () => {
  server = await startTestServer({ contract });
  // The fake inventory backs up payments, shop and ledger nightly (0 1 * * *) and archive once.
  server.cluster.seedTest(restoreTest({ name: 'payments' }));
  seedShop(server);
});

afterAll(async () => {
  await server.close();
});

describe('test drafts', () => {
  it('drafts a test for every backed-up namespace without one, from its schedule and workloads', async () => {
    const testsBefore = server.cluster.listTests().length;
    const { data, response } = await server.api.GET('/api/v1/test-drafts');
    expect(response.status).toBe(200);
    expect(data!.testNamespace).toBe('rehearsal-system');
    expect(data!.drafts.map((draft) => draft.namespace).sort()).toEqual(['archive', 'ledger', 'shop']);
    expect(data!.skipped).toEqual([]);
    const shop = data!.drafts.find((draft) => draft.namespace === 'shop')!;
    expect(shop.test.metadata).toEqual({
      name: 'shop-restore',
      namespace: 'rehearsal-system',
      annotations: {
        'rehearsal.dev/generated-from': 'velero Schedule/nightly',
        'rehearsal.dev/generated-todo': expect.stringContaining('check db-data: write sqlQuery.query'),
      },
    });
    expect(shop.test.spec).toMatchObject({
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] },
      schedule: { cron: '0 2 * * *', timezone: 'UTC' },
    });
    expect(shop.test.spec.healthChecks!.checks.map((check) => `${check.kind}/${check.name}`)).toEqual([
      'podsReady/web-pods',
      'podsReady/db-pods',
      'httpGet/web-80-ready',
      'sqlQuery/db-data',
      'tcpSocket/db-5432-tcp',
      'tcpSocket/web-80-tcp',
    ]);
    expect(shop.test.spec.healthChecks!.checks.find((check) => check.kind === 'sqlQuery')!.sqlQuery).toMatchObject({
      engine: 'postgres',
      service: 'db',
      database: 'shop',
      credentialsSecret: { name: 'db-credentials', usernameKey: 'username', passwordKey: 'password' },
      expectedMinRows: 1,
    });
    expect(shop.yaml).toBeUndefined();
    const archive = data!.drafts.find((draft) => draft.namespace === 'archive')!;
    expect(archive.test.spec.schedule.cron).toBe('0 4 * * *');
    expect(archive.test.spec.healthChecks).toBeUndefined();
    expect(archive.notes.join(' ')).toContain('only one-off backups');
    // Nothing was written.
    expect(server.cluster.listTests()).toHaveLength(testsBefore);
  });

  it('drafts the namespaces named, tested or not, says which are not backed up, and renders YAML on request', async () => {
    const { data } = await server.api.GET('/api/v1/test-drafts', {
      params: { query: { sourceNamespace: ['payments', 'nowhere', 'shop'], namespace: 'team-a', yaml: true } },
    });
    expect(data!.drafts.map((draft) => draft.namespace)).toEqual(['payments', 'shop']);
    expect(data!.skipped).toEqual([{ namespace: 'nowhere', reason: 'not-backed-up', message: expect.stringContaining('"nowhere"') }]);
    const shop = data!.drafts.find((draft) => draft.namespace === 'shop')!;
    expect(shop.test.metadata.namespace).toBe('team-a');
    expect(shop.yaml).toMatch(/^# backed up by velero Schedule nightly/);
    expect(shop.yaml).toContain('# TODO check db-data');
    expect(parse(shop.yaml!)).toEqual(shop.test);
  });

  it('answers 400 naming each malformed sourceNamespace', async () => {
    const { error } = await server.api.GET('/api/v1/test-drafts', { params: { query: { sourceNamespace: ['shop', 'Not_A_Name'] } } });
    const problem = expectProblem(error, 400, 'invalid-request');
    expect(problem.errors).toEqual([{ field: 'sourceNamespace[1]', message: expect.stringContaining('RFC 1123') }]);
  });

  it('lists a namespace the server itself cannot read as unreadable, and drafts the others', async () => {
    server.workloads.forbidden.add('ledger');
    try {
      const { data } = await server.api.GET('/api/v1/test-drafts');
      expect(data!.drafts.map((draft) => draft.namespace).sort()).toEqual(['archive', 'shop']);
      expect(data!.skipped).toEqual([{ namespace: 'ledger', reason: 'unreadable', message: expect.stringContaining('Forbidden') }]);
    } finally {
      server.workloads.forbidden.delete('ledger');
    }
  });

  it('answers 503 when the backup tool cannot be read, or the server has none', async () => {
    server.inventory.available = false;
    try {
      expectProblem((await server.api.GET('/api/v1/test-drafts')).error, 503, 'backup-tool-unavailable');
    } finally {
      server.inventory.available = true;
    }
    const bare = await startTestServer({ contract, withoutCoverage: true });
    try {
      expectProblem((await bare.api.GET('/api/v1/test-drafts')).error, 503, 'backup-tool-unavailable');
    } finally {
      await bare.close();
    }
  });
});

describe('applying a draft', () => {
  it('creates the drafted test of a namespace, its checks included; 409 the second time, 404 when not backed up, 400 for a bad name', async () => {
    const created = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'ledger' } } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toBe('/api/v1/tests/ledger-restore?namespace=rehearsal-system');
    expect(created.data).toMatchObject({ name: 'ledger-restore', namespace: 'rehearsal-system', sourceNamespaces: ['ledger'], schedule: '0 2 * * *' });
    const stored = server.cluster.getTest('rehearsal-system', 'ledger-restore')!;
    expect(stored.metadata.annotations).toEqual({ 'rehearsal.dev/generated-from': 'velero Schedule/nightly' });
    // An empty namespace: no inline checks, the default ones apply.
    expect(stored.spec.healthChecks).toBeUndefined();

    const shop = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' }, query: { namespace: 'team-a' } } });
    expect(shop.response.status).toBe(201);
    expect(server.cluster.getTest('team-a', 'shop-restore')!.spec.healthChecks!.checks.map((check) => check.name)).toContain('db-data');

    const again = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'ledger' } } });
    expectProblem(again.error, 409, 'already-exists');
    const nowhere = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'nowhere' } } });
    expectProblem(nowhere.error, 404, 'not-found');
    const bad = await server.api.POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'Bad_Name' } } });
    expect(expectProblem(bad.error, 400, 'invalid-request').errors).toEqual([{ field: 'sourceNamespace', message: expect.stringContaining('RFC 1123') }]);
    // The default drafts no longer include what now has a test.
    const { data } = await server.api.GET('/api/v1/test-drafts');
    expect(data!.drafts.map((draft) => draft.namespace)).toEqual(['archive']);
  });
});

describe('who sees what', () => {
  // alice may do everything; bob may not list Deployments in shop; carol may not list Velero's
  // schedules; dave may not read Secrets (so may not restore anything).
  class Reviewer implements AccessReviewer {
    readonly reviews: { user: string; permission: PermissionDescriptor }[] = [];
    async reviewToken(token: string): Promise<ReviewedUser | null> {
      return ({ alice: { username: 'alice', groups: [] }, bob: { username: 'bob', groups: [] }, carol: { username: 'carol', groups: [] }, dave: { username: 'dave', groups: [] } } as Record<string, ReviewedUser>)[token] ?? null;
    }
    async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
      this.reviews.push({ user: user.username, permission });
      if (user.username === 'bob') return { allowed: !(permission.namespace === 'shop' && permission.resource === 'deployments') };
      if (user.username === 'carol') return { allowed: permission.resource !== 'schedules' };
      if (user.username === 'dave') return { allowed: permission.resource !== 'secrets' };
      return { allowed: true };
    }
  }

  it('drafts nothing of a namespace the caller may not list, names the missing permission, and reads nothing of it', async () => {
    const reviewer = new Reviewer();
    const secured = await startTestServer({ authMode: 'kubernetes', reviewer, contract });
    try {
      seedShop(secured);
      const as = (token: string) => createRehearsalClient({ baseUrl: secured.baseUrl, fetch: contract.fetch(), token });

      const forAlice = (await as('alice').GET('/api/v1/test-drafts')).data!;
      expect(forAlice.drafts.map((draft) => draft.namespace).sort()).toEqual(['archive', 'ledger', 'payments', 'shop']);
      expect(reviewer.reviews).toContainEqual({ user: 'alice', permission: { verb: 'list', group: 'apps', resource: 'statefulsets', namespace: 'shop' } });
      expect(reviewer.reviews).toContainEqual({ user: 'alice', permission: { verb: 'list', group: '', resource: 'services', namespace: 'shop' } });

      secured.workloads.reads.length = 0;
      const forBob = (await as('bob').GET('/api/v1/test-drafts')).data!;
      expect(forBob.drafts.map((draft) => draft.namespace).sort()).toEqual(['archive', 'ledger', 'payments']);
      expect(forBob.skipped).toEqual([
        {
          namespace: 'shop',
          reason: 'forbidden',
          message: expect.stringContaining('User "bob" cannot list deployments.apps in namespace "shop"'),
          missingPermissions: [{ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'shop' }],
        },
      ]);
      expect(secured.workloads.reads).not.toContain('shop');

      // Applying: bob may not read shop's workloads, dave may not read its Secrets (the restore right).
      expectProblem((await as('bob').POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' } } })).error, 403, 'forbidden');
      const forDave = await as('dave').POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' } } });
      expect(expectProblem(forDave.error, 403, 'forbidden').missingPermissions).toContainEqual(
        expect.objectContaining({ verb: 'get', resource: 'secrets', namespace: 'shop' }),
      );
      expect(secured.cluster.getTest('rehearsal-system', 'shop-restore')).toBeUndefined();
      const byAlice = await as('alice').POST('/api/v1/test-drafts/{sourceNamespace}', { params: { path: { sourceNamespace: 'shop' } } });
      expect(byAlice.response.status).toBe(201);
      expect(secured.cluster.getTest('rehearsal-system', 'shop-restore')!.metadata.annotations).toMatchObject({ 'rehearsal.dev/author': 'alice' });

      const forCarol = await as('carol').GET('/api/v1/test-drafts');
      const problem = expectProblem(forCarol.error, 403, 'forbidden');
      expect(problem.missingPermissions).toEqual([{ verb: 'list', group: 'velero.io', resource: 'schedules', namespace: 'velero' }]);
    } finally {
      await secured.close();
    }
  });

  it('was exercised with success and error answers', () => {
    expect([...(contract.exercised.get('draftTests') ?? [])]).toEqual(expect.arrayContaining([200, 400, 403, 503]));
    expect([...(contract.exercised.get('createDraftedTest') ?? [])]).toEqual(expect.arrayContaining([201, 400, 403, 404, 409]));
  });
});
