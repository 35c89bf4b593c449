// Test drafts (issue 32) on the real control plane, Rehearsal under its own ServiceAccount and the
// shipped RBAC, callers with bound tokens and real RBAC (REHEARSAL_AUTH_MODE=kubernetes):
//  - two namespaces backed up by a Velero Schedule (the engine fixture's shop, with the Velero
//    simulator; and a second one with a probed Deployment and a PostgreSQL StatefulSet) are drafted
//    from their workloads as the server's ServiceAccount lists them;
//  - a caller who may list workloads only in the second namespace gets nothing of the shop, and the
//    answer names the missing permissions; nothing is written by drafting;
//  - the drafts are valid RestoreTests for the real apiserver (CRD schema and CEL rules, the author
//    admission policy) when created;
//  - the shop's draft, created through POST /api/v1/test-drafts/{ns} by a caller allowed to restore
//    it (recorded as author) and triggered, passes unchanged (the simulator's restore, the shop's
//    real endpoints on loopback).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  AppsV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { TestDraftsResponse } from '../../server/api/services/test-drafts.service.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { authoredBy } from '../helpers/author.js';
import {
  createEngineFixture,
  getRestoreTest,
  trigger,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let second: string;
let base: string;
const tokens: Record<string, string> = {};
/** Cluster-scoped, so not deleted with the namespaces: removed in afterAll. */
const clusterRoleBindings: string[] = [];
jest.setTimeout(200_000);

async function bind(admin: KubeConfig, who: string, role: string, namespaces: string[] | 'cluster'): Promise<void> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const subjects = [{ kind: 'ServiceAccount', name: who, namespace: fixture.testNamespace }];
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role };
  if (namespaces === 'cluster') {
    const name = uniqueName(`${who}-${role}`);
    await rbac.createClusterRoleBinding({ body: { metadata: { name }, roleRef, subjects } });
    clusterRoleBindings.push(name);
    return;
  }
  for (const namespace of namespaces) {
    await rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name: `${who}-${role}` }, roleRef, subjects } });
  }
}

async function user(admin: KubeConfig, name: string): Promise<void> {
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: fixture.testNamespace, body: { metadata: { name } } });
  // Rehearsal's reads of tests and Velero's objects (the entrance of GET /api/v1/test-drafts).
  await bind(admin, name, 'rehearsal-viewer', 'cluster');
  tokens[name] = await serviceAccountTokenFor(admin, fixture.testNamespace, name);
}

/** A second application: a probed web Deployment and a PostgreSQL StatefulSet, each behind a Service. */
async function createSecondApp(admin: KubeConfig, namespace: string): Promise<void> {
  const apps = admin.makeApiClient(AppsV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  await createNamespace(admin, namespace);
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'pg-credentials' }, stringData: { username: 'orders', password: 'x' } } });
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'api' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'api' } },
        template: {
          metadata: { labels: { app: 'api' } },
          spec: {
            containers: [
              {
                name: 'api',
                image: 'example/orders-api:3',
                ports: [{ name: 'http', containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/ready', port: 'http' as never } },
                livenessProbe: { httpGet: { path: '/live', port: 8080 as never } },
              },
            ],
          },
        },
      },
    },
  });
  await apps.createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: { name: 'pg' },
      spec: {
        serviceName: 'pg',
        replicas: 1,
        selector: { matchLabels: { app: 'pg' } },
        template: {
          metadata: { labels: { app: 'pg' } },
          spec: {
            containers: [
              {
                name: 'postgres',
                image: 'postgres:16',
                ports: [{ containerPort: 5432 }],
                env: [
                  { name: 'POSTGRES_DB', value: 'orders' },
                  { name: 'POSTGRES_USER', valueFrom: { secretKeyRef: { name: 'pg-credentials', key: 'username' } } },
                  { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'pg-credentials', key: 'password' } } },
                ],
              },
            ],
          },
        },
      },
    },
  });
  await core.createNamespacedService({ namespace, body: { metadata: { name: 'api' }, spec: { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 'http' as never }] } } });
  await core.createNamespacedService({ namespace, body: { metadata: { name: 'pg' }, spec: { selector: { app: 'pg' }, ports: [{ port: 5432 }] } } });
}

function api(who: string, method: string, pathAndQuery: string): Promise<Response> {
  return fetch(`${base}${pathAndQuery}`, { method, headers: { authorization: `Bearer ${tokens[who]}` } });
}

async function drafts(who: string): Promise<TestDraftsResponse> {
  const query = new URLSearchParams({ namespace: fixture.testNamespace });
  query.append('sourceNamespace', fixture.source);
  query.append('sourceNamespace', second);
  const response = await api(who, 'GET', `/api/v1/test-drafts?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TestDraftsResponse;
}

beforeAll(async () => {
  // The shop, a Velero namespace served by the simulator, and a completed backup of the shop.
  fixture = await createEngineFixture('generate');
  second = uniqueName('generate-orders');
  await createSecondApp(fixture.admin, second);
  // A Schedule backing both up nightly: the drafts follow its cadence.
  await fixture.custom.createNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: fixture.veleroNamespace,
    plural: 'schedules',
    body: {
      apiVersion: 'velero.io/v1',
      kind: 'Schedule',
      metadata: { name: 'nightly' },
      spec: { schedule: '0 1 * * *', template: { includedNamespaces: [fixture.source, second] } },
    },
  });
  // alice may read and restore both namespaces (edit: workloads and Secrets) and write tests in the
  // test namespace; bob may only view the second namespace.
  await user(fixture.admin, 'alice');
  await bind(fixture.admin, 'alice', 'edit', [fixture.source, second, fixture.testNamespace]);
  await user(fixture.admin, 'bob');
  await bind(fixture.admin, 'bob', 'view', [second]);
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('generate.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_COVERAGE_REFRESH_SECONDS: '1' },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
}, 150_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
  for (const name of clusterRoleBindings) await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  await deleteNamespaces(fixture.admin, [fixture.source, second, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('generate', () => {
  it('drafts both namespaces from their workloads and the Schedule, for a caller who may read them', async () => {
    const answer = await drafts('alice');
    expect(answer.skipped).toEqual([]);
    const byNamespace = new Map(answer.drafts.map((draft) => [draft.namespace, draft]));
    const shop = byNamespace.get(fixture.source)!;
    expect(shop.test.spec).toMatchObject({
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: fixture.source }] },
      schedule: { cron: '0 2 * * *', timezone: 'UTC' },
    });
    // The shop: a web Deployment without probes, Services web and db (sample-app.ts).
    expect(shop.test.spec.healthChecks!.checks.map((check) => `${check.kind}/${check.name}`)).toEqual([
      'podsReady/web-pods',
      'tcpSocket/db-5432-tcp',
      'tcpSocket/web-80-tcp',
    ]);
    const orders = byNamespace.get(second)!;
    expect(orders.test.spec.healthChecks!.checks.map((check) => `${check.kind}/${check.name}`)).toEqual([
      'podsReady/api-pods',
      'podsReady/pg-pods',
      'httpGet/api-80-ready',
      'httpGet/api-80-live',
      'sqlQuery/pg-data',
      'tcpSocket/api-80-tcp',
      'tcpSocket/pg-5432-tcp',
    ]);
    expect(orders.test.spec.healthChecks!.checks.filter((check) => check.kind === 'httpGet').map((check) => check.httpGet!.path)).toEqual(['/ready', '/live']);
    expect(orders.test.metadata.annotations!['rehearsal.dev/generated-todo']).toContain('pg-data');
    // Drafting wrote nothing.
    await expect(getRestoreTest(fixture, shop.test.metadata.name)).rejects.toThrow();
  });

  it('gives a caller nothing of a namespace whose workloads they may not list, and says so', async () => {
    const answer = await drafts('bob');
    expect(answer.drafts.map((draft) => draft.namespace)).toEqual([second]);
    expect(answer.skipped).toEqual([
      expect.objectContaining({
        namespace: fixture.source,
        reason: 'forbidden',
        missingPermissions: expect.arrayContaining([
          { verb: 'list', group: 'apps', resource: 'deployments', namespace: fixture.source },
          { verb: 'list', group: '', resource: 'services', namespace: fixture.source },
        ]),
      }),
    ]);
    // Nor may bob create the shop's draft.
    const refused = await api('bob', 'POST', `/api/v1/test-drafts/${fixture.source}?namespace=${fixture.testNamespace}`);
    expect(refused.status).toBe(403);
  });

  it('drafts that the real apiserver accepts as RestoreTests (schema, CEL rules, author policy)', async () => {
    const answer = await drafts('alice');
    for (const draft of answer.drafts) {
      const test = { ...(draft.test as unknown as RestoreTest), metadata: { ...draft.test.metadata, name: `${draft.test.metadata.name.slice(0, 50)}-v` } };
      const created = (await fixture.custom.createNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: fixture.testNamespace,
        plural: 'restoretests',
        body: await authoredBy(fixture.admin, test),
        dryRun: 'All',
      })) as RestoreTest;
      expect(created.spec).toMatchObject(draft.test.spec);
    }
  });

  it("creates the shop's draft for alice through the API, recorded as its author, and it passes unchanged", async () => {
    const response = await api('alice', 'POST', `/api/v1/test-drafts/${fixture.source}?namespace=${fixture.testNamespace}`);
    expect(response.status).toBe(201);
    const name = ((await response.json()) as { name: string }).name;
    const stored = await getRestoreTest(fixture, name);
    expect(stored.metadata.annotations?.['rehearsal.dev/author']).toBe(`system:serviceaccount:${fixture.testNamespace}:alice`);
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 150_000);
    expect(report!.spec.checks.map((check) => `${check.name} ${check.status}`).sort()).toEqual([
      'db-5432-tcp pass',
      'web-80-tcp pass',
      'web-pods pass',
    ]);
    expect(report!.spec.result).toBe('pass');
  });
});
