// Prometheus metrics on Rehearsal's own registry (never the global one, so tests and several
// servers in one process stay independent). Names per decision 0001.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly score = new Gauge({
    name: 'rehearsal_score',
    help: 'Confidence score (0-100) of the most recent run of a RestoreTest',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly rtoSeconds = new Gauge({
    name: 'rehearsal_rto_seconds',
    help: 'Measured recovery time of the most recent run: restore request to application proven healthy',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly backupAgeSeconds = new Gauge({
    name: 'rehearsal_backup_age_seconds',
    help: 'Age of the restored backup at the start of the most recent run',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly lastCompletedRun = new Gauge({
    name: 'rehearsal_last_run_completed_timestamp_seconds',
    help: 'Unix time of the last completed run (feeds the RestoreTestNotRun alert)',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly scheduleIntervalSeconds = new Gauge({
    name: 'rehearsal_schedule_interval_seconds',
    help: 'Interval between two scheduled runs of a RestoreTest (the alert fires after 1.5x)',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  // The gauges below feed the alert rules (deploy/components/monitoring/prometheusrule.yaml); they
  // and the ones above are derived from the cache by server/metrics/restore-test-gauges.ts on every replica.
  readonly testCreated = new Gauge({
    name: 'rehearsal_test_created_timestamp_seconds',
    help: 'Unix time the RestoreTest was created (RestoreTestNotRun: never run after a grace period)',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  // Decision 0018: 1 while an admission policy (or its denying binding) that checks who may restore
  // another namespace is missing; tests restoring another namespace are then refused.
  readonly admissionPolicyMissing = new Gauge({
    name: 'rehearsal_admission_policy_missing',
    help: '1 when the ValidatingAdmissionPolicy or its denying binding is not installed (cross-namespace tests do not run)',
    labelNames: ['policy'],
    registers: [this.registry],
  });
  // Issue 32: 1 when the newest backup's pre-flight check passed, 0 when it failed (absent before
  // the first check, or when the backup could not be read); RestorePreflightFailed fires on 0.
  readonly preflightPassed = new Gauge({
    name: 'rehearsal_preflight_passed',
    help: "1 when the newest backup's pre-flight restorability check passed, 0 when it failed",
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly preflightChecks = new Counter({
    name: 'rehearsal_preflight_checks_total',
    help: 'Pre-flight restorability checks run, by result (passed, failed, error)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  // Issue 33: anchors of every chain in write-once storage (server/evidence/anchor/).
  readonly anchorWrites = new Counter({
    name: 'rehearsal_evidence_anchor_writes_total',
    help: 'Evidence anchors written to write-once storage, by result (written, failed, refused: the bucket has no Object Lock)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly anchorLastWritten = new Gauge({
    name: 'rehearsal_evidence_anchor_last_written_timestamp_seconds',
    help: 'When the newest evidence anchor was written (Unix seconds); absent before the first',
    registers: [this.registry],
  });
  readonly anchorInterval = new Gauge({
    name: 'rehearsal_evidence_anchor_interval_seconds',
    help: 'How often the leader writes an evidence anchor; present on every replica only when anchors are configured (the staleness alert reads it)',
    registers: [this.registry],
  });
  readonly anchorDisagreements = new Gauge({
    name: 'rehearsal_evidence_anchor_disagreements',
    help: 'RestoreTest chains that disagree with an anchor written before (rewritten, deleted or cut after it was anchored), at the last check',
    registers: [this.registry],
  });
  readonly testSuspended = new Gauge({
    name: 'rehearsal_test_suspended',
    help: '1 when the RestoreTest schedule is suspended',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly previousScore = new Gauge({
    name: 'rehearsal_previous_score',
    help: 'Score of the run before the most recent one (RestoreTestScoreRegressed)',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly lastRunResult = new Gauge({
    name: 'rehearsal_last_run_result',
    help: '1 for the result (pass, partial, fail) of the most recent run, 0 for the others',
    labelNames: ['namespace', 'test', 'result'],
    registers: [this.registry],
  });
  readonly rtoTargetSeconds = new Gauge({
    name: 'rehearsal_rto_target_seconds',
    help: 'The RTO target (maxRTO) the most recent run was measured against; absent without one',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly rpoSeconds = new Gauge({
    name: 'rehearsal_rpo_seconds',
    help: 'Measured recovery point of the most recent run: restore request time minus the newest restored data (a freshness check); absent without one',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly rpoTargetSeconds = new Gauge({
    name: 'rehearsal_rpo_target_seconds',
    help: 'The RPO target (maxRPO) the most recent run was measured against; absent without one or without a measured RPO',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly runs = new Counter({
    name: 'rehearsal_runs_total',
    help: 'Completed runs by result',
    labelNames: ['namespace', 'test', 'result'],
    registers: [this.registry],
  });
  readonly runDuration = new Histogram({
    name: 'rehearsal_run_duration_seconds',
    help: 'Wall-clock duration of runs, from start to report',
    buckets: [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
    registers: [this.registry],
  });
  /** Counted from the cache at every scrape (derived like the slots themselves, never kept). */
  private runCounts: (() => { inProgress: number; queued: number }) | undefined;
  readonly runsInProgress = new Gauge({
    name: 'rehearsal_runs_in_progress',
    help: 'Runs holding a concurrency slot',
    registers: [this.registry],
    collect: () => {
      if (this.runCounts) this.runsInProgress.set(this.runCounts().inProgress);
    },
  });
  readonly runsQueued = new Gauge({
    name: 'rehearsal_runs_queued',
    help: 'Runs waiting for a concurrency slot',
    registers: [this.registry],
    collect: () => {
      if (this.runCounts) this.runsQueued.set(this.runCounts().queued);
    },
  });
  readonly reconciles = new Counter({
    name: 'rehearsal_reconcile_total',
    help: 'Reconciles by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'rehearsal_reconcile_duration_seconds',
    help: 'Duration of one reconcile',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'rehearsal_workqueue_depth',
    help: 'Keys waiting in the work queue',
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: 'rehearsal_watch_restarts_total',
    help: 'Informer list/watch restarts after errors',
    labelNames: ['informer'],
    registers: [this.registry],
  });
  readonly namespaceBackedUpUntested = new Gauge({
    name: 'rehearsal_namespace_backed_up_untested',
    help: '1 when a backed-up namespace has no passing restore test within its RPO window, 0 when it has',
    labelNames: ['namespace'],
    registers: [this.registry],
  });
  readonly notifications = new Counter({
    name: 'rehearsal_notifications_total',
    help: 'Notification deliveries by channel type and outcome (delivered, retried, failed, skipped)',
    labelNames: ['channel', 'outcome'],
    registers: [this.registry],
  });
  readonly clusterDefaultsInvalid = new Gauge({
    name: 'rehearsal_cluster_defaults_invalid',
    help: '1 per key of ConfigMap rehearsal-cluster-defaults whose value is ignored (bad or unknown); the last good value applies',
    labelNames: ['key'],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'rehearsal_leader',
    help: '1 when this replica runs the reconciliation loop',
    registers: [this.registry],
  });

  readonly evidenceSequence = new Gauge({
    name: 'rehearsal_evidence_sequence',
    help: 'Chain sequence of the newest signed RestoreReport of a test (its evidence anchor)',
    labelNames: ['namespace', 'test'],
    registers: [this.registry],
  });
  readonly evidenceAnchorInfo = new Gauge({
    name: 'rehearsal_evidence_anchor_info',
    help: 'Always 1; the digest label is the newest signed RestoreReport of a test (scraped history outlives the cluster)',
    labelNames: ['namespace', 'test', 'digest'],
    registers: [this.registry],
  });
  /** The digest label in use per test, so the previous anchor's series is removed. */
  private readonly anchorDigests = new Map<string, string>();

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Where rehearsal_runs_in_progress and rehearsal_runs_queued come from. */
  countRunsWith(counts: () => { inProgress: number; queued: number }): void {
    this.runCounts = counts;
  }

  /** Exports exactly `keys` as the ignored cluster-default keys (a fixed key's series goes). */
  setClusterDefaultsInvalid(keys: readonly string[]): void {
    this.clusterDefaultsInvalid.reset();
    for (const key of keys) this.clusterDefaultsInvalid.set({ key }, 1);
  }

  setEvidenceAnchor(namespace: string, test: string, anchor: { sequence: number; digest: string }): void {
    const key = `${namespace}/${test}`;
    const previous = this.anchorDigests.get(key);
    if (previous !== undefined && previous !== anchor.digest) this.evidenceAnchorInfo.remove({ namespace, test, digest: previous });
    this.anchorDigests.set(key, anchor.digest);
    this.evidenceAnchorInfo.set({ namespace, test, digest: anchor.digest }, 1);
    this.evidenceSequence.set({ namespace, test }, anchor.sequence);
  }

  forgetTest(namespace: string, test: string): void {
    for (const gauge of [
      this.score,
      this.rtoSeconds,
      this.backupAgeSeconds,
      this.lastCompletedRun,
      this.scheduleIntervalSeconds,
      this.testCreated,
      this.testSuspended,
      this.previousScore,
      this.rtoTargetSeconds,
      this.evidenceSequence,
      this.preflightPassed,
    ]) {
      gauge.remove({ namespace, test });
    }
    for (const result of ['pass', 'partial', 'fail']) this.lastRunResult.remove({ namespace, test, result });
    const digest = this.anchorDigests.get(`${namespace}/${test}`);
    if (digest !== undefined) this.evidenceAnchorInfo.remove({ namespace, test, digest });
    this.anchorDigests.delete(`${namespace}/${test}`);
  }
}
