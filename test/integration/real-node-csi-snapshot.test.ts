// Issue 27 on the real node, through CSI volume snapshots: PostgreSQL runs as a StatefulSet on the
// real node with its data on a CSI volume (test/helpers/csi-hostpath.ts: the upstream
// external-provisioner and external-snapshotter with the minimal driver of test/cluster/csi). Rows
// are written, the REAL Velero (v1.18, its CSI support on) backs the namespace up with a CSI
// snapshot of the claim, more rows are written, and a Rehearsal run restores the backup into a
// sandbox: Velero restores the VolumeSnapshot and its content, the restored claim is provisioned
// FROM the snapshot as a NEW volume, and exec checks in the restored database find exactly the rows
// written before the backup. Production's database, claim and volume are unchanged; the sandbox's
// volume is deleted with the sandbox; Rehearsal wrote nothing outside its sandbox (audit log).
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
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
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor, waitForNamespacesGone } from '../helpers/kube.js';
import { ORDERS_ROWS, ordersChecks, productionVolumeOf, sqlIn, writeOrdersAfterBackup, writeOrdersBeforeBackup } from '../helpers/orders-database.js';
import { addRealNodePostgres, readyPodOf } from '../helpers/real-node-app.js';
import { realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(600_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

interface VeleroBackupStatus {
  status?: { phase?: string; csiVolumeSnapshotsAttempted?: number; csiVolumeSnapshotsCompleted?: number; volumeSnapshotsAttempted?: number };
}

describeOnRealNode('test/integration/real-node-csi-snapshot.test.ts', node, 'volume data restored from a CSI volume snapshot on the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const app = uniqueName('rn-csi');
  const cleanup: string[] = [app];
  const testName = uniqueTestName('rn-csi');
  const suiteStarted = new Date();
  let fixture: EngineFixture;
  let csi: CsiHostpath;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let backupName: string;
  let production: { name: string; resourceVersion: string };
  let newestInBackup: Date;
  const timings: Record<string, number> = {};

  const sql = sqlIn(kubeConfig, app);

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    let started = Date.now();
    csi = await startCsiHostpath(kubeConfig, { nodeName: node.nodeName });
    timings.csi = Date.now() - started;
    started = Date.now();
    fixture = await createEngineFixture('rncsi', 'real-velero', { csi: true });
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    timings.velero = Date.now() - started;

    await createNamespace(kubeConfig, app);
    await addRealNodePostgres(kubeConfig, app, 'pg', csi.storageClass);
    await readyPodOf(kubeConfig, app, 'pg', 180_000);
    newestInBackup = await writeOrdersBeforeBackup(sql);
    production = await productionVolumeOf(kubeConfig, app);

    backupName = uniqueName('pg-csi');
    started = Date.now();
    await createBackup(kubeConfig, {
      name: backupName,
      namespaces: [app],
      veleroNamespace: fixture.veleroNamespace,
      snapshotVolumes: true,
      // Velero's default: with the claim's PersistentVolume in the backup, Velero's volume
      // information lists the claim (a backup without cluster resources has none to list).
      includeClusterResources: null,
      timeoutMs: 240_000,
    }).catch((error: unknown) => {
      console.log(fixture.veleroLog().slice(-60).join('\n'), '\n', csi.log().slice(-40).join('\n'));
      throw error;
    });
    timings.backup = Date.now() - started;
    await writeOrdersAfterBackup(sql);

    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-csi-snapshot.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
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
    console.log(`[timing] real-node-csi-snapshot: ${JSON.stringify(timings)}`);
    if (report.spec.result !== 'pass') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().slice(-80).join('\n'), csi.log().slice(-40).join('\n'));
  }, 600_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace, app], 150_000);
    await csi?.stop();
  }, 240_000);

  it('Velero backed the claim up as a CSI snapshot (no file-system backup)', async () => {
    const backup = (await fixture.custom.getNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'backups',
      name: backupName,
    })) as VeleroBackupStatus;
    expect(backup.status).toMatchObject({ phase: 'Completed', csiVolumeSnapshotsAttempted: 1, csiVolumeSnapshotsCompleted: 1 });
    const podVolumeBackups = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'podvolumebackups',
      labelSelector: `velero.io/backup-name=${backupName}`,
    })) as { items: unknown[] };
    expect(podVolumeBackups.items).toEqual([]);
  });

  it('the restored database holds exactly the rows written before the backup', () => {
    const checks = Object.fromEntries(report.spec.checks.map((check) => [check.name, check.status]));
    expect(checks).toMatchObject({ 'rows-up-to-the-backup': 'pass', 'no-rows-after-the-backup': 'pass', 'orders-freshness': 'pass' });
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', errors: 0 });
    expect(report.spec.result).toBe('pass');
    expect(report.spec.rpo).toMatchObject({ newestData: newestInBackup.toISOString(), withinSLA: true });
    console.log(`[measure] CSI snapshot restore: RTO ${report.spec.rto.measured}, RPO ${report.spec.rpo?.measured}`);
  });

  it('the report lists the claim: provisioned from the CSI snapshot, the content and driver it came from', () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    expect(report.spec.volumes).toEqual([
      {
        namespace: sandbox,
        claim: 'data-pg-0',
        method: 'csi-snapshot',
        phase: 'Restored',
        dataRestored: true,
        message: expect.stringMatching(/^provisioned from VolumeSnapshotContent \S+ by hostpath\.csi\.rehearsal\.dev, restore size 268435456 bytes$/),
      },
    ]);
  });

  it('the restored claim was provisioned from the snapshot as a new CSI volume; production is unchanged', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    // The sandbox may be gone by now (its run ended); the PersistentVolume events of the provisioner
    // are not kept, so what is checked is production's side and, while it lasts, the sandbox's claim.
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: app, name: 'data-pg-0' });
    expect(claim.spec?.volumeName).toBe(production.name);
    expect((await core.readPersistentVolume({ name: production.name })).metadata?.resourceVersion).toBe(production.resourceVersion);
    expect(await sql(ORDERS_ROWS)).toBe('1,2,3,4,5');
    const restoredClaim = await core.readNamespacedPersistentVolumeClaim({ namespace: sandbox, name: 'data-pg-0' }).catch(() => undefined);
    if (restoredClaim) {
      expect(restoredClaim.spec?.dataSource).toMatchObject({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot' });
      expect(restoredClaim.spec?.volumeName).not.toBe(production.name);
    }
  });

  it('the sandbox\'s volume goes with the sandbox, and the janitor removes the snapshot content Velero restored for it (Retain)', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    await waitForNamespacesGone(kubeConfig, [sandbox], 120_000);
    await waitFor(
      async () => (await core.listPersistentVolume()).items.every((volume) => volume.spec?.claimRef?.namespace !== sandbox),
      { timeoutMs: 60_000, description: 'no PersistentVolume left claimed by the sandbox' },
    );
    // Velero restores the backup's content as a cluster-scoped VolumeSnapshotContent with
    // deletionPolicy Retain (deleting it must not delete the backup's snapshot), so it outlives the
    // sandbox; Rehearsal recorded it when the sandbox went and its janitor deletes the object.
    const sandboxContents = async () => {
      const list = (await fixture.custom.listClusterCustomObject({ group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshotcontents' })) as {
        items: Array<{ metadata: { name: string }; spec: { deletionPolicy?: string; volumeSnapshotRef?: { namespace?: string }; source?: { snapshotHandle?: string } } }>;
      };
      return list.items.filter((content) => content.spec.volumeSnapshotRef?.namespace === sandbox);
    };
    await waitFor(async () => (await sandboxContents()).length === 0, { timeoutMs: 60_000, description: 'the janitor to delete the sandbox\'s VolumeSnapshotContent' });
    // The backup's own snapshot is still there (the content was Retain): the same backup restores again.
    expect(csi.storedSnapshots()).toHaveLength(1);
  });

  it('Rehearsal wrote only to its sandbox; Velero wrote to production only its hook and the claim\'s VolumeSnapshot (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    const sandboxes = new Set(cleanup.filter((namespace) => namespace.startsWith('rehearsal-')));
    const rehearsalWrites = writes.filter((event) => event.user.username === REHEARSAL_USER);
    expect(unsafeWrites(rehearsalWrites, { isSource: (namespace) => namespace === app, isSandbox: (namespace) => sandboxes.has(namespace), ownNamespace: 'rehearsal-system' })).toEqual([]);
    const veleroInProduction = writes.filter((event) => event.user.username === fixture.realVelero!.user && event.objectRef?.namespace === app);
    // Velero's writes in production: the backup hook, and the VolumeSnapshot it takes of the claim
    // (created, its deletion policy patched, deleted once the content is kept) — never the claim.
    expect([...new Set(veleroInProduction.map((event) => `${event.verb} ${event.objectRef?.resource}/${event.objectRef?.subresource ?? ''}`))].sort()).toEqual([
      'create pods/exec',
      'create volumesnapshots/',
      'delete volumesnapshots/',
      'patch volumesnapshots/',
    ]);
  });
});
