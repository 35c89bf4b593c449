// TestGauges derives the per-test gauges from the cache alone: rebuilt in full on start and on
// leadership, and per test on each change (result switches, suspension, deletion, invalid cron).
import { describe, expect, it } from '@jest/globals';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { summarizeReport, type ReportSummary } from '../../../server/domain/read-models/report-summary.js';
import type { InformerHandler } from '../../../server/kube/informer.js';
import { Metrics } from '../../../server/metrics/metrics.js';
import { TestGauges } from '../../../server/metrics/restore-test-gauges.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

class FakeCache {
  tests = new Map<string, RestoreTest>();
  reports: RestoreReport[] = [];
  private testHandlers: InformerHandler<RestoreTest>[] = [];
  private reportHandlers: InformerHandler<ReportSummary>[] = [];
  listTests = (): RestoreTest[] => [...this.tests.values()];
  getTest = (namespace: string, name: string): RestoreTest | undefined =>
    this.tests.get(`${namespace}/${name}`);
  reportsOfTest = (namespace: string, name: string): ReportSummary[] =>
    this.reports
      .filter((r) => r.spec.testRef.namespace === namespace && r.spec.testRef.name === name)
      .sort((a, b) => a.spec.completedAt.localeCompare(b.spec.completedAt))
      .map((r) => summarizeReport(r));
  getReport = (namespace: string, name: string): RestoreReport | undefined =>
    this.reports.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  onTestChange = (handler: InformerHandler<RestoreTest>): void => void this.testHandlers.push(handler);
  onReportChange = (handler: InformerHandler<ReportSummary>): void => void this.reportHandlers.push(handler);
  putTest(test: RestoreTest): void {
    const key = `${test.metadata.namespace}/${test.metadata.name}`;
    const previous = this.tests.get(key);
    this.tests.set(key, test);
    for (const handler of this.testHandlers) handler(previous ? 'update' : 'add', key, test, previous);
  }
  deleteTest(test: RestoreTest): void {
    const key = `${test.metadata.namespace}/${test.metadata.name}`;
    this.tests.delete(key);
    for (const handler of this.testHandlers) handler('delete', key, undefined, test);
  }
  addReport(report: RestoreReport): void {
    this.reports.push(report);
    const key = `${report.metadata.namespace}/${report.metadata.name}`;
    for (const handler of this.reportHandlers) handler('add', key, summarizeReport(report), undefined);
  }
}

const start = new Date('2026-11-01T00:00:00Z');
const now = () => new Date('2026-11-25T12:00:00Z');
const tick = () => new Promise((resolve) => setImmediate(resolve));

function setup() {
  const cache = new FakeCache();
  const metrics = new Metrics({ defaultMetrics: false });
  const gauges = new TestGauges(cache, metrics, now);
  const test = makeRestoreTest('nightly', ['shop'], { maxRTO: '10m', cron: '0 2 * * *' });
  test.metadata.creationTimestamp = '2026-10-31T10:00:00Z';
  const report = (index: number, result: 'pass' | 'partial' | 'fail', rtoSeconds: number): RestoreReport => {
    const r = makeReport(test, index, start, { result, rtoSeconds });
    r.metadata = { name: `nightly-${index}`, namespace: 'rehearsal-system' };
    return r;
  };
  const value = async (name: string, labels: Record<string, string> = {}): Promise<number | undefined> => {
    const metric = (await metrics.registry.getSingleMetric(name)!.get()).values;
    const all = { namespace: 'rehearsal-system', test: 'nightly', ...labels };
    return metric.find((v) => Object.entries(all).every(([k, x]) => v.labels[k] === x))?.value;
  };
  return { cache, gauges, test, report, value };
}

describe('TestGauges', () => {
  it('rebuilds every gauge of a test from its newest two reports', async () => {
    const { cache, gauges, test, report, value } = setup();
    cache.tests.set('rehearsal-system/nightly', test);
    const [first, second] = [report(0, 'pass', 300), report(1, 'fail', 720)];
    cache.reports.push(first, second);
    gauges.rebuild();
    expect(await value('rehearsal_last_run_completed_timestamp_seconds')).toBe(
      Date.parse(second.spec.completedAt) / 1000,
    );
    expect(await value('rehearsal_score')).toBe(second.spec.score);
    expect(await value('rehearsal_previous_score')).toBe(first.spec.score);
    expect(await value('rehearsal_last_run_result', { result: 'fail' })).toBe(1);
    expect(await value('rehearsal_last_run_result', { result: 'pass' })).toBe(0);
    expect(await value('rehearsal_rto_seconds')).toBe(second.spec.rto.measuredSeconds);
    expect(await value('rehearsal_rto_target_seconds')).toBe(600);
    expect(await value('rehearsal_schedule_interval_seconds')).toBe(86_400);
    expect(await value('rehearsal_test_created_timestamp_seconds')).toBe(
      Date.parse('2026-10-31T10:00:00Z') / 1000,
    );
    const age = (Date.parse(second.spec.startedAt) - Date.parse(second.spec.backup.completedAt!)) / 1000;
    expect(await value('rehearsal_backup_age_seconds')).toBe(age);
  });

  it('follows new reports, suspension and deletion after the first rebuild', async () => {
    const { cache, gauges, test, report, value } = setup();
    cache.tests.set('rehearsal-system/nightly', test);
    gauges.rebuild();
    expect(await value('rehearsal_score')).toBeUndefined(); // never run: no run gauges yet
    expect(await value('rehearsal_test_suspended')).toBe(0);
    cache.addReport(report(0, 'fail', 900));
    await tick();
    expect(await value('rehearsal_last_run_result', { result: 'fail' })).toBe(1);
    cache.addReport(report(1, 'pass', 200));
    await tick();
    expect(await value('rehearsal_last_run_result', { result: 'fail' })).toBe(0);
    expect(await value('rehearsal_last_run_result', { result: 'pass' })).toBe(1);
    cache.putTest({ ...test, spec: { ...test.spec, schedule: { ...test.spec.schedule, suspend: true } } });
    await tick();
    expect(await value('rehearsal_test_suspended')).toBe(1);
    cache.deleteTest(test);
    await tick();
    for (const name of [
      'rehearsal_score',
      'rehearsal_test_suspended',
      'rehearsal_schedule_interval_seconds',
    ]) {
      expect({ name, value: await value(name) }).toEqual({ name, value: undefined });
    }
    expect(await value('rehearsal_last_run_result', { result: 'pass' })).toBeUndefined();
  });

  it('exports no interval for an invalid cron, and forgets tests gone while it was not listening', async () => {
    const { cache, gauges, test, value } = setup();
    cache.tests.set('rehearsal-system/nightly', {
      ...test,
      spec: { ...test.spec, schedule: { cron: 'not a cron' } },
    });
    gauges.rebuild();
    expect(await value('rehearsal_schedule_interval_seconds')).toBeUndefined();
    expect(await value('rehearsal_test_created_timestamp_seconds')).toBeDefined();
    cache.tests.clear(); // e.g. deleted while this replica was not the leader: the rebuild removes it
    gauges.rebuild();
    expect(await value('rehearsal_test_created_timestamp_seconds')).toBeUndefined();
  });

  it('exports the evidence anchor from the test status (so it survives a restart) and forgets it with the test', async () => {
    const { cache, gauges, test, value } = setup();
    test.status = { evidenceAnchor: { sequence: 7, digest: 'sha256:abc', report: 'nightly-7' } };
    cache.putTest(test);
    gauges.rebuild();
    expect(await value('rehearsal_evidence_sequence')).toBe(7);
    expect(await value('rehearsal_evidence_anchor_info', { digest: 'sha256:abc' })).toBe(1);
    cache.putTest({
      ...test,
      status: { evidenceAnchor: { sequence: 8, digest: 'sha256:def', report: 'nightly-8' } },
    });
    await tick();
    expect(await value('rehearsal_evidence_sequence')).toBe(8);
    expect(await value('rehearsal_evidence_anchor_info', { digest: 'sha256:abc' })).toBeUndefined();
    expect(await value('rehearsal_evidence_anchor_info', { digest: 'sha256:def' })).toBe(1);
    cache.deleteTest(test);
    await tick();
    expect(await value('rehearsal_evidence_sequence')).toBeUndefined();
    expect(await value('rehearsal_evidence_anchor_info', { digest: 'sha256:def' })).toBeUndefined();
  });
});
