// Issue 30 on the real apiserver, with real RBAC: a user holding the `rehearsal-viewer`
// ClusterRole through a RoleBinding in one namespace only (a tenant) lists RestoreTests and
// RestoreReports through the API and through the plugin (`kubectl restoretest list`, `reports`):
//  - without a namespace the answers hold the tenant's namespace alone, and the header
//    Rehearsal-Omitted-Namespaces counts the others (the plugin says so on stderr), never naming
//    them (a ServiceAccount may not list namespaces);
//  - with the tenant's namespace the answer is that namespace; with another one, a 403 problem
//    naming `list restoretests` there (the plugin exits 1 with that error);
//  - the summary counts only the tenant's tests;
//  - a reader bound cluster-wide sees both namespaces and nothing left out.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { makeReport, makeRestoreTest } from '../fixtures/evidence/reports.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const RESOURCE = { group: 'rehearsal.dev', version: 'v1alpha1' };
const OMITTED = 'rehearsal-omitted-namespaces';
const OMITTED_NAMES = 'rehearsal-omitted-namespace-names';

let admin: KubeConfig;
let rehearsal: Rehearsal;
let base: string;
let teamA: string;
let teamB: string;
let readerBinding: string;
const tokens: Record<'tenant' | 'reader', string> = { tenant: '', reader: '' };

/** A RestoreTest of `namespace` restoring that namespace, and one report of a run two days ago. */
async function seed(namespace: string, name: string): Promise<void> {
  const custom = admin.makeApiClient(CustomObjectsApi);
  const test = makeRestoreTest(name, [namespace]);
  test.metadata = { name, namespace };
  const created = (await custom.createNamespacedCustomObject({ ...RESOURCE, plural: 'restoretests', namespace, body: test })) as RestoreTest;
  const report: RestoreReport = makeReport({ ...test, metadata: { ...test.metadata, uid: created.metadata.uid! } }, 0, new Date(Date.now() - 2 * 86_400_000), {
    result: 'pass',
    rtoSeconds: 120,
  });
  report.metadata.namespace = namespace;
  report.spec.testRef.namespace = namespace;
  await custom.createNamespacedCustomObject({ ...RESOURCE, plural: 'restorereports', namespace, body: report });
}

function api(who: keyof typeof tokens, pathAndQuery: string): Promise<Response> {
  return fetch(`${base}${pathAndQuery}`, { headers: { authorization: `Bearer ${tokens[who]}` } });
}

/** The plugin as the tenant runs it against this server. */
function plugin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'cmd/kubectl-restoretest/main.ts', ...args, '--server', base, '--token', tokens.tenant],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  admin = testKubeConfig();
  teamA = uniqueName('tenant-a', 30);
  teamB = uniqueName('tenant-b', 30);
  await createNamespace(admin, teamA);
  await createNamespace(admin, teamB);
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  for (const name of ['tenant', 'reader']) {
    await core.createNamespacedServiceAccount({ namespace: teamA, body: { metadata: { name } } });
  }
  // The tenant: rehearsal-viewer in team-a only.
  await rbac.createNamespacedRoleBinding({
    namespace: teamA,
    body: {
      metadata: { name: 'tenant-rehearsal-viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: teamA }],
    },
  });
  // The reader: rehearsal-viewer cluster-wide.
  readerBinding = `${teamA}-reader`;
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: readerBinding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: teamA }],
    },
  });
  tokens.tenant = await serviceAccountTokenFor(admin, teamA, 'tenant');
  tokens.reader = await serviceAccountTokenFor(admin, teamA, 'reader');
  await seed(teamA, 'shop');
  await seed(teamB, 'ledger');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('tenant-lists.kubeconfig'),
    extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_CONTROLLER: 'false' },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
  // Both tests and both reports in the informer caches.
  await waitFor(
    async () => {
      const tests = (await (await api('reader', '/api/v1/tests')).json()) as { namespace: string }[];
      const reports = (await (await api('reader', '/api/v1/reports')).json()) as RestoreReport[];
      const ours = [teamA, teamB];
      return (
        tests.filter((test) => ours.includes(test.namespace)).length === 2 &&
        reports.filter((report) => ours.includes(report.metadata.namespace!)).length === 2
      );
    },
    { timeoutMs: 60_000, intervalMs: 500, description: 'both tests and both reports in the cache' },
  );
}, 180_000);

afterAll(async () => {
  await rehearsal?.stop();
  await admin
    .makeApiClient(RbacAuthorizationV1Api)
    .deleteClusterRoleBinding({ name: readerBinding })
    .catch(() => undefined);
  await deleteNamespaces(admin, [teamA, teamB]);
});

describe('through the API', () => {
  it('a cluster-wide reader sees both namespaces and nothing left out', async () => {
    const response = await api('reader', '/api/v1/tests');
    expect(response.status).toBe(200);
    const namespaces = ((await response.json()) as { namespace: string }[]).map((test) => test.namespace);
    expect(namespaces).toEqual(expect.arrayContaining([teamA, teamB]));
    expect(response.headers.get(OMITTED)).toBeNull();
  });

  it('the tenant lists tests and reports of their namespace alone, told that others were left out', async () => {
    const tests = await api('tenant', '/api/v1/tests');
    expect(tests.status).toBe(200);
    expect(((await tests.json()) as { namespace: string; name: string }[]).map((test) => `${test.namespace}/${test.name}`)).toEqual([
      `${teamA}/shop`,
    ]);
    expect(Number(tests.headers.get(OMITTED))).toBeGreaterThanOrEqual(1);
    expect(tests.headers.get(OMITTED_NAMES)).toBeNull();

    const reports = await api('tenant', '/api/v1/reports');
    expect(reports.status).toBe(200);
    const namespaces = new Set(((await reports.json()) as RestoreReport[]).map((report) => report.metadata.namespace));
    expect([...namespaces]).toEqual([teamA]);
    expect(Number(reports.headers.get(OMITTED))).toBeGreaterThanOrEqual(1);
  });

  it('the tenant lists their namespace by name, and gets a 403 problem for another', async () => {
    const mine = await api('tenant', `/api/v1/tests?namespace=${teamA}`);
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as { name: string }[]).map((test) => test.name)).toEqual(['shop']);
    const theirs = await api('tenant', `/api/v1/tests?namespace=${teamB}`);
    expect(theirs.status).toBe(403);
    expect(theirs.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await theirs.json()) as { missingPermissions?: unknown[] };
    expect(problem.missingPermissions).toEqual([{ verb: 'list', group: 'rehearsal.dev', resource: 'restoretests', namespace: teamB }]);
  });

  it('the summary counts the tenant’s tests only', async () => {
    const summary = await api('tenant', '/api/v1/summary');
    expect(summary.status).toBe(200);
    expect(((await summary.json()) as { totalTests: number }).totalTests).toBe(1);
  });
});

describe('through the plugin', () => {
  it('kubectl restoretest list -A shows the tenant’s test and notes the namespaces left out', async () => {
    const all = await plugin(['list', '-A', '-o', 'json']);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { namespace: string; name: string }[]).map((test) => `${test.namespace}/${test.name}`)).toEqual([
      `${teamA}/shop`,
    ]);
    expect(all.stderr).toMatch(/^warning: \d+ namespaces? left out: you may not list restoretests\.rehearsal\.dev there\n$/);
  });

  it('kubectl restoretest list -n works in the tenant’s namespace and names the missing permission elsewhere', async () => {
    const mine = await plugin(['list', '-n', teamA, '-o', 'json']);
    expect(mine.code).toBe(0);
    expect((JSON.parse(mine.stdout) as { name: string }[]).map((test) => test.name)).toEqual(['shop']);
    const theirs = await plugin(['list', '-n', teamB]);
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain('list');
    expect(theirs.stderr).toContain(teamB);
  });

  it('kubectl restoretest reports -A lists the tenant’s reports only', async () => {
    const reports = await plugin(['reports', '-A', '-o', 'json']);
    expect(reports.code).toBe(0);
    const namespaces = new Set((JSON.parse(reports.stdout) as RestoreReport[]).map((report) => report.metadata.namespace));
    expect([...namespaces]).toEqual([teamA]);
    expect(reports.stderr).toContain('left out');
  });
});
