// Rehearsal installed the way a user installs it, on the real node (test/cluster/REAL-NODE.md):
// the image from deploy/image/build-oci.sh imported into the node's containerd, `helm install
// oci://127.0.0.1:…/charts/rehearsal` from a real OCI registry (CNCF Distribution, built from its Go
// module), the serving certificate from deploy/tls/make-serving-cert.sh. Nothing here runs
// Rehearsal on the host, and REHEARSAL_PROBE_TARGETS is set nowhere. It shows:
//   - the chart as a user gets it (issue 30): deploy/helm/package.sh packs and pushes two releases,
//     the previous one (deploy/helm/releases.env: the chart at an earlier commit) and the working
//     tree's; the previous one is installed from the registry, the runs below write their reports
//     under it, then `helm upgrade` to the current one (its CRDs applied first, as docs/install.md
//     says) keeps every report, unchanged, and they verify with the upgraded server's keys. The
//     tests after the upgrade run on the current chart;
//   - the server pod from that image runs on the real node under its own ServiceAccount and is
//     Ready through its HTTP probe;
//   - APIService v1.api.rehearsal.dev is served through the chart's Service with the caBundle:
//     users bound to the shipped roles call the API through kube-apiserver (raw and with
//     `kubectl restoretest`), a user without a role is refused;
//   - the in-cluster engine completes a run end to end: `kubectl restoretest trigger --wait` as an
//     editor, through the APIService, ends in a passing report. Velero's part is played by the
//     simulator on the host (it only reads and writes Velero's objects through the apiserver, as
//     Velero does); the restored pods are KWOK's, so the checks are ones that dial nothing;
//   - the in-cluster engine also starts a run from the test's schedule by itself;
//   - restore safety on this path: the audit log shows the pod's ServiceAccount writing nothing
//     outside its sandboxes and reading no Secret outside them;
//   - a data-level check from where a user runs it: the REAL Velero, installed in the cluster as
//     `velero install --use-node-agent` installs it (its server a Deployment, its node agent a
//     DaemonSet, both pods of the real node), backs a PostgreSQL StatefulSet's claim up, and the
//     in-cluster server's sqlQuery check dials the restored database through cluster DNS and finds
//     exactly the rows written before the backup; neither Rehearsal's nor Velero's ServiceAccount
//     wrote in production but the backup hook's exec (audit log);
//   - Prometheus's path: the ServiceMonitor the chart installs is followed to the pod's endpoint
//     (its Service port, path, bearer token), the scrape with the ServiceAccount the chart bound
//     to rehearsal-metrics-reader sees the per-test series, and `promtool check metrics` accepts
//     the exposition. Another ServiceAccount's token is refused.
// Where this host cannot run a node the suite is skipped with the reason printed; where the node
// should have started and did not, it fails.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import { API_VERSION } from '../../server/domain/resources/resources.js';
import { expandReport } from '../../server/report-codec/report-encoding.js';
import { API_SERVICE, availability } from '../helpers/aggregated-api.js';
import { authoredBy } from '../helpers/author.js';
import { auditLogPath, readAuditEvents, secretReadsOutsideSandboxes, unsafeWrites, writesIn } from '../helpers/audit.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { currentChart, previousRelease, publishChart } from '../helpers/chart-releases.js';
import {
  buildServerImage,
  installChart,
  makeServingCertificate,
  releaseChart,
  uninstallChart,
  upgradeChart,
  type RegistryChart,
} from '../helpers/helm-install.js';
import { kubectl } from '../helpers/install-crds.js';
import {
  createNamespace,
  deleteNamespaces,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
  waitFor,
  waitForNamespacesGone,
} from '../helpers/kube.js';
import { startLocalVolumeProvisioner } from '../helpers/local-volume-provisioner.js';
import { startOciRegistry, type OciRegistry } from '../helpers/oci-registry.js';
import { ORDERS_ROWS, sqlIn, writeOrdersAfterBackup, writeOrdersBeforeBackup } from '../helpers/orders-database.js';
import { addRealNodePostgres, readyPodOf } from '../helpers/real-node-app.js';
import { importImageIntoNode, REAL_NODE_LABEL, realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { startRealVelero } from '../helpers/real-velero.js';
import { REHEARSAL_NAMESPACE, REHEARSAL_USER, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { createShopApp } from '../helpers/sample-app.js';
import { createBackup, VeleroSimulator } from '../velero/simulator.js';

const kubeConfig: KubeConfig = testKubeConfig();
const adminPath = testKubeconfigPath();
const node = await realNodeStatus(kubeConfig);

const tmp = path.join(repoRoot, 'test/.tmp/in-cluster');
const pluginBin = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');
const chart = parseYaml(readFileSync(path.join(repoRoot, 'deploy/helm/rehearsal/Chart.yaml'), 'utf8')) as {
  appVersion: string;
};
/** The chart's default image, which build-oci.sh names its image by. */
const IMAGE = `ghcr.io/rehearsal-dev/rehearsal:${chart.appVersion}`;
const SERVER_SELECTOR = 'app.kubernetes.io/name=rehearsal';
const VELERO_NAMESPACE = 'velero'; // the installation's backup namespace (ConfigMap rehearsal-admission)

// Building the image cold takes minutes on 2 cores; the run waits for pods and a restore.
jest.setTimeout(240_000);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kubectl ARGS` with the plugin on PATH, as a user runs it. */
function kubectlAs(kubeconfig: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      // KUBECONFIG, not --kubeconfig: kubectl refuses flags before a plugin's name.
      { env: { ...process.env, KUBECONFIG: kubeconfig, PATH: `${pluginBin}:${process.env.PATH}`, NO_COLOR: '1' }, timeout: 200_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

/** A kubeconfig for the test cluster that authenticates with a bearer token. */
function tokenKubeconfig(name: string, token: string): string {
  const cluster = kubeConfig.getCurrentCluster()!;
  const file = path.join(tmp, `${name}.kubeconfig`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
      users: [{ name, user: { token } }],
      contexts: [{ name, context: { cluster: 'test', user: name } }],
      'current-context': name,
    }),
    { mode: 0o600 },
  );
  return file;
}

describeOnRealNode('test/integration/in-cluster.test.ts', node, 'Rehearsal installed with Helm, running on the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const users = uniqueName('incluster-users');
  const source = uniqueName('incluster-shop');
  const tests = uniqueName('incluster-tests');
  const backup = uniqueName('incluster-nightly');
  const testName = uniqueName('incluster', 30);
  const bindings = [`${users}-viewer`, `${users}-editor`];
  const kubeconfigs: Record<'viewer' | 'editor' | 'nobody', string> = { viewer: '', editor: '', nobody: '' };
  let prometheusToken = '';
  let nobodyToken = '';
  let simulator: VeleroSimulator | undefined;
  let registry: OciRegistry | undefined;
  /** The two releases in the registry: installed first, and upgraded to. */
  let charts: { previous: RegistryChart; current: RegistryChart } | undefined;
  let installed = false;
  let pod: V1Pod | undefined;
  let passingScore: number | undefined;
  let suiteStarted = new Date();
  const sandboxes: string[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    suiteStarted = new Date();
    mkdirSync(tmp, { recursive: true });
    const image = buildServerImage(path.join(tmp, 'rehearsal-oci.tar'));
    timings.imageBuildSeconds = image.seconds;
    timings.imageMegabytes = image.bytes / 1e6;
    const imported = importImageIntoNode(image.archive);
    if (!imported) console.warn(`[in-cluster] not a local node: load ${image.archive} into it yourself`);

    // The chart's releases in a registry of their own, as a maintainer publishes them.
    const published = performance.now();
    registry = await startOciRegistry();
    const repository = registry.reference('charts');
    const previous = previousRelease();
    charts = {
      previous: publishChart(path.join(tmp, 'charts'), repository, { from: previous.commit, version: previous.version }),
      current: publishChart(path.join(tmp, 'charts'), repository),
    };
    timings.chartsPublishedSeconds = (performance.now() - published) / 1000;

    // The chart's ServiceMonitor needs the Prometheus Operator's CRD (from its Go module).
    const serviceMonitorCrd = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/third-party-crds.sh')], {
      encoding: 'utf8',
    })
      .split('\n')
      .find((file) => file.endsWith('_servicemonitors.yaml'))!;
    kubectl(adminPath, ['apply', '--server-side', '--force-conflicts', '-f', serviceMonitorCrd]);
    kubectl(adminPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/servicemonitors.monitoring.coreos.com']);

    // Users: Prometheus's ServiceAccount (the chart binds rehearsal-metrics-reader to it), a viewer
    // and an editor bound to the shipped roles, and one with no role at all.
    await createNamespace(kubeConfig, users);
    for (const name of ['prometheus', 'viewer', 'editor', 'nobody'])
      await core.createNamespacedServiceAccount({ namespace: users, body: { metadata: { name } } });
    for (const [binding, role, subject] of [
      [bindings[0]!, 'rehearsal-viewer', 'viewer'],
      [bindings[1]!, 'rehearsal-editor', 'editor'],
    ] as const) {
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: binding },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name: subject, namespace: users }],
        },
      });
    }
    for (const name of ['viewer', 'editor', 'nobody'] as const) {
      kubeconfigs[name] = tokenKubeconfig(
        `${users}-${name}`,
        await serviceAccountTokenFor(kubeConfig, users, name, { rehearsalToo: false }),
      );
    }
    prometheusToken = await serviceAccountTokenFor(kubeConfig, users, 'prometheus', { rehearsalToo: false });
    nobodyToken = await serviceAccountTokenFor(kubeConfig, users, 'nobody', { rehearsalToo: false });

    // The shipped NetworkPolicy lets the pod reach the Kubernetes API on 443 and 6443, and the
    // enforcer judges the apiserver endpoint's port (after the `kubernetes` Service's
    // translation): this control plane's is random (up.sh), so it is added as a user would.
    const apiServerPort = new URL(kubeConfig.getCurrentCluster()!.server).port;
    const started = performance.now();
    const valueArgs = [
      '--set-json', `networkPolicy.extraEgress=[{"ports":[{"protocol":"TCP","port":${apiServerPort}}]}]`,
      '--set', 'replicaCount=1',
      // Loaded into the node above: there is no registry to pull the image from. Only the working
      // tree's image is built here, so the previous chart runs it too (named explicitly: the
      // previous chart's appVersion may differ): the upgrade tested is the chart's.
      '--set', 'image.pullPolicy=Never',
      '--set', `image.tag=${currentChart().appVersion}`,
      '--set-json', `nodeSelector={"${REAL_NODE_LABEL}":"true"}`,
      '--set-json', `tolerations=[{"key":"${REAL_NODE_LABEL}","operator":"Exists"}]`,
      '--set', 'monitoring.serviceMonitor.enabled=true',
      '--set', 'monitoring.serviceMonitor.prometheusServiceAccount.name=prometheus',
      '--set', `monitoring.serviceMonitor.prometheusServiceAccount.namespace=${users}`,
    ];
    installed = true; // from here on, afterAll uninstalls (a failed install leaves a release too)
    installChart(adminPath, valueArgs, { chart: charts.previous });
    makeServingCertificate(adminPath);
    pod = await readyServerPod();
    timings.installToReadySeconds = (performance.now() - started) / 1000;
    timings.installStartedAt = started;
  }, 900_000);

  afterAll(async () => {
    await simulator?.stop();
    await registry?.stop();
    try {
      if (installed) uninstallChart(adminPath);
    } finally {
      await cleanUp();
    }
    console.log(`[in-cluster] timings: ${JSON.stringify(timings)}`);
  }, 180_000);

  /** The Ready server pod (not `replaced`, the one an upgrade rolled away). */
  async function readyServerPod(replaced?: string): Promise<V1Pod> {
    return waitFor(
      async () => {
        const pods = await core.listNamespacedPod({ namespace: REHEARSAL_NAMESPACE, labelSelector: SERVER_SELECTOR });
        return pods.items.find(
          (candidate) =>
            candidate.metadata?.name !== replaced &&
            !candidate.metadata?.deletionTimestamp &&
            (candidate.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        );
      },
      { timeoutMs: 180_000, intervalMs: 500, description: 'the Rehearsal pod to be Ready' },
    ).catch(async (error: unknown) => {
      throw new Error(`${(error as Error).message}\n${await describeServer()}`);
    });
  }

  /** The test's RestoreReports: name → the digest its evidence signs. */
  async function reportDigests(): Promise<Map<string, string | undefined>> {
    const reports = (await custom.listNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restorereports' })) as {
      items: Parameters<typeof expandReport>[0][];
    };
    return new Map(
      reports.items
        .map(expandReport)
        .filter((report) => report.spec.testRef.name === testName)
        .map((report) => [report.metadata.name, report.spec.evidence?.digest] as const),
    );
  }

  /** The server pods' states and last log lines, for a failure message. */
  async function describeServer(): Promise<string> {
    const pods = await core.listNamespacedPod({ namespace: REHEARSAL_NAMESPACE, labelSelector: SERVER_SELECTOR });
    const lines: string[] = [];
    for (const candidate of pods.items) {
      const name = candidate.metadata!.name!;
      lines.push(`pod ${name}: ${JSON.stringify({ phase: candidate.status?.phase, containers: candidate.status?.containerStatuses?.map((c) => c.state) })}`);
      const log = await core
        .readNamespacedPodLog({ namespace: REHEARSAL_NAMESPACE, name, container: 'api', tailLines: 30 })
        .catch((error: unknown) => `(no log: ${(error as Error).message})`);
      lines.push(log);
    }
    return lines.join('\n') || 'no server pods';
  }

  /** What the test itself created: bindings, its Velero objects, its namespaces. */
  async function cleanUp(): Promise<void> {
    for (const name of bindings) await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
    for (const plural of ['restores', 'backups']) {
      const list = (await custom
        .listNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: VELERO_NAMESPACE, plural })
        .catch(() => ({ items: [] }))) as { items: { metadata: { name: string }; spec?: { backupName?: string } }[] };
      for (const item of list.items.filter((i) => i.metadata.name === backup || i.spec?.backupName === backup)) {
        await custom
          .deleteNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: VELERO_NAMESPACE, plural, name: item.metadata.name })
          .catch(() => undefined);
      }
    }
    await deleteNamespaces(kubeConfig, [users, source, tests]);
    // Its test's reports go with the namespace; the next suite's server must not find them there.
    await waitForNamespacesGone(kubeConfig, [tests], 150_000);
  }

  test('the server pod from the image runs on the real node under its own ServiceAccount and is Ready', async () => {
    // Installed from the registry: the previous release (revision 1).
    expect(releaseChart(adminPath)).toEqual({ chart: `rehearsal-${charts!.previous.version}`, revision: 1 });
    expect(pod?.spec?.nodeName).toBe(node.available ? node.nodeName : '');
    expect(pod?.spec?.serviceAccountName).toBe('rehearsal');
    const container = pod?.status?.containerStatuses?.find((status) => status.name === 'api');
    expect(container?.image).toBe(IMAGE);
    expect(container?.ready).toBe(true);
    expect(container?.containerID).toMatch(/^containerd:\/\//);
    expect(pod?.status?.podIP).toMatch(/^10\.244\.1\./);
    // Health checks would dial the sandboxes' Services through cluster DNS: nothing maps them.
    const env = pod?.spec?.containers.flatMap((c) => c.env ?? []).map((e) => e.name) ?? [];
    expect(env).not.toContain('REHEARSAL_PROBE_TARGETS');
    // Its own log, read through the kubelet: it authenticated in-cluster and serves.
    const log = await core.readNamespacedPodLog({ namespace: REHEARSAL_NAMESPACE, name: pod!.metadata!.name!, container: 'api' });
    expect(log).toContain('rehearsal started');
    console.log(
      `[in-cluster] image ${timings.imageMegabytes!.toFixed(1)} MB (built or found in ${timings.imageBuildSeconds!.toFixed(0)} s); helm install to pod Ready ${timings.installToReadySeconds!.toFixed(1)} s`,
    );
  });

  test('the APIService is served through the Service with the caBundle, and the shipped roles decide who uses it', async () => {
    const apiService = JSON.parse(kubectl(adminPath, ['get', 'apiservice', API_SERVICE, '-o', 'json'])) as {
      spec: { service: { namespace: string; name: string; port: number }; caBundle?: string; insecureSkipTLSVerify?: boolean };
    };
    expect(apiService.spec.service).toEqual({ namespace: REHEARSAL_NAMESPACE, name: 'rehearsal-api', port: 443 });
    expect(apiService.spec.caBundle).toBeTruthy();
    expect(apiService.spec.insecureSkipTLSVerify).toBeUndefined();
    const service = await core.readNamespacedService({ namespace: REHEARSAL_NAMESPACE, name: 'rehearsal-api' });
    expect(service.spec?.type).toBe('ClusterIP');
    let last = '';
    await waitFor(() => (last = availability(adminPath)).startsWith('True '), {
      timeoutMs: 90_000,
      intervalMs: 500,
      description: `APIService ${API_SERVICE} to be Available (last: ${last})`,
    });

    await createNamespace(kubeConfig, tests);
    await createShopApp(kubeConfig, source);
    const body: RestoreTest = {
      apiVersion: API_VERSION,
      kind: 'RestoreTest',
      metadata: { name: testName, namespace: tests },
      spec: {
        provider: 'velero',
        backupSource: { backupName: backup, namespaces: [{ name: source }], providerNamespace: VELERO_NAMESPACE },
        schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
        // Checks that dial nothing: the restored pods are KWOK's (they run no process).
        healthChecks: {
          checks: [
            { name: 'web-pods', kind: 'podsReady', podsReady: { selector: { app: 'web' }, minReady: 2 } },
            {
              name: 'credentials-restored',
              kind: 'resourceExists',
              resourceExists: { apiVersion: 'v1', kind: 'Secret', name: 'db-credentials' },
            },
          ],
        },
      } as RestoreTest['spec'],
    };
    // Decision 0018: a test restoring another namespace runs only with its author recorded.
    await custom.createNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restoretests', body: await authoredBy(kubeConfig, body) });

    // Through kube-apiserver → Service rehearsal-api:443 → the pod's 8443, as the viewer.
    const raw = await waitFor(
      async () => {
        const result = await kubectlAs(kubeconfigs.viewer, ['get', '--raw', `/apis/api.rehearsal.dev/v1/tests/${testName}?namespace=${tests}`]);
        return result.code === 0 ? result : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, description: 'the viewer to read the test through the APIService' },
    );
    expect(JSON.parse(raw.stdout)).toMatchObject({ name: testName, namespace: tests, provider: 'velero' });
    const listed = await kubectlAs(kubeconfigs.viewer, ['restoretest', 'list', '-n', tests]);
    expect(listed.stderr).not.toMatch(/^error:/m);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(testName);
    // No role: kube-apiserver refuses before the request reaches the pod.
    const refused = await kubectlAs(kubeconfigs.nobody, ['restoretest', 'list', '-n', tests]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n')[0]).toContain('error: forbidden');
    // The viewer may read but not trigger.
    const denied = await kubectlAs(kubeconfigs.viewer, ['restoretest', 'trigger', testName, '-n', tests]);
    expect(denied.code).toBe(1);
    expect(denied.stderr.split('\n')[0]).toContain('error: forbidden');
  });

  test('the in-cluster engine completes a run: kubectl restoretest trigger --wait as an editor passes', async () => {
    simulator = new VeleroSimulator(kubeConfig, { namespace: VELERO_NAMESPACE, stepDelayMs: 150, pollIntervalMs: 100 });
    await simulator.start();
    await createBackup(kubeConfig, { name: backup, namespaces: [source], veleroNamespace: VELERO_NAMESPACE });
    const triggered = await kubectlAs(kubeconfigs.editor, ['restoretest', 'trigger', testName, '-n', tests, '--wait', '--timeout', '180s']);
    if (triggered.code !== 0) console.error(`[in-cluster] trigger --wait: ${triggered.stderr}\n${await describeServer()}`);
    expect(triggered.stderr).not.toMatch(/^error:/m);
    expect(triggered.code).toBe(0);
    expect(triggered.stdout).toMatch(/finished: pass\n/);
    // Progress, read live from the RestoreTest the in-cluster engine writes.
    expect(triggered.stderr).toMatch(new RegExp(`^\\[\\S+\\] ${tests}/${testName}: finished: pass, score \\d+$`, 'm'));
    timings.installToFirstPassSeconds = (performance.now() - timings.installStartedAt!) / 1000;
    const reports = (await custom.listNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: tests,
      plural: 'restorereports',
    })) as { items: Parameters<typeof expandReport>[0][] };
    const [report] = reports.items.map(expandReport);
    expect(report?.spec.result).toBe('pass');
    expect(report?.spec.checks.map((check) => [check.name, check.status])).toEqual([
      ['web-pods', 'pass'],
      ['credentials-restored', 'pass'],
    ]);
    expect(report?.spec.backup.name).toBe(backup);
    passingScore = report?.spec.score;
    sandboxes.push(...(report?.spec.sandboxNamespaces ?? []));
    console.log(`[in-cluster] helm install to the first passing report: ${timings.installToFirstPassSeconds.toFixed(1)} s`);
  });

  test('the in-cluster engine starts a run from the schedule by itself', async () => {
    const setCron = (cron: string) =>
      custom.patchNamespacedCustomObject(
        { group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restoretests', name: testName, body: { spec: { schedule: { cron } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    const reportsOf = async () =>
      ((await custom.listNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restorereports' })) as {
        items: Parameters<typeof expandReport>[0][];
      }).items.map(expandReport);
    expect((await reportsOf()).map((report) => report.spec.trigger)).toEqual(['manual']);
    // Every minute: the next minute boundary is at most 60 s away.
    await setCron('* * * * *');
    const scheduled = await waitFor(
      async () => (await reportsOf()).find((report) => report.spec.trigger === 'schedule'),
      { timeoutMs: 180_000, intervalMs: 1000, description: 'a report of a scheduled run' },
    );
    expect(scheduled.spec.result).toBe('pass');
    sandboxes.push(...scheduled.spec.sandboxNamespaces);
    // Back to once a year, so no further run starts while the chart is uninstalled.
    await setCron('0 0 1 1 *');
  });

  // Issue 30: `helm upgrade` from the previous chart version, both from the registry. The runs
  // above wrote their reports under the previous chart; every one must still be there after the
  // upgrade, unchanged (same names, same evidence digests), and verify — through the upgraded
  // server's published keys, as an auditor with the viewer role checks them.
  test('helm upgrade from the previous chart version to the current one, both from oci://127.0.0.1, keeps every report, and they verify', async () => {
    const before = await reportDigests();
    expect(before.size).toBeGreaterThanOrEqual(2); // the manual run's and the scheduled run's
    for (const digest of before.values()) expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const previousPod = pod!.metadata!.name!;
    const started = performance.now();
    upgradeChart(adminPath, charts!.current, tmp);
    pod = await readyServerPod(previousPod);
    timings.upgradeToReadySeconds = (performance.now() - started) / 1000;
    expect(releaseChart(adminPath)).toEqual({ chart: `rehearsal-${charts!.current.version}`, revision: 2 });
    // The install's values came along (--reset-then-reuse-values): still on the real node, from
    // the imported image. The current chart's objects are in place, with the current chart's
    // defaults for the values the previous one did not have (backupTool, clusterDefaults).
    expect(pod.spec?.nodeName).toBe(node.available ? node.nodeName : '');
    expect(pod.spec?.containers.find((c) => c.name === 'api')?.imagePullPolicy).toBe('Never');
    const env = Object.fromEntries((pod.spec?.containers.flatMap((c) => c.env ?? []) ?? []).map((e) => [e.name, e.value]));
    expect(env.REHEARSAL_BACKUP_TOOL).toBe('velero');
    expect((await core.readNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, name: 'rehearsal-cluster-defaults' })).metadata?.labels?.['helm.sh/chart']).toBe(
      `rehearsal-${charts!.current.version}`,
    );

    expect(await reportDigests()).toEqual(before);
    let last = '';
    await waitFor(() => (last = availability(adminPath)).startsWith('True '), {
      timeoutMs: 90_000,
      intervalMs: 500,
      description: `APIService ${API_SERVICE} to be Available after the upgrade (last: ${last})`,
    });
    let lastVerify: Ran | undefined;
    const verified = await waitFor(
      async () => {
        lastVerify = await kubectlAs(kubeconfigs.viewer, ['restoretest', 'verify', testName, '-n', tests]);
        return lastVerify.code === 0 ? lastVerify : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, description: 'the reports to verify through the upgraded server' },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nlast verify: ${JSON.stringify(lastVerify)}`);
    });
    expect(verified.stdout).toContain(`${before.size}/${before.size} reports verified`);
    expect(verified.stdout).not.toMatch(/does NOT verify/);
    console.log(
      `[in-cluster] charts published in ${timings.chartsPublishedSeconds!.toFixed(1)} s; helm upgrade ${charts!.previous.version} -> ${charts!.current.version} to pod Ready ${timings.upgradeToReadySeconds.toFixed(1)} s; ${before.size} reports kept`,
    );
  }, 480_000); // the rollout and the new pod's Ready wait 180 s each at most, the APIService 90 s

  test("restore safety holds on this path: the pod's ServiceAccount wrote nothing outside its sandboxes and read no Secret outside them (audit log)", () => {
    const logPath = auditLogPath();
    if (!logPath) return; // a cluster of your own (KUBECONFIG): its audit log is not readable here
    const events = readAuditEvents(logPath, suiteStarted).filter((event) => event.user.username === REHEARSAL_USER);
    const scope = {
      isSource: (namespace: string) => namespace === source,
      // Leftover tests of earlier files are this leader's too; their sandboxes share the prefix.
      isSandbox: (namespace: string) =>
        sandboxes.includes(namespace) || (namespace.startsWith('rehearsal-') && namespace !== REHEARSAL_NAMESPACE),
      ownNamespace: REHEARSAL_NAMESPACE,
    };
    expect(sandboxes.length).toBeGreaterThanOrEqual(2);
    expect(unsafeWrites(writesIn(events), scope)).toEqual([]);
    expect(secretReadsOutsideSandboxes(events, scope)).toEqual([]);
    // Not vacuous: the pod created the runs' sandboxes itself, under this identity.
    const created = writesIn(events)
      .filter((event) => event.verb === 'create' && event.objectRef?.resource === 'namespaces')
      .map((event) => event.objectRef?.name);
    expect(created).toEqual(expect.arrayContaining(sandboxes));
  });

  test("Prometheus's path: the ServiceMonitor leads to the pod's /metrics, which has the per-test series and passes promtool", async () => {
    const monitor = (await custom.getNamespacedCustomObject({
      group: 'monitoring.coreos.com',
      version: 'v1',
      namespace: REHEARSAL_NAMESPACE,
      plural: 'servicemonitors',
      name: 'rehearsal-api',
    })) as {
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; path: string; scheme?: string; bearerTokenFile?: string }[];
      };
    };
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint?.bearerTokenFile).toBe('/var/run/secrets/kubernetes.io/serviceaccount/token');
    // Prometheus's endpoints discovery: the selected Services' EndpointSlices, the named port.
    const selector = Object.entries(monitor.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
    const services = await core.listNamespacedService({ namespace: REHEARSAL_NAMESPACE, labelSelector: selector });
    expect(services.items.map((s) => s.metadata?.name)).toEqual(['rehearsal-api']);
    const slices = await kubeConfig.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({
      namespace: REHEARSAL_NAMESPACE,
      labelSelector: 'kubernetes.io/service-name=rehearsal-api',
    });
    const targets = slices.items.flatMap((slice) => {
      const port = slice.ports?.find((p) => p.name === endpoint!.port)?.port;
      return port ? (slice.endpoints ?? []).flatMap((e) => e.addresses.map((address) => `${address}:${port}`)) : [];
    });
    expect(targets).toEqual([`${pod!.status!.podIP}:8081`]);
    // From the host, which reaches the node's pod IPs on the bridge, as a Prometheus pod would.
    const url = `${endpoint!.scheme ?? 'http'}://${targets[0]}${endpoint!.path}`;
    const scrape = (token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect((await scrape(nobodyToken)).status).toBe(403);
    const answer = await scrape(prometheusToken);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    const labels = `namespace="${tests}",test="${testName}"`;
    // The gauge carries the score of the report the in-cluster engine wrote.
    const score = new RegExp(`^rehearsal_score\\{[^}]*${labels}[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1];
    expect(score === undefined ? undefined : Number(score)).toBe(passingScore);
    expect(text).toMatch(new RegExp(`^rehearsal_last_run_completed_timestamp_seconds\\{[^}]*${labels}[^}]*\\} \\d+`, 'm'));
    const promtool = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/build-go-tools.sh'), 'promtool'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    const checked = await new Promise<Ran>((resolve) => {
      const child = execFile(promtool, ['check', 'metrics'], (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      });
      child.stdin!.end(text);
    });
    // Exit 0 is clean, 1 a parse failure, 3 lint findings only. The exposition parses; the only
    // findings are prom-client's default Node.js gauges named *_total (not Rehearsal's metrics).
    const findings = checked.stderr.split('\n').filter(Boolean);
    expect({ code: checked.code, stdout: checked.stdout }).toEqual({ code: findings.length ? 3 : 0, stdout: '' });
    for (const finding of findings)
      expect(finding).toMatch(/^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/);
  });

  // Issue 27/35: the data-level check from where a user runs it. The in-cluster server's sqlQuery
  // check dials the restored PostgreSQL through cluster DNS (`pg.<sandbox>.svc`, CoreDNS, the
  // sandbox's NetworkPolicy, kube-router) — no probe targets, no host relay. The data comes back
  // through the REAL Velero (in the installation's namespace `velero`, its server and node agent
  // pods of the real node, the simulator stopped first): a file-system backup of a StatefulSet's claim.
  test('the in-cluster server queries a restored PostgreSQL through cluster DNS: the rows written before the backup, and its RPO', async () => {
    if (!node.available) throw new Error(node.reason);
    await simulator?.stop();
    simulator = undefined;
    const veleroStarted = performance.now();
    const velero = await startRealVelero(kubeConfig, {
      namespace: VELERO_NAMESPACE,
      serverArgs: ['--backup-sync-period', '1h'],
      nodeAgent: { nodeName: node.nodeName },
      inCluster: true,
    });
    timings.veleroUpSeconds = (performance.now() - veleroStarted) / 1000;
    // Velero's server runs as a pod of the real node, not as a process of this host.
    const veleroPods = await core.listNamespacedPod({ namespace: VELERO_NAMESPACE, labelSelector: 'deploy=velero' });
    expect(veleroPods.items.map((pod) => ({ node: pod.spec?.nodeName, ready: pod.status?.conditions?.find((c) => c.type === 'Ready')?.status }))).toEqual([
      { node: node.nodeName, ready: 'True' },
    ]);
    expect(velero.hostProcess).toBeUndefined();
    const provisioner = await startLocalVolumeProvisioner(kubeConfig, { nodeName: node.nodeName, root: path.join(tmp, 'volumes') });
    const app = uniqueName('incluster-pg');
    const dataTest = uniqueName('incluster-sql', 30);
    const dataBackup = uniqueName('incluster-pg-fs');
    try {
      await createNamespace(kubeConfig, app);
      await core.createNamespacedSecret({ namespace: app, body: { metadata: { name: 'pg-app' }, stringData: { username: 'app', password: 'rehearsal-test' } } });
      await core.createNamespacedService({
        namespace: app,
        body: { metadata: { name: 'pg' }, spec: { selector: { app: 'pg' }, ports: [{ name: 'postgres', port: 5432, targetPort: 5432 as never }] } },
      });
      await addRealNodePostgres(kubeConfig, app, 'pg', provisioner.storageClass);
      await readyPodOf(kubeConfig, app, 'pg', 180_000);
      const sql = sqlIn(kubeConfig, app);
      const newest = await writeOrdersBeforeBackup(sql);
      await createBackup(kubeConfig, { name: dataBackup, namespaces: [app], veleroNamespace: VELERO_NAMESPACE, defaultVolumesToFsBackup: true, timeoutMs: 240_000 });
      await writeOrdersAfterBackup(sql); // must not come back

      const query = (name: string, statement: string, extra: Record<string, unknown>) => ({
        name,
        kind: 'sqlQuery',
        sqlQuery: {
          engine: 'postgres',
          service: 'pg',
          port: 5432,
          database: 'shop',
          credentialsSecret: { name: 'pg-app', usernameKey: 'username', passwordKey: 'password' },
          query: statement,
          ...extra,
        },
      });
      const body = {
        apiVersion: API_VERSION,
        kind: 'RestoreTest',
        metadata: { name: dataTest, namespace: tests },
        spec: {
          provider: 'velero',
          backupSource: { backupName: dataBackup, namespaces: [{ name: app }], providerNamespace: VELERO_NAMESPACE },
          schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
          healthChecks: {
            checks: [
              { ...query('rows-up-to-the-backup', ORDERS_ROWS, { expectedValue: '1,2,3' }), critical: true },
              query('orders-freshness', 'select max(placed_at) from orders', { freshness: true }),
            ],
          },
          sla: { maxRPO: '1h' },
        },
      } as unknown as RestoreTest;
      await custom.createNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restoretests', body: await authoredBy(kubeConfig, body) });
      const started = performance.now();
      const triggered = await kubectlAs(kubeconfigs.editor, ['restoretest', 'trigger', dataTest, '-n', tests, '--wait', '--timeout', '190s']);
      timings.sqlRunSeconds = (performance.now() - started) / 1000;
      const reports = (await custom.listNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restorereports' })) as {
        items: Parameters<typeof expandReport>[0][];
      };
      const report = reports.items.map((item) => expandReport(item)).find((candidate) => candidate.spec.testRef.name === dataTest);
      expect(report).toBeDefined();
      if (triggered.code !== 0) console.error(`[in-cluster] sql run: ${triggered.stderr}\n${JSON.stringify(report?.spec, null, 1)}\n${velero.log().slice(-40).join('\n')}\n${await describeServer()}`);
      expect(triggered.code).toBe(0);
      sandboxes.push(...(report?.spec.sandboxNamespaces ?? []));
      const checks = Object.fromEntries((report?.spec.checks ?? []).map((check) => [check.name, check.status]));
      expect(checks).toEqual({ 'rows-up-to-the-backup': 'pass', 'orders-freshness': 'pass' });
      expect(report?.spec.rpo).toMatchObject({ check: 'orders-freshness', newestData: newest.toISOString(), withinSLA: true });
      expect(report?.spec.volumes).toEqual([expect.objectContaining({ pod: 'pg-0', volume: 'data', method: 'file-system', dataRestored: true })]);
      // Production still has every row; the server pod wrote only in its sandboxes and read the
      // database's Secret only there (audit log).
      expect(await sql(ORDERS_ROWS)).toBe('1,2,3,4,5');
      const logPath = auditLogPath();
      if (logPath) {
        const events = readAuditEvents(logPath, suiteStarted).filter((event) => event.user.username === REHEARSAL_USER);
        const scope = { isSource: (namespace: string) => namespace === app, isSandbox: (namespace: string) => sandboxes.includes(namespace), ownNamespace: REHEARSAL_NAMESPACE };
        expect(unsafeWrites(writesIn(events), scope)).toEqual([]);
        expect(secretReadsOutsideSandboxes(events, scope)).toEqual([]);
        // Velero's pods (server and node agent, one ServiceAccount) wrote to production only to run
        // the database's backup hook (pods/exec); everything else it wrote went to the sandbox or
        // its own namespace.
        const veleroWrites = writesIn(readAuditEvents(logPath, suiteStarted)).filter((event) => event.user.username === velero.user);
        expect(veleroWrites.some((event) => sandboxes.includes(event.objectRef?.namespace ?? ''))).toBe(true); // it restored there
        const veleroInProduction = veleroWrites.filter((event) => event.objectRef?.namespace === app);
        expect([...new Set(veleroInProduction.map((event) => `${event.verb} ${event.objectRef?.resource}/${event.objectRef?.subresource ?? ''}`))]).toEqual([
          'create pods/exec',
        ]);
      }
      console.log(`[in-cluster] Velero in the cluster up in ${timings.veleroUpSeconds.toFixed(1)} s`);
      console.log(`[in-cluster] sqlQuery through cluster DNS: run ${timings.sqlRunSeconds.toFixed(1)} s, RTO ${report?.spec.rto.measured}, RPO ${report?.spec.rpo?.measured}`);
    } finally {
      await custom
        .deleteNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: tests, plural: 'restoretests', name: dataTest })
        .catch(() => undefined);
      for (const plural of ['restores', 'backups', 'podvolumebackups', 'podvolumerestores']) {
        const list = (await custom
          .listNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: VELERO_NAMESPACE, plural })
          .catch(() => ({ items: [] }))) as { items: { metadata: { name: string } }[] };
        for (const item of list.items)
          await custom.deleteNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: VELERO_NAMESPACE, plural, name: item.metadata.name }).catch(() => undefined);
      }
      await velero.stop();
      await deleteNamespaces(kubeConfig, [app]);
      await waitForNamespacesGone(kubeConfig, [app], 120_000);
      await provisioner.stop();
    }
  }, 600_000);
});
