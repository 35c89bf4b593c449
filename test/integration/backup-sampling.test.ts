// Issue 32 on the real control plane: a RestoreTest with backupSource.select randomWithin restores
// one of several backups of its namespace, chosen per run by a draw seeded with the test uid and the
// run id, and every report names its choice (spec.backup.selection) under the evidence signature.
// Several runs (different run ids, so different seeds) choose different backups.
//
// Backend: the REAL Velero server (built by test/cluster/build-velero.sh, as real-velero.test.ts
// runs it) by default, so the backups drawn from are ones Velero made and lists;
// REHEARSAL_SAMPLING_BACKEND=simulator runs it against the Velero simulator.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { samplingSeed } from '../../server/domain/run/backup-sampling.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

const backend = process.env.REHEARSAL_SAMPLING_BACKEND === 'simulator' ? 'simulator' : 'real-velero';
const RUNS = 6;
const EXTRA_BACKUPS = 4;

let fixture: EngineFixture;
let rehearsal: Rehearsal;
/** Every backup of the source namespace, the fixture's own first. */
const backups: string[] = [];
/** Their completion times, as Velero recorded them. */
const completedAt = new Map<string, string>();

// Six runs one after the other, each a restore and its default checks, on a loaded 2-core machine.
jest.setTimeout(15 * 60_000);

beforeAll(async () => {
  fixture = await createEngineFixture('sampling', backend);
  backups.push(fixture.backup);
  // Several backups of the same namespace at different times (seconds apart: well inside a 1h
  // window), each waited for until Completed.
  for (let index = 0; index < EXTRA_BACKUPS; index += 1) {
    const name = uniqueName(`shop-sample-${index}`);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // distinct completion seconds (Velero keeps whole seconds)
    const created = await createBackup(fixture.admin, {
      name,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      ...(backend === 'real-velero' ? { timeoutMs: 120_000 } : {}),
    });
    backups.push(name);
    completedAt.set(name, created.status?.completionTimestamp ?? '');
  }
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('backup-sampling.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 600_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('backupSource.select randomWithin', () => {
  it('chooses among the backups of the window per run, different ones across runs, and every report names its choice', async () => {
    const name = uniqueTestName('sampled');
    const created = await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: {
          backupName: 'latest',
          select: { strategy: 'randomWithin', within: '1h' },
          namespaces: [{ name: fixture.source }],
          providerNamespace: fixture.veleroNamespace,
        },
      }),
    );
    const reports: RestoreReport[] = [];
    for (let run = 1; run <= RUNS; run += 1) {
      await trigger(fixture, name);
      const all = await waitForReports(fixture, name, run, 240_000);
      const newest = all.find((report) => !reports.some((seen) => seen.metadata.name === report.metadata.name))!;
      reports.push(newest);
      // The run is over (report written, sandbox handled) before the next trigger: a running test refuses one.
      await waitFor(async () => (await getRestoreTest(fixture, name)).status?.currentRun === undefined, {
        timeoutMs: 60_000,
        description: `run ${run} of ${name} to end`,
      });
    }
    const uid = created.metadata.uid!;
    for (const report of reports) {
      const { backup } = report.spec;
      const selection = backup.selection!;
      console.log(`[observe] run ${report.spec.runId}: ${selection.reason}`);
      expect(backups).toContain(backup.name);
      expect(selection).toMatchObject({ strategy: 'randomWithin', within: '1h', candidates: backups.length });
      expect(selection.fallback).toBeUndefined();
      // Auditable: the seed is the test uid and run id's, and the sentence names the backup.
      expect(selection.seed).toBe(samplingSeed(uid, report.spec.runId));
      expect(selection.reason).toContain(`backup ${backup.name}`);
      expect(selection.reason).toContain(`chose #${selection.chosen} newest first`);
      expect(selection.windowEnd).toBe(new Date(report.spec.startedAt).toISOString());
      // The position recorded is that of the seed among the candidates, newest first.
      expect(selection.chosen).toBe((Number.parseInt(selection.seed, 16) % backups.length) + 1);
      expect(report.spec.result).not.toBe('fail');
    }
    // The chosen position must match the named backup's place among the candidates by completion
    // time, newest first (ties, which the 1.1 s gaps avoid, by name descending).
    const first = await getVeleroBackup(fixture, fixture.backup);
    completedAt.set(fixture.backup, first.status?.completionTimestamp ?? '');
    const byCompletion = [...backups].sort(
      (left, right) => Date.parse(completedAt.get(right)!) - Date.parse(completedAt.get(left)!) || (right < left ? -1 : 1),
    );
    for (const report of reports) {
      expect(byCompletion[report.spec.backup.selection!.chosen! - 1]).toBe(report.spec.backup.name);
    }
    // Six seeded draws over five candidates: all six the same has probability 5 × (1/5)^6 ≈ 0.03 %.
    expect(new Set(reports.map((report) => report.spec.backup.name)).size).toBeGreaterThan(1);
  });

  it('is refused by the apiserver (CEL) with a named backup or a window under 1h', async () => {
    const name = uniqueTestName('sampled-named');
    // (The fallback to latest needs backups older than the 1h minimum window: covered by
    // test/unit/domain/backup-sampling.test.ts, not here.)
    await expect(
      createRestoreTest(
        fixture,
        restoreTestBody(fixture, name, {
          backupSource: {
            backupName: fixture.backup,
            select: { strategy: 'randomWithin', within: '1h' },
            namespaces: [{ name: fixture.source }],
            providerNamespace: fixture.veleroNamespace,
          },
        }),
      ),
    ).rejects.toThrow(/randomWithin needs backupName latest/);
    await expect(
      createRestoreTest(
        fixture,
        restoreTestBody(fixture, uniqueTestName('sampled-short'), {
          backupSource: {
            backupName: 'latest',
            select: { strategy: 'randomWithin', within: '30m' },
            namespaces: [{ name: fixture.source }],
            providerNamespace: fixture.veleroNamespace,
          },
        }),
      ),
    ).rejects.toThrow(/within must be between 1h and 8784h/);
  });
});

async function getVeleroBackup(engine: EngineFixture, name: string): Promise<{ status?: { completionTimestamp?: string } }> {
  return (await engine.custom.getNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: engine.veleroNamespace,
    plural: 'backups',
    name,
  })) as { status?: { completionTimestamp?: string } };
}
