// Decision 0009 on the real apiserver, with real RBAC and users holding bound ServiceAccount tokens:
//  - both doors (kubectl through the ValidatingAdmissionPolicy, the REST API through
//    SubjectAccessReviews) give the answer the domain rule (restoreRequirements) predicts, for one
//    table of users and specs, and name the namespace and the missing permission (the restore
//    transforms of issue 28 included: removing a default, lowering the Pod Security floor,
//    patching a kind a default changes need administer; adding exclusions and patches does not);
//  - the two request-smuggling cases are refused with 400;
//  - every operation of openapi/openapi.json, tried by a user allowed only in team-a against
//    team-b, is refused and changes nothing in team-b.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { restoreRequirements } from '../../server/domain/permissions/restore-permissions.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreSpec } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, writesIn } from '../helpers/audit.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, REHEARSAL_USER, rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const tmp = path.join(repoRoot, 'test/.tmp');
const GROUP = 'rehearsal.dev';
const VERSION = 'v1alpha1';
const SETTINGS = { providerNamespace: 'velero', maxSandboxTtlSeconds: 168 * 3600 };

let admin: KubeConfig;
let custom: CustomObjectsApi;
let rehearsal: Rehearsal;
let base: string;
let teamA: string;
let teamB: string;
const tokens: Record<string, string> = {};
const kubeconfigs: Record<string, string> = {};
/** What each user may do, as granted below: get secrets per namespace, administer per namespace. */
const grants: Record<string, { secrets: string[]; administer: string[] }> = {};

async function user(name: string, editIn: string[], administerIn: string[] = []): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: teamA, body: { metadata: { name } } });
  const subject = { kind: 'ServiceAccount', name, namespace: teamA };
  for (const namespace of editIn) {
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${name}-edit` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [subject],
      },
    });
  }
  for (const namespace of administerIn) {
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${name}-rehearsal-admin` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-admin' },
        subjects: [subject],
      },
    });
  }
  // Valid for kube-apiserver (kubectl) and for Rehearsal's port 8080 (audience rehearsal.dev).
  tokens[name] = await serviceAccountTokenFor(admin, teamA, name);
  const cluster = admin.getCurrentCluster()!;
  const file = path.join(tmp, `tenancy-${name}.kubeconfig`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
      users: [{ name, user: { token: tokens[name] } }],
      contexts: [{ name, context: { cluster: 'test', user: name } }],
      'current-context': name,
    }),
    { mode: 0o600 },
  );
  kubeconfigs[name] = file;
  grants[name] = { secrets: editIn, administer: administerIn };
}

/** kubectl as `who`: exit status and stderr. */
function kubectlAs(who: string, args: string[], input?: string): { ok: boolean; output: string } {
  try {
    const output = execFileSync('kubectl', ['--kubeconfig', kubeconfigs[who]!, ...args], {
      input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return { ok: true, output };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

function kubectlWithToken(server: string, caData: string, token: string, args: string[]): string {
  const file = path.join(tmp, 'tenancy-replay.kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server, 'certificate-authority-data': caData } }],
      users: [{ name: 'replay', user: { token } }],
      contexts: [{ name: 'replay', context: { cluster: 'test', user: 'replay' } }],
      'current-context': 'replay',
    }),
    { mode: 0o600 },
  );
  try {
    return execFileSync('kubectl', ['--kubeconfig', file, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
}

function api(who: string, method: string, pathAndQuery: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${pathAndQuery}`, {
    method,
    headers: {
      authorization: `Bearer ${tokens[who]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function testExists(namespace: string, name: string): Promise<boolean> {
  try {
    await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'restoretests', namespace, name });
    return true;
  } catch {
    return false;
  }
}

function restoreTestObject(name: string, namespace: string, spec: Record<string, unknown>) {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'RestoreTest', metadata: { name, namespace }, spec };
}

beforeAll(async () => {
  admin = testKubeConfig();
  custom = admin.makeApiClient(CustomObjectsApi);
  teamA = uniqueName('team-a', 30);
  teamB = uniqueName('team-b', 30);
  await createNamespace(admin, teamA);
  await createNamespace(admin, teamB);
  await user('alice', [teamA]); // a namespace editor in team-a only
  await user('bob', [teamA, teamB]); // an editor in both
  await user('carol', [teamA], [teamA]); // editor + rehearsal-admin in team-a
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('tenancy.kubeconfig'),
    extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_CONTROLLER: 'false' },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await deleteNamespaces(admin, [teamA, teamB]);
});

interface Case {
  who: string;
  label: string;
  sources: () => string[];
  ttl?: string;
  networkIsolation?: 'strict' | 'none';
  providerNamespace?: string;
  restore?: RestoreSpec;
  /** Words both doors give for the administer a restore setting needs. */
  because?: string;
}

const servicePatch: RestoreSpec = {
  patches: [{ name: 'lb', target: { version: 'v1', kind: 'Service', resource: 'services' }, operations: [{ op: 'replace', path: '/spec/type', value: 'LoadBalancer' }] }],
};
const harmless: RestoreSpec = {
  exclude: [{ group: 'monitoring.coreos.com', version: 'v1', kind: 'ServiceMonitor', resource: 'servicemonitors' }],
  patches: [{ name: 'one', target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }, operations: [{ op: 'replace', path: '/spec/replicas', value: 1 }] }],
  podSecurity: 'restricted',
};

const cases: Case[] = [
  { who: 'alice', label: 'her own namespace', sources: () => [teamA] },
  { who: 'alice', label: 'another team', sources: () => [teamA, teamB] },
  { who: 'alice', label: 'kube-system', sources: () => ['kube-system'] },
  { who: 'bob', label: 'both of his namespaces', sources: () => [teamA, teamB] },
  { who: 'alice', label: 'networkIsolation none', sources: () => [teamA], networkIsolation: 'none' },
  { who: 'carol', label: 'networkIsolation none as rehearsal-admin', sources: () => [teamA], networkIsolation: 'none' },
  { who: 'alice', label: 'a foreign providerNamespace', sources: () => [teamA], providerNamespace: 'other-velero' },
  { who: 'carol', label: 'a foreign providerNamespace as rehearsal-admin', sources: () => [teamA], providerNamespace: 'other-velero' },
  { who: 'alice', label: 'the installation providerNamespace', sources: () => [teamA], providerNamespace: 'velero' },
  { who: 'carol', label: 'a ttl above the cap', sources: () => [teamA], ttl: '169h' },
  { who: 'alice', label: 'the cap itself', sources: () => [teamA], ttl: '168h' },
  { who: 'alice', label: 'removing a default restore transform', sources: () => [teamA], restore: { removeDefaults: ['suspend-cronjobs'] }, because: 'removeDefaults "suspend-cronjobs" lets the restored copy act on the world' },
  { who: 'carol', label: 'removing a default restore transform as rehearsal-admin', sources: () => [teamA], restore: { removeDefaults: ['suspend-cronjobs'] } },
  { who: 'alice', label: 'a Pod Security floor below the installation\'s', sources: () => [teamA], restore: { podSecurity: 'privileged' }, because: 'podSecurity "privileged" is below the installation floor "baseline"' },
  { who: 'carol', label: 'a lower Pod Security floor as rehearsal-admin', sources: () => [teamA], restore: { podSecurity: 'privileged' } },
  { who: 'alice', label: 'a patch on Services (a default changes them)', sources: () => [teamA], restore: servicePatch, because: 'which a default transform changes' },
  { who: 'alice', label: 'her own exclusions, a Deployment patch and a stricter floor', sources: () => [teamA], restore: harmless },
];

function specOf(entry: Case) {
  return {
    provider: 'velero',
    backupSource: {
      namespaces: entry.sources().map((name) => ({ name })),
      ...(entry.providerNamespace ? { providerNamespace: entry.providerNamespace } : {}),
    },
    schedule: { cron: '0 3 * * *' },
    sandbox: { ...(entry.ttl ? { ttl: entry.ttl } : {}), ...(entry.networkIsolation ? { networkIsolation: entry.networkIsolation } : {}) },
    ...(entry.restore ? { restore: entry.restore } : {}),
  };
}

/** What the domain rule predicts for this user: undefined = allowed, else the first message part. */
function predicted(entry: Case): { allowed: boolean; missing: string[]; invalid: boolean } {
  const outcome = restoreRequirements(teamA, specOf(entry) as never, SETTINGS);
  const held = grants[entry.who]!;
  const missing = outcome.permissions
    .filter((permission) =>
      permission.verb === 'get' ? !held.secrets.includes(permission.namespace) : !held.administer.includes(permission.namespace),
    )
    .map((permission) => `cannot ${permission.verb} ${permission.group ? `${permission.resource}.${permission.group}` : permission.resource} in namespace "${permission.namespace}"`);
  return { allowed: missing.length === 0 && outcome.invalid.length === 0, missing, invalid: outcome.invalid.length > 0 };
}

describe('both doors apply the one rule (decision 0009)', () => {
  it.each(cases.map((entry) => [`${entry.who}: ${entry.label}`, entry] as const))(
    'kubectl (admission policy): %s',
    (_title, entry) => {
      const name = uniqueName('vap', 30);
      const expected = predicted(entry);
      const result = kubectlAs(entry.who, ['create', '--dry-run=server', '-f', '-'], JSON.stringify(restoreTestObject(name, teamA, specOf(entry))));
      expect({ ok: result.ok }).toEqual({ ok: expected.allowed });
      if (expected.missing.length > 0) expect(result.output).toContain(expected.missing[0]);
      if (entry.because) expect([result.ok, result.output]).toEqual([false, expect.stringContaining(entry.because)]);
      else if (expected.invalid) expect(result.output).toContain('spec.sandbox.ttl: must be at most 168h');
    },
  );

  it.each(cases.filter((entry) => !entry.providerNamespace).map((entry) => [`${entry.who}: ${entry.label}`, entry] as const))(
    'REST API (SubjectAccessReviews): %s',
    async (_title, entry) => {
      const name = uniqueName('api', 30);
      const expected = predicted(entry);
      const response = await api(entry.who, 'POST', `/api/v1/tests?namespace=${teamA}`, {
        name,
        provider: 'velero',
        sourceNamespaces: entry.sources(),
        cron: '0 3 * * *',
        ...(entry.ttl ? { ttl: entry.ttl } : {}),
        ...(entry.networkIsolation ? { networkIsolation: entry.networkIsolation } : {}),
        ...(entry.restore ? { restore: entry.restore } : {}),
      });
      const problem = response.status === 201 ? undefined : ((await response.json()) as { detail: string; errors?: { field: string }[] });
      // The restore settings that need administer are refused to a tenant without it, whatever the rule says.
      if (entry.because && entry.who === 'alice') expect(response.status).toBe(403);
      if (expected.allowed) {
        expect(response.status).toBe(201);
        expect(await testExists(teamA, name)).toBe(true);
        await api(entry.who, 'DELETE', `/api/v1/tests/${name}?namespace=${teamA}`);
      } else if (expected.invalid) {
        expect(response.status).toBe(400);
        expect(problem!.errors!.map((error) => error.field)).toEqual(['ttl']);
      } else {
        expect(response.status).toBe(403);
        expect(problem!.detail).toContain(expected.missing[0]);
        if (entry.because) expect(problem!.detail).toContain(entry.because);
        expect(await testExists(teamA, name)).toBe(false);
      }
    },
  );

  it('an update by a user who may not restore what the test names is refused at both doors; metadata-only edits pass', async () => {
    const name = uniqueName('owned', 30);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'restoretests',
      namespace: teamA,
      body: restoreTestObject(name, teamA, specOf({ who: 'admin', label: '', sources: () => [teamA], providerNamespace: 'other-velero' })),
    });
    // kubectl: alice edits the schedule of a test that names another backup installation.
    const patched = kubectlAs('alice', ['-n', teamA, 'patch', 'restoretest', name, '--type=merge', '-p', '{"spec":{"schedule":{"cron":"0 4 * * *"}}}']);
    expect(patched.ok).toBe(false);
    expect(patched.output).toContain(`cannot administer restoretests.rehearsal.dev in namespace "${teamA}"`);
    expect(kubectlAs('alice', ['-n', teamA, 'label', 'restoretest', name, 'team=a']).ok).toBe(true);
    // API: PUT keeps the providerNamespace it cannot express, so alice may not replace it either.
    const put = await api('alice', 'PUT', `/api/v1/tests/${name}?namespace=${teamA}`, {
      name,
      provider: 'velero',
      sourceNamespaces: [teamA],
      cron: '0 4 * * *',
    });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { detail: string }).detail).toContain('providerNamespace "other-velero"');
    const carolPut = await api('carol', 'PUT', `/api/v1/tests/${name}?namespace=${teamA}`, {
      name,
      provider: 'velero',
      sourceNamespaces: [teamA],
      cron: '0 4 * * *',
    });
    expect(carolPut.status).toBe(200);
  });
});

describe('bearer tokens on port 8080', () => {
  it('refuses a token meant only for the cluster (TokenReview with audience rehearsal.dev): 401', async () => {
    const clusterOnly = await serviceAccountTokenFor(admin, teamA, 'bob', { rehearsalToo: false });
    const response = await fetch(`${base}/api/v1/tests/x?namespace=${teamA}`, { headers: { authorization: `Bearer ${clusterOnly}` } });
    expect(response.status).toBe(401);
    const rehearsalOnly = await serviceAccountTokenFor(admin, teamA, 'bob', { clusterToo: false });
    const accepted = await fetch(`${base}/api/v1/tests/x?namespace=${teamA}`, { headers: { authorization: `Bearer ${rehearsalOnly}` } });
    expect(accepted.status).toBe(404); // authenticated and authorized; no such test
    // ...and kube-apiserver refuses the Rehearsal-only token, so one seen by Rehearsal is no cluster credential.
    const cluster = admin.getCurrentCluster()!;
    const replay = kubectlWithToken(cluster.server, cluster.caData!, rehearsalOnly, ['get', 'restoretests', '-n', teamA]);
    expect(replay).toMatch(/Unauthorized|must be logged in/);
  });
});

describe('one namespace per request', () => {
  it('POST ?namespace=mine with a body namespace of the victim: 400, nothing created anywhere', async () => {
    const name = uniqueName('smuggled', 30);
    const response = await api('alice', 'POST', `/api/v1/tests?namespace=${teamA}`, {
      name,
      namespace: teamB,
      provider: 'velero',
      sourceNamespaces: [teamA],
      cron: '0 3 * * *',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { field: string }[] }).errors.map((error) => error.field)).toEqual(['namespace']);
    expect(await testExists(teamB, name)).toBe(false);
    expect(await testExists(teamA, name)).toBe(false);
  });

  it('DELETE with a body naming the caller\'s namespace: 400, the test in the server namespace stays', async () => {
    const name = uniqueName('victim', 30);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'restoretests',
      namespace: REHEARSAL_NAMESPACE,
      body: restoreTestObject(name, REHEARSAL_NAMESPACE, specOf({ who: 'admin', label: '', sources: () => [teamA] })),
    });
    try {
      const response = await api('alice', 'DELETE', `/api/v1/tests/${name}`, { namespace: teamA });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { errors: { field: string }[] }).errors.map((error) => error.field)).toEqual(['body']);
      expect(await testExists(REHEARSAL_NAMESPACE, name)).toBe(true);
    } finally {
      await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'restoretests', namespace: REHEARSAL_NAMESPACE, name });
    }
  });

  it('every operation of openapi.json, tried by a user allowed only in team-a against team-b, is refused and writes nothing there', async () => {
    const victim = uniqueName('victim', 30);
    const created = (await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'restoretests',
      namespace: teamB,
      body: restoreTestObject(victim, teamB, specOf({ who: 'admin', label: '', sources: () => [teamB] })),
    })) as { metadata: { resourceVersion: string } };
    await waitFor(async () => (await api('bob', 'GET', `/api/v1/tests/${victim}?namespace=${teamB}`)).status === 200, {
      description: 'the API cache to hold the victim test',
    });
    const document = JSON.parse(readFileSync(path.join(repoRoot, 'openapi/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { security?: unknown[]; parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
    };
    const since = new Date();
    const tried: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const query = new URLSearchParams();
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          const value: Record<string, string> = { namespace: teamB, test: victim, period: '30', framework: 'soc2', days: '7' };
          if (value[parameter.name]) query.set(parameter.name, value[parameter.name]!);
        }
        const url = `${template.replace('{name}', victim)}?${query.toString()}`;
        const body = operation.requestBody
          ? { name: victim, namespace: teamB, provider: 'velero', sourceNamespaces: [teamB], cron: '0 5 * * *' }
          : undefined;
        const response = await api('alice', method.toUpperCase(), url, body);
        tried.push(`${method.toUpperCase()} ${url} -> ${response.status}`);
        if (operation.security && operation.security.length > 0) {
          // 403: the check in team-b (or cluster-wide) said no. 400 only for a malformed query, never a 2xx.
          expect([`${method} ${template}`, response.status]).toEqual([`${method} ${template}`, 403]);
        }
      }
    }
    expect(tried.length).toBe(Object.values(document.paths).reduce((count, item) => count + Object.keys(item).length, 0));
    const after = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'restoretests', namespace: teamB, name: victim })) as {
      metadata: { resourceVersion: string };
    };
    expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const logPath = auditLogPath();
    if (logPath) {
      const writes = writesIn(readAuditEvents(logPath, since)).filter(
        (event) => event.user.username === REHEARSAL_USER && event.objectRef?.namespace === teamB,
      );
      expect(writes).toEqual([]);
    }
  });
});
