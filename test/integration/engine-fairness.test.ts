// Per-namespace fairness of the run queue on the real control plane (decision 0009): with two run
// slots, one tenant queues eight slow runs at once; another tenant's run, queued a moment later,
// takes the first slot that frees instead of waiting behind all eight (first-come first-served
// would start it last).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { metricLine, startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

let fixture: EngineFixture;
let otherTenant: EngineFixture;
let rehearsal: Rehearsal;
const slowBackup = uniqueName('slow');

beforeAll(async () => {
  fixture = await createEngineFixture('fair');
  otherTenant = { ...fixture, testNamespace: uniqueName('fair-quiet') };
  await createNamespace(fixture.admin, otherTenant.testNamespace);
  await createBackup(fixture.admin, {
    name: slowBackup,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    annotations: { 'simulator.rehearsal.dev/restore-delay-ms': '3000' },
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('engine-fairness.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    maxConcurrentRuns: 2,
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, otherTenant.testNamespace, fixture.veleroNamespace]);
});

describe('the run queue', () => {
  it('gives a quiet tenant the next free slot, ahead of a busy tenant’s older queued runs', async () => {
    const slow = { backupSource: { backupName: slowBackup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace } };
    const busy = Array.from({ length: 8 }, (_, index) => uniqueTestName(`busy-${index}`));
    for (const name of busy) await createRestoreTest(fixture, restoreTestBody(fixture, name, slow));
    const quiet = uniqueTestName('quiet');
    await createRestoreTest(otherTenant, restoreTestBody(otherTenant, quiet, slow));

    for (const name of busy) await trigger(fixture, name);
    await new Promise((resolve) => setTimeout(resolve, 500)); // every busy run is queued first
    await trigger(otherTenant, quiet);

    const [quietReport] = await waitForReports(otherTenant, quiet, 1, 150_000);
    const busyReports = await Promise.all(busy.map(async (name) => (await waitForReports(fixture, name, 1, 150_000))[0]!));
    const quietStart = Date.parse(quietReport!.spec.startedAt);
    const busyBefore = busyReports.filter((report) => Date.parse(report.spec.startedAt) < quietStart).length;
    console.log(`[measure] fairness: ${busyBefore} of 8 earlier-queued busy runs started before the quiet tenant's run`);
    // Two were running when it queued, at most one more may have been promoted meanwhile; FIFO: all 8.
    expect(busyBefore).toBeLessThanOrEqual(3);
    expect(await metricLine(rehearsal, 'rehearsal_runs_in_progress')).toBe('rehearsal_runs_in_progress 0');
  }, 240_000);
});
