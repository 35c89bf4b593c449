// Decision 0018 on the real apiserver, with real users (bound ServiceAccount tokens) and RBAC:
//  - a HealthCheckPolicy lists the source namespaces whose restored copies its checks may read;
//    writing one needs `get secrets` in each (ValidatingAdmissionPolicy
//    rehearsal-healthcheckpolicy-author): an editor of team-a only cannot rewrite the checks of a
//    test restoring team-b, nor create a policy listing team-b; an editor of both can;
//  - the REST API's way to change a test's checks (PUT with healthCheckPolicy) is refused to the
//    same editor (403), and a policy that does not list the test's sources is refused (400);
//  - the author the API records is the caller; through kubectl nobody can record someone else.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const tmp = path.join(repoRoot, 'test/.tmp');
let admin: KubeConfig;
let rehearsal: Rehearsal;
let base = '';
let teamA = '';
let teamB = '';
const tokens: Record<string, string> = {};
const kubeconfigs: Record<string, string> = {};
const TEST = 'orders-restore';

async function user(name: string, editIn: string[]): Promise<void> {
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: teamA, body: { metadata: { name } } });
  for (const namespace of editIn) {
    await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${name}-edit` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'ServiceAccount', name, namespace: teamA }],
      },
    });
  }
  tokens[name] = await serviceAccountTokenFor(admin, teamA, name);
  const cluster = admin.getCurrentCluster()!;
  const file = path.join(tmp, `hcp-${name}.kubeconfig`);
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
    users: [{ name, user: { token: tokens[name] } }],
    contexts: [{ name, context: { cluster: 'test', user: name } }],
    'current-context': name,
  }), { mode: 0o600 });
  kubeconfigs[name] = file;
}

const userName = (name: string): string => `system:serviceaccount:${teamA}:${name}`;

function kubectlAs(who: string, args: string[], input?: object): { ok: boolean; output: string } {
  try {
    const output = execFileSync('kubectl', ['--kubeconfig', kubeconfigs[who]!, ...args], {
      input: input ? JSON.stringify(input) : undefined,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return { ok: true, output };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

function policy(name: string, sourceNamespaces: string[] | undefined, query: string) {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'HealthCheckPolicy',
    metadata: { name, namespace: teamA },
    spec: {
      ...(sourceNamespaces ? { sourceNamespaces } : {}),
      checks: [{
        name: 'orders',
        kind: 'sqlQuery',
        sqlQuery: { engine: 'postgres', service: 'db', port: 5432, database: 'shop', credentialsSecret: { name: 'db' }, query },
      }],
    },
  };
}

function api(who: string, method: string, pathAndQuery: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const testInput = (healthCheckPolicy: string) => ({
  name: TEST,
  provider: 'velero',
  sourceNamespaces: [teamB],
  cron: '0 0 1 1 *',
  healthCheckPolicy,
});

async function readTest(): Promise<RestoreTest> {
  return (await admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: 'rehearsal.dev', version: 'v1alpha1', plural: 'restoretests', namespace: teamA, name: TEST,
  })) as RestoreTest;
}

beforeAll(async () => {
  admin = testKubeConfig();
  teamA = await createNamespace(admin, uniqueName('hcp-a', 30));
  teamB = await createNamespace(admin, uniqueName('hcp-b', 30));
  await user('alice', [teamA]); // edits team-a only
  await user('bob', [teamA, teamB]); // edits both: may read team-b's Secrets
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('hcp-admission.kubeconfig'),
    extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_CONTROLLER: 'false' },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
  // Bob's test restores team-b with the checks of a policy beside it.
  expect(kubectlAs('bob', ['create', '-f', '-'], policy('team-b-checks', [teamB], 'SELECT count(*) FROM orders'))).toMatchObject({ ok: true });
  const created = await api('bob', 'POST', `/api/v1/tests?namespace=${teamA}`, testInput('team-b-checks'));
  expect(created.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await rehearsal?.stop();
  await deleteNamespaces(admin, [teamA, teamB]);
});

describe('the admission door (kubectl)', () => {
  it("refuses an editor of team-a alone a rewrite of the checks that read team-b's restored copy", () => {
    const rewrite = kubectlAs('alice', ['apply', '-f', '-'], policy('team-b-checks', [teamB], 'SELECT card_number FROM payments'));
    expect(rewrite.ok).toBe(false);
    expect(rewrite.output).toContain('rehearsal-healthcheckpolicy-author');
    expect(rewrite.output).toContain(`cannot get secrets in namespace "${teamB}"`);
    const listing = kubectlAs('alice', ['create', '-f', '-'], policy('alice-checks', [teamB], 'SELECT 1'));
    expect(listing.ok).toBe(false);
    expect(listing.output).toContain(`cannot get secrets in namespace "${teamB}"`);
  });

  it('lets an editor of both rewrite them, and anyone write a policy that lists no other namespace', () => {
    expect(kubectlAs('bob', ['apply', '-f', '-'], policy('team-b-checks', [teamB], 'SELECT count(*) FROM orders WHERE 1 = 1'))).toMatchObject({ ok: true });
    expect(kubectlAs('alice', ['create', '-f', '-'], policy('alice-open', undefined, 'SELECT 1'))).toMatchObject({ ok: true });
    expect(kubectlAs('alice', ['create', '-f', '-'], policy('alice-own', [teamA], 'SELECT 1'))).toMatchObject({ ok: true });
  });

  it('records no one but the writer as a test author', () => {
    const forged = kubectlAs('alice', ['create', '-f', '-'], {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: 'forged', namespace: teamA, annotations: { 'rehearsal.dev/author': userName('bob') } },
      spec: { provider: 'velero', backupSource: { namespaces: [{ name: teamA }] }, schedule: { cron: '0 0 1 1 *' } },
    });
    expect(forged.ok).toBe(false);
    expect(forged.output).toContain(`annotation rehearsal.dev/author must be the user who writes the test ("${userName('alice')}")`);
    const groups = kubectlAs('alice', ['create', '-f', '-'], {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: 'forged-groups', namespace: teamA, annotations: { 'rehearsal.dev/author': userName('alice'), 'rehearsal.dev/author-groups': 'system:masters' } },
      spec: { provider: 'velero', backupSource: { namespaces: [{ name: teamA }] }, schedule: { cron: '0 0 1 1 *' } },
    });
    expect(groups.ok).toBe(false);
    expect(groups.output).toContain('may list only groups the writer belongs to');
    // Taking bob's name off his test is a write of who restores team-b: refused to alice.
    const strip = kubectlAs('alice', ['annotate', 'rtest', TEST, '-n', teamA, 'rehearsal.dev/author-']);
    expect(strip.ok).toBe(false);
    expect(strip.output).toContain(`cannot get secrets in namespace "${teamB}"`);
  });
});

describe('the API door', () => {
  it('records the caller as the author', async () => {
    const test = await readTest();
    expect(test.metadata.annotations?.['rehearsal.dev/author']).toBe(userName('bob'));
    expect(test.metadata.annotations?.['rehearsal.dev/author-groups']?.split(',')).toContain('system:serviceaccounts');
  });

  it('refuses the editor of team-a alone a change of the checks (403), and a policy that does not list team-b (400)', async () => {
    const refused = await api('alice', 'PUT', `/api/v1/tests/${TEST}?namespace=${teamA}`, testInput('alice-open'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toContain(`cannot get secrets in namespace "${teamB}"`);
    await waitFor(() => rehearsal.cache.getPolicy(teamA, 'alice-open') !== undefined, { timeoutMs: 10_000, description: 'the policy in the cache' });
    const uncovered = await api('bob', 'PUT', `/api/v1/tests/${TEST}?namespace=${teamA}`, testInput('alice-open'));
    expect(uncovered.status).toBe(400);
    expect(JSON.stringify(await uncovered.json())).toContain(`HealthCheckPolicy \\"alice-open\\" does not list source namespace \\"${teamB}\\"`);
    expect((await readTest()).spec.healthCheckPolicy).toBe('team-b-checks');
  });

  it('lets the editor of both change it', async () => {
    const changed = await api('bob', 'PUT', `/api/v1/tests/${TEST}?namespace=${teamA}`, { ...testInput('team-b-checks'), cron: '0 1 1 1 *' });
    expect(changed.status).toBe(200);
    expect((await readTest()).spec.schedule.cron).toBe('0 1 1 1 *');
  });
});
