// Crash safety: the server process is killed (SIGKILL, no clean shutdown) in the middle of a run —
// during the restore, and during the health checks. After a restart there must be exactly one
// report for that run, no orphaned sandbox or Velero Restore, and the schedule must go on. A
// sandbox kept after a failed run must be removed by the janitor of a later process.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import path from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, namespaceExists, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startProcess, type ServerProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

let fixture: EngineFixture;
let kubeconfigPath: string;
let server: ServerProcess | undefined;
const logFile = path.join(repoRoot, 'test/.tmp/engine-restart-server.log');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(): Promise<ServerProcess> {
  server = await startProcess({
    kubeconfigPath,
    port: await freePort(),
    logFile,
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    janitorIntervalSeconds: 1,
    // A real deployment elects a leader; so do these processes (the Lease of a killed one expires).
    leaderElection: true,
    leaseName: `restart-${fixture.veleroNamespace}`,
    extra: { REHEARSAL_IDENTITY: `restart-test-${Date.now()}` },
  });
  return server;
}

async function restoresOfRun(runId: string): Promise<unknown[]> {
  const list = (await fixture.custom.listNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: fixture.veleroNamespace,
    plural: 'restores',
    labelSelector: `rehearsal.dev/run=${runId}`,
  })) as { items: unknown[] };
  return list.items;
}

async function runStatus(name: string): Promise<RestoreTest['status']> {
  return (await getRestoreTest(fixture, name)).status;
}

beforeAll(async () => {
  fixture = await createEngineFixture('restart');
  kubeconfigPath = await rehearsalKubeconfig('engine-restart.kubeconfig');
  await createBackup(fixture.admin, {
    name: `${fixture.backup}-slow`,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    annotations: { 'simulator.rehearsal.dev/restore-delay-ms': '4000' },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

async function expectExactlyOneReportAndNoLeftovers(name: string, runId: string): Promise<void> {
  const report = await waitFor(
    async () => {
      const reports = (await listReports(fixture, name)).filter((entry) => entry.spec.runId === runId);
      const status = await runStatus(name);
      return reports.length > 0 && status?.currentRun?.id !== runId ? reports : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250, description: `the report of run ${runId}` },
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const reports = (await listReports(fixture, name)).filter((entry) => entry.spec.runId === runId);
  expect(reports).toHaveLength(1);
  expect(report[0]!.spec.runId).toBe(runId);
  expect(await restoresOfRun(runId)).toEqual([]);
  for (const sandbox of reports[0]!.spec.sandboxNamespaces) {
    if (reports[0]!.spec.result === 'pass') {
      await waitFor(async () => !(await namespaceExists(fixture.admin, sandbox)), {
        timeoutMs: 30_000,
        description: `sandbox ${sandbox} to be removed`,
      });
    }
  }
}

describe('a server killed in the middle of a run', () => {
  it('finishes the run exactly once after a crash during the restore, and the schedule goes on', async () => {
    const name = uniqueTestName('crash-restore');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: {
          backupName: `${fixture.backup}-slow`,
          namespaces: [{ name: fixture.source }],
          providerNamespace: fixture.veleroNamespace,
        },
        schedule: { cron: '* * * * *', timezone: 'UTC' },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await startServer();
    await trigger(fixture, name);
    const restoring = await waitFor(
      async () => {
        const status = await runStatus(name);
        return status?.currentRun?.stage === 'Restoring' ? status.currentRun : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'the run to reach Restoring' },
    );
    await server!.crash();
    await startServer();
    await expectExactlyOneReportAndNoLeftovers(name, restoring.id);

    // The next scheduled run still happens (cron every minute). The interrupted run may itself have
    // been a scheduled one (the minute can strike just as the test triggers), so look past it.
    const scheduled = await waitFor(
      async () =>
        (await listReports(fixture, name)).find(
          (report) => report.spec.trigger === 'schedule' && report.spec.runId !== restoring.id,
        ),
      { timeoutMs: 150_000, intervalMs: 1000, description: 'a scheduled run after the restart' },
    );
    expect(scheduled.spec.runId).not.toBe(restoring.id);
    await server!.stop();
    server = undefined;
  }, 300_000);

  it('finishes the run exactly once after a crash during the health checks', async () => {
    const name = uniqueTestName('crash-checks');
    fixture.endpoints.setHealthDelay(4000);
    try {
      await createRestoreTest(fixture, restoreTestBody(fixture, name, { healthChecks: { checks: shopChecks() } }));
      await startServer();
      await trigger(fixture, name);
      const validating = await waitFor(
        async () => {
          const status = await runStatus(name);
          return status?.currentRun?.stage === 'Validating' && status.currentRun.podsReadyAt ? status.currentRun : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50, description: 'the run to reach its checks' },
      );
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the slow HTTP check is in flight
      expect(await listReports(fixture, name)).toEqual([]);
      await server!.crash();
      await startServer();
      await expectExactlyOneReportAndNoLeftovers(name, validating.id);
    } finally {
      fixture.endpoints.setHealthDelay(0);
      await server?.stop();
      server = undefined;
    }
  }, 180_000);

  it('removes a kept sandbox whose ttl passed while no server was running', async () => {
    const backup = `${fixture.backup}-fails`;
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-outcome': 'PartiallyFailed', 'simulator.rehearsal.dev/omit-kinds': 'Secret,Service,ConfigMap' },
    });
    const name = uniqueTestName('kept');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        sandbox: { ttl: '10s' },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await startServer();
    await trigger(fixture, name);
    const report = await waitFor(async () => (await listReports(fixture, name))[0], {
      timeoutMs: 60_000,
      description: 'the report',
    });
    expect(report.spec.result).not.toBe('pass');
    const [sandbox] = report.spec.sandboxNamespaces;
    expect(await namespaceExists(fixture.admin, sandbox!)).toBe(true);
    await server!.crash();
    server = undefined;
    const kept = await fixture.admin.makeApiClient(CoreV1Api).readNamespace({ name: sandbox! });
    const expiresAt = Date.parse(kept.metadata!.annotations!['rehearsal.dev/expires-at']!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 500)));
    expect(await namespaceExists(fixture.admin, sandbox!)).toBe(true); // nobody removed it meanwhile
    await startServer();
    await waitFor(async () => !(await namespaceExists(fixture.admin, sandbox!)), {
      timeoutMs: 60_000,
      description: 'the janitor of the new process to remove the expired sandbox',
    });
  }, 180_000);
});
