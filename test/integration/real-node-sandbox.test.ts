// Issues 28 and 35 on the real node (test/cluster/node-up.sh): what a sandbox does with real
// containers, real networking (kube-proxy, CoreDNS) and a real NetworkPolicy enforcer
// (kube-router), through one whole Rehearsal run of two source namespaces. The backup tool is the
// Velero simulator (test/velero: NOT Velero; it applies the default restore transforms as Velero
// v1.18 applies them, which restore-transforms-real-velero.test.ts proves with the real Velero on
// the API): it restores the Deployments, Services, CronJob and ConfigMaps through the API, pinned
// to the real node as their sources were, and the kubelet runs them. Rehearsal runs in-process
// under its own ServiceAccount and RBAC; the run lasts minutes (a privileged Deployment never gets
// a pod, and the engine waits 150 s for pods before it checks).
//   - No side effects (issue 28): the source's CronJob, due every minute, runs there throughout
//     the run and never in the sandbox (no Job, no pod; the audit log has no Job created there);
//     a privileged Deployment that runs in the source gets no pod in the sandbox and the report
//     says Pod Security refused it; the source's allow-all-egress NetworkPolicy does not open the
//     sandbox (a connection out is refused, the same one from the source pod succeeds); restore
//     safety from the audit log still holds.
//   - networkIsolation strict is enforced (issue 35), each direction allowed and refused: another
//     namespace cannot reach the sandbox's Service (the run's other sandbox can); the sandbox
//     cannot reach its source namespace (the source can, and the sandbox reaches itself); a pod
//     with the Rehearsal server's identity (namespace rehearsal-system, label
//     app.kubernetes.io/name=rehearsal: what the sandbox policy admits for the server's probes)
//     reaches the sandbox, an unlabelled pod there and a look-alike label elsewhere do not.
//     (The in-process server itself runs on the host, which the enforcer always lets reach local
//     pods, as it must for the kubelet's probes: so the prober's identity is played by a pod.)
// Where this host cannot run a node the suite is skipped with the reason printed; where the node
// should have started and did not, it fails.
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { AppsV1Api, BatchV1Api, CoreV1Api, NetworkingV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { LABEL_SOURCE_NAMESPACE, type RestoreReport } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, secretReadsOutsideSandboxes, unsafeWrites, writesIn } from '../helpers/audit.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitForNamespacesGone } from '../helpers/kube.js';
import { addEveryMinuteCronJob, addRealNodeWorkload, readyPodOf } from '../helpers/real-node-app.js';
import { dialerOf, expectedTable, settledReachability, type Connection, type Dialer } from '../helpers/real-node-reachability.js';
import { onRealNode, REAL_NODE_IMAGES, realNodeStatus, waitForPodReady } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { REHEARSAL_NAMESPACE, REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(420_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

/** How long the engine waits for pods: the run lasts at least this long after its restore. */
const POD_READY_TIMEOUT_SECONDS = 150;
const PROBER_LABELS = { 'app.kubernetes.io/name': 'rehearsal' };

/** A shop pod that passes the "restricted" profile (rehearsal-system may enforce it one day). */
function dialerPod(name: string, labels: Record<string, string>): V1Pod {
  return {
    metadata: { name, labels },
    spec: onRealNode({
      terminationGracePeriodSeconds: 1,
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'dialer',
          image: REAL_NODE_IMAGES.shop,
          imagePullPolicy: 'Never',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 as never }, periodSeconds: 1 },
        },
      ],
    }),
  };
}

describeOnRealNode('test/integration/real-node-sandbox.test.ts', node, 'a sandbox on the real node: no side effects, strict isolation enforced', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const app = uniqueName('rn-app');
  const peer = uniqueName('rn-peer');
  const outsider = uniqueName('rn-outsider');
  const prober = uniqueName('rn-prober');
  const imposter = uniqueName('rn-imposter');
  const cleanup: string[] = [app, peer, outsider];
  const testName = uniqueTestName('rn-sandbox');
  const suiteStarted = new Date();
  let fixture: EngineFixture;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let sandbox: string;
  let peerSandbox: string;

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const started = Date.now();
    fixture = await createEngineFixture('rnsbx');
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    // The application's namespace admits privileged pods; its egress is open by its own policy.
    await createNamespace(kubeConfig, app, { 'pod-security.kubernetes.io/enforce': 'privileged' });
    await addRealNodeWorkload(kubeConfig, app, 'web');
    await addRealNodeWorkload(kubeConfig, app, 'client', { service: false });
    await addRealNodeWorkload(kubeConfig, app, 'agent', { privileged: true, service: false });
    await addEveryMinuteCronJob(kubeConfig, app, 'billing');
    await kubeConfig.makeApiClient(NetworkingV1Api).createNamespacedNetworkPolicy({
      namespace: app,
      body: { metadata: { name: 'allow-all-egress' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] } },
    });
    await createNamespace(kubeConfig, peer);
    await addRealNodeWorkload(kubeConfig, peer, 'client', { service: false });
    // Outside the restore: a server to dial out to, labelled like Rehearsal's pods (a look-alike).
    await createNamespace(kubeConfig, outsider);
    await addRealNodeWorkload(kubeConfig, outsider, 'web', { labels: PROBER_LABELS });
    await core.createNamespacedPod({ namespace: REHEARSAL_NAMESPACE, body: dialerPod(prober, PROBER_LABELS) });
    await core.createNamespacedPod({ namespace: REHEARSAL_NAMESPACE, body: dialerPod(imposter, { app: 'imposter' }) });
    await Promise.all([
      ...[
        [app, 'web'],
        [app, 'client'],
        [app, 'agent'],
        [peer, 'client'],
        [outsider, 'web'],
      ].map(([namespace, name]) => readyPodOf(kubeConfig, namespace!, name!)),
      waitForPodReady(kubeConfig, REHEARSAL_NAMESPACE, prober),
      waitForPodReady(kubeConfig, REHEARSAL_NAMESPACE, imposter),
    ]);
    const backup = uniqueName('rn-both');
    await createBackup(kubeConfig, { name: backup, namespaces: [app, peer], veleroNamespace: fixture.veleroNamespace });
    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-sandbox.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
      { podReadyTimeoutSeconds: POD_READY_TIMEOUT_SECONDS },
    );
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, testName, {
        backupSource: { backupName: backup, namespaces: [{ name: app }, { name: peer }], providerNamespace: fixture.veleroNamespace },
        sandbox: { networkIsolation: 'strict' },
      }),
    );
    await trigger(fixture, testName);
    [report] = (await waitForReports(fixture, testName, 1, (POD_READY_TIMEOUT_SECONDS + 150) * 1000)) as [RestoreReport];
    const sandboxOf = async (source: string) => {
      for (const name of report.spec.sandboxNamespaces) {
        const labels = (await core.readNamespace({ name })).metadata?.labels ?? {};
        if (labels[LABEL_SOURCE_NAMESPACE] === source) return name;
      }
      throw new Error(`no sandbox of ${source} among ${report.spec.sandboxNamespaces.join(', ')}`);
    };
    [sandbox, peerSandbox] = [await sandboxOf(app), await sandboxOf(peer)];
    cleanup.push(...report.spec.sandboxNamespaces);
    console.log(`[timing] real-node-sandbox: set-up and the run took ${Math.round((Date.now() - started) / 1000)} s`);
  }, 420_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await Promise.all(
      [prober, imposter].map((name) => core.deleteNamespacedPod({ namespace: REHEARSAL_NAMESPACE, name }).catch(() => undefined)),
    );
    await deleteNamespaces(kubeConfig, cleanup);
    // Wait until its tests and reports are gone: a deleted test's reports still in a terminating
    // namespace are archived by the next suite's server (evidence-archive counts its segments).
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace], 150_000);
  }, 200_000);

  it('a privileged Deployment that runs in the source gets no pod in the sandbox, and the report says why', async () => {
    const source = await readyPodOf(kubeConfig, app, 'agent');
    expect(source.spec?.containers[0]?.securityContext?.privileged).toBe(true);
    expect(source.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    const restored = await kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: sandbox, name: 'agent' });
    expect(restored.spec?.template.spec?.containers[0]?.securityContext?.privileged).toBe(true);
    expect((await core.listNamespacedPod({ namespace: sandbox, labelSelector: 'app=agent' })).items).toEqual([]);
    expect(report.spec.result).not.toBe('pass');
    const pods = report.spec.checks.find((check) => check.name === `default/pods-ready/${app}`);
    expect(pods?.status).toBe('fail');
    expect(pods?.message).toMatch(/; Pod Security "baseline" refused the Pods of ReplicaSet\/agent-[a-z0-9]+ \(violates PodSecurity "baseline:latest": privileged/);
    expect(report.spec.podSecurity?.namespaces).toEqual(
      expect.arrayContaining([{ source: app, level: 'baseline', sourceLevel: 'privileged' }, { source: peer, level: 'baseline' }]),
    );
    // The rest of the sandbox runs: its web server and client are real, Ready containers.
    for (const name of ['web', 'client']) expect((await readyPodOf(kubeConfig, sandbox, name, 5000)).spec?.nodeName).toBe(node.available ? node.nodeName : '');
  });

  it('the CronJob due every minute runs in the source throughout the run, and never in the sandbox', async () => {
    const batch = kubeConfig.makeApiClient(BatchV1Api);
    const sandboxCreated = Date.parse(String((await core.readNamespace({ name: sandbox })).metadata?.creationTimestamp));
    const window = (Date.now() - sandboxCreated) / 1000;
    console.log(`[observe] the sandbox has existed for ${Math.round(window)} s`);
    expect(window).toBeGreaterThan(POD_READY_TIMEOUT_SECONDS);
    // The source: Jobs created while the sandbox existed, and one of their pods ran on the real node.
    const sourceJobs = (await batch.listNamespacedJob({ namespace: app })).items.filter(
      (job) => Date.parse(String(job.metadata?.creationTimestamp)) > sandboxCreated,
    );
    expect(sourceJobs.length).toBeGreaterThanOrEqual(2);
    const ran = (await core.listNamespacedPod({ namespace: app, labelSelector: 'cronjob=billing' })).items.find(
      (pod) => pod.status?.phase === 'Succeeded',
    );
    expect(ran?.spec?.nodeName).toBe(node.available ? node.nodeName : '');
    expect(await core.readNamespacedPodLog({ namespace: app, name: ran!.metadata!.name! })).toBe('charged customers\n');
    // The sandbox: the CronJob is there, suspended; no Job and no pod of it, ever.
    expect((await batch.readNamespacedCronJob({ namespace: sandbox, name: 'billing' })).spec?.suspend).toBe(true);
    expect((await batch.listNamespacedJob({ namespace: sandbox })).items).toEqual([]);
    expect((await core.listNamespacedPod({ namespace: sandbox, labelSelector: 'cronjob=billing' })).items).toEqual([]);
    const logPath = auditLogPath();
    if (!logPath) return;
    const jobCreates = writesIn(readAuditEvents(logPath, suiteStarted)).filter(
      (event) => event.verb === 'create' && event.objectRef?.resource === 'jobs' && !event.objectRef.subresource,
    );
    expect(jobCreates.filter((event) => report.spec.sandboxNamespaces.includes(event.objectRef?.namespace ?? ''))).toEqual([]);
    expect(jobCreates.filter((event) => event.objectRef?.namespace === app).length).toBeGreaterThanOrEqual(2);
  });

  it("the source's allow-all-egress policy is not restored: a connection out of the sandbox is refused, the source's succeeds", async () => {
    const networking = kubeConfig.makeApiClient(NetworkingV1Api);
    const policies = async (namespace: string) => (await networking.listNamespacedNetworkPolicy({ namespace })).items.map((policy) => policy.metadata?.name);
    expect(await policies(app)).toEqual(['allow-all-egress']);
    expect(await policies(sandbox)).toEqual(['rehearsal-isolation']);
    const [sourceClient, sandboxClient] = await Promise.all([readyPodOf(kubeConfig, app, 'client'), readyPodOf(kubeConfig, sandbox, 'client')]);
    const out = { service: 'web', namespace: outsider };
    const connections: Connection[] = [
      { name: 'source client → outsider web', from: dialerOf(sourceClient), to: out, reachable: true },
      { name: 'sandbox client → outsider web', from: dialerOf(sandboxClient), to: out, reachable: false },
      // The sandbox's own traffic works (DNS included): the refusal above is the policy's.
      { name: 'sandbox client → sandbox web', from: dialerOf(sandboxClient), to: { service: 'web', namespace: sandbox }, reachable: true },
    ];
    expect(await settledReachability(kubeConfig, connections)).toEqual(expectedTable(connections));
  });

  it('networkIsolation strict is enforced on real pods, each direction allowed and refused', async () => {
    const pod = (namespace: string, name: string) => readyPodOf(kubeConfig, namespace, name);
    const dialers = {
      sourceClient: dialerOf(await pod(app, 'client')),
      sandboxClient: dialerOf(await pod(sandbox, 'client')),
      peerSandboxClient: dialerOf(await pod(peerSandbox, 'client')),
      outsider: dialerOf(await pod(outsider, 'web')),
      prober: { namespace: REHEARSAL_NAMESPACE, pod: prober, container: 'dialer' },
      imposter: { namespace: REHEARSAL_NAMESPACE, pod: imposter, container: 'dialer' },
    } satisfies Record<string, Dialer>;
    const sandboxWeb = { service: 'web', namespace: sandbox };
    const sourceWeb = { service: 'web', namespace: app };
    const connections: Connection[] = [
      // Into the sandbox: only the run's own sandboxes and the Rehearsal server's pods.
      { name: "the run's other sandbox → sandbox web", from: dialers.peerSandboxClient, to: sandboxWeb, reachable: true },
      { name: 'another namespace (look-alike label) → sandbox web', from: dialers.outsider, to: sandboxWeb, reachable: false },
      { name: 'another namespace → source web', from: dialers.outsider, to: sourceWeb, reachable: true },
      // Out of the sandbox, to its source: refused; the source itself, and the sandbox to itself, pass.
      { name: 'sandbox client → source web', from: dialers.sandboxClient, to: sourceWeb, reachable: false },
      { name: 'source client → source web', from: dialers.sourceClient, to: sourceWeb, reachable: true },
      { name: 'sandbox client → sandbox web', from: dialers.sandboxClient, to: sandboxWeb, reachable: true },
      // Rehearsal's probes: its namespace and its pods' label, both needed.
      { name: 'rehearsal-system, Rehearsal label → sandbox web', from: dialers.prober, to: sandboxWeb, reachable: true },
      { name: 'rehearsal-system, no label → sandbox web', from: dialers.imposter, to: sandboxWeb, reachable: false },
      { name: 'rehearsal-system, no label → source web', from: dialers.imposter, to: sourceWeb, reachable: true },
    ];
    expect(await settledReachability(kubeConfig, connections)).toEqual(expectedTable(connections));
  });

  it('restore safety holds: Rehearsal wrote nothing outside its sandboxes and read no Secret outside them (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const events = readAuditEvents(logPath, suiteStarted).filter((event) => event.user.username === REHEARSAL_USER);
    const isSandbox = (namespace: string) =>
      report.spec.sandboxNamespaces.includes(namespace) || (namespace.startsWith('rehearsal-') && namespace !== REHEARSAL_NAMESPACE);
    const scope = { isSource: (namespace: string) => [app, peer, outsider].includes(namespace), isSandbox, ownNamespace: REHEARSAL_NAMESPACE };
    expect(writesIn(events).length).toBeGreaterThan(0);
    expect(unsafeWrites(writesIn(events), scope)).toEqual([]);
    expect(secretReadsOutsideSandboxes(events, scope)).toEqual([]);
    // The check above is not vacuous: Rehearsal created the run's sandboxes itself.
    const created = writesIn(events).filter((event) => event.verb === 'create' && event.objectRef?.resource === 'namespaces').map((event) => event.objectRef?.name);
    expect(created).toEqual(expect.arrayContaining(report.spec.sandboxNamespaces));
  });
});
