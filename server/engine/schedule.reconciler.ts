// The schedule reconciler: decides once per pass (domain/run/schedule.ts) whether a run is due, and
// writes only what that decision owns: the ScheduleValid condition, nextRunAt, lastScheduleTime,
// the handled trigger, and a Queued currentRun. Due instants and triggers that arrive while a run
// is in progress are consumed and reported, never started in parallel (decision 0012). Starting and
// advancing the run is the run reconciler's job.
//
// A test with spec.schedule.onBackup (issue 32) also runs when its backup source completes a new
// backup: the actions list the test's restorable backups (only for such a test, and only when no
// run is in progress or queued by this pass), domain/run/backup-trigger.ts decides, and the ledger
// (status.backupTrigger) goes in the same write as the run it queues, so one backup never starts two
// runs, across restarts and leader changes. A cron is then optional.
//
// Its fields belong to two owners (kube/test-status.ts): the spec as read (rehearsal-schedule:
// observedGeneration, ScheduleValid) and the run ledger (rehearsal-run: nextRunAt, the consumed
// instant or trigger and the run queued for it, in one write). Each owner's part is written only
// when it changed, so a due instant costs one write, as before.
import { randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ANNOTATION_TRIGGER, type CurrentRun, type RestoreTest, type RestoreTestStatus } from '../domain/resources/resources.js';
import { decideBackupTrigger, type BackupCandidate, type BackupTriggerDecision } from '../domain/run/backup-trigger.js';
import { decideSchedule, scheduleIntervalSeconds, type ScheduleDecision } from '../domain/run/schedule.js';
import { newRunId } from '../domain/run/sandbox-names.js';
import { ownedStatus, type StatusOwner } from '../kube/test-status.js';
import { setCondition, type ReconcileResult } from './conditions.js';
import type { EventType } from './events.js';

/** The owners of the fields this reconciler writes, in the order they are written. */
const OWNERS: readonly StatusOwner[] = ['run', 'schedule'];

export interface ScheduleActions {
  /**
   * Applies the fields `owner` owns in `status`, guarded by the test's resourceVersion; the stored
   * test, or undefined if it is gone.
   */
  writeStatus(test: RestoreTest, owner: StatusOwner, status: RestoreTestStatus): Promise<RestoreTest | undefined>;
  record(test: RestoreTest, type: EventType, reason: string, message: string): void;
  /** The schedule's interval, for the RestoreTestNotRun alert. */
  recordInterval(test: RestoreTest, seconds: number): void;
  /**
   * The test's restorable backups (what "latest" chooses from), for onBackup; undefined when the
   * provider cannot be read now (the next pass looks again).
   */
  restorableBackups(test: RestoreTest): Promise<BackupCandidate[] | undefined>;
}

export interface ScheduleReconcilerDeps {
  actions: ScheduleActions;
  now: () => Date;
  missedRunWindowSeconds: number;
  newRunId?: () => string;
  /**
   * How often an onBackup test looks at its backups without a watch event (Kasten and Trilio have
   * no backup watch; for Velero it is the safety net of a missed event). Default 60 s.
   */
  backupPollMs?: number;
}

/** What the pass did: `written` is the stored test when status changed (the run reconciler goes on from it). */
export interface ScheduleOutcome extends ReconcileResult {
  written?: RestoreTest;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const DEFAULT_BACKUP_POLL_MS = 60_000;

export class ScheduleReconciler {
  constructor(private readonly deps: ScheduleReconcilerDeps) {}

  async reconcile(test: RestoreTest): Promise<ScheduleOutcome> {
    const { actions } = this.deps;
    const now = this.deps.now();
    const previous = test.status ?? {};
    const status: RestoreTestStatus = { ...previous };
    const runInProgress = previous.currentRun !== undefined;
    const spec = test.spec.schedule;
    const createdAt = new Date(test.metadata.creationTimestamp ?? now.toISOString());
    // Without a cron (an onBackup-only test) there is no instant to decide on, and no next run time.
    const decision: ScheduleDecision = spec.cron
      ? decideSchedule({
          cron: spec.cron,
          timezone: spec.timezone ?? 'UTC',
          suspend: spec.suspend ?? false,
          lastScheduleTime: status.lastScheduleTime ? new Date(status.lastScheduleTime) : null,
          createdAt,
          now,
          runInProgress,
          missedRunWindowSeconds: this.deps.missedRunWindowSeconds,
        })
      : spec.onBackup
        ? { action: 'wait', reason: 'NotDue', message: 'runs on new backups only', nextRunAt: null }
        : { action: 'invalid', reason: 'InvalidCron', message: 'the schedule has neither cron nor onBackup' };
    const interval = spec.cron && decision.action !== 'invalid' ? scheduleIntervalSeconds(spec.cron, spec.timezone ?? 'UTC', now) : null;
    if (interval !== null) actions.recordInterval(test, interval);

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
    if (status.nextRunAt === undefined) delete status.nextRunAt;

    const events: [EventType, string, string][] = [];
    const trigger = test.metadata.annotations?.[ANNOTATION_TRIGGER];
    const triggered = trigger !== undefined && trigger !== status.handledTrigger;
    if (triggered) status.handledTrigger = trigger;
    if (decision.action === 'run' || decision.action === 'skip-missed' || decision.action === 'skip-overlap') {
      // A due cron instant that coincides with a manual run is consumed by it: no double run.
      status.lastScheduleTime = decision.instant.toISOString();
    }

    if (runInProgress) {
      if (triggered) events.push(['Warning', 'TriggerRefused', `run ${previous.currentRun!.id} is still in progress`]);
      if (decision.action === 'skip-overlap' || decision.action === 'skip-missed') events.push(['Warning', decision.reason, decision.message]);
    } else if (triggered) {
      this.queue(status, 'manual', now, now, events, 'TriggerRequested', 'manual trigger requested');
    } else if (decision.action === 'run') {
      this.queue(status, 'schedule', decision.instant, now, events, decision.reason, decision.message);
    } else if (decision.action === 'skip-missed' || decision.action === 'skip-overlap') {
      events.push(['Warning', decision.reason, decision.message]);
    } else if (decision.action === 'invalid' && previous.conditions?.find((c) => c.type === 'ScheduleValid')?.status !== 'False') {
      events.push(['Warning', decision.reason, decision.message]);
    }
    // New backups are looked at only when nothing else holds the test: a run in progress or queued
    // by this pass leaves them for a later pass, which runs the newest then (never two at once).
    const backupDecision: BackupTriggerDecision | undefined =
      spec.onBackup && !status.currentRun && decision.action !== 'invalid'
        ? decideBackupTrigger({
            onBackup: spec.onBackup,
            suspend: spec.suspend ?? false,
            ...(previous.backupTrigger ? { ledger: previous.backupTrigger } : {}),
            createdAt,
            restorable: await actions.restorableBackups(test),
            runInProgress: false,
          })
        : undefined;
    if (backupDecision?.action === 'run') {
      status.backupTrigger = backupDecision.ledger;
      this.queue(status, 'backup', new Date(backupDecision.backup.completedAt), now, events, backupDecision.reason, backupDecision.message, backupDecision.backup.name);
    } else if (backupDecision?.action === 'count') {
      status.backupTrigger = backupDecision.ledger;
      events.push(['Normal', backupDecision.reason, backupDecision.message]);
    }

    // Compared canonically: the apiserver returns keys sorted, we build them in another order, and
    // a write of an unchanged status would come back as a watch event and start the pass again.
    // The two parts are independent: a crash between them leaves a stale observedGeneration or
    // ScheduleValid, which the next pass writes again.
    let written: RestoreTest | undefined;
    for (const owner of OWNERS) {
      if (canonicalize(ownedStatus(owner, status)) === canonicalize(ownedStatus(owner, previous))) continue;
      written = await actions.writeStatus(written ?? test, owner, status);
      if (!written) break; // the test is gone
    }
    for (const [type, reason, message] of events) actions.record(test, type, reason, message);
    const requeue = this.requeue(decision, now);
    if (spec.onBackup) {
      const pollMs = this.deps.backupPollMs ?? DEFAULT_BACKUP_POLL_MS;
      requeue.requeueAfterMs = Math.min(requeue.requeueAfterMs ?? pollMs, pollMs);
    }
    return { ...requeue, ...(written ? { written } : {}) };
  }

  private queue(
    status: RestoreTestStatus,
    trigger: CurrentRun['trigger'],
    scheduledAt: Date,
    now: Date,
    events: [EventType, string, string][],
    reason: string,
    message: string,
    triggerBackup?: string,
  ): void {
    const run: CurrentRun = {
      id: this.deps.newRunId?.() ?? newRunId((size) => randomBytes(size)),
      trigger,
      scheduledAt: scheduledAt.toISOString(),
      ...(triggerBackup ? { triggerBackup } : {}),
      queuedAt: now.toISOString(),
      stage: 'Queued',
    };
    status.currentRun = run;
    status.phase = 'Running';
    events.push(['Normal', 'RunQueued', `run ${run.id} (${trigger}) queued: ${message} [${reason}]`]);
  }

  /** Wake up at the next cron instant (an invalid spec waits for a change, which enqueues it). */
  private requeue(decision: ScheduleDecision, now: Date): ReconcileResult {
    if (!('nextRunAt' in decision) || !decision.nextRunAt) return {};
    return { requeueAfterMs: Math.min(Math.max(decision.nextRunAt.getTime() - now.getTime(), 0) + 50, MAX_TIMER_MS) };
  }
}
