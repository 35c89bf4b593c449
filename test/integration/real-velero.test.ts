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
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { VeleroProvider } from '../../server/providers/velero/velero.provider.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
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
    const tree = processTree(velero.hostProcess!.pid);
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
      expect.arrayContaining([velero.hostProcess!.metricsPort, velero.hostProcess!.profilerPort]),
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
    // Completeness per kind: Velero's resource list of the backup (a DownloadRequest, the file
    // fetched from s3s-fs) against the sandbox. Events and the Namespace object are backed up but
    // never restored by Velero's design, so they are not listed.
    const kinds = report.spec.completeness;
    console.log(
      `[measure] real Velero completeness per kind: ${kinds.map((entry) => `${entry.kind} ${entry.restored}/${entry.backedUp}`).join(', ')}`,
    );
    expect(kinds.map((entry) => entry.kind)).toEqual(
      expect.arrayContaining(['ConfigMap', 'Deployment', 'Secret', 'Service']),
    );
    expect(kinds.map((entry) => entry.kind)).not.toContain('Event');
    expect(kinds.map((entry) => entry.kind)).not.toContain('Namespace');
    expect(kinds.filter((entry) => entry.restored !== entry.backedUp)).toEqual([]);
    expect(report.spec.levels.find((entry) => entry.name === 'completeness')).toMatchObject({ points: 20 });
    expect(report.spec.score).toBe(100);
    // Progress came from the watch: Rehearsal read this Restore by GET at most once (right after
    // creating it, before its watch cache held it), where a poll would read it every interval;
    // its watch of Restores is in the audit log.
    const logPath = auditLogPath();
    if (logPath) {
      const reads = readAuditEvents(logPath, suiteStarted).filter(
        (event) => event.user.username === REHEARSAL_USER && event.objectRef?.resource === 'restores',
      );
      const gets = reads.filter((event) => event.verb === 'get' && event.objectRef?.name === report.spec.restore?.name);
      const watches = reads.filter((event) => event.verb === 'watch');
      console.log(`[measure] Restore reads by Rehearsal during the run: ${gets.length} GET, ${watches.length} watch request(s)`);
      expect(watches.length).toBeGreaterThan(0);
      // A poll would read the Restore every interval (200 ms here) for the whole restore; the watch
      // leaves only the read right after creating it, whose time says nothing about the watch: a
      // watch's audit event is stamped when the watch ends, and the cache may not hold a new
      // Restore yet while the watch is up (CI once saw that read 1 s after the first watch ended).
      expect(gets.length).toBeLessThanOrEqual(2);
      expect(watches.every((event) => event.objectRef?.namespace === fixture.veleroNamespace)).toBe(true);
      // The DownloadRequest was deleted after use.
      const downloads = readAuditEvents(logPath, suiteStarted).filter(
        (event) => event.user.username === REHEARSAL_USER && event.objectRef?.resource === 'downloadrequests',
      );
      expect(downloads.filter((event) => event.verb === 'create').length).toBeGreaterThan(0);
      expect(downloads.filter((event) => event.verb === 'delete').length).toBe(
        downloads.filter((event) => event.verb === 'create').length,
      );
    }
    console.log(
      `[measure] real Velero: restore requested→Completed ${restoreSeconds(report).toFixed(3)} s, ` +
        `RTO ${report.spec.rto.measured}, trigger→report ${seconds.toFixed(1)} s, ` +
        `items ${report.spec.restore?.itemsRestored}, warnings ${report.spec.restore?.warnings}, score ${report.spec.score}`,
    );
  });

  it('a kind short in the sandbox shows in completeness per kind (an admission policy refused one ConfigMap)', async () => {
    // A real way for one object to go missing: the sandbox refuses it. This policy denies creating
    // the shop's ConfigMap "settings" in the sandboxes of this one test (its label), so Velero
    // restores everything else and records an error for that object.
    const name = uniqueTestName('real-short');
    const policy = uniqueName('deny-settings', 40);
    const admission = fixture.admin.makeApiClient(AdmissionregistrationV1Api);
    await admission.createValidatingAdmissionPolicy({
      body: {
        metadata: { name: policy },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          },
          validations: [{ expression: "object.metadata.name != 'settings'", message: 'settings refused in this sandbox' }],
        },
      },
    });
    await admission.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: policy },
        spec: {
          policyName: policy,
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'rehearsal.dev/test': name } } },
        },
      },
    });
    try {
      // The policy is enforced once the apiserver has loaded it (a few hundred ms).
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const { report } = await runOnce(name, {
        backupSource: {
          backupName: fixture.backup,
          namespaces: [{ name: fixture.source }],
          providerNamespace: fixture.veleroNamespace,
        },
        healthChecks: { checks: shopChecks() },
      });
      console.log(
        `[observe] real Velero with one ConfigMap refused: ${report.spec.restore?.phase}, errors ${report.spec.restore?.errors}, ` +
          `completeness ${report.spec.completeness.map((entry) => `${entry.kind} ${entry.restored}/${entry.backedUp}`).join(', ')}, score ${report.spec.score}`,
      );
      const configMaps = report.spec.completeness.find((entry) => entry.kind === 'ConfigMap')!;
      expect(configMaps.restored).toBe(configMaps.backedUp - 1);
      expect(report.spec.completeness.filter((entry) => entry.kind !== 'ConfigMap').every((entry) => entry.restored === entry.backedUp)).toBe(true);
      const level = report.spec.levels.find((entry) => entry.name === 'completeness')!;
      expect(level.points).toBeLessThan(20);
      expect(level.detail).toContain(`ConfigMap ${configMaps.restored}/${configMaps.backedUp}`);
    } finally {
      await admission.deleteValidatingAdmissionPolicyBinding({ name: policy }).catch(() => undefined);
      await admission.deleteValidatingAdmissionPolicy({ name: policy }).catch(() => undefined);
    }
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
    // Two real outcomes, depending on timing: Velero's backup sync deletes a Completed Backup whose
    // data is gone from the store (backup_sync_controller.go deleteOrphanedBackups; the simulator
    // has no such sync) — then the backup is simply not there — or the restore starts first and
    // Velero fails it with the store's NoSuchKey.
    if (report.spec.failure?.reason === 'BackupNotFound') {
      expect(report.spec.restore).toBeUndefined();
    } else {
      expect(report.spec.restore?.phase).toBe('Failed');
      expect(report.spec.failure?.message).toMatch(/download|not found|NoSuchKey|no such/i);
    }
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
    // The checks read Secrets in sandboxes only (never the source's: the "without the Secret" case
    // must fail because the sandbox has none, not pass on the source's).
    expect(
      secretReadsOutsideSandboxes(readAuditEvents(logPath, suiteStarted).filter((event) => event.user.username === REHEARSAL_USER), {
        isSandbox,
        ownNamespace: 'rehearsal-system',
      }).map((event) => `${event.verb} ${event.requestURI}`),
    ).toEqual([]);
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
  backupWithoutSecret: (name) => backupOfShop(name, { excludedResources: ['secrets'] }),
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
