// The Velero provider against a real apiserver with Velero's real CRDs, and the Velero SIMULATOR
// (test/velero/simulator.ts — not Velero) doing the server's part. Every test uses its own Velero
// namespace, source namespaces and sandboxes, so it can share a cluster with other test files.
//
// "Velero not installed" is proven against the real apiserver too: the provider is pointed at an
// API group no cluster serves (its apiGroup test seam), which yields exactly the 404 on the
// collection that a cluster without Velero's CRDs answers; "unreachable" uses a closed loopback
// port. (Removing the real CRDs would break other files sharing the cluster.)
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import {
  buildNamespaceMapping,
  ProviderError,
  type RestoreProgress,
  type RestoreRef,
  type RestoreRequest,
} from '../../server/providers/provider.js';
import { VeleroProvider } from '../../server/providers/velero/velero.provider.js';
import { auditLogPath, readAuditEvents, writesIn } from '../helpers/audit.js';
import {
  apiStatusCode,
  closedLoopbackPort,
  createNamespace,
  deleteNamespaces,
  namespaceExists,
  sleep,
  testKubeConfig,
  uniqueName,
  unreachableKubeConfig,
  waitFor,
} from '../helpers/kube.js';
import {
  createBackup,
  SIMULATOR_BACKUP_OUTCOME,
  SIMULATOR_OMIT_KINDS,
  SIMULATOR_RESTORE_DELAY_MS,
  SIMULATOR_RESTORE_OUTCOME,
  SIMULATOR_TRIPWIRE_PREFIX,
  SNAPSHOT_KINDS,
  snapshotSecretName,
  VeleroSimulator,
} from '../velero/simulator.js';
import { NO_TRANSFORMS } from '../helpers/transforms.js';

// The integration project's testTimeout is not applied per project by Jest 30; set it here.
jest.setTimeout(120_000);

const kubeConfig = testKubeConfig();
const core = kubeConfig.makeApiClient(CoreV1Api);
const apps = kubeConfig.makeApiClient(AppsV1Api);
const custom = kubeConfig.makeApiClient(CustomObjectsApi);
const objects = KubernetesObjectApi.makeApiClient(kubeConfig);

const veleroNamespace = uniqueName('velero-it');
const simulator = new VeleroSimulator(kubeConfig, {
  namespace: veleroNamespace,
  stepDelayMs: 150,
  pollIntervalMs: 100,
});
const provider = new VeleroProvider(kubeConfig, { namespace: veleroNamespace });
const namespaces: string[] = [veleroNamespace];
const TERMINAL_STATES = new Set(['succeeded', 'partiallyFailed', 'failed']);
/** Objects seedSource() creates, all of kinds the simulator backs up. */
const SEEDED_ITEMS = 5;

let source = '';

async function fresh(prefix: string): Promise<string> {
  const name = await createNamespace(kubeConfig, uniqueName(prefix));
  namespaces.push(name);
  return name;
}

/** A small application: ConfigMap, Secret, ServiceAccount, Service, Deployment (1 KWOK pod). */
async function seedSource(prefix: string): Promise<string> {
  const namespace = await fresh(prefix);
  const labels = { app: 'shop' };
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'app-config', labels }, data: { mode: 'production' } },
  });
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'db-credentials', labels },
      stringData: { username: 'shop', password: 's3cret' },
    },
  });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'shop', labels } } });
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: 'web', labels },
      spec: { selector: labels, ports: [{ name: 'http', port: 80 }] },
    },
  });
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'web', labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'shop',
            containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
          },
        },
      },
    },
  });
  // Let the controllers settle (Deployment status, pod Ready through KWOK), so the source's
  // resourceVersions only change if someone writes to it.
  await waitFor(
    async () => {
      const deployment = await apps.readNamespacedDeployment({ name: 'web', namespace });
      return (
        deployment.status?.observedGeneration === deployment.metadata?.generation &&
        deployment.status?.readyReplicas === 1 &&
        deployment.status?.updatedReplicas === 1
      );
    },
    { timeoutMs: 90_000, intervalMs: 250, description: `deployment ${namespace}/web to become ready` },
  );
  await sleep(500);
  return namespace;
}

/** kind/name → resourceVersion of every object of the backed-up kinds, plus the namespace itself. */
async function resourceVersions(namespace: string): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  const ns = await core.readNamespace({ name: namespace });
  versions[`Namespace/${namespace}`] = ns.metadata?.resourceVersion ?? '';
  for (const { apiVersion, kind } of SNAPSHOT_KINDS) {
    const list = await objects.list(apiVersion, kind, namespace);
    for (const item of list.items)
      versions[`${kind}/${item.metadata?.name}`] = item.metadata?.resourceVersion ?? '';
  }
  return versions;
}

async function objectsLabelledByRestore(namespace: string): Promise<string[]> {
  const found: string[] = [];
  for (const { apiVersion, kind } of SNAPSHOT_KINDS) {
    const list = await objects.list(
      apiVersion,
      kind,
      namespace,
      undefined,
      undefined,
      undefined,
      undefined,
      'velero.io/restore-name',
    );
    for (const item of list.items) found.push(`${kind}/${item.metadata?.name}`);
  }
  return found;
}

/** Polls the provider until the restore is terminal; returns the last progress and every phase seen. */
async function followRestore(ref: RestoreRef): Promise<{ final: RestoreProgress; phases: string[] }> {
  const phases: string[] = [];
  const final = await waitFor(
    async () => {
      const progress = await provider.getRestoreProgress(ref);
      if (phases[phases.length - 1] !== progress.phase) phases.push(progress.phase);
      return TERMINAL_STATES.has(progress.state) ? progress : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 40, description: `restore ${ref.namespace}/${ref.name} to finish` },
  );
  return { final, phases };
}

async function restoreRequest(
  backupName: string,
  sources: string[],
  sandboxFor: (source: string) => string,
): Promise<RestoreRequest> {
  const backup = await provider.selectBackup(sources, backupName);
  return {
    name: uniqueName('rt'),
    backup,
    mapping: buildNamespaceMapping(sources, sandboxFor),
    labels: { 'rehearsal.dev/test': 'velero-it' },
    transforms: NO_TRANSFORMS,
  };
}

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

beforeAll(async () => {
  await simulator.start();
  source = await seedSource('shop');
}, 120_000);

afterAll(async () => {
  await simulator.stop();
  await deleteNamespaces(kubeConfig, namespaces);
});

describe('VeleroProvider with the Velero simulator', () => {
  it('restores a backup into the sandbox only: source untouched, phases observed, idempotent, deletable', async () => {
    const backup = await createBackup(kubeConfig, {
      name: uniqueName('full'),
      namespaces: [source],
      veleroNamespace,
      annotations: { [SIMULATOR_RESTORE_DELAY_MS]: '400' },
    });
    expect(backup.status?.progress?.totalItems).toBe(SEEDED_ITEMS);
    const sandbox = await fresh('rehearsal-sbx');
    const before = await resourceVersions(source);
    const clusterIpBefore = (await core.readNamespacedService({ name: 'web', namespace: source })).spec
      ?.clusterIP;
    const windowStart = new Date(Date.now() - 1000);

    const request = await restoreRequest(backup.metadata.name, [source], () => sandbox);
    expect(request.backup).toMatchObject({
      name: backup.metadata.name,
      includedNamespaces: [source],
      totalItems: SEEDED_ITEMS,
    });
    const ref = await provider.startRestore(request);
    expect(ref).toEqual({ namespace: veleroNamespace, name: request.name });

    // What Velero is asked to do, read back from the apiserver.
    const restoreObject = (await custom.getNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: veleroNamespace,
      plural: 'restores',
      name: ref.name,
    })) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(restoreObject.spec).toEqual({
      backupName: backup.metadata.name,
      includedNamespaces: [source],
      namespaceMapping: { [source]: sandbox },
      includeClusterResources: false,
      restorePVs: true,
    });
    expect(restoreObject.metadata.labels).toEqual({ 'rehearsal.dev/test': 'velero-it' });

    const { final, phases } = await followRestore(ref);
    expect(phases).toContain('InProgress');
    expect(phases[phases.length - 1]).toBe('Completed');
    expect(final).toMatchObject({
      state: 'succeeded',
      phase: 'Completed',
      errors: 0,
      warnings: 0,
      itemsRestored: SEEDED_ITEMS,
      totalItems: SEEDED_ITEMS,
    });
    expect(final.completedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // Everything is in the sandbox, labelled by Velero, with cluster-assigned fields fresh.
    const config = await core.readNamespacedConfigMap({ name: 'app-config', namespace: sandbox });
    expect(config.data).toEqual({ mode: 'production' });
    expect(config.metadata?.labels).toMatchObject({ app: 'shop', 'velero.io/restore-name': ref.name });
    const secret = await core.readNamespacedSecret({ name: 'db-credentials', namespace: sandbox });
    expect(Buffer.from(secret.data?.password ?? '', 'base64').toString()).toBe('s3cret');
    const service = await core.readNamespacedService({ name: 'web', namespace: sandbox });
    expect(service.spec?.clusterIP).toBeTruthy();
    expect(service.spec?.clusterIP).not.toBe(clusterIpBefore);
    const deployment = await apps.readNamespacedDeployment({ name: 'web', namespace: sandbox });
    expect(deployment.spec?.template.spec?.serviceAccountName).toBe('shop');
    expect((await objectsLabelledByRestore(sandbox)).sort()).toEqual(
      [
        'ConfigMap/app-config',
        'Deployment/web',
        'Secret/db-credentials',
        'Service/web',
        'ServiceAccount/shop',
      ].sort(),
    );

    // Nothing was created or modified in the source.
    expect(await resourceVersions(source)).toEqual(before);
    expect(await objectsLabelledByRestore(source)).toEqual([]);
    const auditLog = auditLogPath();
    if (auditLog) {
      const windowWrites = writesIn(readAuditEvents(auditLog, windowStart));
      // The log is read and the window is right: the restore's writes into the sandbox are there.
      expect(
        windowWrites.some((event) => event.objectRef?.namespace === sandbox && event.verb === 'create'),
      ).toBe(true);
      const writes = windowWrites.filter(
        (event) =>
          event.objectRef?.namespace === source ||
          (!event.objectRef?.namespace &&
            event.objectRef?.resource === 'namespaces' &&
            event.objectRef.name === source),
      );
      expect(writes.map((event) => `${event.user.username} ${event.verb} ${event.requestURI}`)).toEqual([]);
    }

    // Idempotent: the same request finds its own restore; a differing one is refused.
    await expect(provider.startRestore(request)).resolves.toEqual(ref);
    const other = await fresh('rehearsal-sbx');
    const conflicting = { ...request, mapping: buildNamespaceMapping([source], () => other) };
    expect((await providerError(provider.startRestore(conflicting))).reason).toBe('RestoreRejected');

    // Deleting removes the Restore object, not the restored data; twice is fine.
    await provider.deleteRestore(ref);
    await waitFor(
      async () => (await providerError(provider.getRestoreProgress(ref))).reason === 'RestoreNotFound',
      {
        description: 'the restore to disappear',
      },
    );
    await provider.deleteRestore(ref);
    expect(await namespaceExists(kubeConfig, sandbox)).toBe(true);
    await expect(
      core.readNamespacedConfigMap({ name: 'app-config', namespace: sandbox }),
    ).resolves.toBeTruthy();
  });

  it('reports PartiallyFailed when kinds are omitted, and creates a missing sandbox namespace', async () => {
    const backup = await createBackup(kubeConfig, {
      name: uniqueName('no-secrets'),
      namespaces: [source],
      veleroNamespace,
      annotations: { [SIMULATOR_OMIT_KINDS]: 'Secret' },
    });
    const sandbox = uniqueName('rehearsal-sbx');
    namespaces.push(sandbox);
    expect(await namespaceExists(kubeConfig, sandbox)).toBe(false);
    const before = await resourceVersions(source);

    const ref = await provider.startRestore(
      await restoreRequest(backup.metadata.name, [source], () => sandbox),
    );
    const { final } = await followRestore(ref);
    expect(final).toMatchObject({
      state: 'partiallyFailed',
      phase: 'PartiallyFailed',
      errors: 1,
      itemsRestored: SEEDED_ITEMS - 1,
      totalItems: SEEDED_ITEMS,
    });
    expect(final.message).toContain('1 error(s)');
    expect(await namespaceExists(kubeConfig, sandbox)).toBe(true);
    await expect(
      core.readNamespacedConfigMap({ name: 'app-config', namespace: sandbox }),
    ).resolves.toBeTruthy();
    const missing = await core
      .readNamespacedSecret({ name: 'db-credentials', namespace: sandbox })
      .catch(apiStatusCode);
    expect(missing).toBe(404);
    expect(await resourceVersions(source)).toEqual(before);
  });

  it('reports Failed for an injected failure and for missing backup data', async () => {
    const failing = await createBackup(kubeConfig, {
      name: uniqueName('doomed'),
      namespaces: [source],
      veleroNamespace,
      annotations: { [SIMULATOR_RESTORE_OUTCOME]: 'Failed' },
    });
    const sandbox = await fresh('rehearsal-sbx');
    const injected = await followRestore(
      await provider.startRestore(await restoreRequest(failing.metadata.name, [source], () => sandbox)),
    );
    expect(injected.final).toMatchObject({ state: 'failed', phase: 'Failed' });
    expect(injected.final.message).toContain('simulated failure');
    expect(await objectsLabelledByRestore(sandbox)).toEqual([]);

    const lost = await createBackup(kubeConfig, {
      name: uniqueName('lost'),
      namespaces: [source],
      veleroNamespace,
    });
    await core.deleteNamespacedSecret({
      name: snapshotSecretName(lost.metadata.name),
      namespace: veleroNamespace,
    });
    const sandbox2 = await fresh('rehearsal-sbx');
    const missingData = await followRestore(
      await provider.startRestore(await restoreRequest(lost.metadata.name, [source], () => sandbox2)),
    );
    expect(missingData.final).toMatchObject({ state: 'failed', phase: 'Failed' });
    expect(missingData.final.message).toContain(`backup data of ${lost.metadata.name} not found`);
  });

  it('trips the simulator on a Restore without a complete mapping (built by hand: the provider cannot)', async () => {
    const backup = await createBackup(kubeConfig, {
      name: uniqueName('trip'),
      namespaces: [source],
      veleroNamespace,
    });
    const before = await resourceVersions(source);
    const unsafe: Record<string, Record<string, unknown>> = {
      'no mapping': { includedNamespaces: [source], includeClusterResources: false },
      'mapped onto itself': {
        includedNamespaces: [source],
        namespaceMapping: { [source]: source },
        includeClusterResources: false,
      },
      'all namespaces': { namespaceMapping: { [source]: 'elsewhere' }, includeClusterResources: false },
      'cluster resources': { includedNamespaces: [source], namespaceMapping: { [source]: 'elsewhere' } },
    };
    for (const [label, spec] of Object.entries(unsafe)) {
      const name = uniqueName('unsafe');
      await custom.createNamespacedCustomObject({
        group: 'velero.io',
        version: 'v1',
        namespace: veleroNamespace,
        plural: 'restores',
        body: {
          apiVersion: 'velero.io/v1',
          kind: 'Restore',
          metadata: { name },
          spec: { backupName: backup.metadata.name, ...spec },
        },
      });
      const { final } = await followRestore({ namespace: veleroNamespace, name });
      expect({ label, state: final.state, phase: final.phase }).toEqual({
        label,
        state: 'failed',
        phase: 'FailedValidation',
      });
      expect(final.message).toContain(SIMULATOR_TRIPWIRE_PREFIX);
    }
    expect(await namespaceExists(kubeConfig, 'elsewhere')).toBe(false);
    expect(await resourceVersions(source)).toEqual(before);
  });

  it('selects the newest Completed backup covering every source for "latest"', async () => {
    const app = await fresh('billing');
    const other = await fresh('crm');
    // Velero timestamps have whole seconds: space the backups so "newest" is unambiguous.
    const older = await createBackup(kubeConfig, {
      name: uniqueName('b1'),
      namespaces: [app],
      veleroNamespace,
    });
    await sleep(1100);
    const newer = await createBackup(kubeConfig, {
      name: uniqueName('b2'),
      namespaces: [app, other],
      veleroNamespace,
    });
    await sleep(1100);
    const otherOnly = await createBackup(kubeConfig, {
      name: uniqueName('b3'),
      namespaces: [other],
      veleroNamespace,
    });
    await sleep(1100);
    const partial = await createBackup(kubeConfig, {
      name: uniqueName('b4'),
      namespaces: [app],
      veleroNamespace,
      annotations: { [SIMULATOR_BACKUP_OUTCOME]: 'PartiallyFailed' },
      expectPhase: 'PartiallyFailed',
    });
    await createBackup(kubeConfig, {
      name: uniqueName('b5'),
      namespaces: [app],
      veleroNamespace,
      annotations: { [SIMULATOR_BACKUP_OUTCOME]: 'Failed' },
      expectPhase: 'Failed',
    });

    expect((await provider.selectBackup([app], 'latest')).name).toBe(newer.metadata.name);
    expect((await provider.selectBackup([app], '')).name).toBe(newer.metadata.name);
    expect((await provider.selectBackup([other], 'latest')).name).toBe(otherOnly.metadata.name);
    expect((await provider.selectBackup([app, other], 'latest')).name).toBe(newer.metadata.name);
    expect((await provider.selectBackup([app], older.metadata.name)).name).toBe(older.metadata.name);
    // PartiallyFailed: only when named.
    expect((await provider.selectBackup([app], partial.metadata.name)).name).toBe(partial.metadata.name);
    // The Velero namespace can be overridden per call.
    const elsewhere = await providerError(provider.selectBackup([app], 'latest', 'no-velero-here'));
    expect(elsewhere.reason).toBe('BackupNotFound');
    expect(elsewhere.message).toContain('in namespace no-velero-here');
  });

  it('refuses a named backup that does not exist, is not finished or does not cover the sources', async () => {
    const missing = await providerError(provider.selectBackup([source], 'no-such-backup'));
    expect(missing.reason).toBe('BackupNotFound');
    expect(missing.message).toBe(`Velero backup no-such-backup not found in namespace ${veleroNamespace}`);

    const failed = await createBackup(kubeConfig, {
      name: uniqueName('failed'),
      namespaces: [source],
      veleroNamespace,
      annotations: { [SIMULATOR_BACKUP_OUTCOME]: 'Failed' },
      expectPhase: 'Failed',
    });
    const notFinished = await providerError(provider.selectBackup([source], failed.metadata.name));
    expect(notFinished.reason).toBe('BackupNotFound');
    expect(notFinished.message).toContain('is Failed');

    const narrow = await createBackup(kubeConfig, {
      name: uniqueName('narrow'),
      namespaces: [source],
      veleroNamespace,
    });
    const uncovered = await providerError(provider.selectBackup([source, 'payments'], narrow.metadata.name));
    expect(uncovered.reason).toBe('BackupNotFound');
    expect(uncovered.message).toContain('does not include namespace(s) payments');
  });

  it('lists Velero Schedules', async () => {
    const scheduleName = uniqueName('nightly');
    await custom.createNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: veleroNamespace,
      plural: 'schedules',
      body: {
        apiVersion: 'velero.io/v1',
        kind: 'Schedule',
        metadata: { name: scheduleName },
        spec: {
          schedule: '0 2 * * *',
          template: { includedNamespaces: [source, 'billing'], ttl: '720h0m0s' },
        },
      },
    });
    const freshName = uniqueName('weekly');
    await custom.createNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: veleroNamespace,
      plural: 'schedules',
      body: {
        apiVersion: 'velero.io/v1',
        kind: 'Schedule',
        metadata: { name: freshName },
        spec: { schedule: '@weekly', template: {} },
      },
    });
    // Velero's Schedule CRD has no status subresource (subresources: {}): status is part of the
    // object, written by the Velero server; play that part with a merge patch.
    await custom.patchNamespacedCustomObject(
      {
        group: 'velero.io',
        version: 'v1',
        namespace: veleroNamespace,
        plural: 'schedules',
        name: scheduleName,
        body: { status: { phase: 'Enabled', lastBackup: '2026-03-10T02:00:00Z' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    const schedules = await provider.listSchedules();
    expect(schedules).toEqual(
      expect.arrayContaining([
        {
          name: scheduleName,
          cron: '0 2 * * *',
          namespaces: [source, 'billing'],
          lastBackup: '2026-03-10T02:00:00Z',
        },
        { name: freshName, cron: '@weekly', namespaces: [], lastBackup: '' },
      ]),
    );
    expect(schedules).toHaveLength(2);
    expect(await provider.listSchedules(uniqueName('empty'))).toEqual([]);
  });
});

describe('VeleroProvider without Velero', () => {
  it('reports ProviderUnavailable when the cluster does not serve the Velero API', async () => {
    const absent = new VeleroProvider(kubeConfig, {
      namespace: veleroNamespace,
      apiGroup: 'velero.absent.rehearsal.dev',
    });
    const request: RestoreRequest = {
      name: uniqueName('rt'),
      backup: { name: 'b1', includedNamespaces: [source] },
      mapping: buildNamespaceMapping([source], () => 'rehearsal-nowhere'),
      labels: {},
      transforms: NO_TRANSFORMS,
    };
    const attempts: [string, Promise<unknown>][] = [
      ['listSchedules', absent.listSchedules()],
      ['selectBackup latest', absent.selectBackup([source], 'latest')],
      ['selectBackup named', absent.selectBackup([source], 'b1')],
      ['getRestoreProgress', absent.getRestoreProgress({ namespace: veleroNamespace, name: 'r1' })],
      ['startRestore', absent.startRestore(request)],
    ];
    for (const [label, attempt] of attempts) {
      const error = await providerError(attempt);
      expect({ label, reason: error.reason }).toEqual({ label, reason: 'ProviderUnavailable' });
      expect(error.message).toContain('velero.absent.rehearsal.dev');
    }
    await expect(absent.deleteRestore({ namespace: veleroNamespace, name: 'r1' })).resolves.toBeUndefined();
  });

  it('reports ProviderUnavailable when the apiserver is unreachable', async () => {
    const unreachable = new VeleroProvider(unreachableKubeConfig(await closedLoopbackPort()));
    const error = await providerError(unreachable.listSchedules());
    expect(error.reason).toBe('ProviderUnavailable');
    expect((await providerError(unreachable.selectBackup(['shop'], 'latest'))).reason).toBe(
      'ProviderUnavailable',
    );
  });
});
