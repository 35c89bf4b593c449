// The run reconciler: moves the run in progress forward. Each step gathers what the run's stage
// needs (run-gatherer.ts), asks domain/run/run-policy.ts what to do, and does it through RunActions.
// Two actions say what they did (prepare, write-report); the policy is asked again with that, so the
// transition they lead to is the policy's too. When a step records a new durable stage and needs no
// waiting, the next step is taken at once on the object the write returned (fresher than the
// cache), so a run does not pay a watch round trip per stage.
import type { RestoreTest, RestoreTestStatus, CurrentRun, RestoreReport } from '../../domain/resources/resources.js';
import { keyOf } from '../../domain/run/run-queue.js';
import { nextStep, type RunEnding, type RunStep } from '../../domain/run/run-policy.js';
import { setCondition, type ReconcileResult } from '../conditions.js';
import type { RunActions } from './run-actions.js';
import { observeReport, type Gathered, type RunGatherer } from './run-gatherer.js';

export interface RunReconcilerDeps {
  gatherer: Pick<RunGatherer, 'gather' | 'reportInputs'>;
  actions: RunActions;
  now: () => Date;
  /** Hook for tests that act at a chosen point of a run (crash and race tests): the stage about to be worked on. */
  onStage?: (stage: string, test: RestoreTest, run: CurrentRun) => void;
}

/** At most this many steps in one pass (a run has five stages; the rest waits for a requeue). */
const MAX_STEPS_PER_PASS = 8;

type Outcome = { result: ReconcileResult; continueWith?: RestoreTest };

/** The test's status once the run has ended as `ending` says (the run-owned fields are written). */
export function endedStatus(status: RestoreTestStatus | undefined, ending: RunEnding, now: Date): RestoreTestStatus {
  const { currentRun: _ended, ...rest } = status ?? {};
  return { ...rest, ...ending.status, conditions: setCondition(status?.conditions, ending.condition, now) };
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

  private async advance(test: RestoreTest, run: CurrentRun): Promise<Outcome> {
    this.deps.onStage?.(run.stage, test, run);
    const gathered = await this.deps.gatherer.gather(test, run);
    if (gathered.next) this.deps.actions.enqueue(gathered.next);
    // One instant per step: asking again after an action must not cross a deadline the first answer did not.
    const now = this.deps.now();
    return this.act(test, run, gathered, nextStep(run, gathered.observations, now), now);
  }

  private async act(test: RestoreTest, run: CurrentRun, gathered: Gathered, step: RunStep, now: Date): Promise<Outcome> {
    const { actions } = this.deps;
    const requeue = { requeueAfterMs: step.requeueAfterMs };
    switch (step.action) {
      case 'abandon':
        gathered.promotion?.settle(undefined);
        actions.forget(keyOf(test));
        return { result: {} };
      case 'wait':
        return { result: requeue };
      case 'update':
        return this.record(test, step, step.run!, gathered.promotion);
      case 'prepare': {
        const preparation = await actions.prepare(test, run, step.backup!, step.sandboxExpiresAt!);
        const next = nextStep(run, { ...gathered.observations, preparation }, now);
        return this.act(test, run, gathered, next, now);
      }
      case 'start-checks':
        actions.startChecks(test, run, gathered.checks);
        return { result: requeue };
      case 'write-report': {
        const inputs = await this.deps.gatherer.reportInputs(test, run, gathered, step.sandboxExpiresAt!);
        const report = await actions.writeReport(test, run, inputs);
        const next = nextStep(run, { ...gathered.observations, report: observeReport(report) }, now);
        return this.act(test, run, { ...gathered, report }, next, now);
      }
      case 'settle':
        return this.settle(test, run, gathered.report!, step.ending!, now);
    }
  }

  /** Writes the run's new durable state; continues at once when the step asks for no wait. */
  private async record(test: RestoreTest, step: RunStep, run: CurrentRun, promotion?: Gathered['promotion']): Promise<Outcome> {
    const { actions } = this.deps;
    let written: RestoreTest | undefined;
    try {
      const conditions = step.condition ? setCondition(test.status?.conditions, step.condition, this.deps.now()) : test.status?.conditions;
      written = await actions.writeStatus(test, { ...test.status, currentRun: run, ...(conditions ? { conditions } : {}) });
    } finally {
      promotion?.settle(written);
    }
    if (step.event) actions.record(test, step.event.type, step.event.reason, step.event.message);
    if (!written) return { result: {} };
    return step.requeueAfterMs === 0 ? { result: {}, continueWith: written } : { result: { requeueAfterMs: step.requeueAfterMs } };
  }

  /** The report exists: clean up, end the run in status, and hand its slot to the next in line. */
  private async settle(test: RestoreTest, run: CurrentRun, report: RestoreReport, ending: RunEnding, now: Date): Promise<Outcome> {
    const { actions } = this.deps;
    await actions.cleanUp(test, run, report, ending);
    await actions.writeStatus(test, endedStatus(test.status, ending, now));
    // The slot is free once the cache shows this status; the loop then wakes the next in line.
    actions.forget(keyOf(test));
    return { result: {} };
  }
}
