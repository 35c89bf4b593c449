// Shared set-up for engine tests: a source namespace with the shop app, a Velero namespace served
// by the simulator (or, with backend 'real-velero', by the real Velero server), backups of the
// shop, the app's real endpoints on loopback, and helpers to
// create RestoreTests, trigger them and wait for their reports.
import {
  CustomObjectsApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  ANNOTATION_TRIGGER,
  API_VERSION,
  type RestoreReport,
  type RestoreTest,
  type RestoreTestSpec,
} from '../../server/domain/resources/resources.js';
import { expandReport } from '../../server/report-codec/report-encoding.js';
import { createBackup, VeleroSimulator } from '../velero/simulator.js';
import { authoredBy } from './author.js';
import { createNamespace, testKubeConfig, uniqueName, waitFor } from './kube.js';
import { startRealVelero, type NodeAgentOptions, type RealVelero } from './real-velero.js';
import { createShopApp, startShopEndpoints, type ShopEndpoints } from './sample-app.js';

export interface EngineFixture {
  admin: KubeConfig;
  custom: CustomObjectsApi;
  source: string;
  testNamespace: string;
  veleroNamespace: string;
  /** The Velero server playing its part: the simulator, or the real Velero. */
  simulator?: VeleroSimulator;
  realVelero?: RealVelero;
  endpoints: ShopEndpoints;
  /** A completed backup of the source namespace. */
  backup: string;
  /** The Velero server's (simulator's or real Velero's) most recent log lines (for failure messages). */
  veleroLog(): string[];
  stop(): Promise<void>;
}

const SIMULATOR_LOG_LINES = 40;

export type VeleroBackend = 'simulator' | 'real-velero';

/**
 * Rehearsal's ServiceAccount may touch Velero objects only where an administrator bound the
 * rehearsal-velero role (deploy/base/rbac.yaml binds it in "velero"); each fixture is its own
 * backup installation, so it is bound here too.
 */
async function bindVeleroRole(admin: KubeConfig, veleroNamespace: string): Promise<void> {
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: veleroNamespace,
    body: {
      metadata: { name: 'rehearsal-velero' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-velero' },
      subjects: [{ kind: 'ServiceAccount', name: 'rehearsal', namespace: 'rehearsal-system' }],
    },
  });
}

export interface EngineFixtureOptions {
  /** With the real Velero: run its node agent on this real node (volume data). */
  nodeAgent?: NodeAgentOptions;
  /** With the real Velero: its CSI support on (--features=EnableCSI), for CSI volume snapshots. */
  csi?: boolean;
}

export async function createEngineFixture(
  prefix: string,
  backend: VeleroBackend = 'simulator',
  options: EngineFixtureOptions = {},
): Promise<EngineFixture> {
  const admin = testKubeConfig();
  const custom = admin.makeApiClient(CustomObjectsApi);
  const source = uniqueName(`${prefix}-shop`);
  const testNamespace = uniqueName(`${prefix}-tests`);
  const veleroNamespace = uniqueName(`${prefix}-velero`);
  await createShopApp(admin, source);
  await createNamespace(admin, testNamespace);
  if (backend === 'real-velero') {
    // Long backup-sync period: a test deletes a backup's data from the store on purpose, and the
    // sync would otherwise remove the Backup object before the restore can fail on the missing data.
    const realVelero = await startRealVelero(admin, {
      namespace: veleroNamespace,
      serverArgs: ['--backup-sync-period', '1h', ...(options.csi ? ['--features=EnableCSI'] : [])],
      ...(options.nodeAgent ? { nodeAgent: options.nodeAgent } : {}),
    });
    await bindVeleroRole(admin, veleroNamespace);
    const endpoints = await startShopEndpoints();
    const backup = uniqueName('shop-nightly');
    await createBackup(admin, { name: backup, namespaces: [source], veleroNamespace, timeoutMs: 120_000 });
    return {
      admin,
      custom,
      source,
      testNamespace,
      veleroNamespace,
      realVelero,
      endpoints,
      backup,
      veleroLog: () => realVelero.log().slice(-SIMULATOR_LOG_LINES),
      async stop() {
        await realVelero.stop();
        await endpoints.stop();
      },
    };
  }
  const logLines: string[] = [];
  const simulator = new VeleroSimulator(admin, {
    namespace: veleroNamespace,
    stepDelayMs: 150,
    pollIntervalMs: 100,
    log: (line) => {
      logLines.push(`${new Date().toISOString()} ${line}`);
      if (logLines.length > SIMULATOR_LOG_LINES) logLines.shift();
    },
  });
  await simulator.start();
  await bindVeleroRole(admin, veleroNamespace);
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
    veleroLog: () => [...logLines],
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
      backupSource: {
        backupName: 'latest',
        namespaces: [{ name: fixture.source }],
        providerNamespace: fixture.veleroNamespace,
      },
      // Yearly at a fixed instant: only triggers run unless a test sets its own schedule.
      schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
      ...spec,
    } as RestoreTestSpec,
  };
}

/** Creates `test` as the administrator, recorded as its author (decision 0018: it restores another namespace). */
export async function createRestoreTest(fixture: EngineFixture, test: RestoreTest): Promise<RestoreTest> {
  return (await fixture.custom.createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: test.metadata.namespace!,
    plural: 'restoretests',
    body: await authoredBy(fixture.admin, test),
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
  // A test's reports answer to spec.test (stored since issue 17's fifth cut) or spec.testRef.name.
  const selectors = testName ? [`spec.test=${testName}`, `spec.testRef.name=${testName}`] : [undefined];
  const lists = await Promise.all(
    selectors.map(
      async (fieldSelector) =>
        (await fixture.custom.listNamespacedCustomObject({
          group: 'rehearsal.dev',
          version: 'v1alpha1',
          namespace: fixture.testNamespace,
          plural: 'restorereports',
          ...(fieldSelector ? { fieldSelector } : {}),
        })) as { items: RestoreReport[] },
    ),
  );
  // As every reader does: the writer stores most fields as JSON in spec.details (issue 17).
  return lists.flatMap((list) => list.items).map(expandReport);
}

/**
 * Waits until the test has `count` reports and no run in progress; returns them oldest first. On
 * timeout the error says where the run stood (its status, the Velero Restores of the test's
 * namespace, the simulator's last lines), so a slow or stuck run in CI explains itself.
 */
export async function waitForReports(
  fixture: EngineFixture,
  testName: string,
  count = 1,
  timeoutMs = 60_000,
): Promise<RestoreReport[]> {
  try {
    return await waitFor(
      async () => {
        const reports = await listReports(fixture, testName);
        if (reports.length < count) return undefined;
        const test = await getRestoreTest(fixture, testName);
        if (test.status?.currentRun) return undefined;
        return reports.sort((a, b) => a.spec.completedAt.localeCompare(b.spec.completedAt));
      },
      { timeoutMs, intervalMs: 250, description: `${count} report(s) of ${testName}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${await describeRunState(fixture, testName)}`);
  }
}

async function describeRunState(fixture: EngineFixture, testName: string): Promise<string> {
  const lines: string[] = [];
  try {
    const test = await getRestoreTest(fixture, testName);
    lines.push(`test status: ${JSON.stringify(test.status ?? {})}`);
  } catch (error) {
    lines.push(`test status: unreadable (${(error as Error).message})`);
  }
  try {
    const restores = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'restores',
    })) as {
      items: { metadata: { name: string; creationTimestamp?: string }; status?: { phase?: string } }[];
    };
    for (const restore of restores.items) {
      lines.push(
        `restore ${restore.metadata.name} (created ${restore.metadata.creationTimestamp}): ${restore.status?.phase ?? 'no phase'}`,
      );
    }
  } catch (error) {
    lines.push(`restores: unreadable (${(error as Error).message})`);
  }
  lines.push(
    `${fixture.realVelero ? 'velero' : 'simulator'} log:`,
    ...fixture.veleroLog().map((line) => `  ${line}`),
  );
  return lines.join('\n');
}

export function uniqueTestName(prefix: string): string {
  return uniqueName(prefix, 30);
}
