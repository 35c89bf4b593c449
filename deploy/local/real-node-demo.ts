// The demo on the real node (issue 35): everything runs as a user's cluster runs it, in real
// containers on the test cluster's real node (test/cluster/node-up.sh).
//   - the shop: its web server (a Deployment and Service `web`) and PostgreSQL (a StatefulSet `db`
//     whose data lives on a volume), with three orders in the database;
//   - Velero installed in the cluster (server Deployment and node agent DaemonSet, images built
//     here), backing the shop up with its volume's data (file-system backup, kopia) into s3s-fs;
//   - Rehearsal installed by `helm install` from its own image, restoring that backup into sandboxes
//     and checking the restored copy through cluster DNS: no probe targets, no host relay;
//   - the dashboard on 127.0.0.1 through `kubectl restoretest dashboard` (the plugin's local proxy,
//     with the kubeconfig's credentials, through the APIService).
// deploy/local/demo.ts chooses this path when the node is up; test/integration/demo-real-node.test.ts
// runs it against the test cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ApiregistrationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { HealthCheck } from '../../server/domain/resources/health-check-policy.resource.js';
import { ANNOTATION_TRIGGER, API_VERSION, type RestoreTest } from '../../server/domain/resources/resources.js';
import { authoredBy } from '../../test/helpers/author.js';
import { repoRoot } from '../../test/helpers/cluster-info.js';
import { buildServerImage, installChart, makeServingCertificate } from '../../test/helpers/helm-install.js';
import { kubectl } from '../../test/helpers/install-crds.js';
import { waitFor } from '../../test/helpers/kube.js';
import { startLocalVolumeProvisioner } from '../../test/helpers/local-volume-provisioner.js';
import { ORDERS_ROWS, sqlIn, writeOrdersBeforeBackup } from '../../test/helpers/orders-database.js';
import { addRealNodePostgres, addRealNodeWorkload, readyPodOf } from '../../test/helpers/real-node-app.js';
import { importImageIntoNode, REAL_NODE_LABEL } from '../../test/helpers/real-node.js';
import { startRealVelero } from '../../test/helpers/real-velero.js';
import { REHEARSAL_NAMESPACE } from '../../test/helpers/rehearsal-identity.js';
import { ensure } from '../../test/helpers/velero-in-cluster.js';
import { createBackup } from '../../test/velero/simulator.js';

export const DEMO_TESTS = ['shop-daily', 'shop-broken-orders', 'shop-defaults'] as const;

export interface RealNodeDemoOptions {
  kubeconfigPath: string;
  /** Where the demo keeps its state: volumes, the object store, the server image. */
  workDir: string;
  nodeName: string;
  /** The dashboard's local port on 127.0.0.1 (0: any free port). */
  dashboardPort: number;
  /** The shop's namespace. */
  namespace?: string;
  say?: (line: string) => void;
}

export interface RealNodeDemo {
  dashboardUrl: string;
  namespace: string;
  /** The Velero Backup the tests restore. */
  backupName: string;
  stop(): Promise<void>;
}

/** The shop's checks, all answered by the restored copy's real processes. */
function shopChecks(expectedOrders: string): HealthCheck[] {
  const sql = (name: string, query: string, extra: Record<string, unknown>) => ({
    name,
    kind: 'sqlQuery' as const,
    timeout: '20s',
    sqlQuery: {
      engine: 'postgres' as const,
      service: 'db',
      port: 5432,
      database: 'shop',
      credentialsSecret: { name: 'db-credentials', usernameKey: 'username', passwordKey: 'password' },
      query,
      ...extra,
    },
  });
  return [
    { name: 'web-pods', kind: 'podsReady', podsReady: { selector: { app: 'web' }, minReady: 1 } },
    {
      name: 'web-health',
      kind: 'httpGet',
      timeout: '15s',
      httpGet: { service: 'web', port: 80, path: '/healthz', expectedStatus: 200, bodyMatch: 'ok' },
    },
    // The shop's data: exactly the orders written before the backup (critical: wrong data fails).
    { ...sql('orders-restored', ORDERS_ROWS, { expectedValue: expectedOrders }), critical: true },
    // The newest order's time: the report's measured RPO.
    sql('orders-freshness', 'select max(placed_at) from orders', { freshness: true }),
    { name: 'credentials-restored', kind: 'resourceExists', resourceExists: { apiVersion: 'v1', kind: 'Secret', name: 'db-credentials' } },
  ] as HealthCheck[];
}

function restoreTest(name: string, namespace: string, spec: Partial<RestoreTest['spec']>): RestoreTest {
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name, namespace: REHEARSAL_NAMESPACE },
    spec: {
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: namespace }], providerNamespace: 'velero' },
      schedule: { cron: '*/5 * * * *', timezone: 'UTC' },
      ...spec,
    } as RestoreTest['spec'],
  };
}

/** The shop in `namespace`: web, PostgreSQL with orders 1–3 on a volume of `storageClass`. */
async function createShop(admin: KubeConfig, namespace: string, storageClass: string): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  await ensure(() => core.createNamespace({ body: { metadata: { name: namespace } } }));
  await ensure(() => addRealNodeWorkload(admin, namespace, 'web'));
  await ensure(() =>
    core.createNamespacedSecret({ namespace, body: { metadata: { name: 'db-credentials' }, stringData: { username: 'app', password: 'rehearsal-test' } } }),
  );
  await ensure(() =>
    core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'db' }, spec: { selector: { app: 'db' }, ports: [{ name: 'postgres', port: 5432, targetPort: 5432 as never }] } },
    }),
  );
  await ensure(() => addRealNodePostgres(admin, namespace, 'db', storageClass));
  await readyPodOf(admin, namespace, 'web', 180_000);
  await readyPodOf(admin, namespace, 'db', 180_000);
  const sql = sqlIn(admin, namespace, 'db-0');
  const exists = await sql("select count(*) from pg_tables where tablename = 'orders'");
  if (exists === '0') await writeOrdersBeforeBackup(sql);
}

/** `kubectl restoretest dashboard` on 127.0.0.1:port; resolves with its URL. */
function startDashboardProxy(kubeconfigPath: string, port: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'cmd/kubectl-restoretest/main.ts', 'dashboard', '--kubeconfig', kubeconfigPath, '--port', String(port), '--no-browser'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      const found = /Dashboard: (\S+)/.exec(out);
      if (found) resolve({ url: found[1]!, child });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`kubectl restoretest dashboard exited with ${code}: ${out}`)));
  });
}

export async function startRealNodeDemo(options: RealNodeDemoOptions): Promise<RealNodeDemo> {
  const say = options.say ?? (() => undefined);
  const namespace = options.namespace ?? 'shop';
  const { kubeconfigPath, workDir, nodeName } = options;
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfigPath);
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    kubectl(kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-k', path.join(repoRoot, 'crds')]);
    kubectl(kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);

    const provisioner = await startLocalVolumeProvisioner(admin, { nodeName, root: path.join(workDir, 'volumes') });
    stops.push(() => provisioner.stop());
    await createShop(admin, namespace, provisioner.storageClass);
    say(`the shop runs on node ${nodeName} in namespace ${namespace}: web (Deployment) and db (PostgreSQL, orders 1–3 on its volume)`);

    const velero = await startRealVelero(admin, {
      namespace: 'velero',
      kubeconfigPath,
      workDir: path.join(workDir, 'velero'),
      nodeAgent: { nodeName },
      inCluster: true,
    });
    stops.push(() => velero.stop());
    say(`Velero runs in the cluster (namespace velero: server and node agent); its store keeps backups in ${path.relative(repoRoot, velero.bucketDir)}`);
    const backupName = `${namespace}-nightly-${Date.now().toString(36)}`;
    await createBackup(admin, { name: backupName, namespaces: [namespace], veleroNamespace: 'velero', defaultVolumesToFsBackup: true, timeoutMs: 240_000 });
    say(`backup ${backupName}: the shop's objects and its database volume's files`);

    const image = buildServerImage(path.join(workDir, 'rehearsal-oci.tar'));
    if (!importImageIntoNode(image.archive)) throw new Error(`the node's runtime is not this machine's: load ${image.archive} into it`);
    const apiServerPort = new URL(admin.getCurrentCluster()!.server).port;
    const installStarted = performance.now();
    installChart(kubeconfigPath, [
      '--create-namespace', // a fresh demo cluster has none (the tests' global setup made it there)
      // The shipped NetworkPolicy allows the API on 443 and 6443; this control plane's port is random.
      '--set-json', `networkPolicy.extraEgress=[{"ports":[{"protocol":"TCP","port":${apiServerPort}}]}]`,
      '--set', 'replicaCount=1',
      '--set', 'image.pullPolicy=Never', // loaded into the node above: there is no registry
      '--set-json', `nodeSelector={"${REAL_NODE_LABEL}":"true"}`,
      '--set-json', `tolerations=[{"key":"${REAL_NODE_LABEL}","operator":"Exists"}]`,
    ], { upgrade: true }); // the cluster's state stays between demo runs, the release with it
    makeServingCertificate(kubeconfigPath);
    const core = admin.makeApiClient(CoreV1Api);
    await waitFor(
      async () =>
        (await core.listNamespacedPod({ namespace: REHEARSAL_NAMESPACE, labelSelector: 'app.kubernetes.io/name=rehearsal' })).items.some((pod) =>
          (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        ),
      { timeoutMs: 180_000, intervalMs: 500, description: 'the Rehearsal pod to be Ready' },
    );
    // The plugin and the dashboard go through kube-apiserver: ready when it reaches the pod with the
    // caBundle (the serving certificate was made after the install).
    const registration = admin.makeApiClient(ApiregistrationV1Api);
    await waitFor(
      async () =>
        ((await registration.readAPIService({ name: 'v1.api.rehearsal.dev' })).status?.conditions ?? []).some(
          (condition) => condition.type === 'Available' && condition.status === 'True',
        ),
      { timeoutMs: 180_000, intervalMs: 500, description: 'APIService v1.api.rehearsal.dev to be Available' },
    );
    say(`Rehearsal installed by helm from its image (${(image.bytes / 1e6).toFixed(0)} MB): Ready in ${((performance.now() - installStarted) / 1000).toFixed(0)} s`);

    const custom = admin.makeApiClient(CustomObjectsApi);
    const tests = [
      restoreTest('shop-daily', namespace, { healthChecks: { checks: shopChecks('1,2,3') }, sla: { maxRTO: '5m', maxRPO: '24h', alertOnExceed: true } }),
      // The same restore with a critical check that expects an order the backup does not hold: fail.
      restoreTest('shop-broken-orders', namespace, { healthChecks: { checks: shopChecks('1,2,3,4') } }),
      restoreTest('shop-defaults', namespace, {}),
    ];
    for (const test of tests) {
      await ensure(async () =>
        custom.createNamespacedCustomObject({
          group: 'rehearsal.dev',
          version: 'v1alpha1',
          namespace: REHEARSAL_NAMESPACE,
          plural: 'restoretests',
          // The demo's administrator is the recorded author (decision 0018: they restore the shop).
          body: await authoredBy(admin, test),
        }),
      );
    }
    await custom.patchNamespacedCustomObject(
      {
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: REHEARSAL_NAMESPACE,
        plural: 'restoretests',
        name: 'shop-daily',
        body: { metadata: { annotations: { [ANNOTATION_TRIGGER]: `demo-${Date.now()}` } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    const dashboard = await startDashboardProxy(kubeconfigPath, options.dashboardPort);
    stops.push(async () => {
      dashboard.child.kill('SIGTERM');
    });
    return { dashboardUrl: dashboard.url, namespace, backupName, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
