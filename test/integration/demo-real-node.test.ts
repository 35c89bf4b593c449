// `npm run demo` on the real node (issue 35), run against the test cluster: the demo's own code
// (deploy/local/real-node-demo.ts) puts the shop and its PostgreSQL in real containers, Velero in
// the cluster backs them up with the database volume's files, Rehearsal installed by Helm from its
// image restores them, and the dashboard answers through `kubectl restoretest dashboard`. What the
// README promises a newcomer is checked here: shop-daily passes with the orders written before
// the backup, shop-broken-orders fails on its critical check, and the dashboard lists the tests.
// (demo.ts itself only adds starting the cluster with --with-node and choosing this path.)
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { DEMO_TESTS, startRealNodeDemo, type RealNodeDemo } from '../../deploy/local/real-node-demo.js';
import { expandReport } from '../../server/report-codec/report-encoding.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { uninstallChart } from '../helpers/helm-install.js';
import { deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName, waitFor, waitForNamespacesGone } from '../helpers/kube.js';
import { realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { REHEARSAL_NAMESPACE } from '../helpers/rehearsal-identity.js';

jest.setTimeout(600_000);

const kubeConfig: KubeConfig = testKubeConfig();
const adminPath = testKubeconfigPath();
const node = await realNodeStatus(kubeConfig);

interface Report {
  metadata: { name: string; creationTimestamp?: string };
  spec: {
    testRef: { name: string };
    result: string;
    score: number;
    checks: { name: string; status: string }[];
    rpo?: { measured?: string; check?: string };
    volumes?: { pod?: string; volume?: string; dataRestored?: boolean }[];
  };
}

/** The plugin as a user runs it, with the test cluster's kubeconfig. */
function plugin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'cmd/kubectl-restoretest/main.ts', ...args, '--kubeconfig', adminPath],
      { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describeOnRealNode('test/integration/demo-real-node.test.ts', node, 'npm run demo on the real node', () => {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const namespace = uniqueName('demo-shop');
  let demo: RealNodeDemo | undefined;
  let setupSeconds = 0;

  async function reportsOf(test: string): Promise<Report[]> {
    const list = (await custom.listNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: REHEARSAL_NAMESPACE,
      plural: 'restorereports',
    })) as { items: Parameters<typeof expandReport>[0][] };
    return list.items.map((item) => expandReport(item) as unknown as Report).filter((report) => report.spec.testRef.name === test);
  }

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const started = performance.now();
    demo = await startRealNodeDemo({
      kubeconfigPath: adminPath,
      workDir: path.join(repoRoot, 'test/.tmp/demo-real-node'),
      nodeName: node.nodeName,
      dashboardPort: 0,
      namespace,
      say: (line) => console.log(`[demo] ${line}`),
    });
    setupSeconds = (performance.now() - started) / 1000;
  }, 900_000);

  afterAll(async () => {
    await demo?.stop();
    try {
      uninstallChart(adminPath);
    } finally {
      // The demo's tests (and their reports, which they own) must not outlive this file: the next
      // file's server would run them.
      for (const name of DEMO_TESTS) {
        await custom
          .deleteNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: REHEARSAL_NAMESPACE, plural: 'restoretests', name })
          .catch(() => undefined);
      }
      for (const plural of ['restores', 'backups', 'podvolumebackups', 'podvolumerestores']) {
        const list = (await custom
          .listNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: 'velero', plural })
          .catch(() => ({ items: [] }))) as { items: { metadata: { name: string } }[] };
        for (const item of list.items)
          await custom.deleteNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: 'velero', plural, name: item.metadata.name }).catch(() => undefined);
      }
      await deleteNamespaces(kubeConfig, [namespace]);
      await waitForNamespacesGone(kubeConfig, [namespace], 120_000);
    }
  }, 300_000);

  it('shop-daily, started by the demo, passes on the restored copy: the orders written before the backup, its RPO, the volume restored', async () => {
    const report = await waitFor(async () => (await reportsOf('shop-daily'))[0], {
      timeoutMs: 240_000,
      intervalMs: 1_000,
      description: 'the first shop-daily report',
    });
    expect(Object.fromEntries(report.spec.checks.map((check) => [check.name, check.status]))).toEqual({
      'web-pods': 'pass',
      'web-health': 'pass',
      'orders-restored': 'pass',
      'orders-freshness': 'pass',
      'credentials-restored': 'pass',
    });
    expect(report.spec.result).toBe('pass');
    expect(report.spec.rpo).toMatchObject({ check: 'orders-freshness' });
    expect(report.spec.volumes).toEqual([expect.objectContaining({ pod: 'db-0', volume: 'data', dataRestored: true })]);
    console.log(`[demo-real-node] demo set up in ${setupSeconds.toFixed(0)} s; first shop-daily report ${report.spec.result} (score ${report.spec.score}, RPO ${report.spec.rpo?.measured})`);
  });

  it('shop-broken-orders fails on its critical check: `kubectl restoretest trigger --wait` exits 3', async () => {
    const triggered = await plugin(['trigger', 'shop-broken-orders', '-n', REHEARSAL_NAMESPACE, '--wait', '--timeout', '240s']);
    expect({ code: triggered.code, stderr: triggered.code === 3 ? '' : triggered.stderr }).toEqual({ code: 3, stderr: '' });
    const [report] = await reportsOf('shop-broken-orders');
    expect(report?.spec.result).toBe('fail');
    expect(report?.spec.checks.find((check) => check.name === 'orders-restored')?.status).toBe('fail');
    expect(report?.spec.checks.find((check) => check.name === 'web-health')?.status).toBe('pass');
  });

  it("the dashboard answers on 127.0.0.1 through the plugin's proxy and lists the demo's tests", async () => {
    const url = new URL(demo!.dashboardUrl);
    expect(url.hostname).toBe('127.0.0.1');
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const tests = await fetch(new URL('/apis/api.rehearsal.dev/v1/tests?namespace=' + REHEARSAL_NAMESPACE, url));
    expect(tests.status).toBe(200);
    const names = JSON.stringify(await tests.json());
    for (const name of DEMO_TESTS) expect(names).toContain(name);
  });
});
