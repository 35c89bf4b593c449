// The run population of a compliance PDF, read straight from the report index. The PDF needs each
// run of the period three times (its per-test aggregates, the report id, the attached CSV) but
// never all of them at once: the runs are one snapshot array of the index's own entries (the same
// selection the evaluation made, taken in the same tick), and each pass derives what it needs of a
// run and drops it. Building a record per run and keeping them (the evaluation's RunRecords) was
// most of the PDF's memory peak at 90,000 runs.
import type { IndexedRun, ReportIndex } from '../../domain/read-models/report-index.js';
import { reportEvidenceDigest, type ReportSummary } from '../../domain/read-models/report-summary.js';
import {
  measuredRpoSeconds,
  measuredRtoSeconds,
  rpoTargetSeconds,
  rpoVerdict,
  rtoVerdict,
} from '../../domain/read-models/run-facts.js';
import type { RunsFileRow } from '../../pdf/runs-file.js';

export interface PeriodRuns {
  /** The runs with from <= completedAt <= to, oldest first (the index's entries, not copies). */
  readonly runs: readonly IndexedRun[];
  /** Whether a run's evidence verifies, as the evaluation judged it; absent: not checked. */
  readonly verify?: (report: ReportSummary) => boolean;
}

/** The runs of the evaluated period ({from, to} as ComplianceDetail.period states them). */
export function periodRuns(
  index: ReportIndex,
  period: { from: string; to: string },
  verify?: (report: ReportSummary) => boolean,
): PeriodRuns {
  return {
    runs: index.runsBetween(Date.parse(period.from), Date.parse(period.to)),
    ...(verify ? { verify } : {}),
  };
}

/** "namespace/name" → its two parts. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Whether the run's evidence verifies; true when signatures are not checked (as the evaluation counts). */
export function runVerifies(period: PeriodRuns, run: IndexedRun): boolean {
  return period.verify ? period.verify(run.report) : true;
}

/** The CSV lines of the period, one object at a time. */
export function* runsFileRows(period: PeriodRuns): Generator<RunsFileRow> {
  for (const run of period.runs) {
    const spec = run.report.spec;
    const test = splitKey(run.testKey);
    const digest = reportEvidenceDigest(run.report);
    yield {
      report: run.report.metadata.name,
      testNamespace: test.namespace,
      test: test.name,
      completedAt: spec.completedAt,
      result: spec.result,
      score: spec.score,
      rtoSeconds: measuredRtoSeconds(run.report),
      rtoTarget: spec.rto?.target ?? null,
      rtoVerdict: rtoVerdict(run.report),
      ...(period.verify ? { evidenceVerified: period.verify(run.report) } : {}),
      ...(digest ? { evidenceDigest: digest } : {}),
      ...(spec.failure ? { failureReason: spec.failure.reason } : {}),
      rpoSeconds: measuredRpoSeconds(run.report),
      rpoTargetSeconds: rpoTargetSeconds(run.report),
      rpoVerdict: rpoVerdict(run.report),
    };
  }
}
