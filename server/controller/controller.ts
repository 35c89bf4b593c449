// The reconciliation loop: informer events enqueue keys, workers reconcile them, timers requeue.
// It runs only while this replica leads (Lease); the caches — and so the API — run everywhere.
import type { Logger } from 'pino';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { Metrics } from '../metrics.js';
import type { Janitor } from './janitor.js';
import type { RestoreTestReconciler } from './restore-test.reconciler.js';
import type { RunSlots } from './run-slots.js';
import { WorkQueue } from './workqueue.js';
import { isKind } from '../kube/errors.js';

export interface ControllerOptions {
  workers: number;
  janitorIntervalMs: number;
}

export class RestoreTestController {
  readonly queue: WorkQueue;
  private running = false;
  private janitorTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cache: RehearsalCache,
    private readonly reconciler: RestoreTestReconciler,
    private readonly slots: RunSlots,
    private readonly janitor: Janitor,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    private readonly options: ControllerOptions,
  ) {
    this.queue = new WorkQueue(
      (key) => this.process(key),
      { concurrency: options.workers, baseBackoffMs: 200, maxBackoffMs: 60_000 },
      {
        depth: (value) => metrics.queueDepth.set(value),
        processed: (outcome, seconds) => {
          metrics.reconciles.inc({ outcome });
          metrics.reconcileDuration.observe(seconds);
        },
      },
      (key, error) => {
        if (isKind(error, 'Conflict')) this.log.debug({ key }, 'status conflict; retrying with fresher state');
        else this.log.warn({ key, err: error }, 'reconcile failed; retrying with backoff');
      },
    );
    // Handlers only enqueue: all work happens in the queue's workers.
    cache.onTestChange((_event, key) => {
      if (this.running) this.queue.add(key);
    });
    cache.onReportChange((_event, _key, current, previous) => {
      const report = current ?? previous;
      if (this.running && report) this.queue.add(cache.testKeyOfReport(report));
    });
  }

  /** Called when this replica becomes leader. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.queue.resume();
    this.metrics.leader.set(1);
    this.slots.resync(this.cache.listTests());
    for (const test of this.cache.listTests()) this.queue.add(`${test.metadata.namespace}/${test.metadata.name}`);
    const sweep = (): void => {
      void this.janitor.sweep().catch((error: unknown) => this.log.warn({ err: error }, 'janitor sweep failed'));
    };
    sweep();
    this.janitorTimer = setInterval(sweep, this.options.janitorIntervalMs);
    this.janitorTimer.unref();
    this.log.info({ tests: this.cache.tests.size }, 'reconciliation loop started');
  }

  /** Called when leadership is lost or the process stops. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.metrics.leader.set(0);
    clearInterval(this.janitorTimer);
    this.queue.stop();
    this.log.info('reconciliation loop stopped');
  }

  private async process(key: string): Promise<void> {
    if (!this.running) return;
    const result = await this.reconciler.reconcile(key);
    this.queue.forget(key);
    if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
  }
}
