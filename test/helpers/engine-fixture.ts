// Shared set-up for engine tests: a source namespace with the shop app, a Velero namespace served
// by the simulator, backups of the shop, the app's real endpoints on loopback, and helpers to
// create RestoreTests, trigger them and wait for their reports.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import {
  ANNOTATION_TRIGGER,
  API_VERSION,
  type RestoreReport,
  type RestoreTest,
  type RestoreTestSpec,
} from '../../server/domain/resources.js';
import { createBackup, VeleroSimulator } from '../velero/simulator.js';
import { createNamespace, testKubeConfig, uniqueName, waitFor } from './kube.js';
import { createShopApp, startShopEndpoints, type ShopEndpoints } from './sample-app.js';

export interface EngineFixture {
  admin: KubeConfig;
  custom: CustomObjectsApi;
  source: string;
  testNamespace: string;
  veleroNamespace: string;
  simulator: VeleroSimulator;
  endpoints: ShopEndpoints;
  /** A completed backup of the source namespace. */
  backup: string;
  stop(): Promise<void>;
}

export async function createEngineFixture(prefix: string): Promise<EngineFixture> {
  const admin = testKubeConfig();
  const custom = admin.makeApiClient(CustomObjectsApi);
  const source = uniqueName(`${prefix}-shop`);
  const testNamespace = uniqueName(`${prefix}-tests`);
  const veleroNamespace = uniqueName(`${prefix}-velero`);
  await createShopApp(admin, source);
  await createNamespace(admin, testNamespace);
  const simulator = new VeleroSimulator(admin, { namespace: veleroNamespace, stepDelayMs: 150, pollIntervalMs: 100 });
  await simulator.start();
  const endpoints = await startShopEndpoints();
  const backup = uniqueName('shop-nightly');
  await createBackup(admin, { name: backup, namespaces: [source], veleroNamespace });
  return {
    admin,
    custom,
    source,
    testNamespace,
    veleroNamespace,
    simulator,
    endpoints,
    backup,
    async stop() {
      await simulator.stop();
      await endpoints.stop();
    },
  };
}

export function restoreTestBody(
  fixture: EngineFixture,
  name: string,
  spec: Partial<RestoreTestSpec>,
): RestoreTest {
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name, namespace: fixture.testNamespace },
    spec: {
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      // Yearly at a fixed instant: only triggers run unless a test sets its own schedule.
      schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
      ...spec,
    } as RestoreTestSpec,
  };
}

export async function createRestoreTest(fixture: EngineFixture, test: RestoreTest): Promise<RestoreTest> {
  return (await fixture.custom.createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: test.metadata.namespace!,
    plural: 'restoretests',
    body: test,
  })) as RestoreTest;
}

export async function getRestoreTest(fixture: EngineFixture, name: string): Promise<RestoreTest> {
  return (await fixture.custom.getNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: fixture.testNamespace,
    plural: 'restoretests',
    name,
  })) as RestoreTest;
}

/** Requests a run the way the API does: a new trigger-request annotation value. */
export async function trigger(fixture: EngineFixture, name: string): Promise<string> {
  const value = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  await fixture.custom.patchNamespacedCustomObject(
    {
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restoretests',
      name,
      body: { metadata: { annotations: { [ANNOTATION_TRIGGER]: value } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return value;
}

export async function listReports(fixture: EngineFixture, testName?: string): Promise<RestoreReport[]> {
  const list = (await fixture.custom.listNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: fixture.testNamespace,
    plural: 'restorereports',
    ...(testName ? { labelSelector: `rehearsal.dev/test=${testName}` } : {}),
  })) as { items: RestoreReport[] };
  return list.items;
}

/** Waits until the test has `count` reports and no run in progress; returns the newest. */
export async function waitForReports(
  fixture: EngineFixture,
  testName: string,
  count = 1,
  timeoutMs = 60_000,
): Promise<RestoreReport[]> {
  return waitFor(
    async () => {
      const reports = await listReports(fixture, testName);
      if (reports.length < count) return undefined;
      const test = await getRestoreTest(fixture, testName);
      if (test.status?.currentRun) return undefined;
      return reports.sort((a, b) => a.spec.completedAt.localeCompare(b.spec.completedAt));
    },
    { timeoutMs, intervalMs: 250, description: `${count} report(s) of ${testName}` },
  );
}

export function uniqueTestName(prefix: string): string {
  return uniqueName(prefix, 30);
}
