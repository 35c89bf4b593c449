// Loads the benchmark's population into Kymaros's CRDs through the apiserver: the same tests and
// runs as bench:api's (test/bench/bench-data.ts), mapped by kymaros-mapping.ts. Tests and reports
// are created and their status written through the status subresource, as Kymaros's controller
// writes them. Data already present in the same counts is reused.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { restoreReport, restoreTest, testShape, testStatus, type BenchTestShape } from '../bench-data.js';
import { forEachBounded, type KubeBulkClient } from '../kube-bulk.js';
import {
  KYMAROS_NAMESPACE,
  kymarosReportName,
  mapReport,
  mapReportStatus,
  mapTest,
  mapTestStatus,
} from './kymaros-mapping.js';

const run = promisify(execFile);
const GROUP_PATH = `/apis/restore.kymaros.io/v1alpha1/namespaces/${KYMAROS_NAMESPACE}`;

export interface KymarosLoad {
  reused: boolean;
  seconds: number;
  reportsPerSecond: number;
}

/** Installs the CRDs of the given Kymaros source tree (config/crd/bases). */
export async function installKymarosCrds(kubeconfig: string, sourceDir: string): Promise<void> {
  const kubectl = (...rest: string[]) => run('kubectl', ['--kubeconfig', kubeconfig, ...rest]);
  await kubectl(
    'apply',
    '--server-side',
    '--force-conflicts',
    '-f',
    path.join(sourceDir, 'config/crd/bases'),
  );
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/restoretests.restore.kymaros.io',
    'crd/restorereports.restore.kymaros.io',
  );
}

async function count(kube: KubeBulkClient, plural: string): Promise<number> {
  const response = await kube.request<{ items: unknown[]; metadata: { remainingItemCount?: number } }>(
    'GET',
    `${GROUP_PATH}/${plural}?limit=1`,
  );
  if (response.status !== 200) throw new Error(`list ${plural}: HTTP ${response.status}`);
  return response.body.items.length + (response.body.metadata.remainingItemCount ?? 0);
}

async function withRetry<T>(
  label: string,
  attempt: () => Promise<{ status: number; body: T }>,
  ok: number[],
) {
  for (let tries = 1; ; tries += 1) {
    const response = await attempt();
    if (ok.includes(response.status)) return response;
    // 429 (apiserver max-in-flight) and 5xx under load: back off and retry a few times.
    if ((response.status === 429 || response.status >= 500) && tries < 8) {
      await new Promise((resolve) => setTimeout(resolve, 100 * tries));
      continue;
    }
    throw new Error(`${label}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  }
}

/** Creates the object (or finds it) and writes its status; returns its uid. */
async function put(
  kube: KubeBulkClient,
  plural: string,
  object: { metadata: { name: string } },
  status: unknown,
) {
  const label = `${plural}/${object.metadata.name}`;
  let created = await withRetry(
    label,
    () => kube.request<{ metadata: { uid: string } }>('POST', `${GROUP_PATH}/${plural}`, object),
    [201, 409],
  );
  if (created.status === 409)
    created = await withRetry(
      label,
      () =>
        kube.request<{ metadata: { uid: string } }>('GET', `${GROUP_PATH}/${plural}/${object.metadata.name}`),
      [200],
    );
  await withRetry(
    `${label} status`,
    () =>
      kube.request(
        'PATCH',
        `${GROUP_PATH}/${plural}/${object.metadata.name}/status`,
        { status },
        'application/merge-patch+json',
      ),
    [200],
  );
  return created.body.metadata.uid;
}

export async function loadKymarosData(options: {
  kube: KubeBulkClient;
  testCount: number;
  days: number;
  now: number;
  concurrency: number;
  log: (message: string) => void;
}): Promise<KymarosLoad> {
  const { kube, testCount, days, now, concurrency, log } = options;
  const t0 = performance.now();
  const namespace = await kube.request('POST', '/api/v1/namespaces', {
    metadata: { name: KYMAROS_NAMESPACE },
  });
  if (namespace.status !== 201 && namespace.status !== 409)
    throw new Error(`create namespace: HTTP ${namespace.status}`);
  const [tests, reports] = [await count(kube, 'restoretests'), await count(kube, 'restorereports')];
  if (tests === testCount && reports === testCount * days) {
    log(`Kymaros data present (${tests} tests, ${reports} reports): load skipped`);
    return { reused: true, seconds: 0, reportsPerSecond: 0 };
  }
  if (tests > testCount || reports > testCount * days)
    throw new Error(
      `${KYMAROS_NAMESPACE} holds more (${tests} tests, ${reports} reports) than asked: use another cluster dir`,
    );

  const shapes: BenchTestShape[] = Array.from({ length: testCount }, (_, index) =>
    testShape(index, testCount),
  );
  const uids = new Map<string, string>();
  await forEachBounded(shapes, concurrency, async (shape) => {
    const status = testStatus(shape, now);
    // The newest report's Kymaros name: its completion time is in the newest report.
    const newest = restoreReport(shape, 0, now, { uid: '' });
    const lastReportRef = kymarosReportName(shape.name, newest.spec.completedAt);
    uids.set(
      shape.name,
      await put(kube, 'restoretests', mapTest(restoreTest(shape)), mapTestStatus(status, lastReportRef)),
    );
  });
  log(`Kymaros RestoreTests: ${testCount} in ${Math.round(performance.now() - t0) / 1000} s`);

  // Oldest day first, as a controller writes them: creationTimestamp keeps the runs' order.
  const jobs: [BenchTestShape, number][] = [];
  for (let runIndex = days - 1; runIndex >= 0; runIndex -= 1)
    for (const shape of shapes) jobs.push([shape, runIndex]);
  const tReports = performance.now();
  let last = tReports;
  await forEachBounded(
    jobs,
    concurrency,
    async ([shape, runIndex]) => {
      const report = restoreReport(shape, runIndex, now, { uid: uids.get(shape.name)! });
      await put(kube, 'restorereports', mapReport(report, uids.get(shape.name)!), mapReportStatus(report));
    },
    (done) => {
      const t = performance.now();
      if (done === jobs.length || t - last > 10_000) {
        last = t;
        log(
          `Kymaros RestoreReports: ${done}/${jobs.length} (${Math.round(done / ((t - tReports) / 1000))}/s)`,
        );
      }
    },
  );
  const reportSeconds = (performance.now() - tReports) / 1000;
  return {
    reused: false,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    reportsPerSecond: Math.round(jobs.length / reportSeconds),
  };
}
