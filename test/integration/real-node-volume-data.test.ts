// Issue 27 on the real node: volume DATA comes back. PostgreSQL runs as a StatefulSet on the real
// node with its data on a claim (a `local` volume, test/helpers/local-volume-provisioner.ts). Rows
// are written, the REAL Velero (v1.18, test/helpers/real-velero.ts) backs the namespace up with its
// node agent (file-system backup, kopia, into s3s-fs), more rows are written, and a Rehearsal run
// restores the backup into a sandbox: the restored claim binds a NEW volume (never production's),
// Velero's node agent writes the data into it while the restored pod waits in Velero's restore
// helper, and exec checks in the restored database find exactly the rows written before the
// backup. Production's database, claim and volume are unchanged; the sandbox's volume is deleted
// with the sandbox; Rehearsal wrote nothing outside its sandbox (audit log).
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
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
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor, waitForNamespacesGone } from '../helpers/kube.js';
import { startLocalVolumeProvisioner, type LocalVolumeProvisioner } from '../helpers/local-volume-provisioner.js';
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

describeOnRealNode('test/integration/real-node-volume-data.test.ts', node, 'volume data restored through Velero\'s node agent (file-system backup) on the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const app = uniqueName('rn-pg');
  const cleanup: string[] = [app];
  const testName = uniqueTestName('rn-data');
  const suiteStarted = new Date();
  let fixture: EngineFixture;
  let provisioner: LocalVolumeProvisioner;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let backupName: string;
  let production: { name: string; resourceVersion: string };
  /** When the newest row in the backup (id 3) was written, in production. */
  let newestInBackup: Date;
  const timings: Record<string, number> = {};

  const sql = sqlIn(kubeConfig, app);

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const nodeName = node.nodeName;
    let started = Date.now();
    fixture = await createEngineFixture('rndata', 'real-velero', { nodeAgent: { nodeName } });
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    provisioner = await startLocalVolumeProvisioner(kubeConfig, { nodeName, root: path.join(repoRoot, 'test/.tmp/local-volumes') });
    timings.veleroWithNodeAgent = Date.now() - started;

    await createNamespace(kubeConfig, app);
    await addRealNodePostgres(kubeConfig, app, 'pg', provisioner.storageClass);
    await readyPodOf(kubeConfig, app, 'pg', 180_000);
    newestInBackup = await writeOrdersBeforeBackup(sql);
    production = await productionVolumeOf(kubeConfig, app);

    backupName = uniqueName('pg-fs');
    started = Date.now();
    await createBackup(kubeConfig, {
      name: backupName,
      namespaces: [app],
      veleroNamespace: fixture.veleroNamespace,
      defaultVolumesToFsBackup: true,
      timeoutMs: 240_000,
    });
    timings.backup = Date.now() - started;
    await writeOrdersAfterBackup(sql); // a restore of the backup must not have these
    rehearsal = await startInProcess(
      { kubeconfigPath: await rehearsalKubeconfig('real-node-volume-data.kubeconfig'), veleroNamespace: fixture.veleroNamespace },
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
    console.log(`[timing] real-node-volume-data: ${JSON.stringify(timings)}`);
    if (report.spec.result !== 'pass') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().join('\n'));
  }, 600_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace, app], 150_000);
    await provisioner?.stop();
  }, 240_000);

  it('Velero backed the volume up through its node agent (a completed PodVolumeBackup, kopia)', async () => {
    const backups = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'podvolumebackups',
      labelSelector: `velero.io/backup-name=${backupName}`,
    })) as { items: Array<{ spec: { volume: string; uploaderType: string; pod: { name: string } }; status?: { phase?: string; progress?: { totalBytes?: number } } }> };
    expect(backups.items.map((item) => [item.spec.pod.name, item.spec.volume, item.spec.uploaderType, item.status?.phase])).toEqual([
      ['pg-0', 'data', 'kopia', 'Completed'],
    ]);
    expect(backups.items[0]!.status?.progress?.totalBytes).toBeGreaterThan(1_000_000); // a PostgreSQL cluster's files
  });

  it('the restored database holds exactly the rows written before the backup', () => {
    const checks = Object.fromEntries(report.spec.checks.map((check) => [check.name, check.status]));
    expect(checks).toMatchObject({ 'rows-up-to-the-backup': 'pass', 'no-rows-after-the-backup': 'pass' });
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', errors: 0 });
    expect(report.spec.result).toBe('pass');
  });

  it('the report lists the volume: restored by the node agent, with its bytes and duration', () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    expect(report.spec.volumes).toEqual([
      {
        namespace: sandbox,
        pod: 'pg-0',
        volume: 'data',
        method: 'file-system',
        phase: 'Completed',
        dataRestored: true,
        bytes: expect.any(Number),
        durationSeconds: expect.any(Number),
      },
    ]);
    const [volume] = report.spec.volumes!;
    expect(volume!.bytes).toBeGreaterThan(1_000_000);
    // The claim is back with its data: completeness counts it (decision 0004).
    expect(report.spec.completeness).toContainEqual({ kind: 'PersistentVolumeClaim', backedUp: 1, restored: 1 });
    console.log(`[measure] file-system restore of the volume: ${volume!.bytes} bytes in ${volume!.durationSeconds} s; RTO ${report.spec.rto.measured}`);
  });

  it('the measured RPO: the restore request minus the newest restored row, the one written last before the backup', () => {
    const newest = newestInBackup;
    const requested = Date.parse(report.spec.rto.phases.restoreRequestedAt!);
    expect(report.spec.checks.find((check) => check.name === 'orders-freshness')).toMatchObject({ status: 'pass', newestData: newest.toISOString() });
    expect(report.spec.rpo).toEqual({
      check: 'orders-freshness',
      newestData: newest.toISOString(),
      measured: expect.any(String),
      measuredSeconds: Math.floor((requested - newest.getTime()) / 1000),
      target: '1h',
      withinSLA: true,
    });
    console.log(`[measure] RPO ${report.spec.rpo!.measured} (newest restored row ${newest.toISOString()}, restore requested ${report.spec.rto.phases.restoreRequestedAt})`);
  });

  it('the restored claim bound a new volume on the real node; production\'s database, claim and volume are unchanged', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    const sandboxVolume = provisioner.provisioned().find((entry) => entry.claim === `${sandbox}/data-pg-0`);
    expect(sandboxVolume).toBeDefined();
    expect(sandboxVolume!.volume).not.toBe(production.name);
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: app, name: 'data-pg-0' });
    expect(claim.spec?.volumeName).toBe(production.name);
    expect((await core.readPersistentVolume({ name: production.name })).metadata?.resourceVersion).toBe(production.resourceVersion);
    expect(await sql(ORDERS_ROWS)).toBe('1,2,3,4,5');
  });

  it('the sandbox\'s volume goes with the sandbox', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    const sandboxVolume = provisioner.provisioned().find((entry) => entry.claim === `${sandbox}/data-pg-0`)!;
    await waitForNamespacesGone(kubeConfig, [sandbox], 120_000);
    await waitFor(() => provisioner.deleted().includes(sandboxVolume.volume), { timeoutMs: 60_000, description: 'the sandbox volume released and deleted' });
    await expect(core.readPersistentVolume({ name: sandboxVolume.volume })).rejects.toMatchObject({ code: 404 });
  });

  it('a backup whose volume data is gone from the object store: a fail naming the volume and Velero\'s reason, at once', async () => {
    // Everything the node agent stored (kopia's repository for the namespace) is deleted; the
    // backup's resource manifests stay, so Velero starts the restore and its node agent fails.
    const kopia = path.join(fixture.realVelero!.bucketDir, 'kopia');
    expect(existsSync(kopia)).toBe(true);
    rmSync(kopia, { recursive: true, force: true });
    const lost = uniqueTestName('rn-lost');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, lost, { backupSource: { backupName, namespaces: [{ name: app }], providerNamespace: fixture.veleroNamespace } }),
    );
    const started = Date.now();
    await trigger(fixture, lost);
    const [failed] = (await waitForReports(fixture, lost, 1, 300_000)) as [RestoreReport];
    cleanup.push(...failed.spec.sandboxNamespaces);
    const sandbox = failed.spec.sandboxNamespaces[0]!;
    console.log(`[measure] lost volume data: failed report after ${Math.round((Date.now() - started) / 1000)} s: ${failed.spec.failure?.message}`);
    expect(failed.spec.result).toBe('fail');
    expect(failed.spec.failure?.reason).toBe('VolumeDataNotRestored');
    expect(failed.spec.failure?.message).toMatch(new RegExp(`^the data of 1 volume was not restored: ${sandbox}/pg-0 volume data: Failed \\(.+\\)$`));
    expect(failed.spec.restore?.phase).toBe('PartiallyFailed');
    expect(failed.spec.volumes).toEqual([
      expect.objectContaining({ namespace: sandbox, pod: 'pg-0', volume: 'data', method: 'file-system', phase: 'Failed', dataRestored: false, message: expect.any(String) }),
    ]);
    // The claim object is back, its data is not: completeness does not count it (decision 0004).
    expect(failed.spec.completeness).toContainEqual({ kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 });
  });

  it('Rehearsal wrote only to its sandbox; Velero wrote to production only to run its backup hook (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    const sandboxes = new Set(cleanup.filter((namespace) => namespace.startsWith('rehearsal-')));
    const isSandbox = (namespace: string) => sandboxes.has(namespace);
    const rehearsalWrites = writes.filter((event) => event.user.username === REHEARSAL_USER);
    expect(unsafeWrites(rehearsalWrites, { isSource: (namespace) => namespace === app, isSandbox, ownNamespace: 'rehearsal-system' })).toEqual([]);
    const veleroInProduction = writes.filter((event) => event.user.username === fixture.realVelero!.user && event.objectRef?.namespace === app);
    expect([...new Set(veleroInProduction.map((event) => `${event.verb} ${event.objectRef?.resource}/${event.objectRef?.subresource ?? ''}`))]).toEqual([
      'create pods/exec',
    ]);
  });
});
