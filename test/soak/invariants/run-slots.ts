// Invariant 2: the runs holding a slot never exceed REHEARSAL_MAX_CONCURRENT_RUNS, and return to
// zero once nothing runs. Seen two ways:
//  - live: the leader's rehearsal_runs_in_progress (counted from its cache at each scrape, the
//    count its admissions use), scraped every 2 s from every replica that is up;
//  - after the fact, from the reports: each report's [startedAt, completedAt] lies within the time
//    its run held a slot (promotion → report → status cleared; a run refused before it started
//    never held one, and its report's startedAt is its queueing: left out), so the most intervals overlapping
//    at one instant is a lower bound of the true peak: above the limit is a real violation, even
//    for a peak too short for the scrapes to see.
// The scrapes also count samples where two replicas said rehearsal_leader 1 at once (an
// observation, not an invariant of the brief: the scrapes of a sample are not simultaneous).
import type { ReportView } from '../cluster-view.js';
import type { ReplicaSet } from '../replicas.js';
import { metricValue, scrape } from '../scrape.js';
import type { Violations } from './violations.js';

export interface Interval {
  start: number;
  end: number;
  label: string;
}

/** The most intervals open at one instant, and when (an interval ending at t does not meet one starting at t). */
export function maxOverlap(intervals: readonly Interval[]): { count: number; at: number; labels: string[] } {
  const edges = intervals.flatMap((interval) => [
    { at: interval.start, delta: 1, interval },
    { at: interval.end, delta: -1, interval },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const open = new Set<Interval>();
  let best = { count: 0, at: 0, labels: [] as string[] };
  for (const edge of edges) {
    if (edge.delta < 0) {
      open.delete(edge.interval);
      continue;
    }
    open.add(edge.interval);
    if (open.size > best.count) best = { count: open.size, at: edge.at, labels: [...open].map((interval) => interval.label) };
  }
  return best;
}

export class RunSlotWatch {
  /** The highest rehearsal_runs_in_progress a leader reported. */
  maxObserved = 0;
  samples = 0;
  /** Samples in which more than one replica reported rehearsal_leader 1. */
  twoLeaderSamples = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly replicas: ReplicaSet,
    private readonly limit: number,
    private readonly violations: Violations,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), 2000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One scrape of every replica that is up; returns the leader's gauge (undefined: no leader answered). */
  async sample(): Promise<number | undefined> {
    if (this.busy) return undefined;
    this.busy = true;
    try {
      const texts = await Promise.all(this.replicas.up().map(async (replica) => ({ replica, text: await scrape(replica) })));
      const leaders = texts.filter(({ text }) => text !== undefined && metricValue(text, 'rehearsal_leader') === 1);
      this.samples++;
      if (leaders.length > 1) this.twoLeaderSamples++;
      let leaderGauge: number | undefined;
      for (const { replica, text } of leaders) {
        const inProgress = metricValue(text!, 'rehearsal_runs_in_progress');
        if (inProgress === undefined) continue;
        leaderGauge = inProgress;
        this.maxObserved = Math.max(this.maxObserved, inProgress);
        if (inProgress > this.limit) {
          this.violations.record(
            'run-slots',
            `${replica.name} (${replica.identity}, leader) reports rehearsal_runs_in_progress ${inProgress} > limit ${this.limit}`,
            `gauge ${replica.identity} ${inProgress}`,
          );
        }
      }
      return leaderGauge;
    } finally {
      this.busy = false;
    }
  }

  /** At the end, from the reports: the peak of overlapping runs. */
  checkReports(reports: Iterable<ReportView>): number {
    const intervals: Interval[] = [];
    for (const report of reports) {
      // Its [startedAt, completedAt] is its time in the queue, not in a slot.
      if (report.refusedBeforeStart) continue;
      const start = Date.parse(report.startedAt);
      const end = Date.parse(report.completedAt);
      if (Number.isFinite(start) && Number.isFinite(end)) intervals.push({ start, end, label: `${report.test}/${report.runId}` });
    }
    const peak = maxOverlap(intervals);
    if (peak.count > this.limit) {
      this.violations.record(
        'run-slots',
        `${peak.count} runs overlapped at ${new Date(peak.at).toISOString()} (startedAt–completedAt of their reports) > limit ${this.limit}: ${peak.labels.join(', ')}`,
        'report overlap',
      );
    }
    return peak.count;
  }

  /** At the end, once every run has its report: the leader's gauge is back to 0. */
  async checkDrained(): Promise<void> {
    let gauge: number | undefined;
    for (let attempt = 0; attempt < 15; attempt++) {
      gauge = await this.sample();
      if (gauge === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    this.violations.record('run-slots', `after the drain the leader's rehearsal_runs_in_progress is ${gauge ?? 'unknown (no leader answered)'}, not 0`, 'drained');
  }
}
