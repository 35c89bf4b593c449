// The run's state machine, as a table: every stage × every observation, with a fake clock.
import { describe, expect, it } from '@jest/globals';
import { CHECKS_POLL_MS, nextStep, type RunStep } from '../../../server/domain/run/run-policy.js';
import type { ClaimObservation, ReportObservation, RunBounds, RunObservations } from '../../../server/domain/run/run-observations.js';
import type { CurrentRun, RunStage } from '../../../server/domain/resources/resources.js';

const STARTED = '2026-03-01T02:00:00.000Z';
const bounds: RunBounds = { ttlSeconds: 3600, podReadyTimeoutSeconds: 600, claimBindTimeoutSeconds: 120, providerUnavailableSeconds: 600, pollIntervalMs: 2000 };
/** The fake clock: seconds after the run started. */
const after = (seconds: number): Date => new Date(Date.parse(STARTED) + seconds * 1000);

const STAGES: readonly RunStage[] = ['Queued', 'Preparing', 'Restoring', 'Validating', 'Finalizing'];

function runIn(stage: RunStage, extra: Partial<CurrentRun> = {}): CurrentRun {
  const base: CurrentRun = { id: 'r1', trigger: 'schedule', scheduledAt: STARTED, queuedAt: STARTED, stage };
  if (stage !== 'Queued') base.startedAt = STARTED;
  if (stage === 'Restoring' || stage === 'Validating' || stage === 'Finalizing') {
    base.restore = { namespace: 'velero', name: 'shop-r1' };
    base.restoreRequestedAt = STARTED;
    base.sandboxNamespaces = [{ source: 'shop', sandbox: 'rehearsal-shop-r1' }];
  }
  if (stage === 'Validating') base.restoreCompletedAt = after(60).toISOString();
  if (stage === 'Finalizing') base.failure = { reason: 'RestoreFailed', message: 'the restore ended Failed' };
  return { ...base, ...extra };
}

/** A healthy observation for each stage: the run would simply move on. */
function healthy(stage: RunStage): RunObservations {
  const observed: RunObservations = { testDeleted: false, leading: true, bounds };
  if (stage === 'Queued') observed.admitted = true;
  if (stage === 'Preparing') observed.backup = { state: 'found', backup: { name: 'daily' } };
  if (stage === 'Restoring') observed.restore = { state: 'running', phase: 'InProgress' };
  if (stage === 'Validating') {
    observed.pods = { expected: 2, ready: 2 };
    observed.checks = { state: 'running' };
  }
  return observed;
}

/** The run's report as the gatherer observes it. */
function reportOf(result: ReportObservation['result'], score = result === 'pass' ? 100 : result === 'partial' ? 80 : 10): ReportObservation {
  return { name: 'shop-r1', result, score, completedAt: after(300).toISOString() };
}

function step(stage: RunStage, change: Partial<RunObservations>, seconds = 120, run: Partial<CurrentRun> = {}): RunStep {
  return nextStep(runIn(stage, run), { ...healthy(stage), ...change }, after(seconds));
}

describe('nextStep: what applies in every stage', () => {
  it.each(STAGES)('%s: the test was deleted → abandon, write nothing', (stage) => {
    expect(step(stage, { testDeleted: true })).toMatchObject({ action: 'abandon', reason: 'TestDeleted' });
  });

  it.each(STAGES)('%s: leadership lost → abandon (the new leader resumes from the durable stage)', (stage) => {
    expect(step(stage, { leading: false })).toMatchObject({ action: 'abandon', reason: 'LeadershipLost' });
  });

  it.each(STAGES)('%s: the test deleted and leadership lost together → abandon once', (stage) => {
    expect(step(stage, { testDeleted: true, leading: false }).action).toBe('abandon');
  });

  it.each([
    ['Queued', 'update'],
    ['Preparing', 'update'],
    ['Restoring', 'update'],
    ['Validating', 'update'],
    ['Finalizing', 'write-report'],
  ] as const)('%s: the sandbox ttl has passed → %s', (stage, action) => {
    const result = step(stage, {}, 3601);
    expect(result.action).toBe(action);
    if (stage === 'Queued') expect(result.reason).toBe('RunStarted'); // waiting in the queue does not use up the ttl
    else if (stage !== 'Finalizing') {
      expect(result.reason).toBe('TTLExceeded');
      expect(result.run).toMatchObject({ stage: 'Finalizing', failure: { reason: 'TTLExceeded', message: expect.stringContaining('1h') } });
    }
  });

  it.each(['Validating', 'Finalizing'] as const)('%s: the report exists → settle (even past the ttl)', (stage) => {
    expect(step(stage, { report: reportOf('pass') })).toMatchObject({ action: 'settle' });
    expect(step(stage, { report: reportOf('fail') }, 7200)).toMatchObject({ action: 'settle' });
  });
});

describe('nextStep: Queued', () => {
  it('admitted → Preparing with startedAt now, and a RunStarted event', () => {
    const result = nextStep(runIn('Queued'), healthy('Queued'), after(5));
    expect(result).toMatchObject({ action: 'update', reason: 'RunStarted', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({ stage: 'Preparing', startedAt: after(5).toISOString() });
    expect(result.event).toMatchObject({ type: 'Normal', reason: 'RunStarted' });
  });

  it('not admitted (limit reached or another run first in line) → wait, look again later', () => {
    expect(step('Queued', { admitted: false })).toMatchObject({ action: 'wait', reason: 'WaitingForSlot', requeueAfterMs: 10_000 });
  });

  // Decision 0018: the run permission is looked at once a slot is free.
  it('admitted and allowed → Preparing, RunAllowed True with the reason', () => {
    const result = step('Queued', { permission: { allowed: true, reason: 'AuthorAllowed', message: 'the author "a" may restore "b"' } });
    expect(result).toMatchObject({ action: 'update', reason: 'RunStarted' });
    expect(result.condition).toEqual({ type: 'RunAllowed', status: 'True', reason: 'AuthorAllowed', message: 'the author "a" may restore "b"' });
  });

  it('admitted but refused → Finalizing (nothing restored, a report says why), RunAllowed False, a Warning', () => {
    const result = step('Queued', { permission: { allowed: false, reason: 'AuthorLacksRights', message: 'the author "a" cannot get secrets in namespace "b"' } });
    expect(result).toMatchObject({ action: 'update', reason: 'AuthorLacksRights', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({ stage: 'Finalizing', failure: { reason: 'AuthorLacksRights', message: expect.stringContaining('cannot get secrets') } });
    expect(result.run?.sandboxNamespaces).toBeUndefined();
    expect(result.condition).toMatchObject({ type: 'RunAllowed', status: 'False', reason: 'AuthorLacksRights' });
    expect(result.event).toMatchObject({ type: 'Warning', reason: 'RunRefused' });
  });
});

describe('nextStep: Preparing', () => {
  it('a backup was found → prepare it, with sandboxes that expire at the run\'s deadline', () => {
    expect(step('Preparing', {})).toMatchObject({ action: 'prepare', backup: { name: 'daily' }, requeueAfterMs: 2000 });
    expect(step('Preparing', {}).sandboxExpiresAt).toEqual(after(3600));
  });

  const sandboxes = [{ source: 'shop', sandbox: 'rehearsal-shop-r1', uid: 'u1' }];
  const prepared = { state: 'prepared', sandboxNamespaces: sandboxes, restore: { namespace: 'velero', name: 'shop-r1' }, requestedAt: after(125).toISOString() } as const;

  it('a drawn backup (randomWithin, issue 32) is prepared with its record, says why, and the record goes into the run', () => {
    const selection = {
      strategy: 'randomWithin' as const, within: '720h', windowStart: after(-2_592_000).toISOString(), windowEnd: after(0).toISOString(),
      seed: '0000000c', candidates: 7, chosen: 6, reason: 'random within 720h: 7 candidate(s), chose #6 newest first (backup old)',
    };
    const backup = { state: 'found', backup: { name: 'old', selection } } as const;
    expect(step('Preparing', { backup })).toMatchObject({ action: 'prepare', backup: { name: 'old', selection }, message: `restoring backup old: ${selection.reason}` });
    expect(step('Preparing', { backup, preparation: prepared }, 120).run?.backup).toEqual({ name: 'old', selection });
  });

  it('prepared (sandboxes created, restore requested) → Restoring, with what was created and when the RTO starts', () => {
    const result = step('Preparing', { preparation: prepared }, 120);
    expect(result).toMatchObject({ action: 'update', reason: 'RestoreRequested', requeueAfterMs: 2000 });
    expect(result.run).toEqual({
      ...runIn('Preparing'),
      stage: 'Restoring',
      sandboxNamespaces: sandboxes,
      backup: { name: 'daily' },
      restore: { namespace: 'velero', name: 'shop-r1' },
      restoreRequestedAt: after(125).toISOString(),
    });
    expect(result.event).toBeUndefined();
  });

  it('prepared again after a crash → the first request time stays the start of the RTO', () => {
    const result = step('Preparing', { preparation: prepared }, 120, { restoreRequestedAt: after(30).toISOString() });
    expect(result.run?.restoreRequestedAt).toBe(after(30).toISOString());
  });

  it('prepared after an outage in Preparing → the outage is over (it must not count against the restore)', () => {
    const result = step('Preparing', { preparation: prepared }, 120, { providerUnavailableSince: after(60).toISOString() });
    expect(result.run?.stage).toBe('Restoring');
    expect(result.run?.providerUnavailableSince).toBeUndefined();
  });

  it('a sandbox namespace is taken (not created by Rehearsal) → Finalizing, keeping only the sandboxes it created', () => {
    const taken = { state: 'sandbox-taken', sandboxNamespaces: sandboxes, reason: 'SandboxNamespaceTaken', message: 'rehearsal-shop-r1-1 exists' } as const;
    const result = step('Preparing', { preparation: taken }, 120);
    expect(result).toMatchObject({ action: 'update', reason: 'SandboxNamespaceTaken', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({
      stage: 'Finalizing',
      sandboxNamespaces: sandboxes,
      failure: { reason: 'SandboxNamespaceTaken', message: 'rehearsal-shop-r1-1 exists' },
    });
    expect(result.run?.restore).toBeUndefined();
  });

  it('the storage quota was not synced in time → Finalizing, nothing restored, the sandboxes recorded', () => {
    const unready = { state: 'sandbox-unready', sandboxNamespaces: sandboxes, reason: 'SandboxQuotaNotSynced', message: 'quota not synced' } as const;
    const result = step('Preparing', { preparation: unready }, 120);
    expect(result).toMatchObject({ action: 'update', reason: 'SandboxQuotaNotSynced', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({
      stage: 'Finalizing',
      sandboxNamespaces: sandboxes,
      failure: { reason: 'SandboxQuotaNotSynced', message: 'quota not synced' },
    });
    expect(result.run?.restore).toBeUndefined();
  });

  it('the provider rejected the request (no backup) → fail with its reason', () => {
    const result = step('Preparing', { backup: { state: 'rejected', reason: 'BackupNotFound', message: 'no backup covers shop' } });
    expect(result).toMatchObject({ action: 'update', reason: 'BackupNotFound', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({ stage: 'Finalizing', failure: { reason: 'BackupNotFound', message: 'no backup covers shop' } });
  });

  it('no observation yet → look again at once', () => {
    expect(step('Preparing', { backup: undefined })).toMatchObject({ action: 'wait', requeueAfterMs: 0 });
  });
});

describe('nextStep: a provider that does not answer (Preparing and Restoring)', () => {
  const unavailable = {
    Preparing: { backup: { state: 'unavailable', message: 'connection refused' } },
    Restoring: { restore: { state: 'unavailable', message: 'connection refused' } },
  } as const;

  it.each(['Preparing', 'Restoring'] as const)('%s: first time → record since when, retry', (stage) => {
    const result = step(stage, unavailable[stage], 100);
    expect(result).toMatchObject({ action: 'update', reason: 'ProviderUnavailable', requeueAfterMs: 2000 });
    expect(result.run?.providerUnavailableSince).toBe(after(100).toISOString());
    expect(result.run?.stage).toBe(stage);
  });

  it.each(['Preparing', 'Restoring'] as const)('%s: still within the bound → wait', (stage) => {
    const since = { providerUnavailableSince: after(100).toISOString() };
    expect(step(stage, unavailable[stage], 100 + 600, since)).toMatchObject({ action: 'wait', reason: 'ProviderUnavailable' });
  });

  it.each(['Preparing', 'Restoring'] as const)('%s: longer than the bound → fail ProviderUnavailable (a report follows)', (stage) => {
    const since = { providerUnavailableSince: after(100).toISOString() };
    const result = step(stage, unavailable[stage], 100 + 601, since);
    expect(result).toMatchObject({ action: 'update', reason: 'ProviderUnavailable', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({ stage: 'Finalizing', failure: { reason: 'ProviderUnavailable', message: expect.stringContaining('10m1s') } });
    expect(result.run?.providerUnavailableSince).toBeUndefined();
  });

  it('the bound is configurable', () => {
    const short = { ...unavailable.Restoring, bounds: { ...bounds, providerUnavailableSeconds: 30 } };
    const result = step('Restoring', short, 131, { providerUnavailableSince: after(100).toISOString() });
    expect(result.run?.failure?.reason).toBe('ProviderUnavailable');
  });

  it('the ttl still wins when it comes first', () => {
    const result = step('Restoring', unavailable.Restoring, 3601, { providerUnavailableSince: after(3500).toISOString() });
    expect(result.run?.failure?.reason).toBe('TTLExceeded');
  });

  it('the provider answers again → the outage is forgotten', () => {
    const since = { providerUnavailableSince: after(100).toISOString() };
    const result = step('Restoring', {}, 200, since);
    expect(result).toMatchObject({ action: 'update', reason: 'ProviderReachable' });
    expect(result.run?.providerUnavailableSince).toBeUndefined();
    expect(result.run?.stage).toBe('Restoring');
  });
});

describe('nextStep: Restoring', () => {
  it.each(['pending', 'running'] as const)('restore %s → poll', (state) => {
    expect(step('Restoring', { restore: { state, phase: 'InProgress' } })).toMatchObject({ action: 'wait', requeueAfterMs: 2000 });
  });

  it.each([
    ['succeeded', 'Completed', 'Normal'],
    ['partiallyFailed', 'PartiallyFailed', 'Warning'],
  ] as const)('restore %s → Validating, with a RestoreDone event', (state, phase, type) => {
    const result = step('Restoring', { restore: { state, phase, warnings: 1, itemsRestored: 12, completedAt: after(90).toISOString() } });
    expect(result).toMatchObject({ action: 'update', reason: 'RestoreDone', requeueAfterMs: 0 });
    expect(result.run).toMatchObject({ stage: 'Validating', restorePhase: phase, restoreCompletedAt: after(90).toISOString() });
    expect(result.event).toMatchObject({ type, reason: 'RestoreDone', message: expect.stringContaining('12 items, 1 warnings') });
  });

  it('restore partially failed because a volume\'s data did not come back → VolumeDataNotRestored naming it, at once', () => {
    const volume = (pod: string, phase: string, message?: string) => ({
      namespace: 'rehearsal-shop-r1',
      pod,
      volume: 'data',
      method: 'file-system' as const,
      phase,
      dataRestored: phase === 'Completed',
      ...(message ? { message } : {}),
    });
    const result = step('Restoring', {
      restore: {
        state: 'partiallyFailed',
        phase: 'PartiallyFailed',
        warnings: 0,
        volumes: [volume('db-0', 'Failed', 'error to connect backup repo: repository not found'), volume('web-0', 'Completed')],
      },
    });
    expect(result.run).toMatchObject({
      stage: 'Finalizing',
      restorePhase: 'PartiallyFailed',
      failure: {
        reason: 'VolumeDataNotRestored',
        message: 'the data of 1 volume was not restored: rehearsal-shop-r1/db-0 volume data: Failed (error to connect backup repo: repository not found)',
      },
    });
    // Every volume restored: the run goes on to validate.
    const fine = step('Restoring', { restore: { state: 'succeeded', phase: 'Completed', warnings: 0, volumes: [volume('db-0', 'Completed')] } });
    expect(fine.run?.stage).toBe('Validating');
  });

  it('restore succeeded without a completion time → now', () => {
    const result = step('Restoring', { restore: { state: 'succeeded', phase: 'Completed', warnings: 0 } }, 150);
    expect(result.run?.restoreCompletedAt).toBe(after(150).toISOString());
  });

  it('restore failed → Finalizing with RestoreFailed and the phase', () => {
    const result = step('Restoring', { restore: { state: 'failed', phase: 'FailedValidation', message: 'bad spec' } });
    expect(result.run).toMatchObject({ stage: 'Finalizing', restorePhase: 'FailedValidation', failure: { reason: 'RestoreFailed', message: 'bad spec' } });
  });

  it('restore failed and the tool names a volume whose data did not come back → VolumeDataNotRestored naming it (Trilio fails its Restore on a failed DataRestore)', () => {
    const claim = (name: string, phase: string, message?: string) => ({
      namespace: 'rehearsal-shop-r1',
      claim: name,
      method: 'provider-data-mover' as const,
      phase,
      dataRestored: phase === 'Completed',
      ...(message ? { message } : {}),
    });
    const result = step('Restoring', {
      restore: {
        state: 'failed',
        phase: 'Failed',
        message: 'DataRestore failed',
        volumes: [claim('data-db-0', 'Error', 'datamover pod evicted'), claim('data-web-0', 'Completed')],
      },
    });
    expect(result.run).toMatchObject({
      stage: 'Finalizing',
      restorePhase: 'Failed',
      failure: {
        reason: 'VolumeDataNotRestored',
        message: 'the data of 1 volume was not restored: rehearsal-shop-r1/data-db-0 (claim): Error (datamover pod evicted)',
      },
    });
    // Volumes listed but none failed (Skipped is not a failure the tool names): the restore's own failure.
    const skipped = step('Restoring', { restore: { state: 'failed', phase: 'Failed', message: 'bad spec', volumes: [claim('data-db-0', 'Skipped')] } });
    expect(skipped.run?.failure).toEqual({ reason: 'RestoreFailed', message: 'bad spec' });
  });

  it('restore failed without a message → the phase says it', () => {
    const result = step('Restoring', { restore: { state: 'failed', phase: 'Failed' } });
    expect(result.run?.failure?.message).toBe('the restore ended Failed');
  });

  it('the restore object disappeared → RestoreLost', () => {
    const result = step('Restoring', { restore: { state: 'missing' } });
    expect(result.run?.failure).toEqual({ reason: 'RestoreLost', message: 'the restore shop-r1 disappeared before it finished' });
  });

  it('the run recorded no restore → RestoreLost', () => {
    const result = step('Restoring', { restore: undefined }, 120, { restore: undefined });
    expect(result.run?.failure?.reason).toBe('RestoreLost');
  });
});

describe('nextStep: Validating', () => {
  it('pods all ready → record podsReadyAt', () => {
    const result = step('Validating', {}, 130);
    expect(result).toMatchObject({ action: 'update', reason: 'PodsReady', requeueAfterMs: 0 });
    expect(result.run?.podsReadyAt).toBe(after(130).toISOString());
  });

  it('pods not ready, within the pod timeout → poll', () => {
    expect(step('Validating', { pods: { expected: 2, ready: 1 } }, 120)).toMatchObject({ action: 'wait', reason: 'WaitingForPods' });
  });

  it('pods never all ready → check anyway once the pod timeout passed (the score says so)', () => {
    expect(step('Validating', { pods: { expected: 2, ready: 1 }, checks: { state: 'not-started' } }, 60 + 601)).toMatchObject({ action: 'start-checks' });
  });

  const ready = { podsReadyAt: after(100).toISOString() };
  it('pods ready, checks not started → start them in the background', () => {
    expect(step('Validating', { checks: { state: 'not-started' } }, 120, ready)).toMatchObject({ action: 'start-checks', requeueAfterMs: CHECKS_POLL_MS });
  });

  it('checks running → wait (their end enqueues the test)', () => {
    expect(step('Validating', { checks: { state: 'running' } }, 120, ready)).toMatchObject({ action: 'wait', reason: 'ChecksRunning' });
  });

  it('checks done → write the report (it says until when a kept sandbox can be inspected)', () => {
    const result = step('Validating', { checks: { state: 'done' } }, 120, ready);
    expect(result).toMatchObject({ action: 'write-report', requeueAfterMs: 0 });
    expect(result.sandboxExpiresAt).toEqual(after(3600));
  });

  it('no check observation (a new leader) → start the checks again', () => {
    expect(step('Validating', { checks: undefined }, 120, ready)).toMatchObject({ action: 'start-checks' });
  });
});

// Issue 27: a restored claim that cannot bind fails the run early, naming the claim and the reason.
describe('nextStep: a restored claim that cannot bind (Restoring, and Validating while pods are not ready)', () => {
  const SANDBOX = 'rehearsal-shop-r1';
  const NO_CLASS = 'no persistent volumes available for this claim and no storage class is set';
  /** A claim of the sandbox, created `createdAt` seconds after the run started. */
  function claim(phase: string, createdAt: number, lastWarning?: { reason: string; message: string }): ClaimObservation {
    return {
      namespace: SANDBOX,
      name: 'data',
      phase,
      createdAt: after(createdAt).toISOString(),
      ...(lastWarning ? { lastWarning: { ...lastWarning, at: after(createdAt + 5).toISOString() } } : {}),
    };
  }
  const waitingForPods = { pods: { expected: 2, ready: 1 } };
  const restoreRunning = { restore: { state: 'running', phase: 'InProgress' } } as const;
  // The same observation in both stages; the claim was created at 60 s (Validating's restore ended then).
  const stages = [
    ['Restoring', restoreRunning],
    ['Validating', waitingForPods],
  ] as const;

  it.each([
    ['FailedBinding', NO_CLASS, '2m1s'],
    ['FailedBinding', 'volume "pvc-0d1c" already bound to a different claim.', '2m1s'],
    ['ProvisioningFailed', 'storageclass.storage.k8s.io "gold-ssd" not found', '2m1s'],
    ['VolumeMismatch', 'Cannot bind to requested volume "pvc-0d1c": requested PV is too small', '2m1s'],
  ] as const)('Pending with %s "%s", longer than claimBindTimeoutSeconds → fail VolumeNotBound (both stages)', (reason, message, duration) => {
    for (const [stage, observed] of stages) {
      const result = step(stage, { ...observed, claims: [claim('Pending', 60, { reason, message })] }, 60 + 121);
      expect(result).toMatchObject({ action: 'update', reason: 'VolumeNotBound', requeueAfterMs: 0 });
      expect(result.run).toMatchObject({
        stage: 'Finalizing',
        failure: { reason: 'VolumeNotBound', message: `PersistentVolumeClaim ${SANDBOX}/data was not bound after ${duration}: ${reason}: ${message}` },
      });
    }
  });

  it.each(stages)('%s: a binding failure within the bound → keep waiting, and look again when the bound passes', (stage, observed) => {
    const failing = [claim('Pending', 60, { reason: 'FailedBinding', message: NO_CLASS })];
    const result = step(stage, { ...observed, claims: failing }, 60 + 100);
    expect(result.action).toBe('wait');
    expect(result.reason).toBe(stage === 'Restoring' ? 'Restoring' : 'WaitingForPods');
    // Exactly at the bound is not yet "longer than" it.
    expect(step(stage, { ...observed, claims: failing }, 60 + 120).action).toBe('wait');
    // A watched restore is looked at rarely: the run wakes when the claim's bound passes instead.
    const watched = step(stage, { ...observed, claims: failing, bounds: { ...bounds, restorePollMs: 60_000 } }, 60 + 100);
    expect(watched.requeueAfterMs).toBe(stage === 'Restoring' ? 20_001 : 2000);
  });

  it.each([
    ['WaitForFirstConsumer', 'waiting for first consumer to be created before binding'],
    ['ExternalProvisioning', 'Waiting for a volume to be created either by the external provisioner "csi.example" or manually'],
  ] as const)('Pending for 8 minutes with only Normal %s events → no failure (a held Job pod keeps its claim waiting)', (reason, message) => {
    for (const [stage, observed] of stages) {
      // As the reader observes it (Normal events other than FailedBinding are no warning), and
      // even if such an event were handed over as one.
      for (const waiting of [claim('Pending', 60), claim('Pending', 60, { reason, message })]) {
        const result = step(stage, { ...observed, claims: [waiting] }, 60 + 500);
        expect(result).toMatchObject({ action: 'wait', reason: stage === 'Restoring' ? 'Restoring' : 'WaitingForPods' });
      }
    }
  });

  it('Pending long with another Warning (not a binding failure) → no failure', () => {
    for (const [stage, observed] of stages) {
      const result = step(stage, { ...observed, claims: [claim('Pending', 60, { reason: 'ExternalExpanding', message: 'waiting' })] }, 60 + 500);
      expect(result).toMatchObject({ action: 'wait', reason: stage === 'Restoring' ? 'Restoring' : 'WaitingForPods' });
    }
  });

  it('a Bound claim whose latest Warning was a binding failure (since resolved) → no failure', () => {
    for (const [stage, observed] of stages) {
      const result = step(stage, { ...observed, claims: [claim('Bound', 60, { reason: 'ProvisioningFailed', message: 'timeout' })] }, 60 + 500);
      expect(result).toMatchObject({ action: 'wait', reason: stage === 'Restoring' ? 'Restoring' : 'WaitingForPods' });
    }
  });

  it('several claims → the one Pending longest names the failure; claims not read → no failure', () => {
    const younger = { ...claim('Pending', 100, { reason: 'FailedBinding', message: NO_CLASS }), name: 'logs' };
    const older = { ...claim('Pending', 50, { reason: 'ProvisioningFailed', message: 'storageclass.storage.k8s.io "gold-ssd" not found' }), name: 'db' };
    const result = step('Restoring', { ...restoreRunning, claims: [younger, older, claim('Bound', 10)] }, 60 + 300);
    expect(result.run?.failure?.message).toMatch(/^PersistentVolumeClaim rehearsal-shop-r1\/db was not bound after 5m10s: ProvisioningFailed: /);
    expect(step('Restoring', { ...restoreRunning, claims: undefined }, 60 + 300)).toMatchObject({ action: 'wait', reason: 'Restoring' });
  });

  it('the message stays within the 1024 characters of the CRDs, whatever the event said', () => {
    const long = claim('Pending', 60, { reason: 'ProvisioningFailed', message: `rpc error: ${'x'.repeat(5000)}` });
    const message = step('Validating', { ...waitingForPods, claims: [long] }, 60 + 121).run!.failure!.message;
    expect(message.length).toBeLessThanOrEqual(1024);
    expect(message).toMatch(/^PersistentVolumeClaim rehearsal-shop-r1\/data was not bound after 2m1s: ProvisioningFailed: rpc error: x+…$/);
  });

  it('the provider\'s own end comes first: a failed or finished restore is not a VolumeNotBound', () => {
    const failing = [claim('Pending', 60, { reason: 'FailedBinding', message: NO_CLASS })];
    expect(step('Restoring', { restore: { state: 'failed', phase: 'Failed' }, claims: failing }, 60 + 300).run?.failure?.reason).toBe('RestoreFailed');
    expect(step('Restoring', { restore: { state: 'succeeded', phase: 'Completed', warnings: 0 }, claims: failing }, 60 + 300).run?.stage).toBe('Validating');
  });

  it('Validating: pods all ready, or the pod timeout passed, or podsReadyAt recorded → the claims no longer decide', () => {
    const failing = [claim('Pending', 60, { reason: 'FailedBinding', message: NO_CLASS })];
    expect(step('Validating', { claims: failing }, 60 + 300)).toMatchObject({ action: 'update', reason: 'PodsReady' });
    expect(step('Validating', { ...waitingForPods, claims: failing, checks: { state: 'running' } }, 60 + 601)).toMatchObject({ action: 'wait', reason: 'ChecksRunning' });
    const ready = { podsReadyAt: after(100).toISOString() };
    expect(step('Validating', { claims: failing, checks: { state: 'running' } }, 60 + 300, ready)).toMatchObject({ reason: 'ChecksRunning' });
  });

  it('well before the pod timeout: a short bound fails the run seconds after the claim was created', () => {
    const short = { ...bounds, claimBindTimeoutSeconds: 3 };
    const failing = [claim('Pending', 60, { reason: 'FailedBinding', message: NO_CLASS })];
    expect(step('Validating', { ...waitingForPods, claims: failing, bounds: short }, 60 + 4).run?.failure?.reason).toBe('VolumeNotBound');
  });
});

describe('nextStep: Finalizing', () => {
  it('no report yet → write it (a failed run gets one too)', () => {
    const result = step('Finalizing', {});
    expect(result).toMatchObject({ action: 'write-report', reason: 'RunFailed' });
    expect(result.sandboxExpiresAt).toEqual(after(3600));
  });
});

describe('nextStep: the report exists → how the run ends', () => {
  it.each([
    ['pass', 100, 'Completed', 'True', 'Passed', 'delete', false],
    ['partial', 80, 'Completed', 'False', 'Partial', 'keep', true],
    ['fail', 10, 'Failed', 'False', 'Failed', 'keep', true],
  ] as const)('%s (score %i) → phase %s, LastRunPassed %s/%s, sandboxes %s, triage %s', (result, score, phase, status, reason, sandboxes, triage) => {
    for (const stage of ['Validating', 'Finalizing'] as const) {
      const settled = step(stage, { report: reportOf(result, score) }, 400);
      expect(settled).toMatchObject({ action: 'settle', reason: 'ReportWritten', requeueAfterMs: 0 });
      expect(settled.ending).toEqual({
        status: { phase, lastScore: score, lastResult: result, lastRunAt: after(300).toISOString(), lastReport: 'shop-r1' },
        condition: { type: 'LastRunPassed', status, reason, message: `run r1: score ${score}, ${result}` },
        sandboxes,
        // A kept sandbox stays until the run's deadline, as its report says.
        keepUntil: after(3600),
        triage,
      });
    }
  });
});

describe('nextStep: a watched restore is looked at less often', () => {
  it('waits restorePollMs while the restore runs (watch events wake it sooner), pollIntervalMs otherwise', () => {
    expect(step('Restoring', {})).toMatchObject({ action: 'wait', requeueAfterMs: 2000 });
    expect(step('Restoring', { bounds: { ...bounds, restorePollMs: 15_000 } })).toMatchObject({
      action: 'wait',
      requeueAfterMs: 15_000,
    });
  });
});
