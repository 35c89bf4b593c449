// Issue 27 on the real node, through Velero's CSI data mover: PostgreSQL on a CSI volume
// (test/helpers/csi-hostpath.ts), the REAL Velero v1.18 with its CSI support and node agent backs
// the claim up with `snapshotMoveData` — a CSI snapshot whose data the node agent moves into the
// object store (a DataUpload, kopia) — and a Rehearsal run restores it: the node agent writes the
// data back into a new volume (a DataDownload) which becomes the sandbox claim's. The report lists
// the claim as `csi-data-mover` with its bytes and duration; the restored database has exactly the
// rows written before the backup; production is unchanged.
//
// Velero gives its data-mover pods no toleration of ours (only those of a built-in list of cloud
// taint keys), and the real node is tainted so nothing else lands on it: this file lifts the taint
// while it runs (the node agent's loadAffinity keeps Velero's pods on the real node) and puts it
// back at the end.
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Taint } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
import { startCsiHostpath, type CsiHostpath } from '../helpers/csi-hostpath.js';
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
import { ORDERS_ROWS, ordersChecks, productionVolumeOf, sqlIn, writeOrdersAfterBackup, writeOrdersBeforeBackup } from '../helpers/orders-database.js';
import { addRealNodePostgres, readyPodOf } from '../helpers/real-node-app.js';
import { REAL_NODE_LABEL, realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(600_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

interface DataMovement {
  spec?: { targetVolume?: { pvc?: string; namespace?: string }; sourcePVC?: string };
  status?: { phase?: string; progress?: { bytesDone?: number; totalBytes?: number } };
}

describeOnRealNode('test/integration/real-node-csi-data-mover.test.ts', node, 'volume data moved by Velero\'s CSI data mover and restored on the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const app = uniqueName('rn-dm');
  const cleanup: string[] = [app];
  const testName = uniqueTestName('rn-dm');
  const suiteStarted = new Date();
  const sql = sqlIn(kubeConfig, app);
  let fixture: EngineFixture;
  let csi: CsiHostpath;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let backupName: string;
  let production: { name: string; resourceVersion: string };
  let newestInBackup: Date;
  let taints: V1Taint[] | undefined;
  const timings: Record<string, number> = {};

  const setTaints = async (nodeName: string, value: V1Taint[]) =>
    core.patchNode({ name: nodeName, body: { spec: { taints: value } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const nodeName = node.nodeName;
    csi = await startCsiHostpath(kubeConfig, { nodeName });
    fixture = await createEngineFixture('rndm', 'real-velero', { csi: true, nodeAgent: { nodeName, loadAffinity: { [REAL_NODE_LABEL]: 'true' } } });
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);

    await createNamespace(kubeConfig, app);
    await addRealNodePostgres(kubeConfig, app, 'pg', csi.storageClass);
    await readyPodOf(kubeConfig, app, 'pg', 180_000);
    newestInBackup = await writeOrdersBeforeBackup(sql);
    production = await productionVolumeOf(kubeConfig, app);

    taints = (await core.readNode({ name: nodeName })).spec?.taints;
    await setTaints(nodeName, (taints ?? []).filter((taint) => taint.key !== REAL_NODE_LABEL));
    backupName = uniqueName('pg-dm');
    let started = Date.now();
    await createBackup(kubeConfig, {
      name: backupName,
      namespaces: [app],
      veleroNamespace: fixture.veleroNamespace,
      snapshotVolumes: true,
      snapshotMoveData: true,
      includeClusterResources: null,
      timeoutMs: 300_000,
    }).catch((error: unknown) => {
      console.log(fixture.veleroLog().slice(-60).join('\n'), '\n', csi.log().slice(-30).join('\n'));
      throw error;
    });
    timings.backup = Date.now() - started;
    await writeOrdersAfterBackup(sql);

    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-csi-data-mover.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
      { podReadyTimeoutSeconds: 300 },
    );
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, testName, {
        backupSource: { backupName, namespaces: [{ name: app }], providerNamespace: fixture.veleroNamespace },
        healthChecks: { checks: ordersChecks() },
        sla: { maxRPO: '1h' },
      }),
    );
    started = Date.now();
    await trigger(fixture, testName);
    [report] = (await waitForReports(fixture, testName, 1, 480_000)) as [RestoreReport];
    timings.run = Date.now() - started;
    cleanup.push(...report.spec.sandboxNamespaces);
    console.log(`[timing] real-node-csi-data-mover: ${JSON.stringify(timings)}`);
    if (report.spec.result !== 'pass') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().slice(-80).join('\n'));
  }, 600_000);

  afterAll(async () => {
    if (node.available && taints) await setTaints(node.nodeName, taints);
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace, app], 150_000);
    await csi?.stop();
  }, 240_000);

  it('Velero moved the snapshot\'s data into the object store (a completed DataUpload of the claim)', async () => {
    const uploads = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v2alpha1',
      namespace: fixture.veleroNamespace,
      plural: 'datauploads',
      labelSelector: `velero.io/backup-name=${backupName}`,
    })) as { items: DataMovement[] };
    expect(uploads.items.map((item) => [item.spec?.sourcePVC, item.status?.phase])).toEqual([['data-pg-0', 'Completed']]);
    expect(uploads.items[0]!.status?.progress?.totalBytes).toBeGreaterThan(1_000_000);
  });

  it('the restored database holds exactly the rows written before the backup', () => {
    const checks = Object.fromEntries(report.spec.checks.map((check) => [check.name, check.status]));
    expect(checks).toEqual({ 'rows-up-to-the-backup': 'pass', 'no-rows-after-the-backup': 'pass', 'orders-freshness': 'pass' });
    expect(report.spec.result).toBe('pass');
    expect(report.spec.rpo).toMatchObject({ newestData: newestInBackup.toISOString(), withinSLA: true });
  });

  it('the report lists the claim: restored by the CSI data mover, with its bytes and duration', () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    expect(report.spec.volumes).toEqual([
      expect.objectContaining({ namespace: sandbox, claim: 'data-pg-0', method: 'csi-data-mover', phase: 'Completed', dataRestored: true }),
    ]);
    const [volume] = report.spec.volumes!;
    expect(volume!.bytes).toBeGreaterThan(1_000_000);
    console.log(`[measure] CSI data mover restore: ${volume!.bytes} bytes in ${volume!.durationSeconds} s; RTO ${report.spec.rto.measured}`);
  });

  it('production\'s database, claim and volume are unchanged', async () => {
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: app, name: 'data-pg-0' });
    expect(claim.spec?.volumeName).toBe(production.name);
    expect((await core.readPersistentVolume({ name: production.name })).metadata?.resourceVersion).toBe(production.resourceVersion);
    expect(await sql(ORDERS_ROWS)).toBe('1,2,3,4,5');
  });

  it('Rehearsal wrote only to its sandbox (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted)).filter((event) => event.user.username === REHEARSAL_USER);
    const sandboxes = new Set(cleanup.filter((namespace) => namespace.startsWith('rehearsal-')));
    expect(unsafeWrites(writes, { isSource: (namespace) => namespace === app, isSandbox: (namespace) => sandboxes.has(namespace), ownNamespace: 'rehearsal-system' })).toEqual([]);
  });
});
