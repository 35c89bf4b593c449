// The benchmark's background of finishing runs: while the read endpoints are measured, one run
// finishes every second, written through the apiserver as the engine writes it (a RestoreReport,
// the test's next run, then the test's status), so the server's caches and prepared answers are
// rebuilt during the measurement, as in a cluster of 1,000 daily tests plus manual triggers.
//
// Its reports carry BACKGROUND_LABEL; the bench deletes them and puts the tests' statuses back
// afterwards (and deletes leftovers of an interrupted run before counting), so a kept cluster still
// holds exactly the loaded data for the next run. Unlike the engine it does not prune the oldest
// report past historyLimit (that would need re-creating them after).
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  BENCH_NAMESPACE,
  digestOf,
  reportName,
  restoreReport,
  testShape,
  type BenchTestShape,
} from './bench-data.js';
import { packReport } from '../../server/report-codec/report-encoding.js';
import type { KubeBulkClient, KubeResponse } from './kube-bulk.js';

export const BACKGROUND_LABEL = 'rehearsal.dev/bench-background';
const GROUP_PATH = '/apis/rehearsal.dev/v1alpha1';
const COLLECTION = `${GROUP_PATH}/namespaces/${BENCH_NAMESPACE}`;

export interface BackgroundStats {
  /** Reports created (and test statuses updated) while running. */
  landed: number;
  failed: number;
  /** Slowest create + status write, ms. */
  maxWriteMs: number;
}

/**
 * Deletes the background reports of earlier runs (a kept cluster must hold the loaded data only).
 * Listed from the apiserver's watch cache (resourceVersion=0) and deleted one by one: a DELETE of
 * the collection with a label selector reads every report from etcd, over a minute at 30,000.
 */
export async function deleteBackgroundReports(kube: KubeBulkClient): Promise<void> {
  const selector = encodeURIComponent(`${BACKGROUND_LABEL}=true`);
  const listed = await retried('list background reports', () =>
    kube.request<{ items?: { metadata: { name: string } }[] }>(
      'GET',
      `${COLLECTION}/restorereports?labelSelector=${selector}&resourceVersion=0`,
    ),
  );
  for (const item of listed?.items ?? []) {
    await retried(`delete ${item.metadata.name}`, () =>
      kube.request('DELETE', `${COLLECTION}/restorereports/${item.metadata.name}`),
    );
  }
}

/** 200 → the body; 404 → undefined; 429 and 5xx (a fresh apiserver, or under load) → retried. */
async function retried<T>(what: string, call: () => Promise<KubeResponse<T>>): Promise<T | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await call();
    if (response.status === 200) return response.body;
    if (response.status === 404) return undefined;
    if ((response.status !== 429 && response.status < 500) || attempt >= 20) {
      throw new Error(`${what}: HTTP ${response.status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
}

interface TestObject {
  metadata: { uid: string };
  status?: Record<string, unknown>;
}

export class BackgroundRuns {
  private timer: NodeJS.Timeout | undefined;
  private sequence = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** The evidence digest of each touched test's newest report (what its next report links to). */
  private readonly newestDigest = new Map<string, string>();
  /** The status each touched test had before, to put back. */
  private readonly originalStatus = new Map<string, Record<string, unknown>>();
  readonly stats: BackgroundStats = { landed: 0, failed: 0, maxWriteMs: 0 };

  constructor(
    private readonly kube: KubeBulkClient,
    private readonly testCount: number,
    private readonly intervalMs = 1000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      const write = this.finishOneRun().catch(() => {
        this.stats.failed += 1;
      });
      this.inFlight.add(write);
      void write.finally(() => this.inFlight.delete(write));
    }, this.intervalMs);
  }

  /** Stops writing, waits for writes in flight; the data stays until restore(). */
  async stop(): Promise<BackgroundStats> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all(this.inFlight);
    return { ...this.stats };
  }

  /** Deletes the background reports and puts the tests' statuses back. */
  async restore(): Promise<void> {
    await this.stop();
    await deleteBackgroundReports(this.kube);
    // The background writes only fields the loaded status has: a merge patch of it puts them back.
    for (const [name, status] of this.originalStatus) {
      const written = await this.kube.request(
        'PATCH',
        `${COLLECTION}/restoretests/${name}/status`,
        { status },
        'application/merge-patch+json',
      );
      if (written.status !== 200) throw new Error(`restore status of ${name}: HTTP ${written.status}`);
    }
  }

  private async getTest(name: string): Promise<TestObject> {
    const response = await this.kube.request<TestObject>('GET', `${COLLECTION}/restoretests/${name}`);
    if (response.status !== 200) throw new Error(`get test ${name}: HTTP ${response.status}`);
    return response.body;
  }

  /** One run of a random test finishes now: its report, then the test's status. */
  private async finishOneRun(): Promise<void> {
    const started = performance.now();
    const shape: BenchTestShape = testShape(Math.floor(Math.random() * this.testCount), this.testCount);
    this.sequence += 1;
    const test = await this.getTest(shape.name);
    if (!this.originalStatus.has(shape.name)) this.originalStatus.set(shape.name, test.status ?? {});
    const now = Date.now();
    // Run 0 is the test's newest loaded run; this one completes now, after it.
    const report = restoreReport(shape, 0, now, test.metadata);
    const suffix = `bg${process.pid.toString(36)}${this.sequence.toString(36)}`;
    const name = `${reportName(shape, 0)}-${suffix}`;
    const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    report.metadata.name = name;
    report.metadata.labels = { ...report.metadata.labels, [BACKGROUND_LABEL]: 'true', 'rehearsal.dev/run': suffix };
    report.spec.runId = suffix;
    report.spec.trigger = 'manual';
    const durationMs = new Date(report.spec.completedAt).getTime() - new Date(report.spec.startedAt!).getTime();
    report.spec.startedAt = iso(now - durationMs);
    report.spec.scheduledAt = iso(now - durationMs - 2_000);
    report.spec.completedAt = iso(now);
    // Linked as the engine links a new report: to the digest of the test's newest one, under a
    // digest of its own (the loaded data's evidence is illustrative, so signatures fail either way).
    const previousDigest = this.newestDigest.get(shape.name) ?? digestOf(shape, 0);
    const digest = `sha256:${createHash('sha256').update(`${shape.name}/${suffix}`).digest('hex')}`;
    report.spec.evidence = { ...report.spec.evidence!, digest, previousDigest };
    const created = await this.kube.request('POST', `${COLLECTION}/restorereports`, packReport(report));
    if (created.status !== 201) throw new Error(`create ${name}: HTTP ${created.status}`);
    const status = await this.kube.request(
      'PATCH',
      `${COLLECTION}/restoretests/${shape.name}/status`,
      {
        status: {
          lastRunAt: report.spec.completedAt,
          lastReport: name,
          lastScore: report.spec.score,
          lastResult: report.spec.result,
          phase: report.spec.result === 'fail' ? 'Failed' : 'Completed',
        },
      },
      'application/merge-patch+json',
    );
    if (status.status !== 200) throw new Error(`status of ${shape.name}: HTTP ${status.status}`);
    this.newestDigest.set(shape.name, digest);
    this.stats.landed += 1;
    this.stats.maxWriteMs = Math.max(this.stats.maxWriteMs, Math.round(performance.now() - started));
  }
}
