// The per-test gauges survive restarts: a server that starts (or restarts) with no new run exports
// the last run's time, score, result, RTO and target at once, from the newest RestoreReport in its
// cache, so RestoreTestNotRun can fire after a crash loop and does not fire falsely after a failover.
import { afterAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { makeReport, makeRestoreTest } from '../fixtures/evidence/reports.js';
import {
  createNamespace,
  deleteNamespaces,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
} from '../helpers/kube.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const kubeConfig = testKubeConfig();
const custom = kubeConfig.makeApiClient(CustomObjectsApi);
const namespaces: string[] = [];
const servers: Rehearsal[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
  await deleteNamespaces(kubeConfig, namespaces);
});

async function create<T>(plural: string, namespace: string, body: T): Promise<T> {
  return (await custom.createNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace,
    plural,
    body,
  })) as T;
}

/** The value of one series of /metrics, e.g. sample(text, 'rehearsal_score', {test: 'x'}). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)),
    );
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

async function startServer(namespace: string): Promise<Rehearsal> {
  // The engine runs too (leader election on), so "no new run" is the engine's own decision: the
  // test's cron (02:00 daily) is not due and the missed instant is older than the 1-hour window.
  const server = await startInProcess({
    kubeconfigPath: testKubeconfigPath(),
    leaderElection: true,
    leaseName: 'rehearsal-gauges',
    extra: { REHEARSAL_NAMESPACE: namespace },
  });
  servers.push(server);
  return server;
}

async function metrics(server: Rehearsal): Promise<string> {
  return (await fetch(`http://127.0.0.1:${server.port()}/metrics`)).text();
}

describe('per-test gauges after a restart', () => {
  it('are exported right after start and after a restart, from the newest report, with no new run', async () => {
    const namespace = await createNamespace(kubeConfig, uniqueName('gauges'));
    namespaces.push(namespace);
    const template = makeRestoreTest('nightly', ['shop'], { maxRTO: '10m', cron: '0 2 * * *' });
    template.metadata = { name: 'nightly', namespace };
    const test = await create<RestoreTest>('restoretests', namespace, template);
    const start = new Date(Date.now() - 5 * 86_400_000);
    const reports: RestoreReport[] = [];
    for (const [index, shape] of [
      { result: 'pass', rtoSeconds: 300 },
      { result: 'fail', rtoSeconds: 720 },
    ].entries()) {
      const report = makeReport(test, index, start, shape as { result: 'pass' | 'fail'; rtoSeconds: number });
      report.metadata = { name: `nightly-${index}`, namespace };
      report.spec.testRef = { name: 'nightly', namespace, uid: test.metadata.uid! };
      reports.push(await create<RestoreReport>('restorereports', namespace, report));
    }
    const newest = reports[1]!;
    const labels = { namespace, test: 'nightly' };

    for (const phase of ['start', 'restart']) {
      const server = await startServer(namespace);
      const text = await metrics(server);
      expect({
        phase,
        completed: sample(text, 'rehearsal_last_run_completed_timestamp_seconds', labels),
      }).toEqual({
        phase,
        completed: Date.parse(newest.spec.completedAt) / 1000,
      });
      expect(sample(text, 'rehearsal_score', labels)).toBe(newest.spec.score);
      expect(sample(text, 'rehearsal_previous_score', labels)).toBe(reports[0]!.spec.score);
      expect(sample(text, 'rehearsal_last_run_result', { ...labels, result: 'fail' })).toBe(1);
      expect(sample(text, 'rehearsal_last_run_result', { ...labels, result: 'pass' })).toBe(0);
      expect(sample(text, 'rehearsal_rto_seconds', labels)).toBe(newest.spec.rto.measuredSeconds);
      expect(sample(text, 'rehearsal_rto_target_seconds', labels)).toBe(600);
      expect(sample(text, 'rehearsal_schedule_interval_seconds', labels)).toBe(86_400);
      expect(sample(text, 'rehearsal_test_created_timestamp_seconds', labels)).toBe(
        Date.parse(test.metadata.creationTimestamp!) / 1000,
      );
      expect(sample(text, 'rehearsal_test_suspended', labels)).toBe(0);
      await server.stop();
      servers.pop();
    }
    // Nothing ran in between: still the same two reports.
    const list = (await custom.listNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'restorereports',
    })) as { items: RestoreReport[] };
    expect(list.items).toHaveLength(2);
  });
});
