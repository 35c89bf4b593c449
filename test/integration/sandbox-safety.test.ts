// Decision 0009 for sandboxes and the server's own rights, on the real apiserver with the shipped
// RBAC (deploy/base/rbac.yaml) and the server's defence policy (deploy/base/server-admission.yaml):
//  - a sandbox namespace someone created first (even with Rehearsal's labels) fails that run with
//    a clear reason, and nothing is restored into it;
//  - one a killed leader created for the run before recording it (it carries the run's claim,
//    signed with the installation's key) is recognised: the run goes on, records and removes it;
//  - a foreign namespace labelled as Rehearsal's is never deleted by the janitor;
//  - the server's ServiceAccount reads no Secret outside sandboxes, and may not delete a namespace,
//    bind a role or have Velero restore into one outside its labelled sandboxes, nor create a
//    ConfigMap but its own (diagnoses included) or a run's resource modifiers owned by its sandbox;
//  - it may create and delete pods only in sandboxes and only of the file check's read-only shape
//    (decision 0020);
//  - no user but the server (and cluster administrators) may put the sandbox label on a namespace
//    or take it off (deploy/base/sandbox-label-admission.yaml).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubeConfig, type V1Namespace, type V1Pod } from '@kubernetes/client-node';
import { buildFileCheckPod } from '../../server/checks/file-check-pod.js';
import { sandboxNamespaceName } from '../../server/domain/run/sandbox-names.js';
import { podSecurityLabels } from '../../server/domain/run/pod-security.js';
import {
  ANNOTATION_EXPIRES_AT,
  ANNOTATION_TEST_UID,
  LABEL_SOURCE_NAMESPACE,
  type CurrentRun,
  type RestoreTest,
} from '../../server/domain/resources/resources.js';
import { sandboxLabels } from '../../server/engine/sandbox/sandbox.js';
import { claimAnnotation } from '../../server/engine/sandbox/sandbox-claim.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { apiStatusCode, deleteNamespaces, namespaceExists, sleep, testKubeConfig, testKubeconfigPath, uniqueName } from '../helpers/kube.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let server: KubeConfig;
const foreign: string[] = [];
/** test name → the sandbox namespace to create before the engine does. */
const squat = new Map<string, string>();
/** test name → the sandbox a "killed leader" created for the run (claim and all) before the engine. */
const leftBehind = new Map<string, { name: string; uid?: string }>();

/** The namespace an earlier leader of this installation creates for a run, and was killed before recording. */
function killedLeadersSandbox(test: RestoreTest, run: CurrentRun): V1Namespace {
  const name = sandboxNamespaceName(test.spec.sandbox?.namespacePrefix ?? 'rehearsal', test.metadata.name, run.id);
  const subject = { sandbox: name, runId: run.id, testNamespace: test.metadata.namespace!, testName: test.metadata.name, testUid: test.metadata.uid! };
  const keys = { signer: () => rehearsal.evidenceKeys.signingKey()?.key, keyRing: () => rehearsal.evidenceKeys.keyRing() };
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      labels: { ...podSecurityLabels('baseline'), ...sandboxLabels(test, run.id), [LABEL_SOURCE_NAMESPACE]: test.spec.backupSource.namespaces[0]!.name },
      annotations: {
        [ANNOTATION_EXPIRES_AT]: new Date(Date.now() + 3600_000).toISOString(),
        [ANNOTATION_TEST_UID]: test.metadata.uid!,
        ...claimAnnotation(keys, subject),
      },
    },
  };
}

beforeAll(async () => {
  fixture = await createEngineFixture('sbx');
  const kubeconfigPath = await rehearsalKubeconfig('sandbox-safety.kubeconfig');
  server = testKubeConfig(kubeconfigPath);
  rehearsal = await startInProcess(
    { kubeconfigPath, veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets, janitorIntervalSeconds: 1 },
    {
      // The attacker wins the race: the moment the run starts preparing, its first sandbox name is
      // taken, with Rehearsal's own labels. Only a cluster administrator may still set them
      // (sandbox-label-admission.yaml); the run must fail clearly all the same.
      onStage: (stage, test, run) => {
        if (stage === 'Preparing' && leftBehind.has(test.metadata.name) && !leftBehind.get(test.metadata.name)!.name) {
          const namespace = killedLeadersSandbox(test, run);
          foreign.push(namespace.metadata!.name!);
          const created = execFileSync('kubectl', ['--kubeconfig', testKubeconfigPath(), 'create', '-o', 'json', '-f', '-'], {
            input: JSON.stringify(namespace),
            encoding: 'utf8',
            stdio: ['pipe', 'pipe', 'pipe'],
          });
          leftBehind.set(test.metadata.name, { name: namespace.metadata!.name!, uid: (JSON.parse(created) as V1Namespace).metadata?.uid });
          return;
        }
        if (stage !== 'Preparing' || !squat.has(test.metadata.name) || squat.get(test.metadata.name)) return;
        const name = sandboxNamespaceName(test.spec.sandbox?.namespacePrefix ?? 'rehearsal', test.metadata.name, run.id);
        squat.set(test.metadata.name, name);
        foreign.push(name);
        execFileSync('kubectl', ['--kubeconfig', testKubeconfigPath(), 'create', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: {
              name,
              labels: {
                'rehearsal.dev/managed-by': 'rehearsal',
                'rehearsal.dev/test': test.metadata.name,
                'rehearsal.dev/test-namespace': test.metadata.namespace!,
                'rehearsal.dev/run': run.id,
              },
            },
          }),
          stdio: ['pipe', 'ignore', 'pipe'],
        });
      },
    },
  );
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ...foreign]);
});

describe('sandbox namespaces', () => {
  it('a pre-created sandbox namespace fails the run clearly and receives nothing', async () => {
    const name = uniqueTestName('squatted');
    squat.set(name, '');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    const taken = squat.get(name)!;
    expect(report!.spec.result).toBe('fail');
    expect(report!.spec.failure?.reason).toBe('SandboxNamespaceTaken');
    expect(report!.spec.failure?.message).toContain(`namespace "${taken}" already exists and Rehearsal did not create it`);
    expect(report!.spec.sandboxNamespaces).not.toContain(taken);
    // Nothing restored: no Restore was requested, the namespace holds no restored object.
    const restores = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'restores',
      labelSelector: `rehearsal.dev/run=${report!.spec.runId}`,
    })) as { items: unknown[] };
    expect(restores.items).toEqual([]);
    const core = fixture.admin.makeApiClient(CoreV1Api);
    expect((await core.listNamespacedSecret({ namespace: taken })).items).toEqual([]);
    expect((await core.listNamespacedService({ namespace: taken })).items).toEqual([]);
    expect((await fixture.admin.makeApiClient(RbacAuthorizationV1Api).listNamespacedRoleBinding({ namespace: taken })).items).toEqual([]);
    // ...and it is not deleted either: it is not Rehearsal's.
    await sleep(4000);
    const namespace = await core.readNamespace({ name: taken });
    expect(namespace.metadata?.deletionTimestamp).toBeUndefined();
  });

  it("a sandbox a killed leader created for the run, signed, is recognised: the run passes, records it and removes it", async () => {
    const name = uniqueTestName('taken-over');
    leftBehind.set(name, { name: '' });
    await createRestoreTest(fixture, restoreTestBody(fixture, name, { healthChecks: { checks: shopChecks() } }));
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    const sandbox = leftBehind.get(name)!;
    expect(sandbox.uid).toBeTruthy(); // the hook did create it before the engine's step
    expect(report!.spec.failure?.reason).toBeUndefined();
    expect(report!.spec.result).toBe('pass');
    expect(report!.spec.sandboxNamespaces).toEqual([sandbox.name]);
    // The report's checks read the restore back from that namespace; once the run passed, the
    // engine deleted it with its UID as the precondition (not merely one of the same name).
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const deadline = Date.now() + 60_000;
    let state = 'exists';
    while (Date.now() < deadline) {
      const namespace = await core.readNamespace({ name: sandbox.name }).catch(() => undefined);
      state = !namespace ? 'gone' : namespace.metadata?.uid !== sandbox.uid ? 'another namespace' : namespace.metadata?.deletionTimestamp ? 'gone' : 'exists';
      if (state !== 'exists') break;
      await sleep(1000);
    }
    expect(state).toBe('gone');
  });

  it('the janitor does not delete foreign namespaces labelled as Rehearsal sandboxes', async () => {
    const name = uniqueTestName('labelled');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const labels = (run: string) => ({
      'rehearsal.dev/managed-by': 'rehearsal',
      'rehearsal.dev/test': name,
      'rehearsal.dev/test-namespace': fixture.testNamespace,
      'rehearsal.dev/run': run,
    });
    const expired = { 'rehearsal.dev/expires-at': new Date(Date.now() - 3600_000).toISOString() };
    // Any name, labelled; a name that fits the sandbox pattern exactly; one of a deleted test.
    const victims = [
      { name: uniqueName('team-c', 30), labels: labels('abcde') },
      { name: sandboxNamespaceName('rehearsal', name, 'zzzzz'), labels: labels('zzzzz') },
      { name: uniqueName('team-d', 30), labels: { ...labels('qqqqq'), 'rehearsal.dev/test': 'no-such-test' } },
    ];
    for (const victim of victims) {
      foreign.push(victim.name);
      await core.createNamespace({ body: { metadata: { name: victim.name, labels: victim.labels, annotations: expired } } });
    }
    await sleep(5000); // five janitor sweeps (REHEARSAL_JANITOR_INTERVAL_SECONDS=1)
    for (const victim of victims) {
      const namespace = await core.readNamespace({ name: victim.name });
      expect([victim.name, namespace.metadata?.deletionTimestamp]).toEqual([victim.name, undefined]);
    }
  });
});

describe("the server's ServiceAccount (least privilege)", () => {
  it('cannot read Secrets in kube-system or a source namespace', () => {
    const canI = (namespace: string) =>
      execFileSync('kubectl', ['--kubeconfig', testKubeconfigPath(), 'auth', 'can-i', `--as=${REHEARSAL_USER}`, 'get', 'secrets', '-n', namespace], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    const answer = (namespace: string) => {
      try {
        return canI(namespace);
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? '').trim();
      }
    };
    expect(answer('kube-system')).toBe('no');
    expect(answer(fixture.source)).toBe('no');
    expect(answer('rehearsal-system')).toBe('no'); // only its two Secrets by name
  });

  it('is refused a namespace delete, a RoleBinding and a Restore outside its sandboxes, by the defence policy', async () => {
    const core = server.makeApiClient(CoreV1Api);
    const victim = uniqueName('team-e', 30);
    foreign.push(victim);
    await fixture.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: victim } } });
    const refusal = async (call: () => Promise<unknown>): Promise<string> => {
      try {
        await call();
        return 'allowed';
      } catch (error) {
        return `${apiStatusCode(error)} ${String((error as { body?: string }).body ?? '')}`;
      }
    };
    // RBAC lets it delete namespaces (names are not known in advance); the policy does not.
    const deleted = await refusal(() => core.deleteNamespace({ name: victim }));
    expect(deleted).toMatch(/^403 .*rehearsal-server-sandboxes-only.*not in \\?"/);
    expect(await namespaceExists(fixture.admin, victim)).toBe(true);
    const bound = await refusal(() =>
      server.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
        namespace: fixture.source,
        body: {
          metadata: { name: 'rehearsal-sandbox-reader' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-sandbox-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'rehearsal', namespace: 'rehearsal-system' }],
        },
      }),
    );
    expect(bound).toMatch(/^403 .*rehearsal-server-sandboxes-only/);
    const restored = await refusal(() =>
      server.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        group: 'velero.io',
        version: 'v1',
        namespace: fixture.veleroNamespace,
        plural: 'restores',
        body: {
          apiVersion: 'velero.io/v1',
          kind: 'Restore',
          metadata: { name: uniqueName('overwrite', 30), labels: { 'rehearsal.dev/run': 'abcde' } },
          spec: {
            backupName: fixture.backup,
            includedNamespaces: [fixture.source],
            namespaceMapping: { [fixture.source]: victim },
            includeClusterResources: false,
          },
        },
      }),
    );
    expect(restored).toMatch(/^403 .*rehearsal-server-sandboxes-only/);
  });

  it('may have Velero restore only into the sandbox names of the Restore\'s own test, run and position (issue 26)', async () => {
    const custom = server.makeApiClient(CustomObjectsApi);
    // Dry runs: admission decides, nothing is stored, the Velero simulator sees nothing.
    const attempt = async (spec: {
      name?: string;
      labels?: Record<string, string>;
      mapping: [string, string][];
    }): Promise<string> => {
      try {
        await custom.createNamespacedCustomObject({
          group: 'velero.io',
          version: 'v1',
          namespace: fixture.veleroNamespace,
          plural: 'restores',
          dryRun: 'All',
          body: {
            apiVersion: 'velero.io/v1',
            kind: 'Restore',
            metadata: {
              name: spec.name ?? 'shop-nightly-abcde',
              labels: spec.labels ?? { 'rehearsal.dev/run': 'abcde', 'rehearsal.dev/test': 'shop-nightly' },
            },
            spec: {
              backupName: fixture.backup,
              includedNamespaces: spec.mapping.map(([source]) => source),
              namespaceMapping: Object.fromEntries(spec.mapping),
              includeClusterResources: false,
            },
          },
        });
        return 'allowed';
      } catch (error) {
        const body = String((error as { body?: string }).body ?? '');
        return `${apiStatusCode(error)}${body.includes('rehearsal-server-sandboxes-only') ? ' policy' : ''}`;
      }
    };
    // The run's own sandboxes, as the engine names them (sandbox-names.ts), one and two sources.
    const own = (test: string, index: number, prefix = 'rehearsal') => sandboxNamespaceName(prefix, test, 'abcde', index);
    expect(await attempt({ mapping: [['shop', own('shop-nightly', 0)]] })).toBe('allowed');
    expect(await attempt({ mapping: [['shop', own('shop-nightly', 0)], ['shop-db', own('shop-nightly', 1)]] })).toBe('allowed');
    // A long test name, cut by the naming rule, with the longest prefix.
    const long = 'payroll-eu-west-nightly-restore-rehearsal-with-db';
    expect(
      await attempt({
        name: `${long}-abcde`,
        labels: { 'rehearsal.dev/run': 'abcde', 'rehearsal.dev/test': long },
        mapping: [['a', own(long, 0, 'restore-tests-teamx1')], ['b', own(long, 1, 'restore-tests-teamx1')]],
      }),
    ).toBe('allowed');
    // Any namespace that merely ends in "-<the run label>": a team's production namespace.
    expect(await attempt({ mapping: [['shop', 'payments-live-abcde']] })).toBe('403 policy');
    // A sandbox-like name at the wrong position, or the second source mapped like the first.
    expect(await attempt({ mapping: [['shop', own('shop-nightly', 0)], ['shop-db', `${own('shop-nightly', 0)}-7`]] })).toBe('403 policy');
    expect(await attempt({ mapping: [['shop', own('shop-nightly', 1)]] })).toBe('403 policy');
    // Another test's sandbox, a Restore named for another run, or no test label at all.
    expect(await attempt({ mapping: [['shop', own('billing-daily', 0)]] })).toBe('403 policy');
    expect(await attempt({ name: 'shop-nightly-zzzzz', mapping: [['shop', own('shop-nightly', 0)]] })).toBe('403 policy');
    expect(await attempt({ labels: { 'rehearsal.dev/run': 'abcde' }, mapping: [['shop', own('shop-nightly', 0)]] })).toBe('403 policy');
  });

  it('may create ConfigMaps only as a run\'s resource modifiers (owned by its sandbox) outside its namespace, and a Restore reads only its own', async () => {
    const core = server.makeApiClient(CoreV1Api);
    const victim = uniqueName('team-m', 30);
    foreign.push(victim);
    await fixture.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: victim } } });
    const attempt = async (call: () => Promise<unknown>): Promise<string> => {
      try {
        await call();
        return 'allowed';
      } catch (error) {
        return `${apiStatusCode(error)} ${String((error as { body?: string }).body ?? '')}`;
      }
    };
    const configMap = (namespace: string, name: string, ownerName?: string) =>
      attempt(() =>
        core.createNamespacedConfigMap({
          namespace,
          body: {
            metadata: {
              name,
              labels: { 'rehearsal.dev/run': 'abcde' },
              ...(ownerName ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: ownerName, uid: '00000000-0000-0000-0000-000000000000' }] } : {}),
            },
            data: { 'resource-modifiers.yaml': '{"version":"v1","resourceModifierRules":[]}' },
          },
        }),
      );
    // Any other ConfigMap outside its namespace and sandboxes: refused, e.g. one in a team's
    // namespace (RBAC refuses it first since issue 26; the policy would too).
    expect(await configMap(victim, 'app-config')).toMatch(/^403 /);
    // Named like a run's modifiers but owned by no sandbox of that run: refused.
    expect(await configMap(fixture.veleroNamespace, 'shop-abcde-transforms')).toMatch(/^403 .*rehearsal-server-sandboxes-only/);
    expect(await configMap(fixture.veleroNamespace, 'shop-abcde-transforms', fixture.source)).toMatch(/^403 .*rehearsal-server-sandboxes-only/);
    // The one shape the engine uses passes (the owner need not exist for admission).
    expect(await configMap(fixture.veleroNamespace, 'shop-abcde-transforms', 'rehearsal-shop-abcde')).toBe('allowed');
    // A Restore naming someone else's modifiers is refused, though everything else about it is a sandbox restore.
    const restore = await attempt(() =>
      server.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        group: 'velero.io',
        version: 'v1',
        namespace: fixture.veleroNamespace,
        plural: 'restores',
        body: {
          apiVersion: 'velero.io/v1',
          kind: 'Restore',
          // Everything as the engine makes it (issue 26's exact-name rule holds), but the modifiers.
          metadata: { name: 'shop-abcde', labels: { 'rehearsal.dev/run': 'abcde', 'rehearsal.dev/test': 'shop' } },
          spec: {
            backupName: fixture.backup,
            includedNamespaces: [fixture.source],
            namespaceMapping: { [fixture.source]: sandboxNamespaceName('rehearsal', 'shop', 'abcde', 0) },
            includeClusterResources: false,
            resourceModifier: { kind: 'ConfigMap', name: 'someone-elses-modifiers' },
          },
        },
      }),
    );
    expect(restore).toMatch(/^403 .*read their own run's resource modifiers/);
  });

  it('is refused a Kasten RestoreAction or Trilio Restore outside a sandbox or aimed at another namespace', async () => {
    const custom = server.makeApiClient(CustomObjectsApi);
    const victim = uniqueName('team-k', 30);
    // Looks like a sandbox of run abcde to the policy (labels and name): the target rule must hold anyway.
    const sandbox = `${uniqueName('rehearsal-fake', 40)}-abcde`;
    foreign.push(victim, sandbox);
    const admin = fixture.admin.makeApiClient(CoreV1Api);
    await admin.createNamespace({ body: { metadata: { name: victim } } });
    await admin.createNamespace({
      body: { metadata: { name: sandbox, labels: { 'rehearsal.dev/managed-by': 'rehearsal', 'rehearsal.dev/run': 'abcde' } } },
    });
    const attempt = async (namespace: string, target: string, tool: 'kasten' | 'trilio', run = 'abcde'): Promise<string> => {
      const metadata = { name: uniqueName('overwrite', 30), labels: { 'rehearsal.dev/run': run } };
      const request =
        tool === 'kasten'
          ? {
              group: 'actions.kio.kasten.io',
              version: 'v1alpha1',
              plural: 'restoreactions',
              body: {
                apiVersion: 'actions.kio.kasten.io/v1alpha1',
                kind: 'RestoreAction',
                metadata,
                spec: { subject: { kind: 'RestorePoint', name: 'nightly', namespace: fixture.source }, targetNamespace: target },
              },
            }
          : {
              group: 'triliovault.trilio.io',
              version: 'v1',
              plural: 'restores',
              body: {
                apiVersion: 'triliovault.trilio.io/v1',
                kind: 'Restore',
                metadata,
                // TVK restores into the Restore's own namespace: its CRD has no target field.
                spec: { source: { type: 'Backup', backup: { name: 'nightly', namespace: fixture.source } } },
              },
            };
      try {
        await custom.createNamespacedCustomObject({ ...request, namespace });
        return 'allowed';
      } catch (error) {
        return `${apiStatusCode(error)} ${String((error as { body?: string }).body ?? '')}`;
      }
    };
    for (const tool of ['kasten', 'trilio'] as const) {
      // Into a team's namespace, created there (the source-namespace write Rehearsal never makes).
      expect(await attempt(victim, victim, tool)).toMatch(/^403 .*rehearsal-server-sandboxes-only.*only in Rehearsal sandbox namespaces/);
      expect(await attempt(fixture.source, fixture.source, tool)).toMatch(/^403 .*rehearsal-server-sandboxes-only/);
      // From a sandbox, labelled with another run.
      expect(await attempt(sandbox, sandbox, tool, 'zzzzz')).toMatch(/^403 .*restoring into that sandbox/);
      // The one shape the engine uses passes the policy (no tool runs here to act on it).
      expect(await attempt(sandbox, sandbox, tool)).toBe('allowed');
    }
    // From a sandbox, aimed at another namespace: Kasten names its target, and it must be the sandbox.
    expect(await attempt(sandbox, victim, 'kasten')).toMatch(/^403 .*restoring into that sandbox/);
  });

  it('a Trilio Restore can name no other target: TVK’s CRD prunes one before admission, and keeps restoreFlags', async () => {
    // test/trilio/crds is TVK's own Restore CRD (descriptions removed): this is its structural
    // schema at work, as on a cluster with TVK. Rehearsal once wrote spec.restoreNamespace and
    // spec.skipIfAlreadyExists; both would vanish, so the Restore restores into its own namespace.
    const custom = server.makeApiClient(CustomObjectsApi);
    const victim = uniqueName('team-t', 30); // named only: nothing may ever restore into it
    const sandbox = `${uniqueName('rehearsal-fake', 40)}-abcde`;
    foreign.push(sandbox);
    await fixture.admin.makeApiClient(CoreV1Api).createNamespace({
      body: { metadata: { name: sandbox, labels: { 'rehearsal.dev/managed-by': 'rehearsal', 'rehearsal.dev/run': 'abcde' } } },
    });
    const where = { group: 'triliovault.trilio.io', version: 'v1', plural: 'restores', namespace: sandbox };
    const name = uniqueName('stray-target', 30);
    await custom.createNamespacedCustomObject({
      ...where,
      body: {
        apiVersion: 'triliovault.trilio.io/v1',
        kind: 'Restore',
        metadata: { name, labels: { 'rehearsal.dev/run': 'abcde' } },
        spec: {
          source: { type: 'Backup', backup: { name: 'nightly', namespace: fixture.source } },
          restoreNamespace: victim,
          skipIfAlreadyExists: true,
          restoreFlags: { skipIfAlreadyExists: true },
        },
      },
    });
    const stored = (await custom.getNamespacedCustomObject({ ...where, name })) as { spec: Record<string, unknown> };
    expect(stored.spec).toEqual({
      source: { type: 'Backup', backup: { name: 'nightly', namespace: fixture.source } },
      restoreFlags: { skipIfAlreadyExists: true },
    });
  });

  it('may create and delete pods only in sandboxes, and only file check pods (decision 0020)', async () => {
    const core = server.makeApiClient(CoreV1Api);
    const admin = fixture.admin.makeApiClient(CoreV1Api);
    const victim = uniqueName('team-p', 30);
    const sandbox = `${uniqueName('rehearsal-fake', 40)}-abcde`;
    foreign.push(victim, sandbox);
    await admin.createNamespace({ body: { metadata: { name: victim } } });
    await admin.createNamespace({
      body: { metadata: { name: sandbox, labels: { 'rehearsal.dev/managed-by': 'rehearsal', 'rehearsal.dev/run': 'abcde' } } },
    });
    // The per-sandbox binding the engine creates, here made by the administrator in both namespaces:
    // RBAC then allows the pod everywhere, and only the policy tells them apart.
    for (const namespace of [victim, sandbox]) {
      await fixture.admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: 'rehearsal-sandbox-reader' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-sandbox-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'rehearsal', namespace: 'rehearsal-system' }],
        },
      });
    }
    const filePod = (namespace: string) =>
      buildFileCheckPod({ namespace, checkName: 'sentinel', check: { claim: 'data-pg-0', path: '/s', sha256: 'a'.repeat(64) }, image: 'busybox', deadlineSeconds: 30 });
    const create = async (namespace: string, change: (pod: V1Pod) => void = () => undefined): Promise<string> => {
      const pod = filePod(namespace) as unknown as V1Pod;
      change(pod);
      try {
        await core.createNamespacedPod({ namespace, body: pod, dryRun: 'All' });
        return 'allowed';
      } catch (error) {
        return `${apiStatusCode(error)} ${String((error as { body?: string }).body ?? '')}`;
      }
    };
    // Without the binding (a team's namespace that never was a sandbox): RBAC refuses any pod.
    expect(await create(fixture.source)).toMatch(/^403 /);
    // With a binding, outside a sandbox: the policy refuses it.
    expect(await create(victim)).toMatch(/^403 .*rehearsal-server-sandboxes-only.*only in Rehearsal sandbox namespaces/);
    // In a sandbox: the file check's shape passes; anything looser is refused.
    expect(await create(sandbox)).toBe('allowed');
    const container = (pod: V1Pod) => pod.spec!.containers[0]!;
    const looser: [string, (pod: V1Pod) => void][] = [
      ['another name', (pod) => (pod.metadata!.name = 'miner')],
      ['a token', (pod) => (pod.spec!.automountServiceAccountToken = true)],
      ['a writable claim', (pod) => (pod.spec!.volumes![0]!.persistentVolumeClaim!.readOnly = false)],
      ['a writable mount', (pod) => (container(pod).volumeMounts![0]!.readOnly = false)],
      ['a writable root filesystem', (pod) => (container(pod).securityContext!.readOnlyRootFilesystem = false)],
      ['a host path', (pod) => pod.spec!.volumes!.push({ name: 'host', hostPath: { path: '/' } })],
      ['SYS_ADMIN', (pod) => (container(pod).securityContext!.capabilities!.add = ['SYS_ADMIN'])],
      // (privileged needs allowPrivilegeEscalation: the apiserver's own validation refuses the pair otherwise)
      ['privileged', (pod) => Object.assign(container(pod).securityContext!, { privileged: true, allowPrivilegeEscalation: true })],
      ['the host network', (pod) => (pod.spec!.hostNetwork = true)],
      ['no deadline', (pod) => delete pod.spec!.activeDeadlineSeconds],
      ['a second container', (pod) => pod.spec!.containers.push({ ...container(pod), name: 'second' })],
      ['environment from a Secret', (pod) => (container(pod).envFrom = [{ secretRef: { name: 'db' } }])],
    ];
    for (const [what, change] of looser) {
      expect([what, await create(sandbox, change)]).toEqual([what, expect.stringMatching(/^403 .*may create only file check pods/)]);
    }
    // It may delete only its own check pods, and only in sandboxes.
    const other = { metadata: { name: 'app' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } };
    await admin.createNamespacedPod({ namespace: sandbox, body: other });
    await admin.createNamespacedPod({ namespace: sandbox, body: filePod(sandbox) as unknown as V1Pod });
    const remove = async (namespace: string, name: string): Promise<string> => {
      try {
        await core.deleteNamespacedPod({ namespace, name, dryRun: 'All' });
        return 'allowed';
      } catch (error) {
        return `${apiStatusCode(error)} ${String((error as { body?: string }).body ?? '')}`;
      }
    };
    expect(await remove(sandbox, 'app')).toMatch(/^403 .*may delete only its file check pods/);
    expect(await remove(sandbox, 'rehearsal-file-sentinel')).toBe('allowed');
  });
});

describe('the sandbox label (deploy/base/sandbox-label-admission.yaml)', () => {
  const LABEL = 'rehearsal.dev/managed-by';
  const TENANT = 'team-x-namespace-admin';
  const tenantRole = uniqueName('test-namespace-admin', 40);
  /** kubectl as a user who may create and relabel namespaces (RBAC), but is not a cluster admin. */
  const asTenant = (args: string[], input?: string): string => {
    try {
      execFileSync('kubectl', ['--kubeconfig', testKubeconfigPath(), `--as=${TENANT}`, ...args], {
        input,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      return 'allowed';
    } catch (error) {
      return String((error as { stderr?: Buffer }).stderr ?? error);
    }
  };
  const namespaceJson = (name: string, labels: Record<string, string>) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });

  beforeAll(async () => {
    const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: {
        metadata: { name: tenantRole },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'create', 'update', 'patch'] }],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: tenantRole },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: tenantRole },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TENANT }],
      },
    });
  });

  afterAll(async () => {
    const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.deleteClusterRoleBinding({ name: tenantRole }).catch(() => undefined);
    await rbac.deleteClusterRole({ name: tenantRole }).catch(() => undefined);
  });

  it('no one but the server may create a namespace with it, or add, change or remove it', async () => {
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const own = uniqueName('team-x', 30);
    const posing = uniqueName('team-x-fake', 30);
    const sandboxLike = uniqueName('team-x-sbx', 30);
    foreign.push(own, posing, sandboxLike);
    // The policy leaves ordinary namespace work alone: create, relabel with other labels.
    expect(asTenant(['create', '-f', '-'], namespaceJson(own, { team: 'x' }))).toBe('allowed');
    expect(asTenant(['label', 'namespace', own, 'tier=dev'])).toBe('allowed');
    // Created with it: refused, and the namespace does not exist.
    expect(asTenant(['create', '-f', '-'], namespaceJson(posing, { [LABEL]: 'rehearsal', 'rehearsal.dev/run': 'abcde' }))).toMatch(
      /rehearsal-sandbox-label-reserved.*may not be created with it/,
    );
    expect(await namespaceExists(fixture.admin, posing)).toBe(false);
    // Added to their own namespace: refused, the namespace keeps its labels.
    expect(asTenant(['label', 'namespace', own, `${LABEL}=rehearsal`])).toMatch(/rehearsal-sandbox-label-reserved.*may not be added, changed or removed/);
    expect((await core.readNamespace({ name: own })).metadata?.labels?.[LABEL]).toBeUndefined();
    // On a namespace that has it (the server's, here created by it): neither removed nor changed,
    // while other labels may still change.
    await server.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: sandboxLike, labels: { [LABEL]: 'rehearsal' } } } });
    expect(asTenant(['label', 'namespace', sandboxLike, `${LABEL}-`])).toMatch(/rehearsal-sandbox-label-reserved/);
    expect(asTenant(['label', 'namespace', sandboxLike, '--overwrite', `${LABEL}=someone-else`])).toMatch(/rehearsal-sandbox-label-reserved/);
    expect(asTenant(['label', 'namespace', sandboxLike, 'note=kept'])).toBe('allowed');
    const labels = (await core.readNamespace({ name: sandboxLike })).metadata?.labels ?? {};
    expect([labels[LABEL], labels.note]).toEqual(['rehearsal', 'kept']);
  });
});
