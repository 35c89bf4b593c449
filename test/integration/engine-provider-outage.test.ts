// A backup provider that stops answering in the middle of a run: the run must not hold its slot
// until the sandbox ttl. After REHEARSAL_PROVIDER_UNAVAILABLE_SECONDS it fails with the reason
// ProviderUnavailable, writes its report (evidence of the failed run) and frees its slot.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { loadKubeConfig } from '../../server/kube/client.js';
import { ProviderError, type BackupProvider } from '../../server/providers/provider.js';
import { VeleroProvider } from '../../server/providers/velero/velero.provider.js';
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
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { metricLine, startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let reachable = true;
const progressCalls: string[] = [];

beforeAll(async () => {
  fixture = await createEngineFixture('outage');
  const kubeconfigPath = await rehearsalKubeconfig('engine-outage.kubeconfig');
  // The real Velero provider, except that its restore-progress reads can be cut off.
  const velero = new VeleroProvider(loadKubeConfig(kubeconfigPath), { namespace: fixture.veleroNamespace });
  const flaky: BackupProvider = {
    name: 'velero',
    selectBackup: (...args) => velero.selectBackup(...args),
    startRestore: (...args) => velero.startRestore(...args),
    getRestoreProgress: async (ref) => {
      progressCalls.push(ref.name);
      if (!reachable) throw new ProviderError('ProviderUnavailable', 'the Velero API does not answer (simulated outage)');
      return velero.getRestoreProgress(ref);
    },
    deleteRestore: (ref) => velero.deleteRestore(ref),
  };
  rehearsal = await startInProcess(
    {
      kubeconfigPath,
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      extra: { REHEARSAL_PROVIDER_UNAVAILABLE_SECONDS: '3' },
    },
    { providers: { velero: flaky } },
  );
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('a provider outage during a run', () => {
  it('fails the run with ProviderUnavailable after the bound, with a report, and frees its slot', async () => {
    reachable = false;
    const name = uniqueTestName('outage');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    await trigger(fixture, name);
    const outage = await waitFor(async () => (await getRestoreTest(fixture, name)).status?.currentRun?.providerUnavailableSince, {
      description: 'the outage recorded in status',
    });
    const [report] = await waitForReports(fixture, name, 1, 90_000);
    expect(report!.spec.result).toBe('fail');
    expect(report!.spec.failure?.reason).toBe('ProviderUnavailable');
    expect(report!.spec.failure?.message).toMatch(/simulated outage/);
    // The bound (3 s) passed between the outage's start and the report, not the ttl (1h).
    const waited = (Date.parse(report!.spec.completedAt) - Date.parse(outage)) / 1000;
    expect(waited).toBeGreaterThanOrEqual(3);
    expect(waited).toBeLessThan(60);
    expect(progressCalls.length).toBeGreaterThan(1);

    const test = await waitFor(async () => {
      const current = await getRestoreTest(fixture, name);
      return current.status?.currentRun ? undefined : current;
    }, { description: 'the run to end' });
    expect(test.status?.phase).toBe('Failed');
    expect(test.status?.lastReport).toBe(report!.metadata.name);
    await waitFor(async () => (await metricLine(rehearsal, 'rehearsal_runs_in_progress')) === 'rehearsal_runs_in_progress 0', {
      description: 'rehearsal_runs_in_progress 0',
    });
  });
});
