// Issue 26, sandboxes of deleted tests, on the real apiserver with the shipped RBAC and admission
// policies: the sandbox is made exactly as the engine makes it (SandboxManager under the server's
// own ServiceAccount), then its RestoreTest is deleted.
//  - the janitor (a sweep every second) removes it after its expiry and not before;
//  - a namespace whose labels and name disagree (set by a cluster administrator, the only other
//    user the reserved-label policy lets set them) is never removed, nor one whose UID is not the
//    one asked for;
//  - listing sandboxes and removing an orphan need `administer` cluster-wide: an editor gets 403
//    naming it; an administrator (ClusterRole rehearsal-admin) lists and removes an orphan. Both
//    doors: port 8080 with a bearer token, and kube-apiserver's aggregated API (the `sandboxes`
//    entrance first, then Rehearsal's own review).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1Namespace,
} from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { sandboxNamespaceName } from '../../server/domain/run/sandbox-names.js';
import { SandboxManager } from '../../server/engine/sandbox/sandbox.js';
import { deleteSandbox } from '../../server/engine/sandbox/sandbox-delete.js';
import { makeServingCertificate, registerAggregatedApi, unregisterAggregatedApi } from '../helpers/aggregated-api.js';
import {
  closedLoopbackPort,
  createNamespace,
  deleteNamespaces,
  sleep,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
  waitFor,
} from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const GROUP = 'rehearsal.dev';
const VERSION = 'v1alpha1';

let admin: KubeConfig;
let serverCore: CoreV1Api;
let manager: SandboxManager;
let rehearsal: Rehearsal;
let base: string;
let testNamespace: string;
const namespaces: string[] = [];
const clusterRoleBindings: string[] = [];
type Who = 'editor' | 'administrator' | 'entrant';
const tokens: Record<Who, string> = { editor: '', administrator: '', entrant: '' };
/** The aggregated API's entrance alone (no administer): Rehearsal's own review must refuse it. */
const entranceRole = uniqueName('orphans-entrance');
const tmp = mkdtempSync(path.join(tmpdir(), 'rh-orphans-'));

async function createTest(name: string): Promise<RestoreTest> {
  return (await admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: testNamespace,
    plural: 'restoretests',
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'RestoreTest',
      metadata: { name, namespace: testNamespace },
      // Suspended: this file's tests never run; only their sandboxes matter.
      spec: { provider: 'velero', backupSource: { namespaces: [{ name: testNamespace }] }, schedule: { cron: '0 0 1 1 *', suspend: true } },
    },
  })) as RestoreTest;
}

async function deleteTest(name: string): Promise<void> {
  await admin.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: testNamespace,
    plural: 'restoretests',
    name,
  });
}

/** A sandbox of run `runId` of `test`, made by the server's ServiceAccount as the engine makes it. */
async function sandboxOf(test: RestoreTest, runId: string, expiresAt: Date): Promise<{ name: string; uid: string }> {
  const sandbox = sandboxNamespaceName('rehearsal', test.metadata.name, runId);
  namespaces.push(sandbox);
  const [created] = await manager.create({
    test,
    runId,
    entries: [{ source: testNamespace, sandbox }],
    expiresAt,
    proberPodLabels: { 'app.kubernetes.io/name': 'rehearsal' },
    proberNamespace: REHEARSAL_NAMESPACE,
    podSecurity: { [sandbox]: 'baseline' },
  });
  return { name: sandbox, uid: created!.uid };
}

async function readNamespace(name: string): Promise<V1Namespace | undefined> {
  try {
    return await admin.makeApiClient(CoreV1Api).readNamespace({ name });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** Present and not being deleted. */
async function standing(name: string): Promise<boolean> {
  const namespace = await readNamespace(name);
  return namespace !== undefined && !namespace.metadata?.deletionTimestamp;
}

async function userWith(name: Who, clusterRole: string): Promise<void> {
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: testNamespace, body: { metadata: { name } } });
  const binding = uniqueName(`orphans-${name}`);
  clusterRoleBindings.push(binding);
  await admin.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ kind: 'ServiceAccount', name, namespace: testNamespace }],
    },
  });
  tokens[name] = await serviceAccountTokenFor(admin, testNamespace, name);
}

function api(who: Who, path: string, method = 'GET'): Promise<Response> {
  return fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${tokens[who]}` } });
}

/** GET through kube-apiserver as `who`: the aggregated door (status and parsed body). */
function aggregated(who: Who, rawPath: string): Promise<{ status: number; body: unknown }> {
  const cluster = admin.getCurrentCluster()!;
  return new Promise((resolve, reject) => {
    const call = httpsRequest(
      new URL(rawPath, cluster.server),
      { ca: Buffer.from(cluster.caData!, 'base64'), headers: { authorization: `Bearer ${tokens[who]}`, accept: 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
        response.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end();
  });
}

beforeAll(async () => {
  admin = testKubeConfig();
  testNamespace = await createNamespace(admin, uniqueName('orphans'));
  const kubeconfigPath = await rehearsalKubeconfig('sandbox-orphans.kubeconfig');
  const server = testKubeConfig(kubeconfigPath);
  serverCore = server.makeApiClient(CoreV1Api);
  manager = new SandboxManager({
    core: serverCore,
    networking: server.makeApiClient(NetworkingV1Api),
    rbac: server.makeApiClient(RbacAuthorizationV1Api),
    serviceAccount: { namespace: REHEARSAL_NAMESPACE, name: 'rehearsal' },
  });
  await admin.makeApiClient(RbacAuthorizationV1Api).createClusterRole({
    body: {
      metadata: { name: entranceRole },
      rules: [{ apiGroups: ['api.rehearsal.dev'], resources: ['sandboxes'], verbs: ['get', 'list', 'delete'] }],
    },
  });
  await userWith('editor', 'rehearsal-editor');
  await userWith('administrator', 'rehearsal-admin');
  await userWith('entrant', entranceRole);
  const pki = makeServingCertificate(path.join(tmp, 'pki'));
  const aggregationPort = await closedLoopbackPort();
  rehearsal = await startInProcess({
    kubeconfigPath,
    janitorIntervalSeconds: 1,
    extra: {
      REHEARSAL_AUTH_MODE: 'kubernetes',
      REHEARSAL_AGGREGATION_PORT: String(aggregationPort),
      REHEARSAL_TLS_CERT_FILE: pki.certFile,
      REHEARSAL_TLS_KEY_FILE: pki.keyFile,
    },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
  await registerAggregatedApi(testKubeconfigPath(), aggregationPort, pki.caPem);
}, 180_000);

afterAll(async () => {
  unregisterAggregatedApi(testKubeconfigPath());
  await rehearsal?.stop();
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  for (const name of clusterRoleBindings) await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  await rbac.deleteClusterRole({ name: entranceRole }).catch(() => undefined);
  await deleteNamespaces(admin, [testNamespace, ...namespaces]);
});

describe('the janitor and the sandboxes of deleted tests', () => {
  it('removes a sandbox of a deleted test after its expiry, and not before', async () => {
    const test = await createTest(uniqueName('gone', 30));
    const expiresAt = new Date(Date.now() + 15_000);
    const sandbox = await sandboxOf(test, 'ab12c', expiresAt);
    expect((await readNamespace(sandbox.name))!.metadata!.annotations).toMatchObject({
      'rehearsal.dev/expires-at': expiresAt.toISOString(),
      'rehearsal.dev/test-uid': test.metadata.uid,
    });
    await deleteTest(test.metadata.name);
    // Sweeps every second until shortly before the expiry: the orphan stays.
    while (Date.now() < expiresAt.getTime() - 1_500) {
      expect([sandbox.name, await standing(sandbox.name)]).toEqual([sandbox.name, true]);
      await sleep(1_000);
    }
    await waitFor(async () => !(await standing(sandbox.name)), { timeoutMs: 30_000, intervalMs: 250, description: 'the orphan to be removed' });
    const removedAfterMs = Date.now() - expiresAt.getTime();
    expect(removedAfterMs).toBeGreaterThanOrEqual(0);
    process.stdout.write(`orphan removed ${removedAfterMs} ms after its expiry\n`);
  }, 90_000);

  it('never removes a namespace whose labels and name disagree, nor one with another UID', async () => {
    const test = await createTest(uniqueName('forged', 30));
    await deleteTest(test.metadata.name);
    const expired = { 'rehearsal.dev/expires-at': new Date(Date.now() - 3_600_000).toISOString() };
    const labels = (run: string) => ({
      'rehearsal.dev/managed-by': 'rehearsal',
      'rehearsal.dev/test': test.metadata.name,
      'rehearsal.dev/test-namespace': testNamespace,
      'rehearsal.dev/run': run,
    });
    // Only a cluster administrator may still set the reserved label (sandbox-label-admission.yaml).
    const forged = [
      { name: sandboxNamespaceName('rehearsal', test.metadata.name, 'zzzzz'), labels: labels('yyyyy') }, // another run's label
      { name: uniqueName('team-x', 30), labels: labels('zzzzz') }, // not a sandbox name at all
    ];
    for (const victim of forged) {
      namespaces.push(victim.name);
      await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: victim.name, labels: victim.labels, annotations: expired } } });
    }
    // A real orphan, asked for under another UID: through the API and straight through the delete.
    const uidTest = await createTest(uniqueName('uid', 30));
    const orphan = await sandboxOf(uidTest, 'cd34e', new Date(Date.now() + 3_600_000));
    await deleteTest(uidTest.metadata.name);
    const other = randomUUID();
    const refused = await api('administrator', `/api/v1/sandboxes/${orphan.name}?uid=${other}`, 'DELETE');
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toBe(
      `namespace "${orphan.name}" has uid ${orphan.uid}, not ${other}: nothing was removed`,
    );
    await expect(deleteSandbox(serverCore, orphan.name, other)).rejects.toThrow(`uid ${orphan.uid} is not the recorded ${other}`);

    await sleep(4_000); // four sweeps
    for (const name of [...forged.map((victim) => victim.name), orphan.name]) {
      expect([name, await standing(name)]).toEqual([name, true]);
    }
    const listed = (await (await api('administrator', '/api/v1/sandboxes')).json()) as { name: string; state: string }[];
    expect(listed.filter((entry) => forged.some((victim) => victim.name === entry.name)).map((entry) => entry.state)).toEqual([
      'unrecognised',
      'unrecognised',
    ]);
  }, 90_000);
});

describe('listSandboxes and removeOrphanedSandbox', () => {
  let orphan: { name: string; uid: string };
  let reborn: { name: string; uid: string };

  beforeAll(async () => {
    const later = new Date(Date.now() + 3_600_000);
    const gone = await createTest(uniqueName('admin', 30));
    orphan = await sandboxOf(gone, 'ef56g', later);
    await deleteTest(gone.metadata.name);
    // Deleted and created again under the same name: the old incarnation's sandbox is an orphan.
    const first = await createTest(uniqueName('reborn', 30));
    reborn = await sandboxOf(first, 'hi78j', later);
    await deleteTest(first.metadata.name);
    await createTest(first.metadata.name);
  }, 60_000);

  it('answers 403 naming administer to an editor, on the list and on the removal', async () => {
    for (const [path, method] of [
      ['/api/v1/sandboxes', 'GET'],
      [`/api/v1/sandboxes/${orphan.name}?uid=${orphan.uid}`, 'DELETE'],
    ] as const) {
      const answer = await api('editor', path, method);
      expect([method, answer.status]).toEqual([method, 403]);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await answer.json()) as { detail: string; missingPermissions: unknown[] };
      expect(problem.missingPermissions).toEqual([{ verb: 'administer', group: 'rehearsal.dev', resource: 'restoretests' }]);
      expect(problem.detail).toContain('cannot administer');
    }
    expect(await standing(orphan.name)).toBe(true);
  });

  it('refuses the same through the aggregated API: the entrance first, then administer', async () => {
    const editor = await aggregated('editor', '/apis/api.rehearsal.dev/v1/sandboxes');
    expect(editor.status).toBe(403);
    expect((editor.body as { message: string }).message).toContain('cannot list resource "sandboxes" in API group "api.rehearsal.dev"');
    const entrant = await aggregated('entrant', '/apis/api.rehearsal.dev/v1/sandboxes');
    expect(entrant.status).toBe(403);
    expect(entrant.body).toMatchObject({
      type: 'https://rehearsal.dev/problems/forbidden',
      missingPermissions: [{ verb: 'administer', group: 'rehearsal.dev', resource: 'restoretests' }],
    });
  });

  it('lets an administrator list the orphans and remove one', async () => {
    const answer = await api('administrator', '/api/v1/sandboxes?orphaned=true');
    expect(answer.status).toBe(200);
    const orphans = (await answer.json()) as { name: string; uid: string; state: string; message: string }[];
    const mine = orphans.filter((entry) => entry.name === orphan.name || entry.name === reborn.name);
    const byName = (a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : 1);
    expect(mine.map((entry) => [entry.name, entry.uid, entry.state])).toEqual(
      [
        [orphan.name, orphan.uid, 'orphaned'],
        [reborn.name, reborn.uid, 'orphaned'],
      ].sort(byName),
    );
    expect(mine.find((entry) => entry.name === reborn.name)!.message).toContain('was deleted and created again');

    // Through kube-apiserver too: rehearsal-admin grants the entrance and administer.
    const listed = await aggregated('administrator', '/apis/api.rehearsal.dev/v1/sandboxes?orphaned=true');
    expect(listed.status).toBe(200);
    expect((listed.body as { name: string }[]).map((entry) => entry.name)).toContain(orphan.name);

    const removed = await api('administrator', `/api/v1/sandboxes/${orphan.name}?uid=${orphan.uid}`, 'DELETE');
    expect(removed.status).toBe(204);
    expect(await standing(orphan.name)).toBe(false);
    expect(await standing(reborn.name)).toBe(true);
  });
});
