// The per-test gauges (score, RTO, backup age, last completed run, schedule interval, ...) derived
// from the informer cache: the newest RestoreReport of each test and the test itself. Rebuilt in full
// when the server starts and when it gains leadership, and per test whenever a test or report
// changes. So every replica exports them, a restarted or crash-looping server exports the last run's
// time at once (RestoreTestNotRun fires when nothing ran since, and not falsely after a failover),
// and the alert rules aggregate with max by (namespace, test) instead of double counting.
import { parseDuration } from '../domain/common/duration.js';
import { scheduleIntervalSeconds } from '../domain/run/schedule.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { Metrics } from './metrics.js';

const RESULTS = ['pass', 'partial', 'fail'] as const;

type Cache = Pick<
  RehearsalCache,
  'listTests' | 'getTest' | 'reportsOfTest' | 'getReport' | 'onTestChange' | 'onReportChange'
>;

export class TestGauges {
  private readonly exported = new Set<string>();
  private readonly dirty = new Set<string>();
  private flushScheduled = false;
  private listening = false;

  constructor(
    private readonly cache: Cache,
    private readonly metrics: Metrics,
    private readonly now: () => Date,
  ) {}

  /** Rebuilds every test's gauges and, the first time, starts following changes. Call after the cache synced. */
  rebuild(): void {
    if (!this.listening) {
      this.listening = true;
      this.cache.onTestChange((_event, key) => this.markDirty(key));
      this.cache.onReportChange((_event, _key, current, previous) => {
        const ref = (current ?? previous)?.spec.testRef;
        if (ref) this.markDirty(`${ref.namespace}/${ref.name}`);
      });
    }
    const present = new Set<string>();
    for (const test of this.cache.listTests()) {
      const key = `${test.metadata.namespace}/${test.metadata.name}`;
      present.add(key);
      this.refresh(key);
    }
    for (const key of [...this.exported]) if (!present.has(key)) this.refresh(key);
  }

  private markDirty(key: string): void {
    this.dirty.add(key);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // A burst of events (a test and its report, a pruning pass) costs one refresh per test.
    setImmediate(() => {
      this.flushScheduled = false;
      const keys = [...this.dirty];
      this.dirty.clear();
      for (const key of keys) this.refresh(key);
    });
  }

  private refresh(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    const labels = { namespace, test: name };
    const test = this.cache.getTest(namespace, name);
    if (!test) {
      this.metrics.forgetTest(namespace, name);
      this.exported.delete(key);
      return;
    }
    this.exported.add(key);
    const created = test.metadata.creationTimestamp ? Date.parse(test.metadata.creationTimestamp) : NaN;
    if (Number.isFinite(created)) this.metrics.testCreated.set(labels, created / 1000);
    this.metrics.testSuspended.set(labels, test.spec.schedule.suspend ? 1 : 0);
    // The evidence anchor, so the metric outlives restarts (the engine sets it on each new report too).
    if (test.status?.evidenceAnchor) this.metrics.setEvidenceAnchor(namespace, name, test.status.evidenceAnchor);
    const preflight = test.status?.preflight?.result;
    if (preflight === 'passed' || preflight === 'failed') this.metrics.preflightPassed.set(labels, preflight === 'passed' ? 1 : 0);
    else this.metrics.preflightPassed.remove(labels);
    let interval: number | null = null;
    try {
      // An onBackup-only test has no interval of its own: its pace is the backup tool's.
      interval = test.spec.schedule.cron
        ? scheduleIntervalSeconds(test.spec.schedule.cron, test.spec.schedule.timezone ?? 'UTC', this.now())
        : null;
    } catch {
      interval = null; // an invalid cron is the reconciler's condition to report, not a gauge
    }
    if (interval !== null) this.metrics.scheduleIntervalSeconds.set(labels, interval);
    else this.metrics.scheduleIntervalSeconds.remove(labels);

    const reports = this.cache.reportsOfTest(namespace, name); // oldest first
    const newest = reports.at(-1);
    if (!newest) return;
    const previous = reports.at(-2);
    this.metrics.score.set(labels, newest.spec.score);
    if (previous) this.metrics.previousScore.set(labels, previous.spec.score);
    else this.metrics.previousScore.remove(labels);
    for (const result of RESULTS) {
      this.metrics.lastRunResult.set({ ...labels, result }, newest.spec.result === result ? 1 : 0);
    }
    const completed = Date.parse(newest.spec.completedAt);
    if (Number.isFinite(completed)) this.metrics.lastCompletedRun.set(labels, completed / 1000);
    const rto = newest.spec.rto;
    if (rto.measuredSeconds !== undefined) this.metrics.rtoSeconds.set(labels, rto.measuredSeconds);
    else this.metrics.rtoSeconds.remove(labels);
    const target = rto.target ? parseDuration(rto.target) : null;
    if (target !== null) this.metrics.rtoTargetSeconds.set(labels, target);
    else this.metrics.rtoTargetSeconds.remove(labels);
    const full = this.cache.getReport(newest.metadata.namespace ?? namespace, newest.metadata.name);
    const backupDone = full?.spec.backup.completedAt ? Date.parse(full.spec.backup.completedAt) : NaN;
    const started = full ? Date.parse(full.spec.startedAt) : NaN;
    if (Number.isFinite(backupDone) && Number.isFinite(started)) {
      this.metrics.backupAgeSeconds.set(labels, Math.max(0, (started - backupDone) / 1000));
    }
    // The RPO is in the full report only (the summaries the read models keep do not carry it).
    const rpo = full?.spec.rpo;
    if (rpo) this.metrics.rpoSeconds.set(labels, rpo.measuredSeconds);
    else this.metrics.rpoSeconds.remove(labels);
    const rpoTarget = rpo?.target ? parseDuration(rpo.target) : null;
    if (rpoTarget !== null) this.metrics.rpoTargetSeconds.set(labels, rpoTarget);
    else this.metrics.rpoTargetSeconds.remove(labels);
  }
}
