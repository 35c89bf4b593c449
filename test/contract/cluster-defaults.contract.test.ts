// GET /api/v1/alerts follows the cluster-wide defaults (issue 30) as they change, through the
// generated client and checked against openapi.json. The server's clock is fixed here, so its
// prepared answers never age: only the thresholds being part of the answer's key can make a change
// of the ConfigMap show at once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BUILT_IN_CLUSTER_DEFAULTS, type ClusterDefaults } from '../../server/domain/run/cluster-defaults.js';
import { restoreReport, restoreTest } from './support/fake-cluster.js';
import { NOW, startTestServer, type TestServer } from './support/server.js';

let server: TestServer;
let defaults: ClusterDefaults = BUILT_IN_CLUSTER_DEFAULTS;
const hourAgo = new Date(NOW.getTime() - 3600_000).toISOString();
const twoHoursAgo = new Date(NOW.getTime() - 2 * 3600_000).toISOString();
const threeHoursAgo = new Date(NOW.getTime() - 3 * 3600_000).toISOString();

beforeAll(async () => {
  server = await startTestServer({ clusterDefaults: () => defaults });
  server.cluster.seedTest(restoreTest({ name: 'shop', status: { phase: 'Failed', lastScore: 40 } }));
  // The fixture's reports restored a backup 30s old; the last two of three runs failed.
  server.cluster.seedReport(restoreReport({ test: 'shop', completedAt: threeHoursAgo, result: 'pass' }));
  server.cluster.seedReport(restoreReport({ test: 'shop', completedAt: twoHoursAgo, result: 'fail' }));
  server.cluster.seedReport(restoreReport({ test: 'shop', completedAt: hourAgo, result: 'fail' }));
});

afterAll(async () => {
  await server?.close();
});

async function messages(): Promise<string[]> {
  const { data, response } = await server.api.GET('/api/v1/alerts', { params: { query: { hours: 4 } } });
  expect(response.status).toBe(200);
  return data!.map((alert) => alert.message.replace(/^run \S+: /, ''));
}

describe('alerts with the cluster thresholds', () => {
  it('built in (48h, 3 in a row): the two failures, no backup-age alert', async () => {
    expect(await messages()).toEqual([
      'failed (ChecksFailed: pods-ready failed)',
      'failed (ChecksFailed: pods-ready failed); score regressed from 95 to 40',
    ]);
  });

  it('a changed ConfigMap changes the next answer at once', async () => {
    defaults = { ...BUILT_IN_CLUSTER_DEFAULTS, maxBackupAge: '10s', consecutiveFailures: 2 };
    expect(await messages()).toEqual([
      'failed (ChecksFailed: pods-ready failed); at least 2 failed runs in a row; restored a backup 30s old, older than 10s',
      'failed (ChecksFailed: pods-ready failed); score regressed from 95 to 40; restored a backup 30s old, older than 10s',
      'restored a backup 30s old, older than 10s',
    ]);
    defaults = BUILT_IN_CLUSTER_DEFAULTS;
    expect(await messages()).toHaveLength(2);
  });
});
