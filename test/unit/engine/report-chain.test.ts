// The previous report of a run's evidence chain, as the gatherer reads it: from the cache when the
// test's lastReport shows the cache is current, from the apiserver (one LIST per stored form of the
// test's name) otherwise — never an older report from a stale cache, which would fork the chain.
// These cases were the signer's own LISTs before the gatherer took them over.
import { describe, expect, it } from '@jest/globals';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import type { CurrentRun, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { readReportChain } from '../../../server/engine/run/report-chain.js';
import { verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { ReportSigner } from '../../../server/evidence/report-signer.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { RehearsalClient } from '../../../server/kube/rehearsal-client.js';
import { packReport, type StoredRestoreReport } from '../../../server/report-codec/report-encoding.js';
import { makeReport, makeRestoreTest, makeSignedHistory, PERIOD_START } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const testObject = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders' });
const signed = (): RestoreReport[] =>
  makeSignedHistory(testObject, 3, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 300 }));
const next = (): RestoreReport => makeReport(testObject, 3, PERIOD_START, { result: 'fail', rtoSeconds: 300 });

/** The run that writes `next()`, and the test as that run holds it (lastReport: the newest report). */
function runOf(report: RestoreReport): CurrentRun {
  const { runId, startedAt, scheduledAt } = report.spec;
  return { id: runId, trigger: 'schedule', scheduledAt, queuedAt: scheduledAt, startedAt, stage: 'Validating' };
}
function holding(lastReport: string | undefined): RestoreTest {
  return { ...testObject, status: { phase: 'Running', ...(lastReport ? { lastReport } : {}) } };
}

/** The spec.testRef.name of the forms before issue 17's fifth cut (a testRef map with only name). */
function olderForm(report: RestoreReport): StoredRestoreReport {
  const { test: name, ...spec } = packReport(report).spec as Record<string, unknown>;
  return { ...report, spec: { ...spec, testRef: { name } } } as StoredRestoreReport;
}

/** An apiserver holding the reports as stored (packed, or `older`), answering field selectors. */
function fakeCustom(items: RestoreReport[], older: (report: RestoreReport) => boolean = () => false) {
  const calls: Record<string, unknown>[] = [];
  const stored = items.map((report) => (older(report) ? olderForm(report) : packReport(report)));
  const api = {
    listNamespacedCustomObject: async (request: Record<string, unknown>) => {
      calls.push(request);
      const [path, value] = String(request.fieldSelector).split('=');
      const at = (report: StoredRestoreReport): unknown =>
        path!.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], report);
      return { items: JSON.parse(JSON.stringify(stored.filter((report) => at(report) === value))) as StoredRestoreReport[] };
    },
  } as unknown as CustomObjectsApi;
  return { client: new RehearsalClient(api), calls };
}

/** An informer cache that has seen `reports` (oldest first). */
function cacheOf(reports: RestoreReport[]) {
  return {
    reportsOfTest: () => reports.map((report) => ({ metadata: { name: report.metadata.name } })) as never,
    getReport: (_namespace: string, name: string) => reports.find((report) => report.metadata.name === name),
  };
}

function capturingLog() {
  const lines: { msg: string }[] = [];
  return { log: pino({}, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) }), lines };
}

describe('readReportChain', () => {
  it('chains to the newest report the apiserver lists when the cache has not seen it yet', async () => {
    const history = signed();
    const { client, calls } = fakeCustom(history);
    const { log, lines } = capturingLog();
    const report = next();
    // The cache is one report behind: the test (written after that report) names it in lastReport.
    const chain = await readReportChain({ cache: cacheOf(history.slice(0, 2)), client, log }, holding(history[2]!.metadata.name), runOf(report));
    // One LIST per stored form of the test's name: spec.test since the fifth cut, testRef.name before.
    expect(calls).toEqual([
      expect.objectContaining({ namespace: 'rehearsal-system', plural: 'restorereports', fieldSelector: 'spec.test=orders-nightly' }),
      expect.objectContaining({ namespace: 'rehearsal-system', plural: 'restorereports', fieldSelector: 'spec.testRef.name=orders-nightly' }),
    ]);
    expect(chain.previous?.metadata.name).toBe(history[2]!.metadata.name);
    expect(chain.history).toEqual(history.slice(0, 2).map((entry) => entry.metadata.name));
    expect(lines.map((line) => line.msg)).toContain('the cache was behind: chaining to the newest report the apiserver has');
    // Signed with it, the new report extends the chain without a fork.
    const signedReport = await new ReportSigner({ keys: { ready: async () => ({ key }) }, log }).sign(report, chain.previous);
    expect(signedReport.spec.evidence!.previousDigest).toBe(history[2]!.spec.evidence!.digest);
    expect(verifyReportChain([...history, signedReport], publicKeyRing([key.publicKey])).ok).toBe(true);
  });

  it('chains to the newest report whichever form it was stored in (spec.test or spec.testRef.name)', async () => {
    for (const newestOlder of [true, false]) {
      const history = signed();
      // Reports before the fifth cut answer only spec.testRef.name, later ones only spec.test.
      const { client } = fakeCustom(history, (report) => (report === history[2]) === newestOlder);
      const chain = await readReportChain({ cache: cacheOf(history.slice(0, 1)), client, log: pino({ level: 'silent' }) }, holding(history[2]!.metadata.name), runOf(next()));
      expect(chain.previous?.metadata.name).toBe(history[2]!.metadata.name);
    }
  });

  it('takes the cached report without asking the apiserver when it is the lastReport the test names', async () => {
    const history = signed();
    const { client, calls } = fakeCustom(history);
    const chain = await readReportChain({ cache: cacheOf(history), client, log: pino({ level: 'silent' }) }, holding(history[2]!.metadata.name), runOf(next()));
    expect(calls).toEqual([]);
    expect(chain.previous).toBe(history[2]);
    expect(chain.history).toEqual(history.map((entry) => entry.metadata.name));
  });

  it("asks the apiserver on a test's first run (nothing shows that an empty cache is current)", async () => {
    const { client, calls } = fakeCustom([]);
    const chain = await readReportChain({ cache: cacheOf([]), client, log: pino({ level: 'silent' }) }, holding(undefined), runOf(next()));
    expect(calls).toHaveLength(2);
    expect(chain).toEqual({ previous: undefined, history: [] });
  });

  it("never chains to the run's own report (a retry after a crash), nor to one of an older test of the same name", async () => {
    const history = signed();
    const report = next();
    const recreated = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders-2' });
    const { client } = fakeCustom([...history, report]);
    // A new test with the old one's name: its first run, the old test's reports still listed.
    const first = await readReportChain(
      { cache: cacheOf(history), client, log: pino({ level: 'silent' }) },
      { ...recreated, status: {} },
      runOf(report),
    );
    expect(first.previous).toBeUndefined();
    // The run's own report already exists: it is neither the previous report nor history.
    const retried = await readReportChain({ cache: cacheOf([...history, report]), client, log: pino({ level: 'silent' }) }, holding(history[2]!.metadata.name), runOf(report));
    expect(retried.previous?.metadata.name).toBe(history[2]!.metadata.name);
    expect(retried.history).not.toContain(report.metadata.name);
  });
});
