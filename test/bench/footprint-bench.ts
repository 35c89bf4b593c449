// `npm run bench:footprint` — what stored RestoreReports cost the user's control plane (issue 17).
// Starts a private control plane (test/cluster/up.sh, fresh etcd), creates --tests RestoreTests,
// then writes --reports RestoreReports built and signed by the engine's own code
// (footprint-data.ts) through the engine's write path (storeReport of the report writer), and prints
// kube-apiserver and etcd memory at 0, N/2 and N reports after settling, then after a restart of
// the apiserver (the steady state), then with every report deleted and the apiserver restarted
// again (the steady state's baseline). The slope between 0 and N is the cost per stored report. A
// script that prints numbers, not a test. The apiserver's heap profiles are saved beside the JSON
// result (test/.tmp/bench-footprint-<write>-{0,restarted,restarted-empty}.heap.pb.gz; read them
// with go tool pprof -base ... -peek: -traces also lists freed samples, with 0 bytes in use).
//
//   npm run bench:footprint -- [--reports 10000] [--tests 100] [--concurrency 16] [--settle 30]
//                              [--write current|legacy|cleared] [--cluster-dir DIR] [--keep-cluster]
//
// --write legacy creates reports as commit 70f5641 did (a plain create with fieldManager, which
// leaves a managedFields entry listing every field; all fields; three labels): the "before".
// --write cleared: that create, then managedFields cleared, without packing (to tell the two apart).
// More than 20,000 reports: hold the machine-wide lock (flock /tmp/rehearsal-bigbench.lock ...).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { storeReport } from '../../server/engine/run/report-writer.js';
import { API_VERSION, LABEL_MANAGED_BY, LABEL_RUN, MANAGED_BY_VALUE, type RestoreReport, type RestoreTest } from '../../server/domain/resources/resources.js';
import { generateSigningKey } from '../../server/evidence/signing-key.js';
import { loadKubeConfig } from '../../server/kube/client.js';
import { isKind, kubeCall } from '../../server/kube/errors.js';
import { FIELD_MANAGER, RehearsalClient } from '../../server/kube/rehearsal-client.js';
import { BENCH_NAMESPACE, restoreTest, testShape } from './bench-data.js';
import { ControlPlaneMemory, type MemorySample } from './control-plane-memory.js';
import { ChainSigner } from './footprint-data.js';
import { forEachBounded } from './kube-bulk.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const { values: args } = parseArgs({
  options: {
    'cluster-dir': { type: 'string', default: path.join(tmpdir(), 'rehearsal-footprint-cluster') },
    'keep-cluster': { type: 'boolean', default: false },
    reports: { type: 'string', default: '10000' },
    tests: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '16' },
    settle: { type: 'string', default: '30' },
    write: { type: 'string', default: 'current' },
  },
  strict: true,
});
const reportCount = Number(args.reports);
const testCount = Number(args.tests);
const settleSeconds = Number(args.settle);
if (!['current', 'legacy', 'cleared'].includes(args.write!)) throw new Error('--write is current, legacy or cleared');
if (reportCount > 20_000 && !process.env.REHEARSAL_BIGBENCH_LOCKED) {
  throw new Error('more than 20,000 reports: run under flock /tmp/rehearsal-bigbench.lock with REHEARSAL_BIGBENCH_LOCKED=1');
}

function log(message: string): void {
  console.error(`[footprint] ${message}`);
}

const quiet = pino({ level: 'warn' });
const mb = (bytes: number): string => (bytes / 1_048_576).toFixed(1);
const kb = (bytes: number): string => (bytes / 1024).toFixed(1);

async function main(): Promise<void> {
  const dir = args['cluster-dir']!;
  // Always a fresh control plane: the first sample must be of an apiserver that never held reports.
  await run('bash', [path.join(repoRoot, 'test/cluster/down.sh'), dir]);
  const t0 = performance.now();
  const { stdout } = await run('bash', [path.join(repoRoot, 'test/cluster/up.sh'), dir], { cwd: repoRoot });
  const kubeconfig = stdout.trim().split('\n').pop()!;
  const bin = (await run('bash', [path.join(repoRoot, 'test/cluster/build-binaries.sh')])).stdout.trim().split('\n').pop()!;
  const kubectl = path.join(bin, 'kubectl');
  log(`control plane ready in ${Math.round((performance.now() - t0) / 1000)} s (${dir})`);
  try {
    await measure(dir, kubeconfig, kubectl);
  } finally {
    if (!args['keep-cluster']) await run('bash', [path.join(repoRoot, 'test/cluster/down.sh'), dir]);
  }
}

async function measure(dir: string, kubeconfig: string, kubectl: string): Promise<void> {
  await run(kubectl, ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-k', path.join(repoRoot, 'crds')]);
  await run(kubectl, ['--kubeconfig', kubeconfig, 'wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  const kubeConfig = loadKubeConfig(kubeconfig, 60_000);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const client = new RehearsalClient(custom);
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });

  const shapes = Array.from({ length: testCount }, (_, index) => testShape(index, testCount));
  const tests: RestoreTest[] = [];
  for (const shape of shapes) tests.push(await client.createTest(restoreTest(shape)));
  const memory = new ControlPlaneMemory(dir, kubectl, kubeconfig);
  const key = generateSigningKey();
  const signers = tests.map(() => new ChainSigner(key));
  const start = Date.UTC(2026, 0, 1);

  // A loaded machine drops a request now and then: retry it (a create that did land answers
  // AlreadyExists, which storeReport handles as the engine does).
  const write = async (report: RestoreReport): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await writeOnce(report);
      } catch (error) {
        if (attempt >= 5 || !isKind(error, 'Unavailable', 'Other')) throw error;
        log(`retrying ${report.metadata.name}: ${(error as Error).message}`);
      }
    }
  };
  const writeOnce = async (report: RestoreReport): Promise<void> => {
    if (args.write === 'current') {
      await storeReport(client, report, quiet);
      return;
    }
    // As 70f5641 labelled reports: test, run and managed-by; and owned them (ownerReferences, until
    // the fourth cut; the digest is the same with or without, see evidence.ts "owner").
    const labels = { ...report.metadata.labels, [LABEL_RUN]: report.spec.runId, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE };
    const owner = tests.find((test) => test.metadata.name === report.spec.testRef.name)!;
    const ownerReferences = [
      { apiVersion: API_VERSION, kind: 'RestoreTest', name: owner.metadata.name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
    ];
    const labelled: RestoreReport = { ...report, metadata: { ...report.metadata, labels, ownerReferences } };
    try {
      await kubeCall(() =>
        custom.createNamespacedCustomObject({
          group: 'rehearsal.dev',
          version: 'v1alpha1',
          namespace: report.metadata.namespace!,
          plural: 'restorereports',
          body: labelled,
          fieldManager: FIELD_MANAGER,
        }),
      );
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
    }
    if (args.write === 'cleared') await client.clearReportManagedFields(report.metadata.namespace!, report.metadata.name);
  };

  const points: { reports: number; sample: MemorySample; loadSeconds: number }[] = [];
  log(`settling ${settleSeconds} s before the first sample`);
  points.push({ reports: 0, sample: await memory.settled(settleSeconds), loadSeconds: 0 });
  const profile = (point: string): string => path.join(repoRoot, `test/.tmp/bench-footprint-${args.write}-${point}.heap.pb.gz`);
  mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
  await memory.saveHeapProfile(profile('0'));
  let written = 0;
  for (const target of [Math.floor(reportCount / 2), reportCount]) {
    // Run by run across all tests, so each test's chain is written in order.
    const batch: RestoreReport[] = [];
    for (let i = written; i < target; i++) {
      const testIndex = i % testCount;
      batch.push(signers[testIndex]!.next(tests[testIndex]!, shapes[testIndex]!, Math.floor(i / testCount), start));
    }
    const t = performance.now();
    await forEachBounded(batch, Number(args.concurrency), write, (done) => {
      if (done % 1000 === 0) log(`${written + done} reports written`);
    });
    const loadSeconds = (performance.now() - t) / 1000;
    written = target;
    log(`${written} reports (${Math.round(batch.length / loadSeconds)}/s); settling ${settleSeconds} s`);
    points.push({ reports: written, sample: await memory.settled(settleSeconds), loadSeconds });
  }

  log('restarting kube-apiserver (watch cache rebuilt from etcd, no bulk-load event history)');
  await memory.restartApiserver();
  points.push({ reports: -reportCount, sample: await memory.settled(settleSeconds), loadSeconds: 0 });
  await memory.saveHeapProfile(profile('restarted'));

  const one = (await custom.listNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: BENCH_NAMESPACE, plural: 'restorereports', limit: 1 })) as { items: RestoreReport[] };
  const sampleReport = one.items[0]!;

  // The baseline of the steady state: the same control plane, every report deleted, the apiserver
  // restarted again. A restarted apiserver's heap differs from the first one's by a few MB that
  // have nothing to do with reports (what it built lazily since its start: OpenAPI specs,
  // discovery), ±0.5–1 KB per report at N = 3,000; both restarted samples share that history.
  log('deleting every report and restarting kube-apiserver again (baseline of the steady state)');
  // A frozen or loaded apiserver may time the delete out while it goes on: asked again every 30 s.
  for (let i = 0; ; i++) {
    if (i % 30 === 0) {
      await kubeCall(() => custom.deleteCollectionNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: BENCH_NAMESPACE, plural: 'restorereports' })).catch((error: unknown) => {
        if (!isKind(error, 'Unavailable', 'Other')) throw error;
        log(`delete of the reports: ${(error as Error).message}; waiting`);
      });
    }
    const left = await kubeCall(() => custom.listNamespacedCustomObject({ group: 'rehearsal.dev', version: 'v1alpha1', namespace: BENCH_NAMESPACE, plural: 'restorereports', limit: 1 }))
      .then((list) => (list as { items: unknown[] }).items.length)
      .catch((error: unknown) => {
        if (!isKind(error, 'Unavailable', 'Other')) throw error;
        return 1;
      });
    if (left === 0) break;
    if (i >= 600) throw new Error('reports still listed 600 s after the delete');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await memory.restartApiserver();
  const emptyRestarted = await memory.settled(settleSeconds);
  await memory.saveHeapProfile(profile('restarted-empty'));
  const json = JSON.stringify(sampleReport);
  const managed = JSON.stringify((sampleReport.metadata as { managedFields?: unknown }).managedFields ?? []);

  const first = points[0]!.sample;
  const loaded = points.at(-2)!.sample;
  const restarted = points.at(-1)!.sample;
  const per = (pick: (s: MemorySample) => number, last = loaded): string => kb((pick(last) - pick(first)) / reportCount);
  const steady = (pick: (s: MemorySample) => number): string => kb((pick(restarted) - pick(emptyRestarted)) / reportCount);
  const rows = points.map(
    (p) =>
      `| ${(p.reports < 0 ? `${-p.reports} restarted` : String(p.reports)).padStart(6)} | ${mb(p.sample.apiserverRssBytes).padStart(8)} | ${mb(p.sample.apiserverHeapLiveBytes).padStart(8)} | ${mb(p.sample.etcdRssBytes).padStart(7)} | ${mb(p.sample.etcdDbBytes).padStart(7)} | ${mb(p.sample.etcdDbInUseBytes).padStart(7)} | ${p.sample.load1.toFixed(1).padStart(5)} |`,
  );
  const lines = [
    `write path: ${args.write}; ${reportCount} reports of ${testCount} tests; settle ${settleSeconds} s; one stored report: ${json.length} B JSON, managedFields ${managed.length} B`,
    '| reports | apiserver RSS MB | apiserver live heap MB | etcd RSS MB | etcd db MB | etcd db in use MB | load1 |',
    '| ------: | ---------------: | ---------------------: | ----------: | ---------: | ----------------: | ----: |',
    ...rows,
    `|      0 restarted |    ${mb(emptyRestarted.apiserverRssBytes).padStart(8)} | ${mb(emptyRestarted.apiserverHeapLiveBytes).padStart(8)} | ${mb(emptyRestarted.etcdRssBytes).padStart(7)} | ${mb(emptyRestarted.etcdDbBytes).padStart(7)} | ${mb(emptyRestarted.etcdDbInUseBytes).padStart(7)} | ${emptyRestarted.load1.toFixed(1).padStart(5)} |`,
    `per stored report (slope 0 → ${reportCount}): apiserver RSS ${per((s) => s.apiserverRssBytes)} KB, apiserver live heap ${per((s) => s.apiserverHeapLiveBytes)} KB, etcd RSS ${per((s) => s.etcdRssBytes)} KB, etcd db ${per((s) => s.etcdDbBytes)} KB, etcd db in use ${per((s) => s.etcdDbInUseBytes)} KB`,
    `per stored report after the restart (steady state): apiserver RSS ${per((s) => s.apiserverRssBytes, restarted)} KB, apiserver live heap ${per((s) => s.apiserverHeapLiveBytes, restarted)} KB`,
    `per stored report, restarted with ${reportCount} against restarted with none (steady state, same history): apiserver RSS ${steady((s) => s.apiserverRssBytes)} KB, apiserver live heap ${steady((s) => s.apiserverHeapLiveBytes)} KB`,
    `load: ${points.filter((p) => p.reports >= 0).map((p) => `${p.reports}: ${Math.round(p.loadSeconds)} s`).join(', ')}`,
  ];
  console.log(lines.join('\n'));
  mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
  writeFileSync(
    path.join(repoRoot, `test/.tmp/bench-footprint-${args.write}.json`),
    JSON.stringify({ write: args.write, reportCount, testCount, points, emptyRestarted, reportJsonBytes: json.length, managedFieldsBytes: managed.length, sampleReport }, null, 2),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
