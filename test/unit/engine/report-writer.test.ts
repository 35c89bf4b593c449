// The report writer. storeReport: the engine's write of a signed report. A create leaves a
// managedFields entry listing every field, which cost the apiserver about as much memory as the
// report itself; the writer clears it after the create, also when a retry finds the report already
// there. (On the real apiserver: test/integration/evidence-tail.test.ts checks the stored reports
// and verifies them.) ReportWriter.write: what a finished run leaves behind besides its report —
// the test's history pruned to historyLimit (not with the evidence archive on), and the Events
// SLAExceeded and ScoreRegressed. Those cases go through writerFor, the one place that knows how a
// writer is wired, so they state behaviour only.
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { ReportWriter, storeReport, type ReportFacts } from '../../../server/engine/run/report-writer.js';
import type { CurrentRun, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { KubeError } from '../../../server/kube/errors.js';
import { packReport } from '../../../server/report-codec/report-encoding.js';
import { Metrics } from '../../../server/metrics/metrics.js';
import { makeTest } from '../domain/fixtures.js';
import { BUILT_IN_CLUSTER_DEFAULTS, type ClusterDefaults } from '../../../server/domain/run/cluster-defaults.js';

const report = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreReport',
  metadata: { name: 'shop-abc123', namespace: 'team-a' },
  spec: { runId: 'abc123' },
} as unknown as RestoreReport;

const managed = [{ manager: 'rehearsal', operation: 'Update', fieldsV1: { 'f:spec': {} } }];

function fakeClient(options: { exists?: boolean; clearFails?: boolean; managedFields?: unknown[] } = {}) {
  const calls: string[] = [];
  const stored = { ...report, metadata: { ...report.metadata, managedFields: options.managedFields ?? managed } };
  return {
    calls,
    createReport: async (body: RestoreReport): Promise<RestoreReport> => {
      calls.push(`create ${body.metadata.name}`);
      if (options.exists) throw new KubeError('AlreadyExists', 409, 'exists');
      return stored as RestoreReport;
    },
    getReport: async (namespace: string, name: string): Promise<RestoreReport> => {
      calls.push(`get ${namespace}/${name}`);
      return stored as RestoreReport;
    },
    deleteReport: async (): Promise<void> => undefined,
    clearReportManagedFields: async (namespace: string, name: string): Promise<RestoreReport> => {
      calls.push(`clear ${namespace}/${name}`);
      if (options.clearFails) throw new KubeError('Forbidden', 403, 'no patch');
      return report;
    },
  };
}

function capturingLog() {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  return { log, lines };
}

describe('storeReport', () => {
  it('creates the report and clears its managedFields', async () => {
    const client = fakeClient();
    const written = await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123', 'clear team-a/shop-abc123']);
    expect((written.metadata as { managedFields?: unknown }).managedFields).toBeUndefined();
  });

  it('clears them on the stored report when the create answers AlreadyExists (a retry)', async () => {
    const client = fakeClient({ exists: true });
    await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123', 'get team-a/shop-abc123', 'clear team-a/shop-abc123']);
  });

  it('does not patch a report that has none', async () => {
    const client = fakeClient({ managedFields: [] });
    await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123']);
  });

  it('keeps the created report and logs when clearing fails (memory, not correctness)', async () => {
    const client = fakeClient({ clearFails: true });
    const { log, lines } = capturingLog();
    const written = await storeReport(client, report, log);
    expect((written.metadata as { managedFields?: unknown }).managedFields).toEqual(managed);
    expect(lines.join('')).toContain("could not clear the report's managedFields");
  });
});

const run: CurrentRun = {
  id: 'r7',
  trigger: 'schedule',
  scheduledAt: '2026-11-22T02:00:00.000Z',
  queuedAt: '2026-11-22T02:00:00.000Z',
  startedAt: '2026-11-22T02:00:00.000Z',
  stage: 'Validating',
  sandboxNamespaces: [{ source: 'shop', sandbox: 'rehearsal-shop-r7' }],
  backup: { name: 'nightly', completedAt: '2026-11-22T01:00:00Z', totalItems: 10 },
  restore: { namespace: 'velero', name: 'shop-r7' },
  restoreRequestedAt: '2026-11-22T02:00:00.000Z',
};

/** A run whose restore, pods and check all passed, its checks done `rtoSeconds` after the restore request. */
function passedRun(rtoSeconds: number): ReportFacts {
  return {
    restore: { phase: 'Completed', succeeded: true, partiallyFailed: false, warnings: 0, errors: 0, itemsRestored: 10, totalItems: 10 },
    pods: { expected: 1, ready: 1 },
    checks: [{ name: 'http', kind: 'httpGet', status: 'pass', message: 'HTTP 200', duration: '0.1s' }],
    checksCompletedAt: new Date(Date.parse(run.restoreRequestedAt!) + rtoSeconds * 1000),
    dependencies: [],
  };
}

/** A run whose restore failed: score 0. */
const failedRun: ReportFacts = {
  restore: { phase: 'Failed', succeeded: false, partiallyFailed: false, warnings: 0, errors: 1 },
  checks: [],
};

/**
 * A writer over a test that already has `history` reports (oldest first), and what it did: the
 * reports it deleted and the Events it recorded.
 */
function writerFor(history: string[], options: { pruneHistory?: boolean; clusterDefaults?: () => ClusterDefaults } = {}) {
  const deleted: string[] = [];
  const events: { type: string; reason: string; message: string }[] = [];
  const writer = new ReportWriter({
    client: {
      createReport: async (report: RestoreReport) => report,
      getReport: async () => {
        throw new KubeError('NotFound', 404, 'no report');
      },
      deleteReport: async (_namespace: string, name: string) => {
        deleted.push(name);
      },
    },
    metrics: new Metrics(),
    events: { record: (_test, type, reason, message) => events.push({ type, reason, message }) },
    log: pino({ level: 'silent' }),
    now: () => new Date('2026-11-22T02:10:00.000Z'),
    ...options,
  });
  const write = (test: RestoreTest, facts: ReportFacts) => writer.write(test, run, { facts, previous: undefined, history });
  return { write, deleted, events };
}

const shop = (options: Partial<Parameters<typeof makeTest>[0]> = {}) =>
  makeTest({ name: 'shop', namespace: 'team-a', spec: { historyLimit: 3 }, ...options });
const reasons = (events: { reason: string }[]) => events.map((event) => event.reason);

describe('ReportWriter.write: history', () => {
  it('deletes the oldest reports beyond historyLimit, counting the new one', async () => {
    const writer = writerFor(['shop-r1', 'shop-r2', 'shop-r3', 'shop-r4']);
    await writer.write(shop(), passedRun(60));
    expect(writer.deleted).toEqual(['shop-r1', 'shop-r2']);
  });

  it('deletes nothing while the history fits', async () => {
    const writer = writerFor(['shop-r1', 'shop-r2']);
    await writer.write(shop(), passedRun(60));
    expect(writer.deleted).toEqual([]);
  });

  it('deletes nothing with the evidence archive on (the archiver moves old reports out instead)', async () => {
    const writer = writerFor(['shop-r1', 'shop-r2', 'shop-r3', 'shop-r4'], { pruneHistory: false });
    await writer.write(shop(), passedRun(60));
    expect(writer.deleted).toEqual([]);
  });
});

describe('ReportWriter.write: Events', () => {
  it('records SLAExceeded when the measured RTO is over the target, and not when it is within', async () => {
    const late = writerFor([]);
    await late.write(shop({ maxRTO: '1m' }), passedRun(300));
    expect(late.events.find((event) => event.reason === 'SLAExceeded')).toEqual({
      type: 'Warning',
      reason: 'SLAExceeded',
      message: expect.stringMatching(/^run r7: RTO \S+ exceeds the target 1m$/),
    });

    const inTime = writerFor([]);
    await inTime.write(shop({ maxRTO: '10m' }), passedRun(300));
    expect(reasons(inTime.events)).not.toContain('SLAExceeded');
  });

  it('records ScoreRegressed when the score falls more than 10 below the previous run', async () => {
    const writer = writerFor([]);
    await writer.write(shop({ status: { lastScore: 100, lastRunAt: '2026-11-21T02:10:00Z' } }), failedRun);
    expect(writer.events.find((event) => event.reason === 'ScoreRegressed')).toEqual({
      type: 'Warning',
      reason: 'ScoreRegressed',
      message: 'run r7: score 0, previous run 100',
    });
  });

  it('records no ScoreRegressed for a drop of 10 or less, nor for a first run', async () => {
    const passed = writerFor([]);
    const report = await passed.write(shop(), passedRun(60));
    expect(reasons(passed.events)).toEqual(['RunPassed']);

    const slightDrop = writerFor([]);
    await slightDrop.write(shop({ status: { lastScore: report.spec.score + 10, lastRunAt: '2026-11-21T02:10:00Z' } }), passedRun(60));
    expect(reasons(slightDrop.events)).not.toContain('ScoreRegressed');

    const firstRun = writerFor([]);
    await firstRun.write(shop({ status: { lastScore: 100 } }), failedRun);
    expect(reasons(firstRun.events)).not.toContain('ScoreRegressed');
  });
});

describe('ReportWriter.write: what kubectl reads (issue 30)', () => {
  it('writes the backup restored and the checks in one line, stored as top-level strings beside details', async () => {
    const writer = writerFor([]);
    const facts: ReportFacts = {
      ...passedRun(60),
      checks: [
        { name: 'api', kind: 'httpGet', status: 'pass', message: 'HTTP 200', duration: '0.1s' },
        { name: 'orders-rows', kind: 'sqlQuery', status: 'fail', message: 'query returned 0', duration: '1s' },
      ],
    };
    const written = await writer.write(shop(), facts);
    expect([written.spec.backup.name, written.spec.checkSummary]).toEqual(['nightly', '1/2 passed; failed: orders-rows']);
    // As RehearsalClient.createReport sends it to the apiserver (what `kubectl get rrep -o yaml` shows).
    const stored = packReport(written).spec as Record<string, unknown>;
    expect([stored.backupName, stored.checkSummary]).toEqual(['nightly', '1/2 passed; failed: orders-rows']);
  });

  it('says so when no check ran (a failed restore)', async () => {
    const writer = writerFor([]);
    const written = await writer.write(shop(), failedRun);
    expect(written.spec.checkSummary).toBe('no checks ran');
    expect(written.spec.backup.name).toBe('nightly');
  });
});

// Issue 30: a test without its own RTO/RPO target is measured against the cluster's.
describe('ReportWriter.write: cluster default targets', () => {
  it("measures a test without maxRTO against the cluster's rtoTarget, read at each write", async () => {
    let defaults: ClusterDefaults = { ...BUILT_IN_CLUSTER_DEFAULTS, rtoTarget: '1m' };
    const writer = writerFor([], { clusterDefaults: () => defaults });
    const late = await writer.write(shop(), passedRun(300));
    expect(late.spec.rto).toMatchObject({ target: '1m', withinSLA: false });
    expect(reasons(writer.events)).toContain('SLAExceeded');

    defaults = { ...BUILT_IN_CLUSTER_DEFAULTS, rtoTarget: '10m' };
    const inTime = await writer.write(shop(), passedRun(300));
    expect(inTime.spec.rto).toMatchObject({ target: '10m', withinSLA: true });
  });

  it("keeps the test's own target over the cluster's, and none without either", async () => {
    const withCluster = writerFor([], { clusterDefaults: () => ({ ...BUILT_IN_CLUSTER_DEFAULTS, rtoTarget: '1m' }) });
    const own = await withCluster.write(shop({ maxRTO: '10m' }), passedRun(300));
    expect(own.spec.rto).toMatchObject({ target: '10m', withinSLA: true });

    const builtIn = writerFor([], { clusterDefaults: () => BUILT_IN_CLUSTER_DEFAULTS });
    const none = await builtIn.write(shop(), passedRun(300));
    expect(none.spec.rto.target).toBeUndefined();
  });
});
