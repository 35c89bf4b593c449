// ComplianceService keeps a requested answer fresh in the background: after the data changes, the
// answer is re-evaluated (within the memo's bounds) without waiting for a request, so a request
// after a quiet spell longer than the staleness bound is answered at once, not after an evaluation.
import { describe, expect, it } from '@jest/globals';
import {
  COMPLIANCE_MAX_STALE_MS,
  COMPLIANCE_MIN_REFRESH_MS,
  ComplianceService,
} from '../../../server/api/services/compliance.service.js';
import type { ApiCache } from '../../../server/api/ports.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { daysBefore, makeReport, makeTest } from '../domain/fixtures.js';

const T0 = new Date('2026-03-31T00:00:00Z').getTime();

describe('ComplianceService', () => {
  it('re-evaluates a requested answer in the background after the data changed', async () => {
    const tests = [makeTest({ name: 'payments', maxRTO: '15m' })];
    const index = new ReportIndex();
    const run = (days: number) =>
      makeReport({
        test: 'payments',
        completedAt: daysBefore(new Date(T0), days),
        rtoSeconds: 600,
        rtoTarget: '15m',
      });
    index.add(run(2));
    const cache = {
      synced: true,
      version: '1',
      reportIndex: index,
      fullReport: () => undefined,
      listTests: () => tests,
      getTest: () => undefined,
      onTestChange: () => undefined,
    } as unknown as ApiCache;
    let nowMs = T0;
    const service = new ComplianceService(cache, () => new Date(nowMs));

    const first = await service.framework('soc2', 30);
    expect(first.totalTests).toBe(1);

    // A run finishes; nobody asks for a while. The background refresh runs once the answer is
    // COMPLIANCE_MIN_REFRESH_MS old (its timer ticks every half of that, in real time).
    index.add(run(1));
    nowMs = T0 + COMPLIANCE_MIN_REFRESH_MS + 1_000;
    const refreshedAt = nowMs;
    await new Promise((resolve) => setTimeout(resolve, COMPLIANCE_MIN_REFRESH_MS / 2 + 500));

    // Past the staleness bound of the first answer: the one computed in the background is served.
    nowMs = T0 + COMPLIANCE_MAX_STALE_MS + 2_000;
    const later = await service.framework('soc2', 30);
    expect(later.totalTests).toBe(2);
    expect(later.generatedAt).toBe(new Date(refreshedAt).toISOString());
  }, 20_000);
});
