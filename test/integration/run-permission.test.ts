// Decision 0018, the engine's half, on the real apiserver with real RBAC and the shipped policies:
// before each run of a test restoring another namespace the engine re-checks the author recorded
// at admission (SubjectAccessReview, the verbs admission required) and that the admission policies
// are installed, and refuses — failing closed, nothing restored — when:
//  - the author lost `get secrets` in the source namespace (condition RunAllowed: AuthorLacksRights);
//  - no author is recorded (a test written before the rule: NoRecordedAuthor);
//  - a policy binding is missing (rehearsal_admission_policy_missing 1, AdmissionPoliciesMissing).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { Condition } from '../../server/domain/resources/resources.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { kubectl } from '../helpers/install-crds.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { metricLine, startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let carolKubeconfig = '';
const carol = 'carol';

function kubectlAsCarol(args: string[], input: object): void {
  execFileSync('kubectl', ['--kubeconfig', carolKubeconfig, ...args], { input: JSON.stringify(input), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

async function runAllowed(name: string): Promise<Condition | undefined> {
  const test = await getRestoreTest(fixture, name);
  return test.status?.conditions?.find((condition) => condition.type === 'RunAllowed');
}

/** Triggers one run and waits for its report; returns the report's failure and the condition. */
async function refusedRun(name: string): Promise<{ failure: { reason: string; message: string } | undefined; condition: Condition | undefined }> {
  await trigger(fixture, name);
  const [report] = await waitForReports(fixture, name, 1, 60_000);
  return { failure: report!.spec.failure, condition: await runAllowed(name) };
}

async function restoresOf(name: string): Promise<number> {
  const list = (await fixture.custom.listNamespacedCustomObject({
    group: 'velero.io', version: 'v1', namespace: fixture.veleroNamespace, plural: 'restores',
  })) as { items: { metadata: { name: string } }[] };
  return list.items.filter((restore) => restore.metadata.name.startsWith(name)).length;
}

beforeAll(async () => {
  fixture = await createEngineFixture('runperm');
  // Carol edits the tests' namespace and may read the source's Secrets, as admission requires.
  const core = fixture.admin.makeApiClient(CoreV1Api);
  const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: fixture.testNamespace, body: { metadata: { name: carol } } });
  for (const namespace of [fixture.testNamespace, fixture.source]) {
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: `${carol}-edit` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'ServiceAccount', name: carol, namespace: fixture.testNamespace }],
      },
    });
  }
  // The fixture's Velero namespace is not the installation's (admission parameters): administer.
  await rbac.createNamespacedRoleBinding({
    namespace: fixture.testNamespace,
    body: {
      metadata: { name: `${carol}-rehearsal-admin` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-admin' },
      subjects: [{ kind: 'ServiceAccount', name: carol, namespace: fixture.testNamespace }],
    },
  });
  const token = await serviceAccountTokenFor(fixture.admin, fixture.testNamespace, carol, { rehearsalToo: false });
  const cluster = fixture.admin.getCurrentCluster()!;
  carolKubeconfig = path.join(repoRoot, 'test/.tmp', 'run-permission-carol.kubeconfig');
  writeFileSync(carolKubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
    users: [{ name: carol, user: { token } }],
    contexts: [{ name: carol, context: { cluster: 'test', user: carol } }],
    'current-context': carol,
  }), { mode: 0o600 });
  rehearsal = await startInProcess(
    { kubeconfigPath: await rehearsalKubeconfig('run-permission.kubeconfig'), veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets },
    { admissionCheckIntervalMs: 500 },
  );
}, 180_000);

afterAll(async () => {
  // Whatever happened, the installation's policies are back for the next suite.
  kubectl(testKubeconfigPath(), ['apply', '-f', path.join(repoRoot, 'deploy/base/restoretest-admission.yaml')]);
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('the author is re-checked before each run', () => {
  it('a test whose author lost `get secrets` in the source does not run, and its condition says why', async () => {
    const name = uniqueTestName('lost');
    const body = restoreTestBody(fixture, name, {});
    body.metadata.annotations = { 'rehearsal.dev/author': `system:serviceaccount:${fixture.testNamespace}:${carol}` };
    kubectlAsCarol(['create', '-f', '-'], body); // admitted: carol holds the rights now
    await fixture.admin.makeApiClient(RbacAuthorizationV1Api).deleteNamespacedRoleBinding({ namespace: fixture.source, name: `${carol}-edit` });

    const { failure, condition } = await refusedRun(name);
    expect(failure).toMatchObject({ reason: 'AuthorLacksRights' });
    expect(condition).toMatchObject({ status: 'False', reason: 'AuthorLacksRights' });
    expect(condition?.message).toContain(`the author "system:serviceaccount:${fixture.testNamespace}:${carol}" cannot get secrets in namespace "${fixture.source}"`);
    expect(await restoresOf(name)).toBe(0);
  });

  it('a test with no recorded author (written before the rule) does not run', async () => {
    const name = uniqueTestName('unsigned');
    await fixture.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'rehearsal.dev', version: 'v1alpha1', namespace: fixture.testNamespace, plural: 'restoretests',
      body: restoreTestBody(fixture, name, {}),
    });
    const { failure, condition } = await refusedRun(name);
    expect(failure).toMatchObject({ reason: 'NoRecordedAuthor' });
    expect(condition).toMatchObject({ status: 'False', reason: 'NoRecordedAuthor' });
    expect(await restoresOf(name)).toBe(0);
  });
});

describe('the admission policies must be installed', () => {
  it('a missing binding: the metric says so, and cross-namespace tests are refused', async () => {
    const metric = 'rehearsal_admission_policy_missing{policy="rehearsal-restoretest-author"}';
    expect(await metricLine(rehearsal, metric)).toBe(`${metric} 0`);
    kubectl(testKubeconfigPath(), ['delete', 'validatingadmissionpolicybinding', 'rehearsal-restoretest-author']);
    try {
      await waitFor(async () => (await metricLine(rehearsal, metric)) === `${metric} 1`, { timeoutMs: 15_000, description: 'the missing-policy metric' });
      const name = uniqueTestName('unguarded');
      // Written as the administrator, with their name recorded: only the missing binding stands in the way.
      await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
      const { failure, condition } = await refusedRun(name);
      expect(failure).toMatchObject({ reason: 'AdmissionPoliciesMissing' });
      expect(condition).toMatchObject({ status: 'False', reason: 'AdmissionPoliciesMissing' });
      expect(condition?.message).toContain('ValidatingAdmissionPolicyBinding/rehearsal-restoretest-author');
      expect(await restoresOf(name)).toBe(0);
    } finally {
      kubectl(testKubeconfigPath(), ['apply', '-f', path.join(repoRoot, 'deploy/base/restoretest-admission.yaml')]);
    }
    await waitFor(async () => (await metricLine(rehearsal, metric)) === `${metric} 0`, { timeoutMs: 15_000, description: 'the metric back at 0' });
  });
});
