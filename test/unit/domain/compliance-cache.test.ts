// The compliance evaluation keeps each indexed run's facts between evaluations (the server
// re-evaluates a live ReportIndex after every new report). These tests change a live index and the
// verifier's verdicts at random and check, after every change, that the evaluation of the live
// index equals a from-scratch evaluation of fresh copies of the same reports (nothing remembered).
import { describe, expect, it } from '@jest/globals';
import type { RestoreReport, RestoreTest, RunResult } from '../../../server/domain/resources/resources.js';
import type { ReportSummary } from '../../../server/domain/read-models/report-summary.js';
import { FRAMEWORK_IDS } from '../../../server/domain/compliance/catalogue.js';
import {
  complianceOverviewSteps,
  drainSteps,
  evaluateCompliance,
} from '../../../server/domain/compliance/evaluation.js';
import { ReportIndex, reportKeyOf } from '../../../server/domain/read-models/report-index.js';
import { daysBefore, makeReport, makeTest } from './fixtures.js';

const NOW = new Date('2026-03-31T00:00:00Z');
const TESTS = ['payments', 'shop', 'search', 'ledger'];
const RESULTS: RunResult[] = ['pass', 'pass', 'pass', 'partial', 'fail'];

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('compliance over a live index equals a from-scratch evaluation', () => {
  it.each([1, 2, 3, 4, 5, 6])('after adds, replaces, deletes and verifier changes (seed %i)', (seed) => {
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const tests: RestoreTest[] = TESTS.map((name) =>
      makeTest({ name, sources: name === 'ledger' ? ['ledger', 'payments'] : [name], maxRTO: '15m' }),
    );
    const newReport = (): RestoreReport =>
      makeReport({
        test: pick(TESTS),
        completedAt: daysBefore(NOW, Math.floor(next() * 70), Math.floor(next() * 24)),
        result: pick(RESULTS),
        rtoSeconds: 300 + Math.floor(next() * 900),
        ...(next() < 0.8 ? { rtoTarget: '15m' } : {}),
        ...(next() < 0.1 ? { aborted: true } : {}),
      });
    const live = new ReportIndex();
    const stored = new Map<string, RestoreReport>();
    const unverified = new Set<string>();
    const verify = (report: ReportSummary): boolean => !unverified.has(reportKeyOf(report));
    const store = (report: RestoreReport): void => {
      stored.set(reportKeyOf(report), report);
      live.add(report);
    };
    for (let i = 0; i < 40; i += 1) store(newReport());

    for (let step = 0; step < 30; step += 1) {
      const action = next();
      const keys = [...stored.keys()];
      if (action < 0.3 || keys.length === 0) {
        store(newReport());
      } else if (action < 0.5) {
        // Replaced: the same report name, another outcome (a new object, as the informer delivers).
        const old = stored.get(pick(keys))!;
        const result = pick(RESULTS);
        store({ ...old, spec: { ...old.spec, result, score: result === 'pass' ? 90 : 20 } });
      } else if (action < 0.65) {
        const key = pick(keys);
        live.remove(stored.get(key)!);
        stored.delete(key);
      } else {
        // The verifier changes its mind about a report (a chain re-checked, a key rotated).
        const key = pick(keys);
        if (unverified.has(key)) unverified.delete(key);
        else unverified.add(key);
      }

      const framework = pick(FRAMEWORK_IDS);
      const fresh = (): RestoreReport[] => structuredClone([...stored.values()]);
      const cached = evaluateCompliance({
        framework,
        periodDays: 60,
        now: NOW,
        tests,
        reports: live,
        verify,
      });
      const scratch = evaluateCompliance({
        framework,
        periodDays: 60,
        now: NOW,
        tests,
        reports: fresh(),
        verify,
      });
      expect(cached.response).toEqual(scratch.response);
      expect(cached.detail.controls).toEqual(scratch.detail.controls);
      expect(cached.detail.rto).toEqual(scratch.detail.rto);
      expect(cached.detail.runs).toEqual(scratch.detail.runs);
      expect(drainSteps(complianceOverviewSteps(60, NOW, tests, live, verify))).toEqual(
        drainSteps(complianceOverviewSteps(60, NOW, tests, fresh(), verify)),
      );
    }
  });

  it('the exceptions a detail lists are the same whether read first or after the response', () => {
    const tests = [makeTest({ name: 'payments', maxRTO: '15m' })];
    const reports = [0, 1, 2, 40, 41].map((days, i) =>
      makeReport({
        test: 'payments',
        completedAt: daysBefore(NOW, days),
        result: i % 2 ? 'fail' : 'pass',
        rtoSeconds: 600,
        rtoTarget: '15m',
      }),
    );
    const input = { framework: 'soc2' as const, periodDays: 90, now: NOW, tests, reports };
    const first = evaluateCompliance(input).detail.controls[0]!.targets[0]!;
    const exceptions = first.exceptions;
    expect(exceptions.map((exception) => exception.remediation)).toEqual(['late', 'remediated']); // 40 d ago: next pass 38 d later
    // Read again: the same array (built once), and plain data to JSON.
    expect(first.exceptions).toBe(exceptions);
    expect(JSON.parse(JSON.stringify(first)).exceptions).toEqual(JSON.parse(JSON.stringify(exceptions)));
  });
});
