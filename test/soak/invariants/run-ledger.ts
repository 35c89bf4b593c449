// Invariant 1: every run that started ends with exactly one report. A run is known by the id the
// engine records in status.currentRun.id (seen through the harness's watch) and by the runId of
// its RestoreReport (spec.runId); ids are unique per test only, so the key is namespace/test/id.
// A second report for one run is a violation as soon as it is seen; a run without a report only at
// the end, once the driver has stopped and the last runs were given time to finish. The tests keep
// up to 1000 reports (historyLimit), so none is pruned during a soak.
import type { InformerEvent } from '../../../server/kube/informer.js';
import type { ReportView, TestView } from '../cluster-view.js';
import type { Violations } from './violations.js';

/** The key of one run: run ids are short and unique per test only. */
export function runKey(namespace: string, test: string, runId: string): string {
  return `${namespace}/${test}/${runId}`;
}

interface RunEntry {
  firstSeen: number;
  trigger: string;
  lastStage?: string;
  reports: Set<string>;
  result?: string;
  why?: string;
}

export class RunLedger {
  private readonly runs = new Map<string, RunEntry>();
  /** Report names seen deleted (nothing should delete one during a soak). */
  readonly deletedReports: string[] = [];

  constructor(private readonly violations: Violations) {}

  onTest(_event: InformerEvent, test: TestView | undefined): void {
    if (!test?.run) return;
    const entry = this.entry(runKey(test.namespace, test.name, test.run.id), test.run.trigger);
    entry.lastStage = test.run.stage;
  }

  onReport(event: InformerEvent, report: ReportView | undefined, previous: ReportView | undefined): void {
    if (event === 'delete') {
      if (previous) this.deletedReports.push(previous.name);
      return;
    }
    if (!report) return;
    const key = runKey(report.namespace, report.test, report.runId);
    const entry = this.entry(key, report.trigger);
    entry.reports.add(report.name);
    entry.result = report.result;
    entry.why = report.why;
    if (entry.reports.size > 1) {
      this.violations.record('one-report-per-run', `run ${key} has ${entry.reports.size} reports: ${[...entry.reports].join(', ')}`, `dup ${key}`);
    }
  }

  /** At the end: every run seen has exactly one report. */
  checkComplete(): void {
    for (const [key, entry] of this.runs) {
      if (entry.reports.size === 0) {
        this.violations.record(
          'one-report-per-run',
          `run ${key} (trigger ${entry.trigger}, first seen ${new Date(entry.firstSeen).toISOString()}, last stage ${entry.lastStage ?? '?'}) has no report`,
          `missing ${key}`,
        );
      }
    }
  }

  /** Runs whose current stage is still recorded (no report yet). */
  inFlight(): number {
    let count = 0;
    for (const entry of this.runs.values()) if (entry.reports.size === 0) count++;
    return count;
  }

  /** The runs that did not pass, with why (the soak prints them: a fault may explain them, or not). */
  notPassed(): string[] {
    const lines: string[] = [];
    for (const [key, entry] of this.runs) if (entry.result && entry.result !== 'pass') lines.push(`${key} ${entry.result}: ${(entry.why ?? '').slice(0, 400)}`);
    return lines;
  }

  figures(): { started: number; finished: number; reports: number; byResult: Record<string, number>; byTrigger: Record<string, number> } {
    const byResult: Record<string, number> = {};
    const byTrigger: Record<string, number> = {};
    let finished = 0;
    let reports = 0;
    for (const entry of this.runs.values()) {
      reports += entry.reports.size;
      byTrigger[entry.trigger] = (byTrigger[entry.trigger] ?? 0) + 1;
      if (entry.reports.size > 0) {
        finished++;
        byResult[entry.result ?? '?'] = (byResult[entry.result ?? '?'] ?? 0) + 1;
      }
    }
    return { started: this.runs.size, finished, reports, byResult, byTrigger };
  }

  private entry(key: string, trigger: string): RunEntry {
    let entry = this.runs.get(key);
    if (!entry) {
      entry = { firstSeen: Date.now(), trigger, reports: new Set() };
      this.runs.set(key, entry);
    } else if (entry.trigger === 'unknown' && trigger !== 'unknown') {
      entry.trigger = trigger;
    }
    return entry;
  }
}
