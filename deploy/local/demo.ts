// `npm run demo`: Rehearsal on this machine with nothing else installed.
//
// Where this host can run the test cluster's real node (test/cluster/node-up.sh: root, containerd,
// the node's binaries built by test/setup.sh), the demo is the real thing (real-node-demo.ts): the
// shop and its PostgreSQL as real containers, Velero and Rehearsal installed in the cluster, the
// restored copies checked through cluster DNS. Where it cannot, it says why and falls back to the
// demo below (KWOK fake nodes), which this comment describes.
//
// What is real in the fallback: a Kubernetes control plane (etcd, kube-apiserver,
// controller-manager, scheduler and KWOK fake nodes, all on 127.0.0.1), Rehearsal's CRDs, a sample
// "shop" application in the namespace `shop`, the Rehearsal server with its engine and API on
// http://localhost:8080, the aggregated API api.rehearsal.dev/v1 (an APIService served by the same
// process on 127.0.0.1:8443, so `kubectl restoretest` needs only the kubeconfig), and the shop's
// HTTP endpoint and PostgreSQL database that the health checks query.
// Velero is real too: the Velero server and its AWS plugin (built from their Go modules by
// test/cluster/build-velero.sh) run out of cluster against s3s-fs, a real S3 server on 127.0.0.1
// that keeps the backups in .k8s/demo/velero/s3 (test/helpers/real-velero.ts). Only resource
// manifests are backed up (no node agent, no volume data). KWOK pods do not run containers, so the
// checks reach the shop's endpoints on 127.0.0.1 through the probe target map instead of the
// sandbox Services.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { loadConfig } from '../../server/config.js';
import { ANNOTATION_TRIGGER, API_VERSION, type RestoreTest } from '../../server/domain/resources/resources.js';
import { createLogger } from '../../server/logger.js';
import { createRehearsal } from '../../server/app/rehearsal.js';
import { makeServingCertificate, registerAggregatedApi } from '../../test/helpers/aggregated-api.js';
import { authoredBy } from '../../test/helpers/author.js';
import { startRealVelero } from '../../test/helpers/real-velero.js';
import { createShopApp, shopChecks, startShopEndpoints } from '../../test/helpers/sample-app.js';
import { createBackup } from '../../test/velero/simulator.js';
import { DEMO_TESTS, startRealNodeDemo } from './real-node-demo.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workDir = path.join(repoRoot, '.k8s/demo');
const port = Number(process.env.REHEARSAL_PORT ?? 8080);
const aggregationPort = Number(process.env.REHEARSAL_AGGREGATION_PORT ?? 8443);
const say = (line: string): void => console.log(`[demo] ${line}`);

function run(command: string, args: string[]): string {
  return execFileSync(command, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

function restoreTest(name: string, spec: Partial<RestoreTest['spec']>): RestoreTest {
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name, namespace: 'rehearsal-system' },
    spec: {
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] },
      schedule: { cron: '*/2 * * * *', timezone: 'UTC' },
      ...spec,
    } as RestoreTest['spec'],
  };
}

/** The real node's state after up.sh: "ready: node NAME", "unavailable: why" or "failed: ...". */
function nodeStatus(): { ready: true; nodeName: string } | { ready: false; reason: string } {
  let status = '';
  try {
    status = readFileSync(path.join(workDir, 'node-status'), 'utf8').split('\n')[0]!;
  } catch {
    return { ready: false, reason: 'up.sh recorded no node status' };
  }
  const ready = /^ready: node (\S+)/.exec(status);
  return ready ? { ready: true, nodeName: ready[1]! } : { ready: false, reason: status };
}

async function main(): Promise<void> {
  say('starting a local Kubernetes control plane and, where this host can, a real node (first run builds them: see README)');
  const kubeconfigPath = run('bash', ['test/cluster/up.sh', workDir, ...(process.env.REHEARSAL_REAL_NODE === '0' ? [] : ['--with-node'])]);
  const node = nodeStatus();
  if (node.ready) {
    await realNodeMain(kubeconfigPath, node.nodeName);
    return;
  }
  say(`no real node (${node.reason}): the demo runs on KWOK fake nodes, and its checks reach the shop's endpoints on 127.0.0.1`);
  const kubectl = (...args: string[]) => run('kubectl', ['--kubeconfig', kubeconfigPath, ...args]);
  kubectl('apply', '--server-side', '--force-conflicts', '-k', 'crds');
  kubectl('apply', '--server-side', '--force-conflicts', '-f', 'test/fixtures/velero/crds');
  kubectl('apply', '-f', 'deploy/base/namespace.yaml');
  // The admission policies that check who may restore another namespace: without them the engine
  // refuses every test whose sources differ from its namespace (decision 0018).
  kubectl('apply', '-f', 'deploy/base/admission-params.yaml', '-f', 'deploy/base/restoretest-admission.yaml');
  kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');

  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfigPath);
  const custom = admin.makeApiClient(CustomObjectsApi);
  try {
    await createShopApp(admin, 'shop');
    say('sample application created in namespace shop (Deployment, Services, Secret, ConfigMap)');
  } catch {
    say('sample application already present in namespace shop');
  }

  say('starting the real Velero server and its object store (first run builds them: see README)');
  const velero = await startRealVelero(admin, {
    namespace: 'velero',
    kubeconfigPath,
    workDir: path.join(workDir, 'velero'),
  });
  say(
    `Velero ${velero.s3Url} bucket ${velero.bucket}: backups are kept in ${path.relative(repoRoot, velero.bucketDir)}/backups/`,
  );
  const backupName = `shop-nightly-${Date.now().toString(36)}`;
  await createBackup(admin, {
    name: backupName,
    namespaces: ['shop'],
    veleroNamespace: 'velero',
    timeoutMs: 120_000,
  });
  say(
    `backup ${backupName} of namespace shop completed by Velero: ${path.relative(repoRoot, velero.bucketDir)}/backups/${backupName}/`,
  );

  const endpoints = await startShopEndpoints();
  say(
    `the shop's endpoints: HTTP on 127.0.0.1:${endpoints.httpPort}, PostgreSQL on 127.0.0.1:${endpoints.postgres.port}`,
  );

  const tests = [
    restoreTest('shop-daily', {
      healthChecks: { checks: shopChecks() },
      sla: { maxRTO: '2m', alertOnExceed: true },
    }),
    // shopChecks' SQL data check is critical: wrong orders make this run fail (decision 0004).
    restoreTest('shop-broken-orders', { healthChecks: { checks: shopChecks({ expectedOrders: '4' }) } }),
    restoreTest('shop-defaults', {}),
  ];
  for (const test of tests) {
    try {
      await custom.createNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: 'rehearsal-system',
        plural: 'restoretests',
        // The demo's administrator is the recorded author (decision 0018: they restore "shop").
        body: await authoredBy(admin, test),
      });
    } catch {
      // already there from an earlier demo run
    }
  }

  // The serving certificate kube-apiserver verifies when it forwards api.rehearsal.dev requests
  // (the aggregator dials 127.0.0.1 through an ExternalName Service; nothing else is reached).
  const certificate = makeServingCertificate(path.join(workDir, 'aggregation-tls'));
  const config = loadConfig({
    KUBECONFIG: kubeconfigPath,
    REHEARSAL_HOST: '127.0.0.1',
    REHEARSAL_PORT: String(port),
    REHEARSAL_AGGREGATION_PORT: String(aggregationPort),
    REHEARSAL_TLS_CERT_FILE: certificate.certFile,
    REHEARSAL_TLS_KEY_FILE: certificate.keyFile,
    REHEARSAL_AUTH_MODE: 'none',
    REHEARSAL_LEADER_ELECTION: 'false',
    REHEARSAL_POLL_INTERVAL_MS: '500',
    REHEARSAL_PROBE_TARGETS: JSON.stringify(endpoints.targets),
    REHEARSAL_LOG_LEVEL: process.env.REHEARSAL_LOG_LEVEL ?? 'info',
  });
  const rehearsal = createRehearsal(config, createLogger(config.logLevel), { podReadyTimeoutSeconds: 30 });
  await rehearsal.start();
  await registerAggregatedApi(kubeconfigPath, aggregationPort, certificate.caPem);
  say(`APIService v1.api.rehearsal.dev is Available (served on 127.0.0.1:${aggregationPort})`);

  // Run one test right away; the others follow their schedule (every two minutes).
  await custom.patchNamespacedCustomObject(
    {
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: 'rehearsal-system',
      plural: 'restoretests',
      name: 'shop-daily',
      body: { metadata: { annotations: { [ANNOTATION_TRIGGER]: `demo-${Date.now()}` } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );

  console.log(`
  Rehearsal is running.
    API           http://localhost:${port}/api/v1/tests
    Swagger UI    http://localhost:${port}/docs
    Metrics       http://localhost:${port}/metrics
    kubectl       kubectl --kubeconfig ${path.relative(repoRoot, kubeconfigPath)} get rtest,rrep -A
    plugin        export KUBECONFIG=$PWD/${path.relative(repoRoot, kubeconfigPath)} PATH=$PWD/cmd/kubectl-restoretest/bin:$PATH
                  kubectl restoretest list -A              (through the APIService, kubeconfig credentials)
                  kubectl restoretest list -A --server http://localhost:${port}   (straight to the API)

  shop-daily runs now; all three tests run every two minutes. Backups are made and restored by the
  real Velero server; its object store keeps them in ${path.relative(repoRoot, velero.bucketDir)}/backups/.
  Press Ctrl-C to stop (the control plane stops too; its state stays in .k8s/demo).
`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) {
      say('stopping the control plane now');
      run('bash', ['test/cluster/down.sh', workDir]);
      process.exit(1);
    }
    stopping = true;
    say('stopping (Ctrl-C again to force)');
    // A stop that hangs must not leave the control plane running: bound it.
    const bounded = (promise: Promise<unknown>): Promise<unknown> =>
      Promise.race([promise, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await bounded(rehearsal.stop());
    await bounded(velero.stop());
    await bounded(endpoints.stop());
    run('bash', ['test/cluster/down.sh', workDir]);
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/** The demo on the real node: everything in the cluster, the dashboard through the plugin's proxy. */
async function realNodeMain(kubeconfigPath: string, nodeName: string): Promise<void> {
  say(`real node ${nodeName} is up: the shop, Velero and Rehearsal run in real containers`);
  // The helpers that reach the node (its image import, the kubelet's directories) find the cluster
  // through this file, as the tests find theirs.
  const clusterFile = path.join(workDir, 'cluster.json');
  writeFileSync(clusterFile, JSON.stringify({ source: 'local-binaries', kubeconfigPath, workDir, auditLogPath: path.join(workDir, 'audit.log') }));
  process.env.REHEARSAL_TEST_CLUSTER_FILE = clusterFile;
  const demo = await startRealNodeDemo({ kubeconfigPath, workDir, nodeName, dashboardPort: port, say });
  const relative = path.relative(repoRoot, kubeconfigPath);
  console.log(`
  Rehearsal is running in the cluster (namespace rehearsal-system), installed by helm from its image.
    Dashboard     ${demo.dashboardUrl}   (kubectl restoretest dashboard: your kubeconfig's credentials)
    kubectl       kubectl --kubeconfig ${relative} get rtest,rrep -A
    plugin        export KUBECONFIG=$PWD/${relative} PATH=$PWD/cmd/kubectl-restoretest/bin:$PATH
                  kubectl restoretest list -A
                  kubectl restoretest trigger shop-broken-orders -n rehearsal-system --wait

  ${DEMO_TESTS.join(', ')} restore Velero's backup ${demo.backupName} of the shop (its database
  volume included) every five minutes; shop-daily runs now. shop-broken-orders expects an order the
  backup does not hold, so it fails.
  Press Ctrl-C to stop (the node and the control plane stop too; their state stays in .k8s/demo).
`);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) {
      run('bash', ['test/cluster/down.sh', workDir]);
      process.exit(1);
    }
    stopping = true;
    say('stopping (Ctrl-C again to force)');
    await Promise.race([demo.stop(), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
    run('bash', ['test/cluster/down.sh', workDir]);
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error('[demo] failed:', error instanceof Error ? error.message : error);
  try {
    run('bash', ['test/cluster/down.sh', workDir]);
  } catch {
    // nothing to stop
  }
  process.exit(1);
});
