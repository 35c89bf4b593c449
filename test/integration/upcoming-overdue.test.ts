// Overdue runs in GET /api/v1/upcoming on the real control plane. While the engine is down (an API
// replica only, REHEARSAL_CONTROLLER=false) a test whose status.nextRunAt passed two hours ago, and
// one whose scheduled run waits in the queue, come first with `overdue: true`. Once an engine runs
// again it recomputes nextRunAt from the cron (the next hour): the test is no longer overdue.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createRehearsalClient } from '../../openapi/client.js';
import { API_VERSION, type RestoreTest } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const admin = testKubeConfig();
const custom = admin.makeApiClient(CustomObjectsApi);
const namespace = uniqueName('overdue');
let rehearsal: Rehearsal | undefined;
let kubeconfigPath: string;
const minutesAgo = (minutes: number): string =>
  new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

async function createTest(name: string, cron: string): Promise<void> {
  const body: RestoreTest = {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name, namespace },
    spec: {
      provider: 'velero',
      backupSource: { namespaces: [{ name: 'shop' }] },
      schedule: { cron, timezone: 'UTC' },
    },
  };
  await custom.createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'restoretests',
    body,
  });
}

async function writeStatus(name: string, status: RestoreTest['status']): Promise<void> {
  await custom.patchNamespacedCustomObjectStatus(
    {
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'restoretests',
      name,
      body: { status },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function upcomingHere(server: Rehearsal) {
  const api = createRehearsalClient({ baseUrl: `http://127.0.0.1:${server.port()}` });
  const { data, response } = await api.GET('/api/v1/upcoming');
  expect(response.status).toBe(200);
  return (data ?? []).filter((entry) => entry.namespace === namespace);
}

beforeAll(async () => {
  await createNamespace(admin, namespace);
  kubeconfigPath = await rehearsalKubeconfig('upcoming-overdue.kubeconfig');
}, 60_000);

afterAll(async () => {
  await rehearsal?.stop();
  await deleteNamespaces(admin, [namespace]);
});

describe('GET /api/v1/upcoming with the engine down, then back', () => {
  it('lists overdue runs first, marked; an engine back at work clears them', async () => {
    const stalled = minutesAgo(120);
    const queuedAt = minutesAgo(10);
    await createTest('stalled', '0 * * * *');
    await createTest('waiting', '0 3 * * *');
    await createTest('later', '0 3 * * *');
    await writeStatus('stalled', { phase: 'Completed', lastScore: 93, nextRunAt: stalled });
    await writeStatus('waiting', {
      phase: 'Running',
      nextRunAt: new Date(Date.now() + 20 * 3600_000).toISOString(),
      currentRun: { id: 'q1w2e', trigger: 'schedule', scheduledAt: queuedAt, queuedAt, stage: 'Queued' },
    });
    const later = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await writeStatus('later', { phase: 'Idle', nextRunAt: later });

    rehearsal = await startInProcess({ kubeconfigPath, extra: { REHEARSAL_CONTROLLER: 'false' } });
    const entries = await waitFor(
      async () => {
        const found = await upcomingHere(rehearsal!);
        return found.length === 3 ? found : undefined;
      },
      { timeoutMs: 20_000, description: 'the three tests in upcoming' },
    );
    expect(entries.map((entry) => [entry.name, entry.nextRunAt, entry.overdue])).toEqual([
      ['stalled', stalled, true],
      ['waiting', queuedAt, true],
      ['later', later, false],
    ]);
    expect(entries[0]!.lastScore).toBe(93);
    await rehearsal.stop();
    rehearsal = undefined;

    // The engine is back; the queued run is withdrawn first (this cluster has no backup to restore).
    await writeStatus('waiting', { phase: 'Idle', currentRun: null as never });
    rehearsal = await startInProcess({ kubeconfigPath });
    const recovered = await waitFor(
      async () => {
        const found = await upcomingHere(rehearsal!);
        const entry = found.find((each) => each.name === 'stalled');
        return entry && entry.nextRunAt !== stalled ? found : undefined;
      },
      { timeoutMs: 30_000, description: 'the engine advancing nextRunAt of stalled' },
    );
    expect(recovered.filter((entry) => entry.overdue)).toEqual([]);
    expect(Date.parse(recovered.find((entry) => entry.name === 'stalled')!.nextRunAt)).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });
});
