// The run reconciler: moves the run in progress forward. Each pass observes what the run's stage
// needs, asks domain/run/run-policy.ts what to do, and does it through RunActions. When a step records
// a new durable stage and needs no waiting, the next step is taken at once on the object the write
// returned (fresher than the cache), so a run does not pay a watch round trip per stage.
import type { RestoreTest, RestoreTestStatus, CurrentRun, RestoreReport } from '../../domain/resources/resources.js';
import { keyOf } from '../../domain/run/run-queue.js';
import { nextStep, type RunBounds, type RunObservations, type RunStep } from '../../domain/run/run-policy.js';
import { setCondition, type ReconcileResult } from '../conditions.js';
import type { RunActions } from './run-actions.js';
import type { Promotion } from './run-slots.js';

export interface RunReconcilerDeps {
  actions: RunActions;
  now: () => Date;
  bounds: (test: RestoreTest) => RunBounds;
  /** Hook for tests that act at a chosen point of a run (crash and race tests): the stage about to be worked on. */
  onStage?: (stage: string, test: RestoreTest, run: CurrentRun) => void;
}

/** At most this many steps in one pass (a run has five stages; the rest waits for a requeue). */
const MAX_STEPS_PER_PASS = 8;

interface Observed {
  observations: RunObservations;
  promotion?: Promotion;
  next?: string;
  report?: RestoreReport;
}

export class RunReconciler {
  constructor(private readonly deps: RunReconcilerDeps) {}

  async reconcile(test: RestoreTest): Promise<ReconcileResult> {
    let current = test;
    for (let step = 0; step < MAX_STEPS_PER_PASS; step++) {
      const run = current.status?.currentRun;
      if (!run) return {};
      const outcome = await this.advance(current, run);
      if (!outcome.continueWith) return outcome.result;
      current = outcome.continueWith;
    }
    return { requeueAfterMs: 0 };
  }

  private async advance(
    test: RestoreTest,
    run: CurrentRun,
  ): Promise<{ result: ReconcileResult; continueWith?: RestoreTest }> {
    const { actions } = this.deps;
    this.deps.onStage?.(run.stage, test, run);
    const observed = await this.observe(test, run);
    const step = nextStep(run, observed.observations, this.deps.now());
    if (observed.next) actions.enqueue(observed.next);
    const requeue = { requeueAfterMs: step.requeueAfterMs };
    switch (step.action) {
      case 'abandon':
        observed.promotion?.settle(undefined);
        actions.forget(keyOf(test));
        return { result: {} };
      case 'wait':
        return { result: requeue };
      case 'update':
        return this.record(test, step, step.run!, observed.promotion);
      case 'prepare':
        return this.record(test, step, await actions.prepare(test, run, step.backup!));
      case 'start-checks':
        actions.startChecks(test, run);
        return { result: requeue };
      case 'write-report':
        return this.settle(test, run, await actions.writeReport(test, run));
      case 'settle':
        return this.settle(test, run, observed.report!);
    }
  }

  /** Gathers only what the run's stage needs; nothing at all for a run this replica must leave. */
  private async observe(test: RestoreTest, run: CurrentRun): Promise<Observed> {
    const { actions } = this.deps;
    const observations: RunObservations = {
      testDeleted: Boolean(test.metadata.deletionTimestamp),
      leading: actions.leading(),
      bounds: this.deps.bounds(test),
    };
    if (observations.testDeleted || !observations.leading) return { observations };
    switch (run.stage) {
      case 'Queued': {
        const admission = actions.admit(test);
        observations.admitted = admission.admitted;
        return { observations, next: admission.next, ...(admission.admitted ? { promotion: admission.promotion } : {}) };
      }
      case 'Preparing':
        observations.backup = await actions.selectBackup(test);
        return { observations };
      case 'Restoring':
        if (run.restore) observations.restore = await actions.restoreProgress(test, run);
        return { observations };
      case 'Validating':
      case 'Finalizing': {
        const report = await actions.findReport(test, run);
        observations.reportExists = report !== undefined;
        if (report) return { observations, report };
        if (run.stage === 'Validating') {
          if (!run.podsReadyAt) observations.pods = await actions.countPods(run);
          observations.checks = actions.checks(test, run);
        }
        return { observations };
      }
    }
  }

  /** Writes the run's new durable state; continues at once when the step asks for no wait. */
  private async record(
    test: RestoreTest,
    step: RunStep,
    run: CurrentRun,
    promotion?: Promotion,
  ): Promise<{ result: ReconcileResult; continueWith?: RestoreTest }> {
    const { actions } = this.deps;
    let written: RestoreTest | undefined;
    try {
      written = await actions.writeStatus(test, { ...test.status, currentRun: run });
    } finally {
      promotion?.settle(written);
    }
    if (step.event) actions.record(test, step.event.type, step.event.reason, step.event.message);
    if (!written) return { result: {} };
    return step.requeueAfterMs === 0 ? { result: {}, continueWith: written } : { result: { requeueAfterMs: step.requeueAfterMs } };
  }

  /** The report exists: clean up, end the run in status, and hand its slot to the next in line. */
  private async settle(test: RestoreTest, run: CurrentRun, report: RestoreReport): Promise<{ result: ReconcileResult }> {
    const { actions } = this.deps;
    await actions.cleanUp(test, run, report);
    const now = this.deps.now();
    const spec = report.spec;
    const status: RestoreTestStatus = {
      ...test.status,
      currentRun: undefined,
      phase: spec.result === 'fail' ? 'Failed' : 'Completed',
      lastScore: spec.score,
      lastResult: spec.result,
      lastRunAt: spec.completedAt,
      lastReport: report.metadata.name,
      conditions: setCondition(
        test.status?.conditions,
        {
          type: 'LastRunPassed',
          status: spec.result === 'pass' ? 'True' : 'False',
          reason: spec.result === 'pass' ? 'Passed' : spec.result === 'partial' ? 'Partial' : 'Failed',
          message: `run ${run.id}: score ${spec.score}, ${spec.result}`,
        },
        now,
      ),
    };
    delete status.currentRun;
    await actions.writeStatus(test, status);
    // The slot is free once the cache shows this status; the loop then wakes the next in line.
    actions.forget(keyOf(test));
    return { result: {} };
  }
}
