// A run's whole life as one pure decision: given the durable run (status.currentRun), what the
// engine just observed and the time, nextStep says what to do next and why. The run reconciler
// only observes, asks this, and acts; nothing here performs I/O, so every (stage × observation)
// pair is a row in test/unit/domain/run-policy.test.ts.
//
// Stages: Queued → Preparing (pick the backup, create the sandbox, request the restore) →
// Restoring (polled, never awaited) → Validating (pods ready, then the checks in the background)
// → report → the run ends. A run that fails early goes to Finalizing, which only writes its report.
//
// Two actions report back what they did (prepare: the sandboxes and the restore; write-report: the
// stored report); the reconciler asks again with that added to the observations, so what it means
// for the run — Restoring or SandboxTaken, and the test's status once the run has ended — is also
// decided here, never by the action.
import { formatDuration } from '../common/duration.js';
import { claimVerdict } from './claim-binding.js';
import { failedVolumes, VOLUME_DATA_NOT_RESTORED, volumeDataFailure } from './volume-data.js';
import type { Condition, CurrentRun, RestoreTestStatus } from '../resources/resources.js';
import type { BackupChoice, PreparationObservation, ReportObservation, RunBounds, RunObservations } from './run-observations.js';

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
  /** The report exists: clean up the restore and sandboxes as `ending` says, and end the run. */
  | 'settle';

/** How a run whose report exists ends: the test's status, and what becomes of its sandboxes. */
export interface RunEnding {
  /** The status fields that record the ended run (currentRun goes). */
  status: Required<Pick<RestoreTestStatus, 'phase' | 'lastScore' | 'lastResult' | 'lastRunAt' | 'lastReport'>>;
  /** LastRunPassed; its lastTransitionTime is kept or set when it is written (engine/conditions.ts). */
  condition: Omit<Condition, 'lastTransitionTime'>;
  /** A passing sandbox has nothing left to show; the others stay for inspection until keepUntil. */
  sandboxes: 'delete' | 'keep';
  keepUntil: Date;
  /** A failed or partial run is diagnosed while its sandboxes still exist (issue 16). */
  triage: boolean;
}

export interface RunStep {
  action: RunAction;
  reason: string;
  message: string;
  /** update: the new durable run. */
  run?: CurrentRun;
  /** prepare: the backup to restore. */
  backup?: BackupChoice;
  /**
   * prepare, write-report: the run's deadline (its start + the sandbox ttl). Sandboxes are created
   * to expire then, and a report says until when a kept sandbox can be inspected.
   */
  sandboxExpiresAt?: Date;
  /** settle: how the run ends. */
  ending?: RunEnding;
  /** update: a condition to record with the run (RunAllowed, when a run is about to start). */
  condition?: Omit<Condition, 'lastTransitionTime'>;
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
  if (observed.report) return settle(run, observed.report, bounds);
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
      return writeReport(run, bounds, 'RunFailed', `run ${run.id} failed: writing its report`);
  }
}

function writeReport(run: CurrentRun, bounds: RunBounds, reason: string, message: string): RunStep {
  return { action: 'write-report', reason, message, sandboxExpiresAt: runDeadline(run, bounds), requeueAfterMs: 0 };
}

/** The report exists (written just now, or found after a restart): the run ends as it says. */
function settle(run: CurrentRun, report: ReportObservation, bounds: RunBounds): RunStep {
  const passed = report.result === 'pass';
  return {
    action: 'settle',
    reason: 'ReportWritten',
    message: `run ${run.id} has its report`,
    ending: {
      status: {
        phase: report.result === 'fail' ? 'Failed' : 'Completed',
        lastScore: report.score,
        lastResult: report.result,
        lastRunAt: report.completedAt,
        lastReport: report.name,
      },
      condition: {
        type: 'LastRunPassed',
        status: passed ? 'True' : 'False',
        reason: passed ? 'Passed' : report.result === 'partial' ? 'Partial' : 'Failed',
        message: `run ${run.id}: score ${report.score}, ${report.result}`,
      },
      sandboxes: passed ? 'delete' : 'keep',
      keepUntil: runDeadline(run, bounds),
      triage: !passed,
    },
    requeueAfterMs: 0,
  };
}

/** The RunAllowed condition: why the last run could (or could not) start (decision 0018). */
function runAllowedCondition(permission: NonNullable<RunObservations['permission']>): Omit<Condition, 'lastTransitionTime'> {
  return { type: 'RunAllowed', status: permission.allowed ? 'True' : 'False', reason: permission.reason, message: permission.message };
}

function queued(run: CurrentRun, observed: RunObservations, now: Date): RunStep {
  if (!observed.admitted) {
    return wait('WaitingForSlot', 'every run slot is taken, or another run is first in line', observed.bounds.pollIntervalMs * QUEUED_POLL_FACTOR);
  }
  const permission = observed.permission;
  const condition = permission ? runAllowedCondition(permission) : undefined;
  if (permission && !permission.allowed) {
    // Fail closed (decision 0018): nothing is restored; the report records why, like any failed run.
    const message = `run ${run.id} refused: ${permission.message}`;
    return {
      ...fail(run, permission.reason, message),
      condition: runAllowedCondition(permission),
      event: { type: 'Warning', reason: 'RunRefused', message },
    };
  }
  const message = `run ${run.id} started (${run.trigger})`;
  return {
    action: 'update',
    reason: 'RunStarted',
    message,
    run: { ...run, stage: 'Preparing', startedAt: now.toISOString() },
    ...(condition ? { condition } : {}),
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
      if (observed.preparation) return prepared(run, backup.backup, observed.preparation, observed.bounds);
      return {
        action: 'prepare',
        reason: 'BackupSelected',
        // Issue 32: a drawn backup says why it was drawn (window, candidates, position, seed).
        message: `restoring backup ${backup.backup.name}${backup.backup.selection ? `: ${backup.backup.selection.reason}` : ''}`,
        backup: backup.backup,
        sandboxExpiresAt: runDeadline(run, observed.bounds),
        requeueAfterMs: observed.bounds.pollIntervalMs,
      };
  }
}

/** What the prepare action did, as the run's next durable state. */
function prepared(run: CurrentRun, backup: BackupChoice, preparation: PreparationObservation, bounds: RunBounds): RunStep {
  if (preparation.state !== 'prepared') {
    // Decision 0009: a namespace Rehearsal did not create is never restored into; nor is a sandbox
    // whose storage quota is not in force yet (issue 27). The run ends here (Finalizing, then its
    // report), keeping only the sandboxes it did create.
    return fail(run, preparation.reason, preparation.message, { sandboxNamespaces: preparation.sandboxNamespaces });
  }
  return {
    action: 'update',
    reason: 'RestoreRequested',
    message: `restore ${preparation.restore.name} of backup ${backup.name} requested`,
    // The provider has just answered twice (backup found, restore requested): an outage recorded
    // earlier in Preparing is over, and must not count against the restore that follows.
    run: {
      ...reachable(run),
      stage: 'Restoring',
      sandboxNamespaces: preparation.sandboxNamespaces,
      backup,
      restore: preparation.restore,
      restoreRequestedAt: run.restoreRequestedAt ?? preparation.requestedAt,
    },
    requeueAfterMs: bounds.pollIntervalMs,
  };
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
    case 'running': {
      // Issue 27: a claim that cannot bind would keep the restore waiting (Velero's file-system
      // restore waits for the volume) until the ttl.
      const claims = claimVerdict(observed.claims, observed.bounds.claimBindTimeoutSeconds, now);
      if (claims.state === 'not-bound') return fail(run, 'VolumeNotBound', claims.message);
      if (run.providerUnavailableSince) {
        return { action: 'update', reason: 'ProviderReachable', message: 'the backup provider answers again', run: reachable(run), requeueAfterMs: poll };
      }
      const next = observed.bounds.restorePollMs ?? poll;
      return wait('Restoring', `the restore is ${restore.phase}`, claims.state === 'failing' ? Math.min(next, claims.afterMs) : next);
    }
    case 'failed': {
      // A restore the tool failed because the data of a volume did not come back (Trilio fails its
      // Restore when a claim's DataRestore fails): the volume and its reason say more than the
      // restore's own message.
      const failed = failedVolumes(restore.volumes);
      if (failed.length > 0) return fail(run, 'VolumeDataNotRestored', volumeDataFailure(failed), { restorePhase: restore.phase });
      return fail(run, 'RestoreFailed', restore.message ?? `the restore ended ${restore.phase}`, { restorePhase: restore.phase });
    }
    case 'succeeded':
    case 'partiallyFailed': {
      // Issue 27: a volume whose data did not come back keeps its restored Pod waiting for it
      // (Velero's restore helper) until the pod timeout; say which one, and why, now.
      const failed = failedVolumes(restore.volumes);
      if (failed.length > 0) return fail(run, VOLUME_DATA_NOT_RESTORED, volumeDataFailure(failed), { restorePhase: restore.phase });
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
      // Issue 27: pods whose claim cannot bind stay Pending until the pod timeout; say why now.
      const claims = claimVerdict(observed.claims, bounds.claimBindTimeoutSeconds, now);
      if (claims.state === 'not-bound') return fail(run, 'VolumeNotBound', claims.message);
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
      return writeReport(run, bounds, 'ChecksDone', `run ${run.id}: checks done, writing the report`);
  }
}
