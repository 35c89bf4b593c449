// The RPO facts of one run (issue 27) that the compliance run file prints: the measured RPO, the
// target the run was measured against, and the verdict, read from the report alone.
import { describe, expect, it } from '@jest/globals';
import { measuredRpoSeconds, rpoTargetSeconds, rpoVerdict } from '../../../server/domain/read-models/run-facts.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { makeReport } from './fixtures.js';

const AT = '2026-03-31T02:10:00Z';

describe('RPO facts of a run', () => {
  const withRpo = (rpo: NonNullable<RestoreReport['spec']['rpo']>): RestoreReport => {
    const report = makeReport({ test: 'shop', completedAt: AT });
    report.spec.rpo = rpo;
    return report;
  };
  const measured = (seconds: number, extra: Partial<NonNullable<RestoreReport['spec']['rpo']>> = {}) =>
    withRpo({ check: 'newest-order', newestData: AT, measured: `${seconds}s`, measuredSeconds: seconds, ...extra });

  // [what, report, measured seconds, target seconds, verdict]
  const table: [string, RestoreReport, number | null, number | null, string][] = [
    ['within the target', makeReport({ test: 'shop', completedAt: AT, rpoSeconds: 1800, rpoTarget: '1h' }), 1800, 3600, 'met'],
    ['exactly the target', makeReport({ test: 'shop', completedAt: AT, rpoSeconds: 3600, rpoTarget: '1h' }), 3600, 3600, 'met'],
    ['one second over', makeReport({ test: 'shop', completedAt: AT, rpoSeconds: 3601, rpoTarget: '1h' }), 3601, 3600, 'breached'],
    ['measured, no target', makeReport({ test: 'shop', completedAt: AT, rpoSeconds: 600 }), 600, null, 'no-target'],
    ['nothing measured (no freshness check found a time)', makeReport({ test: 'shop', completedAt: AT }), null, null, 'unmeasured'],
    ['an aborted attempt', makeReport({ test: 'shop', completedAt: AT, aborted: true }), null, null, 'unmeasured'],
    // The numbers decide over a stale withinSLA, as they do for the RTO.
    ['the numbers over withinSLA', measured(7200, { target: '1h', withinSLA: true }), 7200, 3600, 'breached'],
    // A target the parser cannot read (written by a future engine): the engine's verdict stands.
    ['an unreadable target, withinSLA false', measured(60, { target: '1d', withinSLA: false }), 60, null, 'breached'],
    ['an unreadable target, withinSLA true', measured(60, { target: '1d', withinSLA: true }), 60, null, 'met'],
    ['an unreadable target, no verdict', measured(60, { target: '1d' }), 60, null, 'unmeasured'],
    ['a measurement that is not a number', measured(Number.NaN, { target: '1h', withinSLA: false }), null, 3600, 'breached'],
  ];

  it.each(table)('%s', (_what, report, seconds, target, verdict) => {
    expect([measuredRpoSeconds(report), rpoTargetSeconds(report), rpoVerdict(report)]).toEqual([seconds, target, verdict]);
  });
});
