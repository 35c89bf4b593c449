// Scheduling on the real control plane: cron in a test's own time zone, suspend, refusing a second
// trigger during a run, history pruning and the removal of a deleted test's reports, and a burst of
// 50 tests due at the same minute under a concurrency limit of 5.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  listReports,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { metricLine, startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;

beforeAll(async () => {
  fixture = await createEngineFixture('sched');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('engine-scheduling.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    maxConcurrentRuns: 5,
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

/** The next whole minute at least `leadSeconds` ahead, and its wall-clock fields in `timeZone`. */
function nextMinute(timeZone: string, leadSeconds = 15): { instant: Date; minute: number; hour: number } {
  const now = Date.now();
  let instant = Math.ceil(now / 60_000) * 60_000;
  if (instant - now < leadSeconds * 1000) instant += 60_000;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(new Date(instant));
  const field = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  return { instant: new Date(instant), minute: field('minute'), hour: field('hour') };
}

describe('scheduling', () => {
  it('runs at its cron time in a non-UTC time zone, and a suspended test does not run', async () => {
    const zone = 'Asia/Kathmandu'; // UTC+05:45: a cron read as UTC would fire at another instant
    const due = nextMinute(zone);
    const scheduled = uniqueTestName('kathmandu');
    const suspended = uniqueTestName('suspended');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, scheduled, {
        schedule: { cron: `${due.minute} ${due.hour} * * *`, timezone: zone },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, suspended, { schedule: { cron: '* * * * *', timezone: 'UTC', suspend: true } }),
    );
    const before = await waitFor(async () => (await getRestoreTest(fixture, scheduled)).status?.nextRunAt, {
      description: 'nextRunAt in status',
    });
    expect(before).toBe(due.instant.toISOString());

    const [report] = await waitForReports(fixture, scheduled, 1, 120_000);
    expect(report!.spec.trigger).toBe('schedule');
    expect(report!.spec.scheduledAt).toBe(due.instant.toISOString());
    const startDelay = (Date.parse(report!.spec.startedAt) - due.instant.getTime()) / 1000;
    console.log(`[measure] cron instant → run start: ${startDelay.toFixed(3)} s`);
    expect(startDelay).toBeGreaterThanOrEqual(0);
    expect(startDelay).toBeLessThan(5);
    const after = await getRestoreTest(fixture, scheduled);
    expect(Date.parse(after.status!.nextRunAt!)).toBe(due.instant.getTime() + 24 * 3600_000);

    expect(await listReports(fixture, suspended)).toEqual([]);
    const idle = await getRestoreTest(fixture, suspended);
    expect(idle.status?.phase).toBe('Idle');
    expect(idle.status?.currentRun).toBeUndefined();
  }, 180_000);

  it('refuses a second trigger while a run is in progress', async () => {
    const backup = `${fixture.backup}-slow`;
    await createBackup(fixture.admin, {
      name: backup,
      namespaces: [fixture.source],
      veleroNamespace: fixture.veleroNamespace,
      annotations: { 'simulator.rehearsal.dev/restore-delay-ms': '3000' },
    });
    const name = uniqueTestName('twice');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      }),
    );
    await trigger(fixture, name);
    await waitFor(async () => (await getRestoreTest(fixture, name)).status?.phase === 'Running', {
      description: 'phase Running',
    });
    const second = await trigger(fixture, name);
    await waitFor(async () => (await getRestoreTest(fixture, name)).status?.handledTrigger === second, {
      description: 'the second trigger to be handled',
    });
    const reports = await waitForReports(fixture, name, 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await listReports(fixture, name)).toHaveLength(reports.length);
    expect(reports).toHaveLength(1);
    const events = await fixture.admin.makeApiClient(CoreV1Api).listNamespacedEvent({
      namespace: fixture.testNamespace,
      fieldSelector: `involvedObject.name=${name}`,
    });
    expect(events.items.map((event) => event.reason)).toContain('TriggerRefused');
  });

  it('prunes the oldest reports beyond historyLimit, and deleting the test removes its reports', async () => {
    const name = uniqueTestName('history');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, { historyLimit: 2 }));
    const runIds: string[] = [];
    for (let run = 1; run <= 3; run++) {
      await trigger(fixture, name);
      const newest = await waitFor(
        async () => {
          const all = await listReports(fixture, name);
          const fresh = all.find((report) => !runIds.includes(report.spec.runId));
          const test = await getRestoreTest(fixture, name);
          return fresh && !test.status?.currentRun ? fresh : undefined;
        },
        { timeoutMs: 60_000, description: `report of run ${run}` },
      );
      runIds.push(newest.spec.runId);
    }
    const remaining = await waitFor(
      async () => {
        const all = await listReports(fixture, name);
        return all.length === 2 ? all : undefined;
      },
      { description: 'two reports to remain' },
    );
    expect(remaining.map((report) => report.spec.runId).sort()).toEqual(runIds.slice(1).sort());

    await fixture.custom.deleteNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restoretests',
      name,
    });
    await waitFor(async () => (await listReports(fixture, name)).length === 0, {
      timeoutMs: 90_000,
      intervalMs: 1000,
      description: 'the server to remove the reports (report cascade)',
    });
  }, 180_000);

  it('runs 50 tests due at the same minute, five at a time, each exactly once', async () => {
    const due = nextMinute('UTC', 20);
    const names = Array.from({ length: 50 }, (_, index) => `burst-${index}-${due.minute}`);
    await Promise.all(
      names.map((name) =>
        createRestoreTest(
          fixture,
          restoreTestBody(fixture, name, { schedule: { cron: `${due.minute} ${due.hour} * * *`, timezone: 'UTC' } }),
        ),
      ),
    );
    const reports = await waitFor(
      async () => {
        const all = (await listReports(fixture)).filter((report) => names.includes(report.spec.testRef.name));
        return all.length >= 50 ? all : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 1000, description: '50 reports' },
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const final = (await listReports(fixture)).filter((report) => names.includes(report.spec.testRef.name));
    const perTest = new Map<string, RestoreReport[]>();
    for (const report of final) perTest.set(report.spec.testRef.name, [...(perTest.get(report.spec.testRef.name) ?? []), report]);
    expect(perTest.size).toBe(50);
    expect([...perTest.values()].every((list) => list.length === 1)).toBe(true);
    expect(final.every((report) => report.spec.trigger === 'schedule' && report.spec.scheduledAt === due.instant.toISOString())).toBe(true);

    // Concurrency never exceeded the limit: count overlapping [startedAt, completedAt] intervals.
    const edges = final.flatMap((report) => [
      { at: Date.parse(report.spec.startedAt), delta: 1 },
      { at: Date.parse(report.spec.completedAt), delta: -1 },
    ]);
    edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let running = 0;
    let peak = 0;
    for (const edge of edges) {
      running += edge.delta;
      peak = Math.max(peak, running);
    }
    const lastStart = Math.max(...final.map((report) => Date.parse(report.spec.startedAt)));
    const lastEnd = Math.max(...final.map((report) => Date.parse(report.spec.completedAt)));
    console.log(
      `[measure] 50 due runs: peak concurrency ${peak}, last start ${(lastStart - due.instant.getTime()) / 1000}s after the cron instant, all done after ${(lastEnd - due.instant.getTime()) / 1000}s`,
    );
    expect(peak).toBeLessThanOrEqual(5);
    expect(peak).toBeGreaterThanOrEqual(2);
    // Every slot came back: none was lost to a run's end racing the cache.
    expect(await metricLine(rehearsal, 'rehearsal_runs_in_progress')).toBe('rehearsal_runs_in_progress 0');
    expect(reports.length).toBeGreaterThanOrEqual(50);
  }, 360_000);
});
