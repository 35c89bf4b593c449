// The conformance suite's kill -9 case for the Kasten and Trilio providers (the Velero simulator's
// is in engine-restart.test.ts): the Rehearsal process is killed with SIGKILL while the tool's
// restore object is being worked on (the SIMULATORS of test/kasten and test/trilio, with a slow
// restore); a new process must finish the run exactly once and clean up the restore object.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import path from 'node:path';
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
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { freeLoopbackPort } from '../helpers/real-velero.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startProcess, type ServerProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { KastenSimulator } from '../kasten/simulator.js';
import type { NamespacedToolSimulator } from '../providers/namespaced-tool-simulator.js';
import { TrilioSimulator } from '../trilio/simulator.js';
import { SIMULATOR_RESTORE_DELAY_MS } from '../velero/simulator.js';

jest.setTimeout(300_000);

let fixture: EngineFixture;
let kubeconfigPath: string;
let server: ServerProcess | undefined;
const dataNamespace = uniqueName('crash-tool-data');
const simulators: NamespacedToolSimulator[] = [];
const logFile = path.join(repoRoot, 'test/.tmp/provider-crash-server.log');

async function startServer(): Promise<ServerProcess> {
  server = await startProcess({
    kubeconfigPath,
    port: await freeLoopbackPort(),
    logFile,
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    janitorIntervalSeconds: 1,
    leaderElection: true,
    leaseName: `crash-${fixture.veleroNamespace}`,
    extra: { REHEARSAL_IDENTITY: `provider-crash-${Date.now()}` },
  });
  return server;
}

beforeAll(async () => {
  fixture = await createEngineFixture('pcrash');
  kubeconfigPath = await rehearsalKubeconfig('provider-crash.kubeconfig');
  const options = { dataNamespace, pollIntervalMs: 150, stepDelayMs: 150 };
  simulators.push(new KastenSimulator(fixture.admin, options), new TrilioSimulator(fixture.admin, options));
  await Promise.all(simulators.map((simulator) => simulator.start()));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all(simulators.map((simulator) => simulator.stop()));
  await fixture?.stop();
  if (fixture) {
    await deleteNamespaces(fixture.admin, [
      fixture.source,
      fixture.testNamespace,
      fixture.veleroNamespace,
      dataNamespace,
    ]);
  }
});

const cases: [string, 'kasten' | 'trilio', number, [string, string, string]][] = [
  ['Kasten simulator', 'kasten', 0, ['actions.kio.kasten.io', 'v1alpha1', 'restoreactions']],
  ['Trilio simulator', 'trilio', 1, ['triliovault.trilio.io', 'v1', 'restores']],
];

describe('kill -9 during a restore', () => {
  it.each(cases)(
    '%s: a new process finishes the run exactly once and removes the restore object',
    async (_label, provider, index, [group, version, plural]) => {
      const backup = await simulators[index]!.takeBackup(fixture.source, uniqueName(`${provider}-slow`, 40), {
        [SIMULATOR_RESTORE_DELAY_MS]: '4000',
      });
      const name = uniqueTestName(`${provider}-crash`);
      await createRestoreTest(
        fixture,
        restoreTestBody(fixture, name, {
          provider,
          backupSource: { backupName: backup, namespaces: [{ name: fixture.source }] },
          healthChecks: { checks: shopChecks() },
        }),
      );
      await startServer();
      await trigger(fixture, name);
      const restoring = await waitFor(
        async () => {
          const status: RestoreTest['status'] = (await getRestoreTest(fixture, name)).status;
          return status?.currentRun?.stage === 'Restoring' && status.currentRun.restore
            ? status.currentRun
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, description: 'the run to reach Restoring' },
      );
      await server!.crash();
      await startServer();
      const reports = await waitFor(
        async () => {
          const found = (await listReports(fixture, name)).filter(
            (report) => report.spec.runId === restoring.id,
          );
          const status = (await getRestoreTest(fixture, name)).status;
          return found.length > 0 && status?.currentRun?.id !== restoring.id ? found : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 250, description: `the report of run ${restoring.id}` },
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(
        (await listReports(fixture, name)).filter((report) => report.spec.runId === restoring.id),
      ).toHaveLength(1);
      expect(reports[0]!.spec.restore?.phase).toMatch(/Complete/);
      expect(reports[0]!.spec.checks.every((check) => check.status === 'pass')).toBe(true);
      const sandbox = restoring.restore!.namespace;
      await waitFor(
        async () => {
          const list = (await fixture.custom.listNamespacedCustomObject({
            group,
            version,
            namespace: sandbox,
            plural,
          })) as { items: unknown[] };
          return list.items.length === 0;
        },
        { timeoutMs: 30_000, description: 'the restore object to be deleted' },
      );
      await server!.stop();
      server = undefined;
    },
  );
});
