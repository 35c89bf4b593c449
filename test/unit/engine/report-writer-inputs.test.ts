// The report writer works from what it is handed (run-gatherer.ts reportInputs), never from the
// cache: it signs with the previous report it is given, records the anchor after the create, and
// prunes the history it is given down to historyLimit, oldest first.
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { CurrentRun, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { ReportWriter, type ReportInputs } from '../../../server/engine/run/report-writer.js';
import { KubeError } from '../../../server/kube/errors.js';
import { Metrics } from '../../../server/metrics/metrics.js';

const NOW = new Date('2026-03-01T02:10:00Z');
const run: CurrentRun = { id: 'r9', trigger: 'manual', scheduledAt: '2026-03-01T02:00:00Z', queuedAt: '2026-03-01T02:00:00Z', startedAt: '2026-03-01T02:00:01Z', stage: 'Finalizing', failure: { reason: 'RestoreFailed', message: 'x' } };

function testWith(historyLimit: number): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { namespace: 'team-a', name: 'shop', uid: 'u1' },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '@daily' }, historyLimit },
  };
}

function world() {
  const calls: string[] = [];
  const signedWith: (RestoreReport | undefined)[] = [];
  const client = {
    createReport: async (report: RestoreReport) => {
      calls.push(`create ${report.metadata.name}`);
      return report;
    },
    getReport: async (): Promise<RestoreReport> => {
      throw new Error('the writer must not look the report up after a create that succeeded');
    },
    deleteReport: async (_namespace: string, name: string) => {
      calls.push(`delete ${name}`);
      if (name === 'shop-r2') throw new KubeError('NotFound', 404, 'already gone');
    },
  };
  const signer = {
    sign: async (report: RestoreReport, previous: RestoreReport | undefined) => {
      signedWith.push(previous);
      return report;
    },
    recordAnchor: async (report: RestoreReport) => {
      calls.push(`anchor ${report.metadata.name}`);
    },
  };
  const writer = new ReportWriter({
    client,
    signer,
    metrics: new Metrics({ defaultMetrics: false }),
    events: { record: (_test, _type, reason) => calls.push(`event ${reason}`) },
    log: pino({ level: 'silent' }),
    now: () => NOW,
  });
  return { writer, calls, signedWith };
}

describe('ReportWriter.write', () => {
  const previous = { metadata: { name: 'shop-r8' } } as RestoreReport;
  const inputs: ReportInputs = { facts: { checks: [], failure: run.failure! }, previous, history: ['shop-r1', 'shop-r2', 'shop-r3', 'shop-r8'] };

  it('signs with the previous report it is handed, anchors after the create, prunes the oldest beyond historyLimit', async () => {
    const { writer, calls, signedWith } = world();
    const written = await writer.write(testWith(3), run, inputs);
    expect(written.metadata.name).toBe('shop-r9');
    expect(signedWith).toEqual([previous]);
    // Four older reports and the new one, limit 3: the two oldest go (one already gone is fine).
    expect(calls).toEqual(['create shop-r9', 'anchor shop-r9', 'delete shop-r1', 'delete shop-r2', 'event RunFailed']);
  });

  it('deletes nothing while the history is within historyLimit', async () => {
    const { writer, calls } = world();
    await writer.write(testWith(90), run, inputs);
    expect(calls.filter((call) => call.startsWith('delete'))).toEqual([]);
  });
});
