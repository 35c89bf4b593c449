// The reconciliation loop: informer events enqueue keys, workers reconcile them, timers requeue.
// One pass over a key runs the schedule reconciler (is a run due?) and then, when the test has a
// run in progress, the run reconciler (move it forward). It runs only while this replica leads:
// each leadership term has an AbortSignal, and when the term ends every background task of the
// engine stops at once — queued keys and timers, health checks in flight, the janitor's timer —
// and no reconcile still in flight writes anything more. The next leader resumes each run from
// its durable stage. The caches — and so the API — run everywhere.
import type { Logger } from 'pino';
import { holdsSlot, keyOf } from '../domain/run/run-queue.js';
import type { RestoreTest } from '../domain/resources/resources.js';
import { isKind } from '../kube/errors.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CheckTasks } from './run/check-tasks.js';
import type { Janitor } from './sandbox/janitor.js';
import type { RunAdmission } from './run/run-slots.js';
import type { RunReconciler } from './run/run.reconciler.js';
import type { ScheduleReconciler } from './schedule.reconciler.js';
import type { PreflightRunner } from './preflight/preflight-runner.js';
import { WorkQueue } from './workqueue.js';

export interface ControllerOptions {
  workers: number;
  janitorIntervalMs: number;
}

export interface EngineParts {
  cache: RehearsalCache;
  schedules: ScheduleReconciler;
  runs: RunReconciler;
  admission: RunAdmission;
  checkTasks: CheckTasks;
  janitor: Janitor;
  /** Issue 32: asked on every pass whether the newest backup's pre-flight is due (runs in the background). */
  preflight?: Pick<PreflightRunner, 'consider'>;
  metrics: Metrics;
  log: Logger;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

export class RestoreTestController {
  readonly queue: WorkQueue;
  private term = new AbortController();
  private janitorTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly parts: EngineParts,
    private readonly options: ControllerOptions,
  ) {
    this.term.abort(); // not leading until start()
    const { cache, metrics, log } = parts;
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
        if (isKind(error, 'Conflict')) log.debug({ key }, 'status conflict; retrying with fresher state');
        else if (this.running) log.warn({ key, err: error }, 'reconcile failed; retrying with backoff');
      },
    );
    metrics.countRunsWith(() => parts.admission.counts());
    // Handlers only enqueue: all work happens in the queue's workers.
    cache.onTestChange((_event, key, current, previous) => {
      if (!this.running) return;
      this.queue.add(key);
      // A run that no longer holds its slot (ended, or its test is going) frees it for the next in line.
      if (previous && holdsSlot(previous) && !(current && holdsSlot(current))) this.wakeNextInLine();
    });
    cache.onReportChange((_event, _key, current, previous) => {
      const report = current ?? previous;
      if (this.running && report) this.queue.add(cache.testKeyOfReport(report));
    });
  }

  get running(): boolean {
    return !this.term.signal.aborted;
  }

  /** The current leadership term's signal (aborted while this replica does not lead). */
  signal(): AbortSignal {
    return this.term.signal;
  }

  /** Called when this replica becomes leader. */
  start(): void {
    if (this.running) return;
    this.term = new AbortController();
    this.queue.resume();
    this.parts.metrics.leader.set(1);
    for (const test of this.parts.cache.listTests()) this.queue.add(keyOf(test));
    const sweep = (): void => {
      void this.parts.janitor.sweep().catch((error: unknown) => this.parts.log.warn({ err: error }, 'janitor sweep failed'));
    };
    sweep();
    this.janitorTimer = setInterval(sweep, this.options.janitorIntervalMs);
    this.janitorTimer.unref();
    this.parts.log.info({ tests: this.parts.cache.tests.size }, 'reconciliation loop started');
  }

  /** Called when leadership is lost or the process stops: everything the engine runs stops now. */
  stop(): void {
    if (!this.running) return;
    this.term.abort();
    this.parts.checkTasks.abortAll();
    clearInterval(this.janitorTimer);
    this.queue.stop();
    this.parts.metrics.leader.set(0);
    this.parts.log.info('reconciliation loop stopped');
  }

  private wakeNextInLine(): void {
    const next = this.parts.admission.next();
    if (next) this.queue.add(next);
  }

  private async process(key: string): Promise<void> {
    if (!this.running) return;
    const result = await this.reconcile(key);
    this.queue.forget(key);
    if (result !== undefined && this.running) this.queue.addAfter(key, result);
  }

  /** One pass over a test; the delay until the next pass, if one is needed without a change. */
  private async reconcile(key: string): Promise<number | undefined> {
    const { cache, checkTasks, metrics } = this.parts;
    const [namespace, name] = key.split('/') as [string, string];
    const test = cache.getTest(namespace, name);
    if (!test || test.metadata.deletionTimestamp) {
      // Nothing more is done for a test that is gone or going (its sandboxes go to the janitor).
      checkTasks.forget(key);
      if (!test) metrics.forgetTest(namespace, name);
      return undefined;
    }
    this.parts.preflight?.consider(test);
    const scheduled = await this.parts.schedules.reconcile(test);
    const current: RestoreTest = scheduled.written ?? test;
    if (!current.status?.currentRun) return scheduled.requeueAfterMs;
    const run = await this.parts.runs.reconcile(current);
    return earliest(scheduled.requeueAfterMs, run.requeueAfterMs);
  }
}
