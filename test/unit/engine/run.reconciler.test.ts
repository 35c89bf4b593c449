// The run reconciler against in-memory reads and actions (through the real gatherer): it reads only
// what the stage needs, follows the policy, chains steps that need no wait, hands the actions what
// was gathered (they read nothing), and stops writing when leadership is lost.
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { StaticTargetResolver } from '../../../server/checks/target-resolver.js';
import { CheckTasks } from '../../../server/engine/run/check-tasks.js';
import { FakeSandboxReader } from '../checks/fake-sandbox-reader.js';
import type { ReportInputs } from '../../../server/engine/run/report-writer.js';
import type { RunActions } from '../../../server/engine/run/run-actions.js';
import { RunGatherer, type ReportChain, type RestoreRead, type RunReads } from '../../../server/engine/run/run-gatherer.js';
import type { KindObservation } from '../../../server/engine/run/kind-completeness.js';
import type { Admission } from '../../../server/engine/run/run-slots.js';
import { RunReconciler } from '../../../server/engine/run/run.reconciler.js';
import type { EventType } from '../../../server/engine/events.js';
import type { RunEnding } from '../../../server/domain/run/run-policy.js';
import type { BackupObservation, ClaimObservation, PreparationObservation, RunBounds } from '../../../server/domain/run/run-observations.js';
import type { CurrentRun, RestoreReport, RestoreTest, RestoreTestStatus, VolumeRestoreReport } from '../../../server/domain/resources/resources.js';

const bounds: RunBounds = { ttlSeconds: 3600, podReadyTimeoutSeconds: 600, claimBindTimeoutSeconds: 120, providerUnavailableSeconds: 600, pollIntervalMs: 2000 };
import type { RunPermission } from '../../../server/domain/permissions/run-permission.js';

const NOW = new Date('2026-03-01T02:00:10Z');

/** The world of a run in memory: what the reads answer, and every action recorded. */
class FakeActions implements RunReads, RunActions {
  leader = true;
  admitted = true;
  backup: BackupObservation = { state: 'found', backup: { name: 'daily' } };
  restore: RestoreRead = { state: 'read', progress: { state: 'succeeded', phase: 'Completed', warnings: 0, errors: 0 } };
  pods = { expected: 1, ready: 1 };
  checksState: 'not-started' | 'running' | 'done' = 'not-started';
  preparation: PreparationObservation = { state: 'prepared', restore: { namespace: 'velero', name: 'r' }, requestedAt: NOW.toISOString(), sandboxNamespaces: [{ source: 'shop', sandbox: 'sb' }] };
  chain: ReportChain = { previous: undefined, history: ['shop-r0'] };
  report: RestoreReport | undefined;
  readonly calls: string[] = [];
  readonly statuses: RestoreTestStatus[] = [];
  readonly events: string[] = [];
  readonly settled: (RestoreTest | undefined)[] = [];
  readonly reportInputs: ReportInputs[] = [];
  readonly endings: RunEnding[] = [];
  private rv = 1;

  leading(): boolean {
    return this.leader;
  }
  admit(_test: RestoreTest): Admission {
    this.calls.push('admit');
    const counts = { inProgress: 0, queued: 1 };
    return this.admitted
      ? { admitted: true, next: undefined, counts, promotion: { settle: (written) => this.settled.push(written) } }
      : { admitted: false, next: 'ns/other', counts };
  }
  permission: RunPermission = { allowed: true, reason: 'SourcesInOwnNamespace', message: 'the test restores only its own namespace' };
  async runPermission(): Promise<RunPermission> {
    this.calls.push('runPermission');
    return this.permission;
  }
  async selectBackup(): Promise<BackupObservation> {
    this.calls.push('selectBackup');
    return this.backup;
  }
  async readRestore(): Promise<RestoreRead> {
    this.calls.push('restoreProgress');
    return this.restore;
  }
  async countPods(): Promise<{ expected: number; ready: number }> {
    this.calls.push('countPods');
    return this.pods;
  }
  claims: ClaimObservation[] | undefined = [];
  async readClaims(): Promise<ClaimObservation[] | undefined> {
    this.calls.push('readClaims');
    return this.claims;
  }
  checks() {
    return { state: this.checksState };
  }
  checkResults() {
    return this.checksState === 'done' ? { results: [], completedAt: NOW } : undefined;
  }
  configuredChecks() {
    return [{ name: 'web', kind: 'httpGet' as const, critical: true, httpGet: { service: 'web', port: 80, path: '/' } }];
  }
  async findReport(): Promise<RestoreReport | undefined> {
    this.calls.push('findReport');
    return this.report;
  }
  readonly kindsVolumes: (readonly VolumeRestoreReport[] | undefined)[] = [];
  kindsObserved: KindObservation = { kinds: undefined };
  async kinds(_test: RestoreTest, _run: CurrentRun, _transforms: unknown, volumes?: readonly VolumeRestoreReport[]) {
    this.calls.push('kinds');
    this.kindsVolumes.push(volumes);
    return this.kindsObserved;
  }
  async transforms() {
    this.calls.push('transforms');
    return undefined;
  }
  async podSecurity() {
    this.calls.push('podSecurity');
    return undefined;
  }
  async dependencies() {
    this.calls.push('dependencies');
    return [];
  }
  async reportChain(): Promise<ReportChain> {
    this.calls.push('reportChain');
    return this.chain;
  }
  async prepare(): Promise<PreparationObservation> {
    this.calls.push('prepare');
    return this.preparation;
  }
  startChecks(): void {
    this.calls.push('startChecks');
    this.checksState = 'running';
  }
  async writeReport(test: RestoreTest, run: CurrentRun, inputs: ReportInputs): Promise<RestoreReport> {
    this.calls.push('writeReport');
    this.reportInputs.push(inputs);
    this.report = {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreReport',
      metadata: { name: `${test.metadata.name}-${run.id}` },
      spec: { result: 'partial', score: 95, completedAt: NOW.toISOString() } as RestoreReport['spec'],
    };
    return this.report;
  }
  async cleanUp(_test: RestoreTest, _run: CurrentRun, _report: RestoreReport, ending: RunEnding): Promise<void> {
    this.calls.push('cleanUp');
    this.endings.push(ending);
  }
  async writeStatus(test: RestoreTest, status: RestoreTestStatus): Promise<RestoreTest | undefined> {
    if (!this.leader) throw new Error('wrote without leading');
    this.calls.push(`write:${status.currentRun?.stage ?? 'ended'}`);
    this.statuses.push(status);
    return { ...test, metadata: { ...test.metadata, resourceVersion: String(++this.rv) }, status };
  }
  record(_test: RestoreTest, _type: EventType, reason: string): void {
    this.events.push(reason);
  }
  enqueue(key: string): void {
    this.calls.push(`enqueue:${key}`);
  }
  forget(key: string): void {
    this.calls.push(`forget:${key}`);
  }
}

function testWith(run: Partial<CurrentRun> & { stage: CurrentRun['stage'] }): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { namespace: 'ns', name: 'shop', resourceVersion: '1' },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '@daily' } },
    status: { phase: 'Running', currentRun: { id: 'r1', trigger: 'manual', scheduledAt: NOW.toISOString(), queuedAt: NOW.toISOString(), ...run } },
  };
}

function reconciler(world: FakeActions): RunReconciler {
  return new RunReconciler({ gatherer: new RunGatherer(world, () => bounds), actions: world, now: () => NOW });
}

describe('RunReconciler', () => {
  it('takes a queued run through promotion and preparation in one pass, then polls', async () => {
    const actions = new FakeActions();
    const result = await reconciler(actions).reconcile(testWith({ stage: 'Queued' }));
    expect(actions.calls).toEqual(['admit', 'runPermission', 'write:Preparing', 'selectBackup', 'prepare', 'write:Restoring']);
    expect(actions.settled).toHaveLength(1);
    expect(actions.settled[0]?.status?.currentRun?.stage).toBe('Preparing');
    expect(actions.settled[0]?.status?.conditions).toMatchObject([{ type: 'RunAllowed', status: 'True', reason: 'SourcesInOwnNamespace' }]);
    expect(actions.events).toEqual(['RunStarted']);
    expect(result).toEqual({ requeueAfterMs: 2000 });
  });

  // Decision 0018: a refused run restores nothing; it goes to Finalizing, writes its report, and
  // the RunAllowed condition says why.
  it('refuses a queued run whose author lost the rights: no backup chosen, RunAllowed False, the report next', async () => {
    const actions = new FakeActions();
    actions.permission = { allowed: false, reason: 'AuthorLacksRights', message: 'the author "bob" cannot get secrets in namespace "b"' };
    await reconciler(actions).reconcile(testWith({ stage: 'Queued' }));
    expect(actions.calls.slice(0, 3)).toEqual(['admit', 'runPermission', 'write:Finalizing']);
    expect(actions.calls).not.toContain('selectBackup');
    expect(actions.calls).not.toContain('prepare');
    expect(actions.statuses[0]?.conditions).toMatchObject([{ type: 'RunAllowed', status: 'False', reason: 'AuthorLacksRights' }]);
    expect(actions.statuses[0]?.currentRun?.failure).toMatchObject({ reason: 'AuthorLacksRights' });
    expect(actions.events[0]).toBe('RunRefused');
  });

  it('leaves a queued run waiting without a slot, and wakes the one first in line', async () => {
    const actions = new FakeActions();
    actions.admitted = false;
    const result = await reconciler(actions).reconcile(testWith({ stage: 'Queued' }));
    expect(actions.calls).toEqual(['admit', 'enqueue:ns/other']);
    expect(result).toEqual({ requeueAfterMs: 10_000 });
  });

  it('gives the slot back when the promotion write fails', async () => {
    const actions = new FakeActions();
    actions.writeStatus = async () => {
      throw Object.assign(new Error('conflict'), { code: 409 });
    };
    await expect(reconciler(actions).reconcile(testWith({ stage: 'Queued' }))).rejects.toThrow('conflict');
    expect(actions.settled).toEqual([undefined]);
  });

  it('goes from a finished restore to the checks, and from finished checks to the ended run', async () => {
    const actions = new FakeActions();
    const restoring = testWith({ stage: 'Restoring', startedAt: NOW.toISOString(), restore: { namespace: 'velero', name: 'r' } });
    await reconciler(actions).reconcile(restoring);
    expect(actions.calls).toEqual(['restoreProgress', 'readClaims', 'write:Validating', 'findReport', 'countPods', 'readClaims', 'write:Validating', 'findReport', 'startChecks']);
    expect(actions.events).toEqual(['RestoreDone']);

    actions.calls.length = 0;
    actions.checksState = 'done';
    const validating = testWith({ stage: 'Validating', startedAt: NOW.toISOString(), podsReadyAt: NOW.toISOString() });
    await reconciler(actions).reconcile(validating);
    // The report's reads are gathered before the write; the writer is handed them.
    expect(actions.calls).toEqual(['findReport', 'podSecurity', 'reportChain', 'writeReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
    const ended = actions.statuses.at(-1)!;
    expect(ended).toMatchObject({ phase: 'Completed', lastResult: 'partial', lastScore: 95, lastReport: 'shop-r1' });
    expect(ended.currentRun).toBeUndefined();
    expect(ended.conditions?.[0]).toMatchObject({ type: 'LastRunPassed', status: 'False', reason: 'Partial' });
    // A partial run keeps its sandboxes until the run's deadline and is triaged first.
    expect(actions.endings).toEqual([expect.objectContaining({ sandboxes: 'keep', keepUntil: new Date(NOW.getTime() + 3600_000), triage: true })]);
  });

  it('gathers everything the report needs once, and hands it to the writer', async () => {
    const actions = new FakeActions();
    actions.checksState = 'done';
    actions.restore = { state: 'read', progress: { state: 'partiallyFailed', phase: 'PartiallyFailed', warnings: 2, errors: 1, itemsRestored: 9, totalItems: 10 } };
    const previous = { metadata: { name: 'shop-r0' } } as RestoreReport;
    actions.chain = { previous, history: ['shop-r0'] };
    const validating = testWith({ stage: 'Validating', startedAt: NOW.toISOString(), podsReadyAt: NOW.toISOString(), restore: { namespace: 'velero', name: 'r' } });
    await reconciler(actions).reconcile(validating);
    expect(actions.calls).toEqual(['findReport', 'restoreProgress', 'countPods', 'kinds', 'transforms', 'podSecurity', 'dependencies', 'reportChain', 'writeReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
    expect(actions.reportInputs).toEqual([
      {
        facts: {
          restore: { phase: 'PartiallyFailed', succeeded: true, partiallyFailed: true, warnings: 2, errors: 1, itemsRestored: 9, totalItems: 10 },
          pods: { expected: 1, ready: 1 },
          checks: [],
          dependencies: [],
          checksCompletedAt: NOW,
          criticalChecks: ['web'],
          sandboxExpiresAt: new Date(NOW.getTime() + 3600_000),
        },
        previous,
        history: ['shop-r0'],
      },
    ]);
  });

  it('does not count pods twice when the pod timeout passed and the report follows in the same step', async () => {
    const actions = new FakeActions();
    actions.checksState = 'done';
    actions.pods = { expected: 2, ready: 1 };
    const late = testWith({
      stage: 'Validating',
      startedAt: NOW.toISOString(),
      restoreCompletedAt: new Date(NOW.getTime() - 700_000).toISOString(),
      restore: { namespace: 'velero', name: 'r' },
    });
    await reconciler(actions).reconcile(late);
    expect(actions.calls.filter((call) => call === 'countPods')).toHaveLength(1);
    expect(actions.reportInputs[0]?.facts.pods).toEqual({ expected: 2, ready: 1 });
  });

  it('a restore that did not succeed: no pods, kinds or dependencies are read for its report', async () => {
    const actions = new FakeActions();
    actions.restore = { state: 'missing' };
    const finalizing = testWith({
      stage: 'Finalizing',
      startedAt: NOW.toISOString(),
      restore: { namespace: 'velero', name: 'r' },
      restorePhase: 'InProgress',
      failure: { reason: 'RestoreLost', message: 'gone' },
    });
    await reconciler(actions).reconcile(finalizing);
    expect(actions.calls).toEqual(['findReport', 'restoreProgress', 'podSecurity', 'reportChain', 'writeReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
    expect(actions.reportInputs[0]?.facts).toMatchObject({
      restore: { phase: 'InProgress', succeeded: false, partiallyFailed: false, warnings: 0, errors: 0 },
      failure: { reason: 'RestoreLost', message: 'gone' },
    });
    expect(actions.reportInputs[0]?.facts.pods).toBeUndefined();
  });

  // Issue 27: completeness counts a claim only with its data, so it is read for this failure too.
  it('a run that failed because volume data did not come back: its kinds are read with the volumes, nothing else', async () => {
    const actions = new FakeActions();
    actions.kindsObserved = { kinds: { completeness: [{ kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 }] } };
    const volumes: VolumeRestoreReport[] = [
      { namespace: 'sb', claim: 'data', method: 'csi-data-mover', phase: 'Failed', dataRestored: false, message: 'snapshot gone' },
    ];
    actions.restore = { state: 'read', progress: { state: 'succeeded', phase: 'Completed', warnings: 0, errors: 0, volumes } };
    const failure = { reason: 'VolumeDataNotRestored', message: 'the data of 1 volume was not restored' };
    const finalizing = testWith({ stage: 'Finalizing', startedAt: NOW.toISOString(), restore: { namespace: 'velero', name: 'r' }, restorePhase: 'Completed', failure });
    await reconciler(actions).reconcile(finalizing);
    expect(actions.calls).toEqual(['findReport', 'restoreProgress', 'countPods', 'kinds', 'podSecurity', 'reportChain', 'writeReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
    expect(actions.kindsVolumes).toEqual([volumes]);
    expect(actions.reportInputs[0]?.facts).toMatchObject({ failure, kinds: { completeness: [{ kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 }] } });
  });

  it('another failure after a successful restore reads no kinds', async () => {
    const actions = new FakeActions();
    actions.restore = { state: 'read', progress: { state: 'succeeded', phase: 'Completed', warnings: 0, errors: 0 } };
    const failure = { reason: 'TTLExceeded', message: 'the sandbox ttl passed' };
    await reconciler(actions).reconcile(testWith({ stage: 'Finalizing', startedAt: NOW.toISOString(), restore: { namespace: 'velero', name: 'r' }, restorePhase: 'Completed', failure }));
    expect(actions.calls).not.toContain('kinds');
  });

  // Issue 27: a restored claim that cannot bind fails the run while it waits for pods.
  it('fails a run whose claim cannot bind while it waits for pods, and writes its report in the same pass', async () => {
    const actions = new FakeActions();
    actions.pods = { expected: 1, ready: 0 };
    const message = 'no persistent volumes available for this claim and no storage class is set';
    actions.claims = [
      { namespace: 'sb', name: 'data', phase: 'Pending', createdAt: new Date(NOW.getTime() - 200_000).toISOString(), lastWarning: { reason: 'FailedBinding', message, at: NOW.toISOString() } },
    ];
    const waiting = testWith({
      stage: 'Validating',
      startedAt: NOW.toISOString(),
      restoreCompletedAt: new Date(NOW.getTime() - 150_000).toISOString(),
      restore: { namespace: 'velero', name: 'r' },
      sandboxNamespaces: [{ source: 'shop', sandbox: 'sb' }],
    });
    await reconciler(actions).reconcile(waiting);
    expect(actions.calls.slice(0, 4)).toEqual(['findReport', 'countPods', 'readClaims', 'write:Finalizing']);
    const failure = { reason: 'VolumeNotBound', message: `PersistentVolumeClaim sb/data was not bound after 3m20s: FailedBinding: ${message}` };
    expect(actions.statuses[0]?.currentRun?.failure).toEqual(failure);
    expect(actions.calls).toContain('writeReport');
    // The restore succeeded: the report still says how many pods came up.
    expect(actions.reportInputs[0]?.facts).toMatchObject({ failure, pods: { expected: 1, ready: 0 } });
  });

  it('a run whose claims cannot be read this time goes on waiting for its pods', async () => {
    const actions = new FakeActions();
    actions.pods = { expected: 1, ready: 0 };
    actions.claims = undefined;
    const waiting = testWith({ stage: 'Validating', startedAt: NOW.toISOString(), restoreCompletedAt: NOW.toISOString(), sandboxNamespaces: [{ source: 'shop', sandbox: 'sb' }] });
    expect(await reconciler(actions).reconcile(waiting)).toEqual({ requeueAfterMs: 2000 });
    expect(actions.calls).toEqual(['findReport', 'countPods', 'readClaims']);
  });

  it('a sandbox namespace that is taken ends the run at once with its report (the policy decides, not prepare)', async () => {
    const actions = new FakeActions();
    actions.preparation = { state: 'sandbox-taken', sandboxNamespaces: [], reason: 'SandboxNamespaceTaken', message: 'sb exists' };
    await reconciler(actions).reconcile(testWith({ stage: 'Preparing', startedAt: NOW.toISOString() }));
    expect(actions.calls).toEqual(['selectBackup', 'prepare', 'write:Finalizing', 'findReport', 'podSecurity', 'reportChain', 'writeReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
    expect(actions.statuses[0]?.currentRun?.failure).toEqual({ reason: 'SandboxNamespaceTaken', message: 'sb exists' });
  });

  it('settles a run whose report already exists (a restart after the report was written)', async () => {
    const actions = new FakeActions();
    await actions.writeReport(testWith({ stage: 'Validating' }), testWith({ stage: 'Validating' }).status!.currentRun!, { facts: { checks: [] }, previous: undefined, history: [] });
    actions.calls.length = 0;
    await reconciler(actions).reconcile(testWith({ stage: 'Validating', startedAt: NOW.toISOString() }));
    expect(actions.calls).toEqual(['findReport', 'cleanUp', 'write:ended', 'forget:ns/shop']);
  });

  it('observes and writes nothing once leadership is lost, and drops the run’s in-memory work', async () => {
    for (const stage of ['Queued', 'Preparing', 'Restoring', 'Validating', 'Finalizing'] as const) {
      const actions = new FakeActions();
      actions.leader = false;
      const result = await reconciler(actions).reconcile(testWith({ stage, startedAt: NOW.toISOString() }));
      expect(actions.calls).toEqual(['forget:ns/shop']);
      expect(result).toEqual({});
    }
  });
});

describe('CheckTasks and the end of a leadership term', () => {
  it('aborts every check in flight within a second, and keeps no result from the old term', async () => {
    const aborted: number[] = [];
    const done: string[] = [];
    const tasks = new CheckTasks({
      reader: new FakeSandboxReader({}),
      targets: new StaticTargetResolver({}),
      log: pino({ level: 'silent' }),
      now: () => NOW,
      onDone: (key) => done.push(key),
      // A check that never ends on its own: only the abort signal stops it.
      run: (_checks, options) =>
        new Promise((resolve) => options.signal!.addEventListener('abort', () => {
          aborted.push(Date.now());
          resolve([]);
        })),
    });
    const started = Date.now();
    for (const name of ['a', 'b', 'c']) {
      const test = testWith({ stage: 'Validating', sandboxNamespaces: [{ source: 'shop', sandbox: 'sb' }] });
      test.metadata.name = name;
      tasks.start(test, test.status!.currentRun!, undefined);
    }
    expect(tasks.size).toBe(3);
    tasks.abortAll();
    await new Promise((resolve) => setImmediate(resolve));
    expect(aborted).toHaveLength(3);
    expect(Math.max(...aborted) - started).toBeLessThan(1000);
    expect(tasks.size).toBe(0);
    expect(done).toEqual([]); // an aborted task's results are no evidence: nothing is picked up
  });
});
