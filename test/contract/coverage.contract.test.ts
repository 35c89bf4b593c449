// GET /api/v1/coverage through the generated client, checked against openapi.json: backed-up
// namespaces without a passing test are listed, and stop being listed once a test for them passes;
// the summary counts them and compliance evidence names them as a gap.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ProblemDetails } from '../../openapi/client.js';
import { ContractValidator, loadDocument } from './support/contract.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

const contract = new ContractValidator(loadDocument());
let server: TestServer;
const hoursAgo = (hours: number): string => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

beforeAll(async () => {
  server = await startTestServer({ contract });
  for (const name of ['payments', 'shop', 'ledger']) server.cluster.seedTest(restoreTest({ name }));
  server.cluster.seedReport(restoreReport({ test: 'payments', completedAt: hoursAgo(3), result: 'pass' }));
  server.cluster.seedReport(restoreReport({ test: 'shop', completedAt: hoursAgo(2), result: 'fail' }));
  // Older than the nightly schedule's 24 h window.
  server.cluster.seedReport(restoreReport({ test: 'ledger', completedAt: hoursAgo(60), result: 'pass' }));
});

afterAll(async () => {
  await server.close();
});

function expectProblem(error: unknown, status: number, slug: string): ProblemDetails {
  const problem = error as ProblemDetails;
  expect(problem).toMatchObject({ status, type: `https://rehearsal.dev/problems/${slug}` });
  return problem;
}

describe('coverage', () => {
  it('lists backed-up namespaces, untested and stale first, until a test for them passes', async () => {
    const first = (await server.api.GET('/api/v1/coverage')).data!;
    expect(first.namespaces.map((entry) => [entry.namespace, entry.status])).toEqual([
      ['archive', 'untested'],
      ['shop', 'untested'],
      ['ledger', 'stale'],
      ['payments', 'tested'],
    ]);
    expect(first).toMatchObject({ backedUp: 4, tested: 1, untested: 3, generatedAt: NOW.toISOString() });
    const shop = first.namespaces.find((entry) => entry.namespace === 'shop')!;
    expect(shop).toEqual({
      namespace: 'shop',
      status: 'untested',
      backedUpBy: ['Schedule/nightly'],
      lastBackupAt: '2026-03-15T01:04:10.000Z',
      window: '24h',
      tests: ['rehearsal-system/shop'],
      lastPassedAt: '',
    });
    expect(first.namespaces.find((entry) => entry.namespace === 'archive')).toMatchObject({
      backedUpBy: ['Backup/manual-1'],
      tests: [],
    });

    server.cluster.seedReport(restoreReport({ test: 'shop', completedAt: hoursAgo(1), result: 'pass' }));
    const second = (await server.api.GET('/api/v1/coverage')).data!;
    expect(second.namespaces.find((entry) => entry.namespace === 'shop')).toMatchObject({
      status: 'tested',
      lastPassedAt: hoursAgo(1),
    });
    expect(second.untested).toBe(2);
  });

  it('counts the untested namespaces in the summary', async () => {
    await server.api.GET('/api/v1/coverage');
    const { data } = await server.api.GET('/api/v1/summary');
    expect(data!.namespacesBackedUpUntested).toBe(2);
  });

  it('names untested backed-up namespaces as a gap in compliance evidence', async () => {
    const { data } = await server.api.GET('/api/v1/compliance', {
      params: { query: { framework: 'soc2', period: 90 } },
    });
    const evidence = data!.controls.map((control) => control.evidence);
    expect(evidence.every((text) => text.includes('Gap: 2 backed-up namespaces are not restore-tested'))).toBe(true);
    expect(evidence[0]).toContain('archive, ledger');
    expect(data!.controls.some((control) => control.status === 'satisfied')).toBe(false);
  });

  it('answers 503 when the backup tool cannot be read, or the server has none', async () => {
    server.inventory.available = false;
    try {
      expectProblem((await server.api.GET('/api/v1/coverage')).error, 503, 'backup-tool-unavailable');
    } finally {
      server.inventory.available = true;
    }
    const bare = await startTestServer({ contract, withoutCoverage: true });
    try {
      expectProblem((await bare.api.GET('/api/v1/coverage')).error, 503, 'backup-tool-unavailable');
      const summary = (await bare.api.GET('/api/v1/summary')).data!;
      expect(summary.namespacesBackedUpUntested).toBeUndefined();
    } finally {
      await bare.close();
    }
  });

  it('was exercised with success and error answers', () => {
    const statuses = [...(contract.exercised.get('getCoverage') ?? [])];
    expect(statuses).toContain(200);
    expect(statuses).toContain(503);
  });
});
