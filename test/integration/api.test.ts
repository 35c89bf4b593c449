// The REST API on the real control plane with the real engine, through the generated client.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRehearsalClient, type RehearsalApiClient } from '../../openapi/client.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { createEngineFixture, listReports, type EngineFixture } from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let api: RehearsalApiClient;

beforeAll(async () => {
  fixture = await createEngineFixture('api');
  await createBackup(fixture.admin, {
    name: `${fixture.backup}-slow`,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    annotations: { 'simulator.rehearsal.dev/restore-delay-ms': '2500' },
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('api.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
  api = createRehearsalClient({ baseUrl: `http://127.0.0.1:${rehearsal.port()}` });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

function input(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    namespace: fixture.testNamespace,
    provider: 'velero',
    sourceNamespaces: [fixture.source],
    cron: '0 3 * * *',
    timezone: 'Europe/Berlin',
    ...extra,
  };
}

async function testOf(name: string) {
  const { data } = await api.GET('/api/v1/tests/{name}', {
    params: { path: { name }, query: { namespace: fixture.testNamespace } },
  });
  return data;
}

describe('tests', () => {
  it('creates a test that appears in the list as Idle with its next run', async () => {
    const name = uniqueName('created', 30);
    const { data, response } = await api.POST('/api/v1/tests', { body: input(name) as never });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toContain(`/api/v1/tests/${name}`);
    expect(data).toMatchObject({ name, namespace: fixture.testNamespace, provider: 'velero', schedule: '0 3 * * *' });
    const listed = await waitFor(
      async () => {
        const { data: tests } = await api.GET('/api/v1/tests');
        const found = tests?.find((test) => test.name === name && test.namespace === fixture.testNamespace);
        return found?.nextRunAt ? found : undefined;
      },
      { description: 'the test with nextRunAt in the list' },
    );
    expect(listed.phase).toBe('Idle');
    expect(listed.sourceNamespaces).toEqual([fixture.source]);
    expect(listed.rtoTarget).toBe('');
    // 03:00 in Berlin is 01:00 or 02:00 UTC depending on the season.
    expect(new Date(listed.nextRunAt).getUTCHours()).toBeGreaterThanOrEqual(1);
    expect(new Date(listed.nextRunAt).getUTCHours()).toBeLessThanOrEqual(2);
  });

  it('refuses a duplicate with 409 and a bad body with 400 naming every field', async () => {
    const name = uniqueName('dup', 30);
    await api.POST('/api/v1/tests', { body: input(name) as never });
    const duplicate = await api.POST('/api/v1/tests', { body: input(name) as never });
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.response.headers.get('content-type')).toContain('application/problem+json');

    const bad = await api.POST('/api/v1/tests', {
      body: { name: 'Not_A_Name', provider: 'tape', sourceNamespaces: [], cron: 'every day', ttl: '1 hour', surprise: true } as never,
    });
    expect(bad.response.status).toBe(400);
    expect(bad.response.headers.get('content-type')).toContain('application/problem+json');
    const fields = (bad.error as { errors: { field: string }[] }).errors.map((error) => error.field);
    for (const field of ['name', 'provider', 'sourceNamespaces', 'cron', 'ttl', 'surprise']) {
      expect(fields.some((entry) => entry === field || entry.startsWith(`${field}`))).toBe(true);
    }
  });

  it('answers 404 to a PUT on a missing test and replaces an existing one', async () => {
    const missing = await api.PUT('/api/v1/tests/{name}', {
      params: { path: { name: 'no-such-test' }, query: { namespace: fixture.testNamespace } },
      body: input('no-such-test') as never,
    });
    expect(missing.response.status).toBe(404);
    const name = uniqueName('replaced', 30);
    // The RPO target as the API writes it is what the real CRD (pattern, CEL rule) stores.
    const created = await api.POST('/api/v1/tests', { body: input(name, { maxRTO: '15m', maxRPO: '24h' }) as never });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ rtoTarget: '15m', rpoTarget: '24h' });
    const replaced = await api.PUT('/api/v1/tests/{name}', {
      params: { path: { name }, query: { namespace: fixture.testNamespace } },
      body: input(name, { cron: '@hourly' }) as never,
    });
    expect(replaced.response.status).toBe(200);
    // omitted maxRTO and maxRPO → default (none), decision 0003
    expect(replaced.data).toMatchObject({ schedule: '@hourly', rtoTarget: '', rpoTarget: '' });
  });

  it('triggers a run (200, Running), refuses a second trigger (409), and serves its reports', async () => {
    const name = uniqueName('triggered', 30);
    await api.POST('/api/v1/tests', { body: input(name, { backupName: `${fixture.backup}-slow` }) as never });
    const first = await api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name }, query: { namespace: fixture.testNamespace } },
    });
    expect(first.response.status).toBe(200);
    expect(first.data?.phase).toBe('Running');
    const second = await api.POST('/api/v1/tests/{name}/trigger', {
      params: { path: { name }, query: { namespace: fixture.testNamespace } },
    });
    expect(second.response.status).toBe(409);
    expect(second.response.headers.get('content-type')).toContain('application/problem+json');

    const done = await waitFor(
      async () => {
        const test = await testOf(name);
        return test && test.phase !== 'Running' ? test : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: 'the run to finish' },
    );
    expect(done.lastResult).toMatch(/pass|partial|fail/);
    expect(done.lastRunAt).not.toBe('');

    const { data: reports } = await api.GET('/api/v1/reports', {
      params: { query: { test: name, namespace: fixture.testNamespace } },
    });
    expect(reports).toHaveLength(1);
    expect(reports![0]!.kind).toBe('RestoreReport');
    expect(reports![0]!.spec.testRef.name).toBe(name);
    const latest = await api.GET('/api/v1/reports', { params: { query: { latest: true, days: 1 } } });
    const perTest = new Map<string, number>();
    for (const report of latest.data ?? []) {
      const key = `${report.metadata.namespace}/${report.spec.testRef.name}`;
      perTest.set(key, (perTest.get(key) ?? 0) + 1);
    }
    expect([...perTest.values()].every((count) => count === 1)).toBe(true);
    expect(perTest.has(`${fixture.testNamespace}/${name}`)).toBe(true);

    const unknown = await api.GET('/api/v1/reports', { params: { query: { test: 'no-such-test', namespace: fixture.testNamespace } } });
    expect(unknown.response.status).toBe(404);

    const deleted = await api.DELETE('/api/v1/tests/{name}', {
      params: { path: { name }, query: { namespace: fixture.testNamespace } },
    });
    expect(deleted.response.status).toBe(204);
    await waitFor(async () => (await listReports(fixture, name)).length === 0, {
      timeoutMs: 90_000,
      intervalMs: 1000,
      description: 'the reports to be removed by the server (report cascade)',
    });
    const gone = await api.DELETE('/api/v1/tests/{name}', {
      params: { path: { name }, query: { namespace: fixture.testNamespace } },
    });
    expect(gone.response.status).toBe(404);
  }, 180_000);
});

describe('aggregates and compliance', () => {
  it('returns one daily entry per day, oldest first', async () => {
    const { data } = await api.GET('/api/v1/summary/daily', { params: { query: { days: 7 } } });
    expect(data).toHaveLength(7);
    const dates = data!.map((entry) => entry.date);
    expect([...dates].sort()).toEqual(dates);
    expect(dates[6]).toBe(new Date().toISOString().slice(0, 10));
  });

  it('answers 400 problem+json to an unknown framework, a missing period and a malformed number', async () => {
    const unknown = await api.GET('/api/v1/compliance', { params: { query: { framework: 'sox' as never, period: 30 } } });
    expect(unknown.response.status).toBe(400);
    const missing = await api.GET('/api/v1/compliance', { params: { query: { framework: 'soc2' } as never } });
    expect(missing.response.status).toBe(400);
    const malformed = await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/summary/daily?days=many`);
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');
    const ok = await api.GET('/api/v1/compliance', { params: { query: { framework: 'soc2', period: 30 } } });
    expect(ok.response.status).toBe(200);
    expect(ok.data?.controls.map((control) => control.id)).toEqual(['A1.3', 'A1.2', 'CC7.5']);
  });

  it('serves summary, alerts and upcoming from the caches', async () => {
    const summary = await api.GET('/api/v1/summary');
    expect(summary.response.status).toBe(200);
    expect(summary.data!.totalTests).toBeGreaterThan(0);
    expect(summary.data!.namespacesCovered).toBeGreaterThanOrEqual(1);
    const upcoming = await api.GET('/api/v1/upcoming');
    const times = (upcoming.data ?? []).map((entry) => entry.nextRunAt);
    expect([...times].sort()).toEqual(times);
    const alerts = await api.GET('/api/v1/alerts', { params: { query: { hours: 48 } } });
    expect(alerts.response.status).toBe(200);
    const schedules = await api.GET('/api/v1/schedules');
    expect([200, 503]).toContain(schedules.response.status);
  });
});
