// Issue 32 on the real control plane with the REAL Velero server: a RestoreTest with
// spec.schedule.onBackup (and no cron) runs once when its source completes a new backup, restores
// exactly that backup and says so in its report (trigger backup), and never runs twice for one
// backup — not on later passes, not after the server restarts (the ledger is in
// status.backupTrigger). With everyNth 2 the first new backup is counted, the second runs.
//
// Backend: the REAL Velero server (test/helpers/real-velero.ts, as backup-sampling.test.ts);
// REHEARSAL_ON_BACKUP_BACKEND=simulator runs it against the Velero simulator instead.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  listReports,
  restoreTestBody,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

const backend = process.env.REHEARSAL_ON_BACKUP_BACKEND === 'simulator' ? 'simulator' : 'real-velero';

let fixture: EngineFixture;
let rehearsal: Rehearsal | undefined;
let kubeconfigPath: string;

// Two restores with their default checks, a server restart and four real Velero backups on a
// loaded 2-core machine.
jest.setTimeout(15 * 60_000);

async function startServer(): Promise<Rehearsal> {
  return startInProcess({ kubeconfigPath, veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets });
}

/** A new Velero backup of the source, waited for until Completed; its name. */
async function backUpSource(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  // Velero records whole seconds: a new backup must not share its completion second with the last.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await createBackup(fixture.admin, {
    name,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    ...(backend === 'real-velero' ? { timeoutMs: 120_000 } : {}),
  });
  return name;
}

function onBackupTest(name: string, onBackup: { everyNth?: number }): RestoreTest {
  const body = restoreTestBody(fixture, name, {});
  // No cron: the test runs on new backups only.
  return { ...body, spec: { ...body.spec, schedule: { timezone: 'UTC', onBackup } } };
}

/** The engine has looked at the test (its schedule is recorded as valid). */
async function waitUntilSeen(name: string): Promise<RestoreTest> {
  return waitFor(
    async () => {
      const test = await getRestoreTest(fixture, name);
      const valid = test.status?.conditions?.find((condition) => condition.type === 'ScheduleValid');
      return valid?.status === 'True' ? test : undefined;
    },
    { timeoutMs: 60_000, description: `the engine to see ${name}` },
  );
}

async function deleteTest(name: string): Promise<void> {
  await fixture.custom.deleteNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: fixture.testNamespace,
    plural: 'restoretests',
    name,
  });
}

beforeAll(async () => {
  fixture = await createEngineFixture('on-backup', backend);
  kubeconfigPath = await rehearsalKubeconfig('on-backup.kubeconfig');
  rehearsal = await startServer();
}, 600_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('spec.schedule.onBackup', () => {
  it('runs once per new backup, restores exactly it, names it in the report, and not again after a restart', async () => {
    const name = uniqueTestName('on-backup');
    await createRestoreTest(fixture, onBackupTest(name, {}));
    const seen = await waitUntilSeen(name);
    // The fixture's backup completed before the test existed: no run for it, and no next time.
    expect(seen.status?.currentRun).toBeUndefined();
    expect(seen.status?.nextRunAt).toBeUndefined();
    expect(await listReports(fixture, name)).toEqual([]);

    const backup = await backUpSource('shop-onbackup');
    const [report] = await waitForReports(fixture, name, 1, 300_000);
    expect(report!.spec.trigger).toBe('backup');
    expect(report!.spec.backup.name).toBe(backup);
    const after = await getRestoreTest(fixture, name);
    expect(after.status?.backupTrigger).toMatchObject({ lastSeen: { name: backup }, countSinceRun: 0, lastRunBackup: backup });

    // The same backup again: a restarted server (a new leader would do the same) reads the ledger
    // and starts nothing. It has looked once its ScheduleValid condition is rewritten after start.
    await rehearsal!.stop();
    rehearsal = await startServer();
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const restarted = await getRestoreTest(fixture, name);
    expect(restarted.status?.currentRun).toBeUndefined();
    expect(restarted.status?.backupTrigger?.lastRunBackup).toBe(backup);
    expect((await listReports(fixture, name)).map((each) => each.spec.backup.name)).toEqual([backup]);
    await deleteTest(name);
  });

  it('with everyNth 2 counts the first new backup and runs on the second', async () => {
    const name = uniqueTestName('on-backup-2nd');
    await createRestoreTest(fixture, onBackupTest(name, { everyNth: 2 }));
    await waitUntilSeen(name);

    const skipped = await backUpSource('shop-onbackup-a');
    const counted = await waitFor(
      async () => {
        const test = await getRestoreTest(fixture, name);
        return test.status?.backupTrigger?.lastSeen?.name === skipped ? test : undefined;
      },
      { timeoutMs: 120_000, description: `${name} to count backup ${skipped}` },
    );
    expect(counted.status?.backupTrigger?.countSinceRun).toBe(1);
    expect(counted.status?.currentRun).toBeUndefined();
    expect(await listReports(fixture, name)).toEqual([]);

    const second = await backUpSource('shop-onbackup-b');
    const reports = await waitForReports(fixture, name, 1, 300_000);
    expect(reports.map((report) => [report.spec.trigger, report.spec.backup.name])).toEqual([['backup', second]]);
    expect((await getRestoreTest(fixture, name)).status?.backupTrigger).toMatchObject({ countSinceRun: 0, lastRunBackup: second });
    await deleteTest(name);
  });

  it('is refused by the apiserver (CEL) without cron and onBackup, and with a named backup', async () => {
    const neither = restoreTestBody(fixture, uniqueTestName('on-backup-none'), {});
    await expect(createRestoreTest(fixture, { ...neither, spec: { ...neither.spec, schedule: { timezone: 'UTC' } } })).rejects.toThrow(
      /a schedule needs cron, onBackup or both/,
    );
    const named = onBackupTest(uniqueTestName('on-backup-named'), {});
    await expect(
      createRestoreTest(fixture, { ...named, spec: { ...named.spec, backupSource: { ...named.spec.backupSource, backupName: fixture.backup } } }),
    ).rejects.toThrow(/schedule.onBackup needs backupSource.backupName latest/);
  });
});
