// Contract tests: the real app in-process over in-memory fakes, every operation called through
// the generated openapi-fetch client, every answer (success and error) checked against
// openapi/openapi.json by ContractValidator (status documented, media type, schema, headers).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ANNOTATION_TRIGGER } from '../../server/domain/resources/resources.js';
import { KubeError } from '../../server/kube/errors.js';
import type { ProblemDetails } from '../../openapi/client.js';
import { withoutSecurityRequirements } from '../../server/api/openapi-document.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;

const hoursAgo = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();
const minimal = { name: 'orders', provider: 'velero' as const, sourceNamespaces: ['orders'], cron: '0 3 * * *' };

function seed(target: TestServer): void {
  const cluster = target.cluster;
  cluster.seedTest(
    restoreTest({
      name: 'payments',
      sources: ['payments', 'payments-db'],
      maxRTO: '15m',
      status: {
        phase: 'Completed',
        lastScore: 95,
        lastResult: 'pass',
        lastRunAt: hoursAgo(10),
        nextRunAt: '2026-03-16T02:00:00Z',
      },
    }),
  );
  cluster.seedTest(
    restoreTest({
      name: 'shop',
      namespace: 'team-a',
      status: {
        phase: 'Failed',
        lastScore: 40,
        lastResult: 'fail',
        lastRunAt: hoursAgo(2),
        nextRunAt: '2026-03-15T14:00:00Z',
      },
    }),
  );
  cluster.seedTest(
    restoreTest({
      name: 'busy',
      status: {
        phase: 'Running',
        currentRun: {
          id: 'a1b2c',
          trigger: 'schedule',
          scheduledAt: hoursAgo(1),
          queuedAt: hoursAgo(1),
          stage: 'Restoring',
        },
      },
    }),
  );
  cluster.seedTest(
    restoreTest({
      name: 'kubectl-tuned',
      spec: {
        schedule: { cron: '0 4 * * *', timezone: 'UTC', suspend: true },
        sandbox: {
          namespacePrefix: 'rt',
          ttl: '2h',
          networkIsolation: 'none',
          resourceQuota: { hard: { pods: '20' } },
        },
        healthChecks: { checks: [{ name: 'api', kind: 'httpGet', httpGet: { service: 'api', port: 8080 } }] },
      },
    }),
  );
  for (const [hours, result] of [
    [200, 'pass'],
    [50, 'pass'],
    [30, 'partial'],
    [10, 'pass'],
  ] as const) {
    cluster.seedReport(
      restoreReport({
        test: 'payments',
        completedAt: hoursAgo(hours),
        result,
        rtoSeconds: 700,
        rtoTarget: '15m',
      }),
    );
  }
  cluster.seedReport(
    restoreReport({ test: 'shop', namespace: 'team-a', completedAt: hoursAgo(26), result: 'pass' }),
  );
  cluster.seedReport(
    restoreReport({ test: 'shop', namespace: 'team-a', completedAt: hoursAgo(2), result: 'fail', score: 40 }),
  );
}

beforeAll(async () => {
  server = await startTestServer({ contract, triggerWaitMs: 500 });
  seed(server);
});

afterEach(() => {
  const failures = contract.failures.splice(0);
  expect(failures).toEqual([]);
});

afterAll(async () => {
  await server.close();
});

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  expect(typeof problem.detail).toBe('string');
  expect(typeof problem.instance).toBe('string');
  return problem;
}

describe('health', () => {
  it('reports ok once the caches are loaded', async () => {
    const { data, response } = await server.api.GET('/api/v1/health');
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'ok' });
  });

  it('reports starting before, while read endpoints answer 503 not-ready', async () => {
    server.cluster.synced = false;
    try {
      expect((await server.api.GET('/api/v1/health')).data).toEqual({ status: 'starting' });
      const { error, response } = await server.api.GET('/api/v1/summary');
      expectProblem(error, 503, 'not-ready');
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      server.cluster.synced = true;
    }
  });
});

describe('dashboard', () => {
  it('summarises the last 24 hours', async () => {
    const { data } = await server.api.GET('/api/v1/summary');
    expect(data).toEqual({
      averageScore: Math.round((95 + 40) / 2),
      totalTests: 4,
      testsLastNight: 2,
      totalFailures: 1,
      totalPartial: 0,
      averageRTO: '10m50s',
      namespacesCovered: 5,
    });
  });

  it('gives one day per entry, oldest first, 30 by default', async () => {
    const all = await server.api.GET('/api/v1/summary/daily');
    expect(all.data).toHaveLength(30);
    expect(all.data!.at(-1)!.date).toBe('2026-03-15');
    const week = await server.api.GET('/api/v1/summary/daily', { params: { query: { days: 3 } } });
    expect(week.data!.map((day) => day.date)).toEqual(['2026-03-13', '2026-03-14', '2026-03-15']);
    expect(week.data!.at(-1)).toEqual({ date: '2026-03-15', score: 68, tests: 2, failures: 1 });
  });

  it.each([['0'], ['abc'], ['1.5'], ['3651']])(
    'rejects days=%s with a 400 naming the parameter',
    async (days) => {
      const { error } = await server.api.GET('/api/v1/summary/daily', {
        params: { query: { days: days as unknown as number } },
      });
      const problem = expectProblem(error, 400, 'invalid-request');
      expect(problem.errors).toEqual([expect.objectContaining({ field: 'days' })]);
    },
  );

  it('lists alerts newest first, 48 hours by default', async () => {
    const { data } = await server.api.GET('/api/v1/alerts');
    expect(data!.map((alert) => [alert.testName, alert.result])).toEqual([
      ['shop', 'fail'],
      ['payments', 'partial'],
    ]);
    expect(data![0]).toMatchObject({ namespace: 'team-a', score: 40, prevScore: 95 });
    const narrow = await server.api.GET('/api/v1/alerts', { params: { query: { hours: 1 } } });
    expect(narrow.data).toEqual([]);
    const bad = await server.api.GET('/api/v1/alerts', { params: { query: { hours: -5 } } });
    expectProblem(bad.error, 400, 'invalid-request');
  });

  it('lists upcoming runs soonest first, without suspended tests', async () => {
    const { data } = await server.api.GET('/api/v1/upcoming');
    expect(data).toEqual([
      { name: 'shop', namespace: 'team-a', nextRunAt: '2026-03-15T14:00:00Z', lastScore: 40, overdue: false },
      { name: 'payments', namespace: 'rehearsal-system', nextRunAt: '2026-03-16T02:00:00Z', lastScore: 95, overdue: false },
    ]);
  });
});

describe('tests: read', () => {
  it('lists every test as TestResponse, by namespace and name', async () => {
    const { data } = await server.api.GET('/api/v1/tests');
    expect(data!.map((test) => `${test.namespace}/${test.name}`)).toEqual([
      'rehearsal-system/busy',
      'rehearsal-system/kubectl-tuned',
      'rehearsal-system/payments',
      'team-a/shop',
    ]);
    expect(data!.find((test) => test.name === 'payments')).toEqual({
      name: 'payments',
      namespace: 'rehearsal-system',
      provider: 'velero',
      schedule: '0 2 * * *',
      phase: 'Completed',
      lastScore: 95,
      lastResult: 'pass',
      lastRunAt: hoursAgo(10),
      nextRunAt: '2026-03-16T02:00:00Z',
      sourceNamespaces: ['payments', 'payments-db'],
      rtoTarget: '15m',
      backupName: 'latest',
      timezone: 'UTC',
      onBackup: false,
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      healthCheckPolicy: '',
      rpoTarget: '',
      alertOnExceed: true,
      historyLimit: 90,
    });
  });

  it('reads one test, in the server namespace unless told otherwise', async () => {
    expect(
      (await server.api.GET('/api/v1/tests/{name}', { params: { path: { name: 'payments' } } })).data!.name,
    ).toBe('payments');
    const other = await server.api.GET('/api/v1/tests/{name}', {
      params: { path: { name: 'shop' }, query: { namespace: 'team-a' } },
    });
    expect(other.data!.namespace).toBe('team-a');
    const missing = await server.api.GET('/api/v1/tests/{name}', { params: { path: { name: 'shop' } } });
    expect(expectProblem(missing.error, 404, 'not-found').detail).toBe(
      'RestoreTest "shop" not found in namespace "rehearsal-system".',
    );
    const invalid = await server.api.GET('/api/v1/tests/{name}', {
      params: { path: { name: 'Not_A_Label' } },
    });
    expectProblem(invalid.error, 400, 'invalid-request');
  });
});

describe('tests: create', () => {
  it('creates with defaults: 201, Location, TestResponse', async () => {
    const { data, response } = await server.api.POST('/api/v1/tests', { body: minimal });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/api/v1/tests/orders?namespace=rehearsal-system');
    expect(data).toMatchObject({
      name: 'orders',
      namespace: 'rehearsal-system',
      phase: 'Idle',
      rtoTarget: '',
    });
    const stored = server.cluster.getTest('rehearsal-system', 'orders')!;
    expect(stored.spec).toEqual({
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'orders' }] },
      schedule: { cron: '0 3 * * *', timezone: 'UTC' },
      sandbox: { namespacePrefix: 'rehearsal', ttl: '1h', networkIsolation: 'strict' },
      historyLimit: 90,
    });
  });

  it('answers 409 when the name is taken in the namespace', async () => {
    const { error } = await server.api.POST('/api/v1/tests', { body: minimal });
    expect(expectProblem(error, 409, 'already-exists').detail).toContain('"orders" already exists');
  });

  it('creates in the body namespace, and treats null optional fields as omitted', async () => {
    const { data, response } = await server.api.POST('/api/v1/tests', {
      body: {
        ...minimal,
        namespace: 'team-b',
        maxRTO: '20m',
        alertOnExceed: true,
        timezone: null as unknown as string,
      },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/api/v1/tests/orders?namespace=team-b');
    expect(data).toMatchObject({ namespace: 'team-b', rtoTarget: '20m' });
  });

  it('takes an RPO target (maxRPO) into spec.sla and reads it back as rpoTarget', async () => {
    const { data, response } = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'with-rpo', maxRPO: '24h' },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'with-rpo', rtoTarget: '', rpoTarget: '24h', alertOnExceed: false });
    expect(server.cluster.getTest('rehearsal-system', 'with-rpo')!.spec.sla).toEqual({ maxRPO: '24h', alertOnExceed: false });
  });

  it('takes backupSelect randomWithin into spec.backupSource.select and reads it back (issue 32)', async () => {
    const backupSelect = { strategy: 'randomWithin' as const, within: '720h' };
    const { data, response } = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'sampled', backupSelect } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'sampled', backupName: 'latest', backupSelect });
    expect(server.cluster.getTest('rehearsal-system', 'sampled')!.spec.backupSource.select).toEqual(backupSelect);
    const read = await server.api.GET('/api/v1/tests/{name}', { params: { path: { name: 'sampled' } } });
    expect(read.data!.backupSelect).toEqual(backupSelect);
  });

  it('refuses a bad backupSelect window with a 400 problem naming the field', async () => {
    for (const within of ['30d', '30m', '9000h']) {
      const { error } = await server.api.POST('/api/v1/tests', {
        body: { ...minimal, name: 'bad-window', backupSelect: { strategy: 'randomWithin', within } },
      });
      expect([within, expectProblem(error, 400, 'invalid-request').errors]).toEqual([
        within,
        [{ field: 'backupSelect.within', message: expect.any(String) }],
      ]);
    }
    const named = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'bad-window', backupName: 'nightly', backupSelect: { strategy: 'randomWithin', within: '720h' } },
    });
    expect(expectProblem(named.error, 400, 'invalid-request').errors).toEqual([
      { field: 'backupSelect.strategy', message: 'randomWithin needs backupName latest' },
    ]);
    expect(server.cluster.getTest('rehearsal-system', 'bad-window')).toBeUndefined();
  });

  it('runs after new backups: onBackup without cron into spec.schedule.onBackup, read back (issue 32)', async () => {
    const { cron: _cron, ...withoutCron } = minimal;
    const { data, response } = await server.api.POST('/api/v1/tests', {
      body: { ...withoutCron, name: 'after-backup', onBackup: true, everyNthBackup: 3 },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'after-backup', schedule: '', nextRunAt: '', onBackup: true, everyNthBackup: 3 });
    expect(server.cluster.getTest('rehearsal-system', 'after-backup')!.spec.schedule).toEqual({ timezone: 'UTC', onBackup: { everyNth: 3 } });
  });

  it('refuses a schedule with neither cron nor onBackup, and a bad everyNthBackup, naming the field', async () => {
    const { cron: _cron, ...withoutCron } = minimal;
    const neither = await server.api.POST('/api/v1/tests', { body: { ...withoutCron, name: 'no-schedule' } });
    expect(expectProblem(neither.error, 400, 'invalid-request').errors).toEqual([
      { field: 'cron', message: 'is required unless onBackup is true' },
    ]);
    const zero = await server.api.POST('/api/v1/tests', { body: { ...withoutCron, name: 'no-schedule', onBackup: true, everyNthBackup: 0 } });
    expect(expectProblem(zero.error, 400, 'invalid-request').errors).toEqual([{ field: 'everyNthBackup', message: expect.any(String) }]);
    const alone = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'no-schedule', everyNthBackup: 2 } });
    expect(expectProblem(alone.error, 400, 'invalid-request').errors).toEqual([{ field: 'everyNthBackup', message: 'needs onBackup true' }]);
    expect(server.cluster.getTest('rehearsal-system', 'no-schedule')).toBeUndefined();
  });

  it('takes logCollection into spec.logCollection (the CRD fills in the defaults) and reads it back (issue 30)', async () => {
    const { data, response } = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'chatty', logCollection: { lines: 500, containers: 'all', previous: false } },
    });
    expect(response.status).toBe(201);
    expect(data!.logCollection).toEqual({ lines: 500, containers: 'all', initContainers: true, previous: false, events: true });
    expect(server.cluster.getTest('rehearsal-system', 'chatty')!.spec.logCollection).toEqual(data!.logCollection);
    const read = await server.api.GET('/api/v1/tests/{name}', { params: { path: { name: 'chatty' } } });
    expect(read.data!.logCollection).toEqual(data!.logCollection);
  });

  it('refuses a bad logCollection with a 400 problem naming each field', async () => {
    const { error, response } = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'bad-logs', logCollection: { lines: 1001, containers: 'crashing', events: 'yes', tail: 5 } } as never,
    });
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(expectProblem(error, 400, 'invalid-request').errors).toEqual(
      expect.arrayContaining([
        { field: 'logCollection.lines', message: 'must be between 1 and 1000' },
        { field: 'logCollection.containers', message: 'must be one of failing, all' },
        { field: 'logCollection.events', message: 'must be a boolean' },
        { field: 'logCollection.tail', message: 'is not a known field' },
      ]),
    );
    const zero = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'bad-logs', logCollection: { lines: 0 } } });
    expect(expectProblem(zero.error, 400, 'invalid-request').errors).toEqual([
      { field: 'logCollection.lines', message: 'must be between 1 and 1000' },
    ]);
    expect(server.cluster.getTest('rehearsal-system', 'bad-logs')).toBeUndefined();
  });

  it('refuses a bad maxRPO with a 400 naming the field, as it refuses a bad maxRTO', async () => {
    for (const maxRPO of ['1d', '0s', '1.5h']) {
      const { error } = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'bad-rpo', maxRPO } });
      expect([maxRPO, expectProblem(error, 400, 'invalid-request').errors]).toEqual([
        maxRPO,
        [{ field: 'maxRPO', message: expect.stringMatching(maxRPO === '0s' ? /longer than 0s/ : /units h, m, s/) }],
      ]);
    }
    const number = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'bad-rpo', maxRPO: 86400 } as never });
    expect(expectProblem(number.error, 400, 'invalid-request').errors).toEqual([{ field: 'maxRPO', message: 'must be a string' }]);
    expect(server.cluster.getTest('rehearsal-system', 'bad-rpo')).toBeUndefined();
  });

  it('restores a subset: labelSelector and includedResources go to spec.backupSource and read back (issue 32)', async () => {
    const labelSelector = { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['web'] }] };
    const includedResources = [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }];
    const { data, response } = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'subset', labelSelector, includedResources },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'subset', labelSelector, includedResources });
    expect(server.cluster.getTest('rehearsal-system', 'subset')!.spec.backupSource).toMatchObject({ labelSelector, includedResources });
    const read = await server.api.GET('/api/v1/tests/{name}', { params: { path: { name: 'subset' } } });
    expect(read.data).toMatchObject({ labelSelector, includedResources });
  });

  it('refuses a bad selector with a 400 problem naming the field, and a subset Trilio cannot express', async () => {
    const bad = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'bad-subset', labelSelector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['a'] }] } } as never,
    });
    expect(expectProblem(bad.error, 400, 'invalid-request').errors).toEqual([
      { field: 'labelSelector.matchExpressions[0].operator', message: 'must be one of In, NotIn, Exists, DoesNotExist' },
    ]);
    expect(bad.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const trilio = await server.api.POST('/api/v1/tests', {
      body: {
        ...minimal,
        name: 'bad-subset',
        provider: 'trilio',
        labelSelector: { matchLabels: { app: 'a' } },
        includedResources: [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }],
      },
    });
    expect(expectProblem(trilio.error, 400, 'invalid-request').errors).toEqual([
      { field: 'includedResources', message: expect.stringContaining('cannot be combined with labelSelector for provider trilio') },
    ]);
    expect(server.cluster.getTest('rehearsal-system', 'bad-subset')).toBeUndefined();
  });

  it('lists every offending field in one 400', async () => {
    const { error } = await server.api.POST('/api/v1/tests', {
      body: {
        name: 'Bad_Name',
        provider: 'tape',
        sourceNamespaces: ['ok', 'ok'],
        timezone: 'Mars/Olympus',
        historyLimit: 0,
        maxRto: '15m',
      } as never,
    });
    const problem = expectProblem(error, 400, 'invalid-request');
    expect(problem.errors!.map((each) => each.field).sort()).toEqual(
      ['cron', 'historyLimit', 'maxRto', 'name', 'provider', 'sourceNamespaces[1]', 'timezone'].sort(),
    );
    expect(problem.errors!.find((each) => each.field === 'maxRto')!.message).toBe('is not a known field');
  });

  it('rejects a body that is not an object, and a namespace that does not exist', async () => {
    const array = await server.api.POST('/api/v1/tests', { body: [] as never });
    expect(expectProblem(array.error, 400, 'invalid-request').errors).toEqual([
      { field: 'body', message: 'must be a JSON object' },
    ]);
    const nowhere = await server.api.POST('/api/v1/tests', {
      body: { ...minimal, name: 'lost', namespace: 'nowhere' },
    });
    expect(expectProblem(nowhere.error, 400, 'invalid-request').errors).toEqual([
      { field: 'namespace', message: '"nowhere" does not exist' },
    ]);
  });

  it('answers 400 for malformed JSON, 413 above 64 KiB, 415 for other media types', async () => {
    const malformed = await server.fetch('/api/v1/tests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "x",',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ProblemDetails).type).toBe(
      'https://rehearsal.dev/problems/malformed-body',
    );

    const huge = await server.fetch('/api/v1/tests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...minimal, backupName: 'x'.repeat(70 * 1024) }),
    });
    expect(huge.status).toBe(413);

    const text = await server.fetch('/api/v1/tests', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'name=orders',
    });
    expect(text.status).toBe(415);
  });

  it('maps apiserver failures: Invalid → 400 with causes, Unavailable → 503, anything else → 500 without internals', async () => {
    server.cluster.failNextWrite = new KubeError('Invalid', 422, 'RestoreTest.rehearsal.dev "x" is invalid', [
      { field: 'spec.schedule.cron', message: 'Invalid value' },
    ]);
    const invalid = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'x1' } });
    expect(expectProblem(invalid.error, 400, 'invalid-request').errors).toEqual([
      { field: 'spec.schedule.cron', message: 'Invalid value' },
    ]);

    server.cluster.failNextWrite = new KubeError('Unavailable', 0, 'connect ECONNREFUSED 10.0.0.1:6443');
    const down = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'x2' } });
    expect(expectProblem(down.error, 503, 'kubernetes-unavailable').detail).not.toContain('ECONNREFUSED');

    server.cluster.failNextWrite = new TypeError(
      "Cannot read properties of undefined (reading 'secret-internal')",
    );
    const broken = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'x3' } });
    const problem = expectProblem(broken.error, 500, 'internal-error');
    expect(JSON.stringify(problem)).not.toMatch(/secret-internal|TypeError|at /);
  });
});

describe('tests: replace', () => {
  it('takes back what GET returned without changing the spec (TestResponse carries every input field)', async () => {
    const created = await server.api.POST('/api/v1/tests', {
      body: {
        name: 'round-trip',
        namespace: 'team-b',
        provider: 'kasten',
        backupName: 'orders-weekly',
        sourceNamespaces: ['orders', 'orders-db'],
        cron: '15 1 * * 1-5',
        timezone: 'Europe/Berlin',
        namespacePrefix: 'rt',
        ttl: '3h',
        networkIsolation: 'none',
        healthCheckPolicy: 'orders-checks',
        maxRTO: '20m',
        maxRPO: '12h',
        alertOnExceed: true,
        historyLimit: 30,
      },
    });
    expect(created.response.status).toBe(201);
    const before = structuredClone(server.cluster.getTest('team-b', 'round-trip')!.spec);
    const read = (
      await server.api.GET('/api/v1/tests/{name}', {
        params: { path: { name: 'round-trip' }, query: { namespace: 'team-b' } },
      })
    ).data!;
    const { data, response } = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'round-trip' }, query: { namespace: 'team-b' } },
      body: {
        name: read.name,
        namespace: read.namespace,
        provider: read.provider as 'kasten',
        backupName: read.backupName,
        sourceNamespaces: read.sourceNamespaces,
        cron: read.schedule,
        timezone: read.timezone,
        namespacePrefix: read.namespacePrefix,
        ttl: read.ttl,
        networkIsolation: read.networkIsolation as 'none',
        healthCheckPolicy: read.healthCheckPolicy,
        maxRTO: read.rtoTarget,
        maxRPO: read.rpoTarget,
        alertOnExceed: read.alertOnExceed,
        historyLimit: read.historyLimit,
      },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual(read);
    expect(server.cluster.getTest('team-b', 'round-trip')!.spec).toEqual(before);
  });

  it('replaces what the body expresses and keeps what it cannot', async () => {
    const { data, response } = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'kubectl-tuned' } },
      body: {
        name: 'kubectl-tuned',
        provider: 'velero',
        sourceNamespaces: ['tuned'],
        cron: '30 5 * * *',
        maxRTO: '45m',
      },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({
      name: 'kubectl-tuned',
      schedule: '30 5 * * *',
      rtoTarget: '45m',
      nextRunAt: '',
    });
    const spec = server.cluster.getTest('rehearsal-system', 'kubectl-tuned')!.spec;
    expect(spec.schedule).toEqual({ cron: '30 5 * * *', timezone: 'UTC', suspend: true });
    expect(spec.sandbox).toEqual({
      namespacePrefix: 'rehearsal',
      ttl: '1h',
      networkIsolation: 'strict',
      resourceQuota: { hard: { pods: '20' } },
    });
    expect(spec.healthChecks!.checks).toHaveLength(1);
  });

  it('replaces a kubectl-set RPO target like the RTO target: the body\'s maxRPO, or none when omitted', async () => {
    server.cluster.seedTest(
      restoreTest({ name: 'rpo-set', spec: { sla: { maxRTO: '30m', maxRPO: '24h', alertOnExceed: true } } }),
    );
    const body = { name: 'rpo-set', provider: 'velero' as const, sourceNamespaces: ['rpo-set'], cron: '@daily' };
    const changed = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'rpo-set' } },
      body: { ...body, maxRTO: '30m', maxRPO: '6h', alertOnExceed: true },
    });
    expect(changed.data).toMatchObject({ rtoTarget: '30m', rpoTarget: '6h', alertOnExceed: true });
    expect(server.cluster.getTest('rehearsal-system', 'rpo-set')!.spec.sla).toEqual({
      maxRTO: '30m',
      maxRPO: '6h',
      alertOnExceed: true,
    });
    const omitted = await server.api.PUT('/api/v1/tests/{name}', { params: { path: { name: 'rpo-set' } }, body });
    expect(omitted.data).toMatchObject({ rtoTarget: '', rpoTarget: '', alertOnExceed: false });
    expect(server.cluster.getTest('rehearsal-system', 'rpo-set')!.spec.sla).toBeUndefined();
  });

  it('retries a resourceVersion conflict against the fresh object, and gives up with 409', async () => {
    server.cluster.conflictsToInject = 1;
    const once = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'kubectl-tuned' } },
      body: { name: 'kubectl-tuned', provider: 'velero', sourceNamespaces: ['tuned'], cron: '@daily' },
    });
    expect(once.response.status).toBe(200);
    server.cluster.conflictsToInject = 3;
    const always = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'kubectl-tuned' } },
      body: { name: 'kubectl-tuned', provider: 'velero', sourceNamespaces: ['tuned'], cron: '@daily' },
    });
    expectProblem(always.error, 409, 'conflict');
    server.cluster.conflictsToInject = 0;
  });

  it('answers 400 when the body names another test or namespace, together with other errors', async () => {
    const { error } = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'payments' } },
      body: {
        name: 'other',
        namespace: 'team-a',
        provider: 'velero',
        sourceNamespaces: ['payments'],
        cron: 'nope',
      },
    });
    const problem = expectProblem(error, 400, 'invalid-request');
    expect(problem.errors!.map((each) => each.field).sort()).toEqual(['cron', 'name', 'namespace']);
    expect(problem.errors!.find((each) => each.field === 'name')!.message).toBe(
      'must equal the name in the path ("payments")',
    );
  });

  it('answers 404 for a test that does not exist', async () => {
    const { error } = await server.api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'ghost' } },
      body: { name: 'ghost', provider: 'velero', sourceNamespaces: ['ghost'], cron: '@daily' },
    });
    expectProblem(error, 404, 'not-found');
  });
});

describe('tests: trigger', () => {
  it('starts a run: 200, phase Running, the engine acknowledged the request', async () => {
    const { data, response } = await server.api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'payments' } },
    });
    expect(response.status).toBe(200);
    expect(data!.phase).toBe('Running');
    const request = response.headers.get('rehearsal-trigger-request')!;
    expect(response.headers.get('rehearsal-trigger-state')).toBe('started');
    const stored = server.cluster.getTest('rehearsal-system', 'payments')!;
    expect(stored.metadata.annotations![ANNOTATION_TRIGGER]).toBe(request);
    expect(stored.status!.handledTrigger).toBe(request);
  });

  it('answers 409 while a run is in progress', async () => {
    const { error } = await server.api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'busy' } },
    });
    expect(expectProblem(error, 409, 'run-in-progress').detail).toContain(
      'run a1b2c is in progress (stage Restoring)',
    );
    const again = await server.api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'payments' } },
    });
    expectProblem(again.error, 409, 'run-in-progress');
  });

  it('answers 200 with state pending when no engine picks the request up, then 409 until it does', async () => {
    server.cluster.engine.running = false;
    try {
      const { data, response } = await server.api.POST('/api/v1/tests/{name}/trigger', {
        params: { path: { name: 'shop' }, query: { namespace: 'team-a' } },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('rehearsal-trigger-state')).toBe('pending');
      expect(data!.phase).toBe('Failed');
      const again = await server.api.POST('/api/v1/tests/{name}/trigger', {
        params: { path: { name: 'shop' }, query: { namespace: 'team-a' } },
      });
      expect(expectProblem(again.error, 409, 'run-in-progress').detail).toContain('not been picked up');
    } finally {
      server.cluster.engine.running = true;
    }
  });

  it('decides again after a conflict (someone started a run meanwhile)', async () => {
    server.cluster.seedTest(restoreTest({ name: 'racy', status: { phase: 'Completed' } }));
    // The cached copy still says Completed when the write meets a newer object that is Running.
    const cachedVersion = server.cluster.getTest('rehearsal-system', 'racy')!;
    const realGet = server.cluster.getTest.bind(server.cluster);
    let served = false;
    server.cluster.getTest = (namespace, name) => {
      if (name === 'racy' && !served) {
        served = true;
        return cachedVersion;
      }
      return realGet(namespace, name);
    };
    server.cluster.touch('rehearsal-system', 'racy', (test) => {
      test.status = {
        phase: 'Running',
        currentRun: {
          id: 'zz9zz',
          trigger: 'schedule',
          scheduledAt: NOW.toISOString(),
          queuedAt: NOW.toISOString(),
          stage: 'Preparing',
        },
      };
    });
    try {
      const { error } = await server.api.POST('/api/v1/tests/{name}/trigger', {
        params: { path: { name: 'racy' } },
      });
      expect(expectProblem(error, 409, 'run-in-progress').detail).toContain('zz9zz');
    } finally {
      server.cluster.getTest = realGet;
    }
  });

  it('answers 404 for a test that does not exist', async () => {
    const { error } = await server.api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name: 'ghost' } },
    });
    expectProblem(error, 404, 'not-found');
  });
});

describe('tests: delete', () => {
  it('answers 204, then 404', async () => {
    const first = await server.api.DELETE('/api/v1/tests/{name}', {
      params: { path: { name: 'orders' }, query: { namespace: 'team-b' } },
    });
    expect(first.response.status).toBe(204);
    expect(server.cluster.getTest('team-b', 'orders')).toBeUndefined();
    const second = await server.api.DELETE('/api/v1/tests/{name}', {
      params: { path: { name: 'orders' }, query: { namespace: 'team-b' } },
    });
    expectProblem(second.error, 404, 'not-found');
  });
});

describe('reports', () => {
  it('returns full RestoreReports of the last 30 days, newest first', async () => {
    const { data } = await server.api.GET('/api/v1/reports');
    expect(data!.map((report) => `${report.spec.testRef.name}:${report.spec.result}`)).toEqual([
      'shop:fail',
      'payments:pass',
      'shop:pass',
      'payments:partial',
      'payments:pass',
      'payments:pass',
    ]);
    expect(data![0]).toMatchObject({ apiVersion: 'rehearsal.dev/v1alpha1', kind: 'RestoreReport' });
    expect(data![0]!.metadata.ownerReferences![0]!.kind).toBe('RestoreTest');
  });

  it('filters by test, namespace, days and latest', async () => {
    const payments = await server.api.GET('/api/v1/reports', {
      params: { query: { test: 'payments', days: 3 } },
    });
    expect(payments.data!.map((report) => report.spec.result)).toEqual(['pass', 'partial', 'pass']);
    const shop = await server.api.GET('/api/v1/reports', {
      params: { query: { test: 'shop', namespace: 'team-a', latest: true } },
    });
    expect(shop.data!.map((report) => report.spec.result)).toEqual(['fail']);
    const latest = await server.api.GET('/api/v1/reports', { params: { query: { latest: true } } });
    expect(latest.data!.map((report) => report.spec.testRef.name)).toEqual(['shop', 'payments']);
    const teamA = await server.api.GET('/api/v1/reports', { params: { query: { namespace: 'team-a' } } });
    expect(teamA.data).toHaveLength(2);
  });

  it('filters by result, paged like the whole list', async () => {
    const passed = await server.api.GET('/api/v1/reports', { params: { query: { result: 'pass' } } });
    expect(passed.data!.map((report) => `${report.spec.testRef.name}:${report.spec.result}`)).toEqual([
      'payments:pass',
      'shop:pass',
      'payments:pass',
      'payments:pass',
    ]);
    const first = await server.api.GET('/api/v1/reports', { params: { query: { result: 'pass', limit: 3 } } });
    expect(first.data).toHaveLength(3);
    const next = /^<([^>]+)>; rel="next"$/.exec(first.response.headers.get('link') ?? '')![1]!;
    expect(new URLSearchParams(next.split('?')[1]).get('result')).toBe('pass');
    const rest = (await (await server.fetch(next)).json()) as { metadata: { name: string } }[];
    expect([...first.data!, ...rest].map((report) => report.metadata.name)).toEqual(passed.data!.map((report) => report.metadata.name));
    const failedOfShop = await server.api.GET('/api/v1/reports', {
      params: { query: { test: 'shop', namespace: 'team-a', result: 'fail' } },
    });
    expect(failedOfShop.data!.map((report) => report.spec.score)).toEqual([40]);
    const latestPartial = await server.api.GET('/api/v1/reports', { params: { query: { latest: true, result: 'partial' } } });
    expect(latestPartial.data).toEqual([]);
    const bad = await server.api.GET('/api/v1/reports', { params: { query: { result: 'maybe' as never } } });
    expect(expectProblem(bad.error, 400, 'invalid-request').errors![0]!.field).toBe('result');
  });

  it('answers 404 for an unknown test and 400 for malformed parameters', async () => {
    const unknown = await server.api.GET('/api/v1/reports', { params: { query: { test: 'ghost' } } });
    expectProblem(unknown.error, 404, 'not-found');
    const days = await server.api.GET('/api/v1/reports', { params: { query: { days: 0 } } });
    expectProblem(days.error, 400, 'invalid-request');
    const latest = await server.api.GET('/api/v1/reports', {
      params: { query: { latest: 'maybe' as unknown as boolean } },
    });
    expect(expectProblem(latest.error, 400, 'invalid-request').errors![0]!.field).toBe('latest');
  });
});

describe('reports: pages (decision 0011)', () => {
  const names = (reports: { metadata: { name: string } }[] | undefined) => (reports ?? []).map((report) => report.metadata.name);

  it('answers at most limit reports and names the next page in Link; the pages add up to the whole list', async () => {
    const whole = await server.api.GET('/api/v1/reports');
    expect(whole.response.headers.get('link')).toBeNull();
    const seen: string[] = [];
    let url: string | undefined = '/api/v1/reports?days=30&limit=4';
    const sizes: number[] = [];
    while (url) {
      const response = await server.fetch(url);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { metadata: { name: string } }[];
      sizes.push(page.length);
      seen.push(...names(page));
      const link = response.headers.get('link');
      if (!link) break;
      const match = /^<([^>]+)>; rel="next"$/.exec(link);
      expect(match).not.toBeNull();
      url = match![1]!;
      expect(new URLSearchParams(url.split('?')[1]).get('limit')).toBe('4');
    }
    expect(sizes).toEqual([4, 2]);
    expect(seen).toEqual(names(whole.data));
  });

  it('streams a page of more than 1,000 reports (identity and gzip), the same array, no ETag', async () => {
    const big = await startTestServer({ contract });
    try {
      for (let i = 0; i < 1_234; i += 1) {
        big.cluster.seedReport(restoreReport({ test: `bulk-${i % 50}`, completedAt: hoursAgo(1 + i / 100) }));
      }
      const plain = await big.fetch('/api/v1/reports?days=30&limit=5000', { headers: { 'accept-encoding': 'identity' } });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(plain.headers.get('etag')).toBeNull();
      const reports = (await plain.json()) as { metadata: { name: string }; spec: { completedAt: string } }[];
      expect(reports).toHaveLength(1_234);
      const times = reports.map((report) => report.spec.completedAt);
      expect(times).toEqual([...times].sort().reverse());
      const zipped = await big.rawFetch('/api/v1/reports?days=30&limit=5000', { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      // fetch inflates it: the same array.
      expect(names((await zipped.json()) as { metadata: { name: string } }[])).toEqual(names(reports));
      // Paged past 1,000: the first page streamed, its Link leads to the rest.
      const first = await big.fetch('/api/v1/reports?days=30&limit=1001');
      expect(((await first.json()) as unknown[]).length).toBe(1_001);
      expect(first.headers.get('link')).toMatch(/rel="next"$/);
    } finally {
      await big.close();
    }
  });

  it('keeps latest=true one report per test, not paged', async () => {
    const latest = await server.api.GET('/api/v1/reports', { params: { query: { latest: true, limit: 1 } } });
    expect(latest.data!.map((report) => report.spec.testRef.name)).toEqual(['shop', 'payments']);
    expect(latest.response.headers.get('link')).toBeNull();
  });

  it('rejects a limit out of range and a token it did not issue, naming the parameter', async () => {
    for (const [query, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 5001 }, 'limit'],
      [{ continue: 'bm90IGEgdG9rZW4' }, 'continue'],
    ] as const) {
      const { error } = await server.api.GET('/api/v1/reports', { params: { query } });
      expect(expectProblem(error, 400, 'invalid-request').errors!.map((entry) => entry.field)).toEqual([field]);
    }
  });
});

describe('compliance', () => {
  it.each(['soc2', 'iso27001', 'hipaa', 'dora', 'pcidss'] as const)(
    'evaluates %s over a period',
    async (framework) => {
      const { data } = await server.api.GET('/api/v1/compliance', {
        params: { query: { framework, period: 30 } },
      });
      expect(data).toMatchObject({ framework, period: 30, generatedAt: NOW.toISOString(), totalTests: 6 });
      expect(data!.controls.length).toBeGreaterThan(0);
      for (const control of data!.controls)
        expect(['satisfied', 'at_risk', 'not_tested']).toContain(control.status);
    },
  );

  it('answers 400 for an unknown framework and for missing parameters', async () => {
    const unknown = await server.api.GET('/api/v1/compliance', {
      params: { query: { framework: 'nist' as never, period: 30 } },
    });
    expect(expectProblem(unknown.error, 400, 'invalid-request').errors![0]!.field).toBe('framework');
    const missing = await server.api.GET('/api/v1/compliance', { params: { query: {} as never } });
    expect(
      expectProblem(missing.error, 400, 'invalid-request')
        .errors!.map((each) => each.field)
        .sort(),
    ).toEqual(['framework', 'period']);
    const zero = await server.api.GET('/api/v1/compliance', {
      params: { query: { framework: 'soc2', period: 0 } },
    });
    expectProblem(zero.error, 400, 'invalid-request');
  });

  it('serves the dashboard overview on /api/compliance, 90 days by default', async () => {
    const { data } = await server.api.GET('/api/compliance');
    expect(data!.period).toBe(90);
    expect(data!.frameworks.map((framework) => framework.framework)).toEqual([
      'soc2',
      'iso27001',
      'hipaa',
      'dora',
      'pcidss',
    ]);
    const thirty = await server.api.GET('/api/compliance', { params: { query: { period: 30 } } });
    expect(thirty.data!.tests.find((test) => test.name === 'payments')).toEqual({
      name: 'payments',
      namespace: 'rehearsal-system',
      passRate: 0.75,
      runs: 4,
    });
    const bad = await server.api.GET('/api/compliance', {
      params: { query: { period: 'x' as unknown as number } },
    });
    expectProblem(bad.error, 400, 'invalid-request');
  });
});

describe('schedules', () => {
  it('lists Velero schedules, and answers 503 when Velero is absent', async () => {
    const { data } = await server.api.GET('/api/v1/schedules');
    expect(data).toEqual(server.schedules.schedules);
    server.schedules.available = false;
    try {
      const { error } = await server.api.GET('/api/v1/schedules');
      expect(expectProblem(error, 503, 'backup-tool-unavailable').detail).toContain('is Velero installed?');
    } finally {
      server.schedules.available = true;
    }
  });

  it('answers 503 when the server has no schedule source at all', async () => {
    const bare = await startTestServer({ contract, withoutSchedules: true });
    try {
      expectProblem((await bare.api.GET('/api/v1/schedules')).error, 503, 'backup-tool-unavailable');
    } finally {
      await bare.close();
    }
  });
});

describe('outside the operations', () => {
  it('answers a method a path does not have with 405 and Allow (decision 0011)', async () => {
    for (const [method, path, allow] of [
      ['PATCH', '/api/v1/tests/payments', 'GET, HEAD, PUT, DELETE'],
      ['DELETE', '/api/v1/tests', 'GET, HEAD, POST'],
      ['POST', '/api/v1/summary', 'GET, HEAD'],
      ['GET', '/api/v1/tests/payments/trigger', 'POST'],
      ['PUT', '/api/compliance', 'GET, HEAD'],
    ] as const) {
      const response = await server.rawFetch(path, { method });
      expect([method, path, response.status, response.headers.get('allow')]).toEqual([method, path, 405, allow]);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({ type: 'https://rehearsal.dev/problems/method-not-allowed', status: 405 });
    }
  });

  it('answers an unknown route with a 404 problem', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nothing'],
      ['PATCH', '/api/v1/nothing/payments'],
      ['GET', '/nothing.html'],
    ] as const) {
      const response = await server.rawFetch(path, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({
        type: 'https://rehearsal.dev/problems/no-such-route',
        status: 404,
        instance: path,
      });
    }
  });

  it('serves the dashboard at /: index.html revalidated, its hashed assets immutable', async () => {
    const index = await server.rawFetch('/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const assets = [...html.matchAll(/(?:src|href)="\.\/(app-[\w-]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const asset of assets) {
      const answer = await server.rawFetch(`/${asset}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('serves the OpenAPI document, Swagger UI with local assets, and metrics', async () => {
    // Auth mode none (this server): the committed document without its security requirements.
    const document = await server.rawFetch('/openapi.json');
    const served = (await document.json()) as typeof contract.document;
    expect(served).toEqual(withoutSecurityRequirements(contract.document));
    const secured = Object.values(served.paths).flatMap((item) =>
      Object.values(item).filter((operation) => 'security' in (operation as object)),
    );
    expect(secured).toEqual([]);
    const docs = await server.rawFetch('/docs/');
    expect(docs.status).toBe(200);
    const html = await docs.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    const asset = await server.rawFetch('/docs/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
    const init = await (await server.rawFetch('/docs/swagger-ui-init.js')).text();
    expect(init).toContain('/openapi.json');
    const metrics = await server.rawFetch('/metrics');
    expect(metrics.status).toBe(200);
  });
});

describe('the contract itself', () => {
  it('the checker rejects undocumented statuses, wrong media types, schema violations, missing headers', () => {
    const checker = new ContractValidator(contract.document);
    const answer = (
      method: string,
      path: string,
      status: number,
      contentType: string,
      body: unknown,
      headers = new Headers(),
    ) =>
      checker.check({
        method,
        url: `http://127.0.0.1${path}`,
        status,
        contentType,
        headers,
        body: JSON.stringify(body),
      });
    expect(answer('GET', '/api/v1/summary', 418, 'application/problem+json', {})).toEqual([
      expect.stringContaining('status not documented'),
    ]);
    expect(
      answer('GET', '/api/v1/summary', 200, 'application/json', { averageScore: 'high' }).length,
    ).toBeGreaterThan(1);
    expect(answer('GET', '/api/v1/tests/x', 404, 'application/json', { status: 404 })).toEqual([
      expect.stringContaining('media type application/json not documented'),
      expect.stringContaining('not application/problem+json'),
    ]);
    const created = {
      name: 'a',
      namespace: 'b',
      provider: 'velero',
      schedule: '@daily',
      phase: 'Idle',
      lastScore: 0,
      lastResult: '',
      lastRunAt: '',
      nextRunAt: '',
      sourceNamespaces: [],
      rtoTarget: '',
    };
    expect(answer('POST', '/api/v1/tests', 201, 'application/json', created)).toEqual([
      expect.stringContaining('header Location missing'),
    ]);
    expect(
      answer('POST', '/api/v1/tests', 201, 'application/json', created, new Headers({ location: '/x' })),
    ).toEqual([]);
  });

  it('every operation of openapi.json was exercised, with success and error answers', () => {
    // License, evidence keys and PDFs have their own suite (evidence.contract.test.ts), coverage and sandboxes too.
    const elsewhere = [
      'getLicense',
      'listEvidenceKeys',
      'getCompliancePdf',
      'getTestReportPdf',
      'getCoverage',
      'getRunDiagnosis',
      'previewRunNotification',
      // Sandboxes too (sandboxes.contract.test.ts).
      'listSandboxes',
      'removeOrphanedSandbox',
      // Test drafts too (test-drafts.contract.test.ts).
      'draftTests',
      'createDraftedTest',
    ];
    const missing = contract.operationIds.filter(
      (id) => !contract.exercised.has(id) && !elsewhere.includes(id),
    );
    expect(missing).toEqual([]);
    const withoutError = contract.operationIds.filter(
      (id) =>
        !elsewhere.includes(id) &&
        id !== 'getHealth' &&
        id !== 'listTests' &&
        id !== 'getSummary' &&
        id !== 'listUpcoming' &&
        ![...contract.exercised.get(id)!].some((status) => status >= 400),
    );
    expect(withoutError).toEqual([]);
  });
});

describe('prepared answers (ETag, 304, gzip)', () => {
  it('answer a repeated read with the same ETag, 304 for If-None-Match, and a new ETag after a change', async () => {
    const first = await server.fetch('/api/v1/reports?latest=true');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const body = await first.json();
    const again = await server.fetch('/api/v1/reports?latest=true');
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.json()).toEqual(body);
    const notModified = await server.fetch('/api/v1/reports?latest=true', {
      headers: { 'If-None-Match': etag! },
    });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');

    server.cluster.seedReport(
      restoreReport({ test: 'payments', completedAt: hoursAgo(1), result: 'fail', score: 10 }),
    );
    const changed = await server.fetch('/api/v1/reports?latest=true', {
      headers: { 'If-None-Match': etag! },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const latest = (await changed.json()) as { spec: { testRef: { name: string }; score: number } }[];
    expect(latest.find((report) => report.spec.testRef.name === 'payments')!.spec.score).toBe(10);
  });

  it('compress for clients that accept gzip, to the same JSON', async () => {
    const plain = await server.fetch('/api/v1/tests', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const gzipped = await server.fetch('/api/v1/tests', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(await gzipped.json()).toEqual(await plain.json()); // fetch inflates it
  });

  it('show a write at once: a created test is in the next list', async () => {
    const before = await server.fetch('/api/v1/tests');
    const etag = before.headers.get('etag')!;
    const created = await server.api.POST('/api/v1/tests', { body: { ...minimal, name: 'etag-probe' } });
    expect(created.response.status).toBe(201);
    const after = await server.fetch('/api/v1/tests', { headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { name: string }[]).map((test) => test.name)).toContain('etag-probe');
    await server.api.DELETE('/api/v1/tests/{name}', { params: { path: { name: 'etag-probe' } } });
  });
});
