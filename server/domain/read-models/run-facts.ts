// Facts about one run that several read models need (alerts, compliance, summaries), derived the
// same way everywhere so the dashboard and the compliance evidence can never disagree about, say,
// whether a run met its RTO target.
import type { ReportSummary } from './report-summary.js';
import { parseDuration } from '../common/duration.js';

export function measuredRtoSeconds(report: ReportSummary): number | null {
  const rto = report.spec.rto;
  if (typeof rto?.measuredSeconds === 'number' && Number.isFinite(rto.measuredSeconds))
    return rto.measuredSeconds;
  return rto?.measured ? parseDuration(rto.measured) : null;
}

/** The target recorded in the report at run time (not today's spec: evidence is what applied then). */
export function rtoTargetSeconds(report: ReportSummary): number | null {
  const target = report.spec.rto?.target;
  return target ? parseDuration(target) : null;
}

/**
 * met / breached: measured against the run's own target. no-target: the run had no SLA.
 * unmeasured: a target existed but the run never measured an RTO (it failed before validation);
 * that is not "met".
 */
export type RtoVerdict = 'met' | 'breached' | 'no-target' | 'unmeasured';

export function rtoVerdict(report: ReportSummary): RtoVerdict {
  const target = rtoTargetSeconds(report);
  if (target === null) return 'no-target';
  const measured = measuredRtoSeconds(report);
  if (measured === null) {
    // The controller's own verdict is the fallback when the numbers are missing.
    const within = report.spec.rto?.withinSLA;
    return within === true ? 'met' : within === false ? 'breached' : 'unmeasured';
  }
  return measured <= target ? 'met' : 'breached';
}

/** The measured RPO (spec.rpo, issue 27); null when no freshness check found a time. */
export function measuredRpoSeconds(report: ReportSummary): number | null {
  const seconds = report.spec.rpo?.measuredSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : null;
}

/**
 * The RPO target the run was measured against, as recorded in its report. The report records the
 * target only beside a measurement (spec.rpo), so a run that measured no RPO has none here.
 */
export function rpoTargetSeconds(report: ReportSummary): number | null {
  const target = report.spec.rpo?.target;
  return target ? parseDuration(target) : null;
}

/**
 * met / breached: the measured RPO against the run's own target. no-target: measured, but the test
 * had no maxRPO. unmeasured: no freshness check found a time, so there is no RPO (and the report
 * records no target) — never "met".
 */
export type RpoVerdict = 'met' | 'breached' | 'no-target' | 'unmeasured';

export function rpoVerdict(report: ReportSummary): RpoVerdict {
  const rpo = report.spec.rpo;
  if (!rpo) return 'unmeasured';
  if (!rpo.target) return 'no-target';
  const target = rpoTargetSeconds(report);
  const measured = measuredRpoSeconds(report);
  if (target === null || measured === null) {
    // Numbers it cannot read: the engine's own verdict is the fallback, as for the RTO.
    return rpo.withinSLA === true ? 'met' : rpo.withinSLA === false ? 'breached' : 'unmeasured';
  }
  return measured <= target ? 'met' : 'breached';
}

/**
 * A run that ended before any restore was requested (no spec.restore, with a failure): e.g. no
 * backup found, or the sandbox could not be created. It is part of the complete population of runs
 * but it did not exercise recovery, so for compliance it is an "aborted attempt", not a test.
 */
export function isAbortedAttempt(report: ReportSummary): boolean {
  return report.spec.restore === undefined && report.spec.failure !== undefined;
}
