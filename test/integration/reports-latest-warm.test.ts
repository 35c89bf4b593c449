// /reports?latest=true kept warm on the real server and control plane: after a query was asked,
// a report written through the apiserver is built into its answer by the server's background pass
// (server/api/services/latest-lists.ts), so the next request does not read it; and that request
// still answers with it first. Without the pass the request reads the new report itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { LATEST_WARM_INTERVAL_MS } from '../../server/api/services/latest-lists.js';
import type { RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { makeReport, makeRestoreTest } from '../fixtures/evidence/reports.js';
import { createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName, waitFor } from '../helpers/kube.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const kubeConfig = testKubeConfig();
const custom = kubeConfig.makeApiClient(CustomObjectsApi);
let namespace: string;
let server: Rehearsal;

async function create<T>(plural: string, body: T): Promise<T> {
  return (await custom.createNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace, plural, body })) as T;
}

async function latest(): Promise<RestoreReport[]> {
  const response = await fetch(`http://127.0.0.1:${server.port()}/api/v1/reports?latest=true&days=30&namespace=${namespace}`);
  expect(response.status).toBe(200);
  return (await response.json()) as RestoreReport[];
}

beforeAll(async () => {
  namespace = await createNamespace(kubeConfig, uniqueName('latestwarm'));
  server = await startInProcess({ kubeconfigPath: testKubeconfigPath(), extra: { REHEARSAL_NAMESPACE: namespace } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await deleteNamespaces(kubeConfig, [namespace]);
});

describe('reports?latest=true kept warm', () => {
  it('builds a new report into a recently asked answer before the next request, which still shows it', async () => {
    const start = new Date(Date.now() - 10 * 86_400_000);
    const tests: RestoreTest[] = [];
    for (const name of ['alpha', 'beta', 'gamma']) {
      const template = makeRestoreTest(name, ['shop']);
      template.metadata = { name, namespace };
      tests.push(await create<RestoreTest>('restoretests', template));
    }
    const write = (test: RestoreTest, day: number) => {
      const report = makeReport(test, day, start, { result: day % 2 ? 'fail' : 'pass', rtoSeconds: 300 + day });
      report.metadata = { name: `${test.metadata.name}-${day}`, namespace };
      report.spec.testRef = { name: test.metadata.name, namespace, uid: test.metadata.uid! };
      return create<RestoreReport>('restorereports', report);
    };
    for (const test of tests) await write(test, 0);
    await waitFor(async () => ((await latest()).length === 3 ? true : undefined), { description: 'three latest reports' });

    // Who reads the new report's whole JSON, and when (the server's own cache, patched in place).
    const cache = server.cache;
    const fullReport = cache.fullReport.bind(cache);
    const newKey = `${namespace}/beta-1`;
    let duringRequest = false;
    const reads = { before: 0, during: 0 };
    cache.fullReport = (key: string) => {
      if (key === newKey) reads[duringRequest ? 'during' : 'before'] += 1;
      return fullReport(key);
    };
    try {
      await write(tests[1]!, 1);
      await waitFor(async () => (cache.reportIndex.runOf(newKey) ? true : undefined), { description: 'the informer has the new report' });
      // No request meanwhile: two intervals of the background pass.
      await new Promise((resolve) => setTimeout(resolve, 2 * LATEST_WARM_INTERVAL_MS + 500));
      expect(reads.before).toBeGreaterThan(0);

      duringRequest = true;
      const answer = await latest();
      duringRequest = false;
      expect(reads.during).toBe(0);
      // The new run first, one report per test: the answer is not older than the data.
      expect(answer.map((report) => report.metadata.name).sort()).toEqual(['alpha-0', 'beta-1', 'gamma-0']);
      expect(answer[0]!.metadata.name).toBe('beta-1');
      expect(answer[0]!.spec.result).toBe('fail');
    } finally {
      cache.fullReport = fullReport;
    }
  }, 60_000);
});
