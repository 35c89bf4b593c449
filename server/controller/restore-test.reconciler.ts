// Reconciles one RestoreTest: decides whether a run starts (schedule, trigger, queue) and moves
// the run in progress one stage forward. It never waits for a restore or a check: each call does
// a few quick API requests, records progress in status.currentRun (so a restarted server resumes
// exactly there) and asks to be called again later.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ANNOTATION_TRIGGER,
  type Condition,
  type CurrentRun,
  type RestoreTest,
  type RestoreTestStatus,
} from '../domain/resources.js';
import { decideSchedule, scheduleIntervalSeconds } from '../domain/schedule.js';
import { newRunId } from '../domain/sandbox-names.js';
import { isKind } from '../kube/errors.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { Metrics } from '../metrics.js';
import type { EventRecorder } from './events.js';
import type { RunStepper } from './run-stepper.js';
import { keyOf, oldestQueued, type RunSlots } from './run-slots.js';

export interface ReconcileResult {
  /** Call again after this many milliseconds (undefined = only on the next change). */
  requeueAfterMs?: number;
}

export interface ReconcilerDeps {
  cache: RehearsalCache;
  client: RehearsalClient;
  slots: RunSlots;
  stepper: RunStepper;
  events: EventRecorder;
  metrics: Metrics;
  log: Logger;
  now: () => Date;
  missedRunWindowSeconds: number;
  pollIntervalMs: number;
  /** Asks the queue to reconcile another test now (a freed slot goes to the next in line). */
  enqueue: (key: string) => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export function setCondition(
  conditions: Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((condition) => condition.type === next.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString();
  const condition: Condition = { ...next, lastTransitionTime };
  if (index >= 0) list[index] = condition;
  else list.push(condition);
  return list;
}

export class RestoreTestReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace, name] = key.split('/') as [string, string];
    const test = this.deps.cache.getTest(namespace, name);
    if (!test) {
      this.releaseSlot(key);
      this.deps.stepper.forget(key);
      this.deps.metrics.forgetTest(namespace, name);
      return {};
    }
    if (test.metadata.deletionTimestamp) {
      // Nothing more is done for a test being deleted (its sandboxes go to the janitor): a slot it
      // held must not wait for the object to be gone, which another controller's finalizer can delay.
      this.releaseSlot(key);
      this.deps.stepper.forget(key);
      return {};
    }
    const run = test.status?.currentRun;
    if (run) return this.advanceRun(test, run);
    // Only a run in progress holds a slot. One can be left here when a reconcile saw the test a
    // moment out of date (the cache had not yet seen the status that ended its run), settled the
    // run again and then lost its status write to a Conflict: without this release every such race
    // would keep a slot forever, and after maxConcurrentRuns of them no test would run again.
    this.releaseSlot(key);
    return this.considerStart(test);
  }

  // ------------------------------------------------------------------ starting runs

  private async considerStart(test: RestoreTest): Promise<ReconcileResult> {
    const now = this.deps.now();
    const status: RestoreTestStatus = { ...(test.status ?? {}) };
    const spec = test.spec;
    const trigger = test.metadata.annotations?.[ANNOTATION_TRIGGER];
    const decision = decideSchedule({
      cron: spec.schedule.cron,
      timezone: spec.schedule.timezone ?? 'UTC',
      suspend: spec.schedule.suspend ?? false,
      lastScheduleTime: status.lastScheduleTime ? new Date(status.lastScheduleTime) : null,
      createdAt: new Date(test.metadata.creationTimestamp ?? now.toISOString()),
      now,
      runInProgress: false,
      missedRunWindowSeconds: this.deps.missedRunWindowSeconds,
    });

    status.observedGeneration = test.metadata.generation;
    status.phase = status.phase ?? 'Idle';
    status.conditions = setCondition(
      status.conditions,
      decision.action === 'invalid'
        ? { type: 'ScheduleValid', status: 'False', reason: decision.reason, message: decision.message }
        : { type: 'ScheduleValid', status: 'True', reason: 'Valid', message: 'the schedule is valid' },
      now,
    );
    // No next run (suspended, invalid, or a cron with no future instant): the field is absent.
    status.nextRunAt = 'nextRunAt' in decision ? decision.nextRunAt?.toISOString() : undefined;
    this.recordInterval(test, now);

    if (trigger && trigger !== status.handledTrigger) {
      status.handledTrigger = trigger;
      // A due cron instant that coincides with a manual run is consumed by it: no double run.
      if (decision.action === 'run' || decision.action === 'skip-missed') {
        status.lastScheduleTime = decision.instant.toISOString();
      }
      return this.startRun(test, status, 'manual', now, 'TriggerRequested', 'manual trigger requested');
    }
    switch (decision.action) {
      case 'invalid':
        if (test.status?.conditions?.find((c) => c.type === 'ScheduleValid')?.status !== 'False') {
          this.deps.events.record(test, 'Warning', decision.reason, decision.message);
        }
        await this.writeStatus(test, status);
        return {}; // not retried: only a spec change can fix it
      case 'suspended':
        await this.writeStatusIfChanged(test, status);
        return {};
      case 'wait':
        await this.writeStatusIfChanged(test, status);
        return this.untilNextRun(decision.nextRunAt, now);
      case 'skip-missed':
      case 'skip-overlap':
        status.lastScheduleTime = decision.instant.toISOString();
        this.deps.events.record(test, 'Warning', decision.reason, decision.message);
        await this.writeStatus(test, status);
        return this.untilNextRun(decision.nextRunAt, now);
      case 'run':
        status.lastScheduleTime = decision.instant.toISOString();
        return this.startRun(
          test,
          status,
          'schedule',
          now,
          decision.reason,
          decision.message,
          decision.instant,
        );
    }
  }

  private async startRun(
    test: RestoreTest,
    status: RestoreTestStatus,
    trigger: CurrentRun['trigger'],
    now: Date,
    reason: string,
    message: string,
    scheduledAt: Date = now,
  ): Promise<ReconcileResult> {
    const run: CurrentRun = {
      id: newRunId((size) => randomBytes(size)),
      trigger,
      scheduledAt: scheduledAt.toISOString(),
      queuedAt: now.toISOString(),
      stage: 'Queued',
    };
    status.currentRun = run;
    status.phase = 'Running';
    await this.writeStatus(test, status);
    this.deps.events.record(
      test,
      'Normal',
      'RunQueued',
      `run ${run.id} (${trigger}) queued: ${message} [${reason}]`,
    );
    return { requeueAfterMs: this.deps.pollIntervalMs };
  }

  private untilNextRun(nextRunAt: Date | null, now: Date): ReconcileResult {
    if (!nextRunAt) return {};
    return { requeueAfterMs: Math.min(Math.max(nextRunAt.getTime() - now.getTime(), 0) + 50, MAX_TIMER_MS) };
  }

  private recordInterval(test: RestoreTest, now: Date): void {
    const interval = scheduleIntervalSeconds(
      test.spec.schedule.cron,
      test.spec.schedule.timezone ?? 'UTC',
      now,
    );
    if (interval !== null) {
      this.deps.metrics.scheduleIntervalSeconds.set(
        { namespace: test.metadata.namespace, test: test.metadata.name },
        interval,
      );
    }
  }

  // ------------------------------------------------------------------ the run in progress

  private async advanceRun(test: RestoreTest, run: CurrentRun): Promise<ReconcileResult> {
    const key = keyOf(test);
    const now = this.deps.now();
    const status: RestoreTestStatus = { ...(test.status ?? {}) };
    let noted = false;

    // Due cron instants and triggers that arrive during a run are consumed and reported, never
    // started in parallel (decisions §3: no two runs of one test at once).
    const decision = decideSchedule({
      cron: test.spec.schedule.cron,
      timezone: test.spec.schedule.timezone ?? 'UTC',
      suspend: test.spec.schedule.suspend ?? false,
      lastScheduleTime: status.lastScheduleTime ? new Date(status.lastScheduleTime) : null,
      createdAt: new Date(test.metadata.creationTimestamp ?? now.toISOString()),
      now,
      runInProgress: true,
      missedRunWindowSeconds: this.deps.missedRunWindowSeconds,
    });
    if (decision.action === 'skip-overlap' || decision.action === 'skip-missed') {
      status.lastScheduleTime = decision.instant.toISOString();
      status.nextRunAt = decision.nextRunAt?.toISOString();
      this.deps.events.record(test, 'Warning', decision.reason, decision.message);
      noted = true;
    }
    const trigger = test.metadata.annotations?.[ANNOTATION_TRIGGER];
    if (trigger && trigger !== status.handledTrigger) {
      status.handledTrigger = trigger;
      this.deps.events.record(test, 'Warning', 'TriggerRefused', `run ${run.id} is still in progress`);
      noted = true;
    }
    if (noted) {
      await this.writeStatus(test, status);
      return { requeueAfterMs: this.deps.pollIntervalMs };
    }

    if (run.stage === 'Queued') {
      const queued = this.deps.cache.listTests();
      // Already held: this view is out of date and the run was promoted meanwhile.
      const heldBefore = this.deps.slots.holds(key);
      if (!this.deps.slots.tryAcquire(key, queued)) {
        this.updateQueueGauges();
        return { requeueAfterMs: this.deps.pollIntervalMs * 5 };
      }
      status.currentRun = { ...run, stage: 'Preparing', startedAt: now.toISOString() };
      try {
        await this.writeStatus(test, status);
      } catch (error) {
        // Give back only a slot taken here: one held before belongs to the run in progress.
        if (!heldBefore) this.releaseSlot(key);
        throw error;
      }
      this.updateQueueGauges();
      this.deps.events.record(test, 'Normal', 'RunStarted', `run ${run.id} started (${run.trigger})`);
      return { requeueAfterMs: this.deps.pollIntervalMs };
    }

    // A run that resumes after a restart holds its slot again.
    if (!this.deps.slots.holds(key)) {
      this.deps.slots.tryAcquire(key, []);
      this.updateQueueGauges();
    }
    const step = await this.deps.stepper.step(test, run, now);
    if (step.kind === 'progress') {
      if (step.run) {
        status.currentRun = step.run;
        await this.writeStatus(test, status);
      }
      return { requeueAfterMs: step.requeueAfterMs };
    }
    // The run is over and its report exists: settle the status and free the slot.
    status.currentRun = undefined;
    status.phase = step.result === 'fail' ? 'Failed' : 'Completed';
    status.lastScore = step.score;
    status.lastResult = step.result;
    status.lastRunAt = step.completedAt;
    status.lastReport = step.reportName;
    status.conditions = setCondition(
      status.conditions,
      {
        type: 'LastRunPassed',
        status: step.result === 'pass' ? 'True' : 'False',
        reason: step.result === 'pass' ? 'Passed' : step.result === 'partial' ? 'Partial' : 'Failed',
        message: `run ${run.id}: score ${step.score}, ${step.result}`,
      },
      now,
    );
    const next = decideSchedule({
      cron: test.spec.schedule.cron,
      timezone: test.spec.schedule.timezone ?? 'UTC',
      suspend: test.spec.schedule.suspend ?? false,
      lastScheduleTime: status.lastScheduleTime ? new Date(status.lastScheduleTime) : null,
      createdAt: new Date(test.metadata.creationTimestamp ?? now.toISOString()),
      now,
      runInProgress: false,
      missedRunWindowSeconds: this.deps.missedRunWindowSeconds,
    });
    status.nextRunAt = 'nextRunAt' in next ? next.nextRunAt?.toISOString() : undefined;
    await this.writeStatus(test, status);
    this.deps.stepper.forget(key);
    this.deps.slots.release(key);
    this.updateQueueGauges();
    const nextInLine = oldestQueued(this.deps.cache.listTests());
    if (nextInLine) this.deps.enqueue(nextInLine);
    return { requeueAfterMs: this.deps.pollIntervalMs };
  }

  /** Gives back the slot of `key`, if it holds one, and shows that in the gauges. */
  private releaseSlot(key: string): void {
    if (this.deps.slots.release(key)) this.updateQueueGauges();
  }

  private updateQueueGauges(): void {
    let queued = 0;
    for (const test of this.deps.cache.listTests()) if (test.status?.currentRun?.stage === 'Queued') queued++;
    this.deps.metrics.runsQueued.set(queued);
    this.deps.metrics.runsInProgress.set(this.deps.slots.inUse);
  }

  private async writeStatusIfChanged(test: RestoreTest, status: RestoreTestStatus): Promise<void> {
    if (JSON.stringify(status) === JSON.stringify(test.status ?? {})) return;
    await this.writeStatus(test, status);
  }

  private async writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<void> {
    try {
      await this.deps.client.replaceTestStatus(test, status);
    } catch (error) {
      if (isKind(error, 'NotFound')) return; // deleted meanwhile
      throw error; // Conflict included: the queue retries with the fresher cached object
    }
  }
}
