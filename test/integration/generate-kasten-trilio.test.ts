// Test drafts (issue 32) with Kasten and with Trilio as the server's backup tool
// (REHEARSAL_BACKUP_TOOL), on the real control plane: Rehearsal under its own ServiceAccount and the
// shipped RBAC, callers with bound tokens and real RBAC (REHEARSAL_AUTH_MODE=kubernetes), the tools'
// objects on the test cluster's CRDs (test/kasten/crds: written from Kasten's documentation, the
// Policy one included; test/trilio/crds: TVK's own BackupPlan, Policy and Backup CRDs). Neither tool
// runs here: the objects are what they would have left.
//  - the server's ServiceAccount may list Kasten Policies and RestorePoints, Trilio BackupPlans,
//    Policies and Backups across namespaces (deploy/base/rbac.yaml): the drafts come back;
//  - a Kasten-backed namespace is drafted with provider kasten, the cron an hour after its Policy's
//    daily subFrequency time, and its workloads' checks; a Trilio-backed one with provider trilio,
//    an hour after its BackupPlan's schedule Policy cron;
//  - the drafts are valid RestoreTests for the real apiserver (schema, CEL rules, author policy);
//  - a caller bound to rehearsal-viewer (which now lists the tools' objects) is served; a caller
//    without it gets 403 naming the tool's list (cluster-wide), never Velero's.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { TestDraftsResponse } from '../../server/api/services/test-drafts.service.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { authoredBy } from '../helpers/author.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

jest.setTimeout(200_000);

let admin: KubeConfig;
let kastenServer: Rehearsal;
let trilioServer: Rehearsal;
const testNamespace = uniqueName('gen-kt-tests');
const kastenHome = uniqueName('gen-kt-kasten-io');
const kastenApp = uniqueName('gen-kt-kasten-app');
const trilioApp = uniqueName('gen-kt-trilio-app');
const tokens: Record<string, string> = {};
const clusterRoleBindings: string[] = [];

async function user(name: string, clusterRole?: string): Promise<void> {
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: testNamespace, body: { metadata: { name } } });
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const subjects = [{ kind: 'ServiceAccount', name, namespace: testNamespace }];
  if (clusterRole) {
    const binding = uniqueName(`${name}-${clusterRole}`);
    await rbac.createClusterRoleBinding({ body: { metadata: { name: binding }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole }, subjects } });
    clusterRoleBindings.push(binding);
  }
  // Reading the applications' workloads (the drafts' per-namespace review).
  for (const namespace of [kastenApp, trilioApp]) {
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: { metadata: { name: `${name}-view` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects },
    });
  }
  tokens[name] = await serviceAccountTokenFor(admin, testNamespace, name);
}

/** A web Deployment behind a Service: what the drafts find to check. */
async function createApp(namespace: string): Promise<void> {
  await createNamespace(admin, namespace);
  await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example/web:1', ports: [{ name: 'http', containerPort: 8080 }] }] } },
      },
    },
  });
  await admin.makeApiClient(CoreV1Api).createNamespacedService({
    namespace,
    body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' as never }] } },
  });
}

async function draftsFrom(server: Rehearsal, who: string, source: string): Promise<Response> {
  const query = new URLSearchParams({ namespace: testNamespace, sourceNamespace: source });
  return fetch(`http://127.0.0.1:${server.port()}/api/v1/test-drafts?${query}`, { headers: { authorization: `Bearer ${tokens[who]}` } });
}

async function expectAcceptedByApiserver(answer: TestDraftsResponse): Promise<void> {
  const custom = admin.makeApiClient(CustomObjectsApi);
  for (const draft of answer.drafts) {
    const created = (await custom.createNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: testNamespace,
      plural: 'restoretests',
      body: await authoredBy(admin, draft.test as unknown as RestoreTest),
      dryRun: 'All',
    })) as RestoreTest;
    expect(created.spec).toMatchObject(draft.test.spec);
  }
}

beforeAll(async () => {
  admin = testKubeConfig();
  await createNamespace(admin, testNamespace);
  await createNamespace(admin, kastenHome);
  await Promise.all([createApp(kastenApp), createApp(trilioApp)]);
  const custom = admin.makeApiClient(CustomObjectsApi);
  // Kasten: a daily Policy in Kasten's namespace selecting the app, and a RestorePoint it made.
  await custom.createNamespacedCustomObject({
    group: 'config.kio.kasten.io',
    version: 'v1alpha1',
    namespace: kastenHome,
    plural: 'policies',
    body: {
      apiVersion: 'config.kio.kasten.io/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'app-daily' },
      spec: {
        frequency: '@daily',
        subFrequency: { minutes: [30], hours: [2] },
        retention: { daily: 7 },
        actions: [{ action: 'backup' }],
        selector: { matchExpressions: [{ key: 'k10.kasten.io/appNamespace', operator: 'In', values: [kastenApp] }] },
      },
    },
  });
  await custom.createNamespacedCustomObject({
    group: 'apps.kio.kasten.io',
    version: 'v1alpha1',
    namespace: kastenApp,
    plural: 'restorepoints',
    body: { apiVersion: 'apps.kio.kasten.io/v1alpha1', kind: 'RestorePoint', metadata: { name: 'app-daily-rp-1' }, spec: {} },
  });
  // Trilio: a schedule Policy and the BackupPlan naming it, in the application's namespace.
  await custom.createNamespacedCustomObject({
    group: 'triliovault.trilio.io',
    version: 'v1',
    namespace: trilioApp,
    plural: 'policies',
    body: { apiVersion: 'triliovault.trilio.io/v1', kind: 'Policy', metadata: { name: 'nightly' }, spec: { type: 'Schedule', scheduleConfig: { schedule: ['15 1 * * *'] } } },
  });
  await custom.createNamespacedCustomObject({
    group: 'triliovault.trilio.io',
    version: 'v1',
    namespace: trilioApp,
    plural: 'backupplans',
    body: {
      apiVersion: 'triliovault.trilio.io/v1',
      kind: 'BackupPlan',
      metadata: { name: 'app-plan' },
      spec: { backupConfig: { target: { name: 'target', namespace: trilioApp }, schedulePolicy: { fullBackupPolicy: { name: 'nightly' } } } },
    },
  });
  // alice holds rehearsal-viewer (the entrance, the tests, the tools' lists); nobody holds nothing of Rehearsal.
  await user('alice', 'rehearsal-viewer');
  await user('nobody');
  const server = async (tool: 'kasten' | 'trilio') =>
    startInProcess({
      kubeconfigPath: await rehearsalKubeconfig(`generate-${tool}.kubeconfig`),
      extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_BACKUP_TOOL: tool, REHEARSAL_COVERAGE_REFRESH_SECONDS: '1', REHEARSAL_CONTROLLER: 'false' },
    });
  kastenServer = await server('kasten');
  trilioServer = await server('trilio');
}, 150_000);

afterAll(async () => {
  await kastenServer?.stop();
  await trilioServer?.stop();
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  for (const name of clusterRoleBindings) await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  await deleteNamespaces(admin, [testNamespace, kastenHome, kastenApp, trilioApp]);
});

describe('generate with Kasten', () => {
  it('drafts the Policy-backed namespace with provider kasten, an hour after the Policy, from its workloads', async () => {
    const response = await draftsFrom(kastenServer, 'alice', kastenApp);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as TestDraftsResponse;
    expect(answer.skipped).toEqual([]);
    const [draft] = answer.drafts;
    expect(draft!.test.spec).toMatchObject({
      provider: 'kasten',
      backupSource: { backupName: 'latest', namespaces: [{ name: kastenApp }] },
      schedule: { cron: '30 3 * * *', timezone: 'UTC' },
    });
    expect(draft!.test.metadata.annotations['rehearsal.dev/generated-from']).toBe(`kasten Policy/${kastenHome}/app-daily`);
    expect(draft!.test.spec.healthChecks!.checks.map((check) => `${check.kind}/${check.name}`)).toEqual(['podsReady/web-pods', 'tcpSocket/web-80-tcp']);
    await expectAcceptedByApiserver(answer);
  });

  it('refuses a caller who may not list Kasten Policies, naming it, and asks nothing of Velero', async () => {
    const response = await draftsFrom(kastenServer, 'nobody', kastenApp);
    expect(response.status).toBe(403);
    const missing = ((await response.json()) as { missingPermissions: PermissionDescriptor[] }).missingPermissions;
    expect(missing).toContainEqual({ verb: 'list', group: 'config.kio.kasten.io', resource: 'policies' });
    expect(missing.filter((permission) => permission.group === 'velero.io')).toEqual([]);
  });
});

describe('generate with Trilio', () => {
  it('drafts the BackupPlan-backed namespace with provider trilio, an hour after its schedule Policy', async () => {
    const response = await draftsFrom(trilioServer, 'alice', trilioApp);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as TestDraftsResponse;
    const [draft] = answer.drafts;
    expect(draft!.test.spec).toMatchObject({ provider: 'trilio', backupSource: { namespaces: [{ name: trilioApp }] }, schedule: { cron: '15 2 * * *' } });
    expect(draft!.test.metadata.annotations['rehearsal.dev/generated-from']).toBe('trilio BackupPlan/app-plan');
    expect(draft!.notes.join(' ')).toContain('Rehearsal reads them as UTC');
    await expectAcceptedByApiserver(answer);
  });

  it('refuses a caller who may not list Trilio BackupPlans, naming it', async () => {
    const response = await draftsFrom(trilioServer, 'nobody', trilioApp);
    expect(response.status).toBe(403);
    const missing = ((await response.json()) as { missingPermissions: PermissionDescriptor[] }).missingPermissions;
    expect(missing).toContainEqual({ verb: 'list', group: 'triliovault.trilio.io', resource: 'backupplans' });
  });
});
