// Issue 27 / decision 0020 on the real node: the FILE check reads a restored volume. PostgreSQL
// runs as a StatefulSet on the real node with its data on a claim (a `local` volume,
// test/helpers/local-volume-provisioner.ts). A sentinel file is written into the data volume, the
// REAL Velero (test/helpers/real-velero.ts) backs the namespace up with its node agent (kopia),
// production's sentinel is then overwritten, and a Rehearsal run restores the backup into a
// sandbox. The file checks run in short-lived read-only pods beside the restored pg-0 (same node,
// same user: root, as the PostgreSQL image starts; the image is the test cluster's shop image, whose
// busybox has every tool the script needs):
//  - the sentinel has the content, size and SHA-256 written before the backup → pass (critical);
//  - the same path with a wrong SHA-256 → fail naming the claim, the path and both hash prefixes
//    (not critical: the run ends partial, so the sandbox is kept and can be inspected);
//  - PG_VERSION inside PostgreSQL's 0700 data directory is readable (root with DAC_OVERRIDE);
//  - a path that does not exist, with exists: false → pass;
//  - freshness from the sentinel's modification time → newestData and the report's RPO.
// Afterwards no check pod is left, every one Rehearsal created it also deleted (audit log), all in
// the sandbox; production's sentinel, claim and volume are unchanged.
import { createHash } from 'node:crypto';
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
import { addRealNodePostgres, readyPodOf } from '../helpers/real-node-app.js';
import { execInPod, REAL_NODE_IMAGES, realNodeStatus } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(600_000);

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

/** The data volume is mounted here in the PostgreSQL container (PGDATA is its pgdata/ below). */
const MOUNT = '/var/lib/postgresql/data';
const SENTINEL_PATH = '/rehearsal-sentinel';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describeOnRealNode('test/integration/real-node-file-check.test.ts', node, 'file checks on a volume restored through Velero\'s node agent on the real node', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const app = uniqueName('rn-file');
  const cleanup: string[] = [app];
  const testName = uniqueTestName('rn-file');
  const suiteStarted = new Date();
  const token = `rehearsal-${uniqueName('t', 20)}`;
  const content = `${token}\n`;
  const wrongHash = sha256('not the sentinel\n');
  let fixture: EngineFixture;
  let provisioner: LocalVolumeProvisioner;
  let rehearsal: Rehearsal;
  let report: RestoreReport;
  let productionVolume: string;
  let productionVersion: string;
  /** The sentinel's modification time in production when it was backed up (Unix seconds). */
  let sentinelMtime: number;
  const timings: Record<string, number> = {};

  const inPostgres = async (namespace: string, command: string): Promise<string> => {
    const result = await execInPod(kubeConfig, namespace, 'pg-0', 'postgres', ['sh', '-c', command]);
    if (result.exitCode !== 0) throw new Error(`${command} in ${namespace}/pg-0 exited ${result.exitCode}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const check = (name: string) => report.spec.checks.find((entry) => entry.name === name);

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    const nodeName = node.nodeName;
    fixture = await createEngineFixture('rnfile', 'real-velero', { nodeAgent: { nodeName } });
    cleanup.push(fixture.source, fixture.testNamespace, fixture.veleroNamespace);
    provisioner = await startLocalVolumeProvisioner(kubeConfig, { nodeName, root: path.join(repoRoot, 'test/.tmp/local-volumes') });

    await createNamespace(kubeConfig, app);
    await addRealNodePostgres(kubeConfig, app, 'pg', provisioner.storageClass);
    await readyPodOf(kubeConfig, app, 'pg', 180_000);
    // The sentinel, beside PGDATA at the volume's root: written before the backup.
    await inPostgres(app, `printf '%s\\n' '${token}' > "$PGDATA/..${SENTINEL_PATH}" && sync`);
    sentinelMtime = Number(await inPostgres(app, `stat -c %Y ${MOUNT}${SENTINEL_PATH}`));
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: app, name: 'data-pg-0' });
    productionVolume = claim.spec!.volumeName!;
    productionVersion = (await core.readPersistentVolume({ name: productionVolume })).metadata!.resourceVersion!;

    const backupName = uniqueName('pg-file');
    let started = Date.now();
    await createBackup(kubeConfig, {
      name: backupName,
      namespaces: [app],
      veleroNamespace: fixture.veleroNamespace,
      defaultVolumesToFsBackup: true,
      timeoutMs: 240_000,
    });
    timings.backup = Date.now() - started;
    // After the backup: a check that read production (or a stale volume) would see this instead.
    await inPostgres(app, `echo changed-after-the-backup > ${MOUNT}${SENTINEL_PATH}`);

    rehearsal = await startInProcess(
      {
        kubeconfigPath: await rehearsalKubeconfig('real-node-file-check.kubeconfig'),
        veleroNamespace: fixture.veleroNamespace,
        // The node runs no registry pulls: its shop image holds a static busybox.
        extra: { REHEARSAL_FILE_CHECK_IMAGE: REAL_NODE_IMAGES.shop },
      },
      { podReadyTimeoutSeconds: 300 },
    );
    const file = (name: string, spec: Record<string, unknown>, critical = false) => ({
      name,
      kind: 'file' as const,
      timeout: '1m',
      ...(critical ? { critical } : {}),
      file: { claim: 'data-pg-0', path: SENTINEL_PATH, ...spec },
    });
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, testName, {
        backupSource: { backupName, namespaces: [{ name: app }], providerNamespace: fixture.veleroNamespace },
        healthChecks: {
          checks: [
            file('sentinel', { sha256: sha256(content), size: Buffer.byteLength(content), contains: token }, true),
            file('sentinel-wrong-hash', { sha256: wrongHash }),
            file('pg-version', { path: '/pgdata/PG_VERSION', contains: '15' }, true),
            file('nothing-there', { path: '/not-restored', exists: false }, true),
            file('sentinel-freshness', { freshness: true }, true),
          ],
        },
        sla: { maxRPO: '1h' },
      }),
    );
    started = Date.now();
    await trigger(fixture, testName);
    [report] = (await waitForReports(fixture, testName, 1, 480_000)) as [RestoreReport];
    timings.run = Date.now() - started;
    cleanup.push(...report.spec.sandboxNamespaces);
    console.log(`[timing] real-node-file-check: ${JSON.stringify(timings)}`);
    console.log(`[measure] file checks: ${JSON.stringify(report.spec.checks.map(({ name, status, duration, message }) => ({ name, status, duration, message })), null, 1)}`);
    if (report.spec.result !== 'partial') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().join('\n'));
  }, 600_000);

  afterAll(async () => {
    await rehearsal?.stop();
    await fixture?.stop();
    await deleteNamespaces(kubeConfig, cleanup);
    if (fixture) await waitForNamespacesGone(kubeConfig, [fixture.testNamespace, app], 150_000);
    await provisioner?.stop();
  }, 240_000);

  it('the sentinel written before the backup is on the restored volume: content, size and SHA-256 (a pass)', () => {
    expect(check('sentinel')).toMatchObject({
      kind: 'file',
      status: 'pass',
      message: `claim data-pg-0 path ${SENTINEL_PATH} exists (${Buffer.byteLength(content)} bytes, sha256 ${sha256(content).slice(0, 12)}…, contains "${token}")`,
    });
  });

  it('a wrong SHA-256 fails that check, naming the claim, the path and both hashes\' prefixes; the run is partial', () => {
    expect(check('sentinel-wrong-hash')).toMatchObject({
      kind: 'file',
      status: 'fail',
      message: `claim data-pg-0 path ${SENTINEL_PATH}: sha256 ${sha256(content).slice(0, 12)}…, expected ${wrongHash.slice(0, 12)}…`,
    });
    expect(report.spec.result).toBe('partial');
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', errors: 0 });
  });

  it('reads the application\'s private files (PG_VERSION in the 0700 data directory) and an absent path', () => {
    expect(check('pg-version')).toMatchObject({ status: 'pass', message: 'claim data-pg-0 path /pgdata/PG_VERSION exists (contains "15")' });
    expect(check('nothing-there')).toMatchObject({ status: 'pass', message: 'claim data-pg-0 path /not-restored does not exist, as expected' });
  });

  it('freshness from the modification time: the restored sentinel\'s mtime is the newest data and the measured RPO', () => {
    const newest = new Date(sentinelMtime * 1000).toISOString();
    const requested = Date.parse(report.spec.rto.phases.restoreRequestedAt!);
    console.log(`[measure] sentinel mtime in production ${newest}; file check found ${check('sentinel-freshness')?.newestData}`);
    expect(check('sentinel-freshness')).toMatchObject({ status: 'pass', newestData: newest });
    expect(report.spec.rpo).toEqual({
      check: 'sentinel-freshness',
      newestData: newest,
      measured: expect.any(String),
      measuredSeconds: Math.floor((requested - sentinelMtime * 1000) / 1000),
      target: '1h',
      withinSLA: true,
    });
  });

  it('no check pod is left in the sandbox (kept for inspection: the run is partial)', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    // Deleted with gracePeriodSeconds 0 once each check ended (before the report): at most a moment to settle.
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: sandbox, labelSelector: 'app.kubernetes.io/component=rehearsal-file-check' })).items.length === 0,
      { timeoutMs: 30_000, intervalMs: 500, description: `no file check pod left in ${sandbox}` },
    );
    // The restored application is still there: the sandbox itself was not what removed them.
    expect((await core.readNamespacedPod({ namespace: sandbox, name: 'pg-0' })).metadata?.name).toBe('pg-0');
  });

  it('production\'s sentinel, claim and volume are unchanged', async () => {
    expect(await inPostgres(app, `cat ${MOUNT}${SENTINEL_PATH}`)).toBe('changed-after-the-backup');
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: app, name: 'data-pg-0' });
    expect(claim.spec?.volumeName).toBe(productionVolume);
    expect((await core.readPersistentVolume({ name: productionVolume })).metadata?.resourceVersion).toBe(productionVersion);
  });

  it('Rehearsal created check pods only in its sandbox and deleted every one it created (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    const sandboxes = new Set(report.spec.sandboxNamespaces);
    const rehearsalWrites = writes.filter((event) => event.user.username === REHEARSAL_USER);
    expect(unsafeWrites(rehearsalWrites, { isSource: (namespace) => namespace === app, isSandbox: (namespace) => sandboxes.has(namespace), ownNamespace: 'rehearsal-system' })).toEqual([]);
    const podWrites = rehearsalWrites.filter((event) => event.objectRef?.resource === 'pods' && !event.objectRef.subresource);
    const created = podWrites.filter((event) => event.verb === 'create' && (event.responseStatus?.code ?? 0) < 300);
    expect(created.map((event) => event.objectRef?.name).sort()).toEqual(
      ['nothing-there', 'pg-version', 'sentinel', 'sentinel-freshness', 'sentinel-wrong-hash'].map((name) => `rehearsal-file-${name}`),
    );
    for (const event of podWrites) expect(sandboxes.has(event.objectRef?.namespace ?? '')).toBe(true);
    const deleted = new Set(podWrites.filter((event) => event.verb === 'delete' && (event.responseStatus?.code ?? 0) < 300).map((event) => event.objectRef?.name));
    for (const event of created) expect(deleted.has(event.objectRef?.name)).toBe(true);
  });
});
