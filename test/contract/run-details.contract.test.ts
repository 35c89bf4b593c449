// The run details endpoints through the generated client, checked against openapi.json: a failed
// run's diagnosis, and the notification preview (the documented webhook / CloudEvent body).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ProblemDetails } from '../../openapi/client.js';
import { diagnose } from '../../server/domain/diagnosis/diagnosis.js';
import type { SandboxObservation } from '../../server/domain/diagnosis/observation.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;
const hoursAgo = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();
const stored = new Map<string, ReturnType<typeof diagnose>>();
const reports = {
  passed: restoreReport({ test: 'shop', completedAt: hoursAgo(5), result: 'pass', score: 97 }),
  failed: restoreReport({ test: 'shop', completedAt: hoursAgo(3), result: 'fail', score: 40 }),
  undiagnosed: restoreReport({ test: 'shop', completedAt: hoursAgo(2), result: 'partial', score: 80 }),
  latestFail: restoreReport({ test: 'shop', completedAt: hoursAgo(1), result: 'fail', score: 30 }),
};

function observation(sandbox: string): SandboxObservation {
  return {
    sandboxes: [{ source: 'shop', sandbox }],
    pods: [
      {
        namespace: sandbox,
        name: 'web-1',
        phase: 'Pending',
        ready: false,
        containers: [{ name: 'web', ready: false, restartCount: 0, state: 'waiting', reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.example/web:1.2"' }],
        imagePullSecrets: ['regcred'],
      },
    ],
    events: [{ namespace: sandbox, reason: 'Failed', message: 'Failed to pull image', object: 'Pod/web-1', count: 3, lastSeen: hoursAgo(1) }],
    claims: [],
    externalNames: [],
    missingPullSecrets: [`${sandbox}/regcred`],
    // Issue 30: an init container's log, the current and the previous instance's (one cut short).
    logs: [
      { namespace: sandbox, pod: 'web-1', container: 'migrate', init: true, lines: ['migrations done', 'password=hunter2'] },
      { namespace: sandbox, pod: 'web-1', container: 'web', lines: ['starting'] },
      { namespace: sandbox, pod: 'web-1', container: 'web', previous: true, truncated: true, lines: ['starting', 'fatal: no such host'] },
    ],
  };
}

beforeAll(async () => {
  server = await startTestServer({
    contract,
    diagnoses: { load: async (run) => stored.get(run.name) },
  });
  server.cluster.seedTest(restoreTest({ name: 'shop' }));
  server.cluster.seedTest(restoreTest({ name: 'fresh' }));
  for (const report of Object.values(reports)) server.cluster.seedReport(report);
  for (const report of [reports.failed, reports.latestFail]) {
    stored.set(
      report.metadata.name,
      diagnose(observation(report.spec.sandboxNamespaces[0]!), {
        test: { name: 'shop', namespace: 'rehearsal-system' },
        runId: report.spec.runId,
        report: report.metadata.name,
        result: report.spec.result,
        collectedAt: new Date(report.spec.completedAt),
      }),
    );
  }
});

afterAll(async () => {
  await server.close();
});

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  return problem;
}

describe('run diagnosis', () => {
  it('answers the newest failed run by default, or the run asked for', async () => {
    const latest = (await server.api.GET('/api/v1/tests/{name}/diagnosis', { params: { path: { name: 'shop' } } })).data!;
    expect(latest).toMatchObject({ runId: reports.latestFail.spec.runId, result: 'fail' });
    expect(latest.hints.map((hint) => hint.code)).toEqual(['image-pull-secret-missing']);
    const older = await server.api.GET('/api/v1/tests/{name}/diagnosis', {
      params: { path: { name: 'shop' }, query: { run: reports.failed.spec.runId } },
    });
    expect(older.data!.report).toBe(reports.failed.metadata.name);
  });

  it('serves the collected logs per container, init and previous marked, secrets scrubbed, with the settings (issue 30)', async () => {
    const { data } = await server.api.GET('/api/v1/tests/{name}/diagnosis', { params: { path: { name: 'shop' } } });
    expect(data!.logs.map((log) => [log.container, log.init ?? false, log.previous ?? false, log.truncated ?? false])).toEqual([
      ['migrate', true, false, false],
      ['web', false, false, false],
      ['web', false, true, true],
    ]);
    expect(data!.logs[0]!.lines).toEqual(['migrations done', 'password=[redacted]']);
    expect(JSON.stringify(data)).not.toContain('hunter2');
    expect(data!.logCollection).toEqual({ lines: 100, containers: 'failing', initContainers: true, previous: true, events: true });
  });

  it('answers 404 for a passed run, a run without diagnosis, an unknown run or test; 400 for a bad run id', async () => {
    const get = (name: string, run?: string) =>
      server.api.GET('/api/v1/tests/{name}/diagnosis', { params: { path: { name }, query: run ? { run } : {} } });
    expect(expectProblem((await get('shop', reports.passed.spec.runId)).error, 404, 'not-found').detail).toMatch(/passed/);
    expect(expectProblem((await get('shop', reports.undiagnosed.spec.runId)).error, 404, 'not-found').detail).toMatch(/no diagnosis/);
    expectProblem((await get('shop', 'zzzz9')).error, 404, 'not-found');
    expectProblem((await get('nobody')).error, 404, 'not-found');
    expect(expectProblem((await get('fresh')).error, 404, 'not-found').detail).toMatch(/no failed or partial run/);
    expectProblem((await get('shop', 'Not_A_Run')).error, 400, 'invalid-request');
  });
});

describe('notification preview', () => {
  it('is the webhook body of the newest run (the documented schema)', async () => {
    const { data } = await server.api.GET('/api/v1/tests/{name}/notification-preview', { params: { path: { name: 'shop' } } });
    expect(data).toMatchObject({
      id: `rehearsal-system/${reports.latestFail.metadata.name}/failed`,
      event: 'failed',
      type: 'dev.rehearsal.run.failed',
      test: { name: 'shop', namespace: 'rehearsal-system' },
      run: { id: reports.latestFail.spec.runId, result: 'fail', score: 30, previousScore: 80, failure: { reason: 'ChecksFailed' } },
    });
    const regressed = await server.api.GET('/api/v1/tests/{name}/notification-preview', {
      params: { path: { name: 'shop' }, query: { event: 'regressed', run: reports.failed.spec.runId } },
    });
    expect(regressed.data!.summary).toContain('regressed');
    expect(regressed.data!.run.previousScore).toBe(97);
  });

  it('answers 400 for an unknown event and 404 for a test without runs', async () => {
    const bad = await server.api.GET('/api/v1/tests/{name}/notification-preview', {
      params: { path: { name: 'shop' }, query: { event: 'exploded' as 'failed' } },
    });
    expectProblem(bad.error, 400, 'invalid-request');
    const none = await server.api.GET('/api/v1/tests/{name}/notification-preview', { params: { path: { name: 'fresh' } } });
    expectProblem(none.error, 404, 'not-found');
  });

  it('both operations were exercised with success and error answers', () => {
    for (const id of ['getRunDiagnosis', 'previewRunNotification']) {
      const statuses = [...(contract.exercised.get(id) ?? [])];
      expect([id, statuses.includes(200), statuses.some((status) => status >= 400)]).toEqual([id, true, true]);
    }
  });
});
