// A run's whole life as one pure decision: given the durable run (status.currentRun), what the
// engine just observed and the time, nextStep says what to do next and why. The run reconciler
// only observes, asks this, and acts; nothing here performs I/O, so every (stage × observation)
// pair is a row in test/unit/domain/run-policy.test.ts.
//
// Stages: Queued → Preparing (pick the backup, create the sandbox, request the restore) →
// Restoring (polled, never awaited) → Validating (pods ready, then the checks in the background)
// → report → the run ends. A run that fails early goes to Finalizing, which only writes its report.
import { formatDuration } from '../common/duration.js';
import type { CurrentRun } from '../resources/resources.js';

export interface RunBounds {
  /** The sandbox ttl: a run still going after it fails with TTLExceeded. */
  ttlSeconds: number;
  /** How long Validating waits for pods before checking anyway (the score says what was missing). */
  podReadyTimeoutSeconds: number;
  /** How long the backup provider may stay unreachable before the run fails (ProviderUnavailable). */
  providerUnavailableSeconds: number;
  /** How often a run waiting on something outside is looked at again. */
  pollIntervalMs: number;
  /**
   * How often a Restoring run is looked at without an event, when the provider's restore objects
   * are watched (each change wakes the run; this is only the safety net). Default pollIntervalMs.
   */
  restorePollMs?: number;
}

export interface BackupChoice {
  name: string;
  completedAt?: string;
  totalItems?: number;
}

/** Preparing: what the provider said about the backup to restore. */
export type BackupObservation =
  | { state: 'found'; backup: BackupChoice }
  | { state: 'rejected'; reason: string; message: string }
  | { state: 'unavailable'; message: string };

/** Restoring: the restore object's progress, as the provider reports it. */
export type RestoreObservation =
  | { state: 'pending' | 'running'; phase: string }
  | {
      state: 'succeeded' | 'partiallyFailed';
      phase: string;
      completedAt?: string;
      itemsRestored?: number;
      warnings: number;
    }
  | { state: 'failed'; phase: string; message?: string }
  | { state: 'missing' }
  | { state: 'unavailable'; message: string };

/** Validating: the background task that runs the health checks of this run. */
export type ChecksObservation = { state: 'not-started' } | { state: 'running' } | { state: 'done' };

export interface RunObservations {
  /** The RestoreTest is gone or being deleted. */
  testDeleted: boolean;
  /** This replica still holds the leader lease. */
  leading: boolean;
  /** Queued: a run slot is free and this run is next in line (see engine/run/run-slots.ts). */
  admitted?: boolean;
  backup?: BackupObservation;
  restore?: RestoreObservation;
  /** Validating, until podsReadyAt is recorded. */
  pods?: { expected: number; ready: number };
  checks?: ChecksObservation;
  /** Validating/Finalizing: the run's report (deterministic name) already exists. */
  reportExists?: boolean;
  bounds: RunBounds;
}

export type RunAction =
  /** Drop this replica's in-memory work for the run and write nothing (another owner resumes). */
  | 'abandon'
  /** Nothing to do until requeueAfterMs has passed (or something changes). */
  | 'wait'
  /** Record `run` as the durable state. */
  | 'update'
  /** Create the sandbox and request the restore of `backup`, then record the Restoring run. */
  | 'prepare'
  /** Start the health checks in the background. */
  | 'start-checks'
  /** Build, sign and create the report (report writer). */
  | 'write-report'
  /** The report exists: clean up the restore and sandboxes, and end the run. */
  | 'settle';

export interface RunStep {
  action: RunAction;
  reason: string;
  message: string;
  /** update: the new durable run. */
  run?: CurrentRun;
  /** prepare: the backup to restore. */
  backup?: BackupChoice;
  /** An Event worth recording on the RestoreTest for this step. */
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
  requeueAfterMs: number;
}

/** How long a run waits, once its checks run in the background (their end enqueues the test). */
export const CHECKS_POLL_MS = 30_000;
/** A queued run looks again this often (a run's end also enqueues the next in line). */
export const QUEUED_POLL_FACTOR = 5;

function seconds(from: string | undefined, now: Date): number {
  return from ? (now.getTime() - new Date(from).getTime()) / 1000 : 0;
}

function fail(run: CurrentRun, reason: string, message: string, extra: Partial<CurrentRun> = {}): RunStep {
  const { providerUnavailableSince: _since, ...rest } = run;
  return {
    action: 'update',
    reason,
    message,
    run: { ...rest, ...extra, stage: 'Finalizing', failure: { reason, message } },
    requeueAfterMs: 0,
  };
}

function wait(reason: string, message: string, requeueAfterMs: number): RunStep {
  return { action: 'wait', reason, message, requeueAfterMs };
}

/** The provider did not answer: remember since when, and fail once that exceeds the bound. */
function providerUnavailable(run: CurrentRun, message: string, now: Date, bounds: RunBounds): RunStep {
  const since = run.providerUnavailableSince;
  if (!since) {
    return {
      action: 'update',
      reason: 'ProviderUnavailable',
      message: `the backup provider is unreachable (${message}); retrying`,
      run: { ...run, providerUnavailableSince: now.toISOString() },
      requeueAfterMs: bounds.pollIntervalMs,
    };
  }
  const waited = seconds(since, now);
  if (waited > bounds.providerUnavailableSeconds) {
    return fail(
      run,
      'ProviderUnavailable',
      `the backup provider was unreachable for ${formatDuration(Math.floor(waited))} ` +
        `(more than ${formatDuration(bounds.providerUnavailableSeconds)}): ${message}`,
    );
  }
  return wait('ProviderUnavailable', `the backup provider is unreachable (${message}); retrying`, bounds.pollIntervalMs);
}

/** The provider answered again: forget the outage (only matters if one was recorded). */
function reachable(run: CurrentRun): CurrentRun {
  const { providerUnavailableSince: _since, ...rest } = run;
  return rest;
}

export function runDeadline(run: CurrentRun, bounds: RunBounds): Date {
  return new Date(new Date(run.startedAt ?? run.queuedAt).getTime() + bounds.ttlSeconds * 1000);
}

export function nextStep(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  const { bounds } = observed;
  if (observed.testDeleted) {
    return { action: 'abandon', reason: 'TestDeleted', message: `the test is gone; run ${run.id} stops here`, requeueAfterMs: 0 };
  }
  if (!observed.leading) {
    return { action: 'abandon', reason: 'LeadershipLost', message: `another replica resumes run ${run.id}`, requeueAfterMs: 0 };
  }
  if (observed.reportExists) {
    return { action: 'settle', reason: 'ReportWritten', message: `run ${run.id} has its report`, requeueAfterMs: 0 };
  }
  if (run.stage !== 'Queued' && run.stage !== 'Finalizing' && now > runDeadline(run, bounds)) {
    return fail(run, 'TTLExceeded', `the run did not finish within the sandbox ttl (${formatDuration(bounds.ttlSeconds)})`);
  }
  switch (run.stage) {
    case 'Queued':
      return queued(run, observed, now);
    case 'Preparing':
      return preparing(run, observed, now);
    case 'Restoring':
      return restoring(run, observed, now);
    case 'Validating':
      return validating(run, observed, now);
    case 'Finalizing':
      return { action: 'write-report', reason: 'RunFailed', message: `run ${run.id} failed: writing its report`, requeueAfterMs: 0 };
  }
}

function queued(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  if (!observed.admitted) {
    return wait('WaitingForSlot', 'every run slot is taken, or another run is first in line', observed.bounds.pollIntervalMs * QUEUED_POLL_FACTOR);
  }
  const message = `run ${run.id} started (${run.trigger})`;
  return {
    action: 'update',
    reason: 'RunStarted',
    message,
    run: { ...run, stage: 'Preparing', startedAt: now.toISOString() },
    event: { type: 'Normal', reason: 'RunStarted', message },
    requeueAfterMs: 0,
  };
}

function preparing(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  const backup = observed.backup;
  if (!backup) return wait('Observing', 'no backup observation yet', 0);
  switch (backup.state) {
    case 'rejected':
      return fail(run, backup.reason, backup.message);
    case 'unavailable':
      return providerUnavailable(run, backup.message, now, observed.bounds);
    case 'found':
      return {
        action: 'prepare',
        reason: 'BackupSelected',
        message: `restoring backup ${backup.backup.name}`,
        backup: backup.backup,
        requeueAfterMs: observed.bounds.pollIntervalMs,
      };
  }
}

function restoring(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  const restore = observed.restore;
  if (!run.restore || restore?.state === 'missing') {
    const name = run.restore?.name;
    return fail(run, 'RestoreLost', name ? `the restore ${name} disappeared before it finished` : 'the run has no restore to follow');
  }
  if (!restore) return wait('Observing', 'no restore observation yet', 0);
  const poll = observed.bounds.pollIntervalMs;
  switch (restore.state) {
    case 'unavailable':
      return providerUnavailable(run, restore.message, now, observed.bounds);
    case 'pending':
    case 'running':
      if (run.providerUnavailableSince) {
        return { action: 'update', reason: 'ProviderReachable', message: 'the backup provider answers again', run: reachable(run), requeueAfterMs: poll };
      }
      return wait('Restoring', `the restore is ${restore.phase}`, observed.bounds.restorePollMs ?? poll);
    case 'failed':
      return fail(run, 'RestoreFailed', restore.message ?? `the restore ended ${restore.phase}`, { restorePhase: restore.phase });
    case 'succeeded':
    case 'partiallyFailed':
      return {
        action: 'update',
        reason: 'RestoreDone',
        message: `the restore ended ${restore.phase}`,
        run: {
          ...reachable(run),
          stage: 'Validating',
          restorePhase: restore.phase,
          restoreCompletedAt: restore.completedAt ?? now.toISOString(),
        },
        event: {
          type: restore.state === 'succeeded' ? 'Normal' : 'Warning',
          reason: 'RestoreDone',
          message: `run ${run.id}: restore ${run.restore.name} ${restore.phase} (${restore.itemsRestored ?? '?'} items, ${restore.warnings} warnings)`,
        },
        requeueAfterMs: 0,
      };
  }
}

function validating(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  const { bounds } = observed;
  if (!run.podsReadyAt) {
    const pods = observed.pods;
    if (!pods) return wait('Observing', 'no pod observation yet', 0);
    if (pods.ready >= pods.expected) {
      return {
        action: 'update',
        reason: 'PodsReady',
        message: `${pods.ready}/${pods.expected} pods ready`,
        run: { ...run, podsReadyAt: now.toISOString() },
        requeueAfterMs: 0,
      };
    }
    const waited = seconds(run.restoreCompletedAt ?? run.restoreRequestedAt ?? now.toISOString(), now);
    if (waited < bounds.podReadyTimeoutSeconds) {
      return wait('WaitingForPods', `${pods.ready}/${pods.expected} pods ready`, bounds.pollIntervalMs);
    }
    // Pods never all became Ready: validate anyway, the score will say so.
  }
  switch (observed.checks?.state ?? 'not-started') {
    case 'not-started':
      return { action: 'start-checks', reason: 'ChecksStarted', message: `run ${run.id}: health checks started`, requeueAfterMs: CHECKS_POLL_MS };
    case 'running':
      return wait('ChecksRunning', 'the health checks are running', CHECKS_POLL_MS);
    case 'done':
      return { action: 'write-report', reason: 'ChecksDone', message: `run ${run.id}: checks done, writing the report`, requeueAfterMs: 0 };
  }
}
