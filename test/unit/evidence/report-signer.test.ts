// The engine's signer: evidence filled in before creation, chained to the newest report of the same
// RestoreTest as the apiserver has it (not as a possibly stale cache has it).
import { describe, expect, it } from '@jest/globals';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import { packReport, type StoredRestoreReport } from '../../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { previousReportOf, ReportSigner } from '../../../server/evidence/report-signer.js';
import { computeEvidenceDigest } from '../../../protocol/evidence/report-digest.js';
import { verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import {
  makeReport,
  makeRestoreTest,
  makeSignedHistory,
  PERIOD_START,
} from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const test = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders' });
const signed = (): RestoreReport[] =>
  makeSignedHistory(test, 3, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 300 }));
const next = (): RestoreReport => makeReport(test, 3, PERIOD_START, { result: 'fail', rtoSeconds: 300 });

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
  return { api, calls };
}

describe('previousReportOf', () => {
  it('is the newest report of the same RestoreTest (same owner uid), never the report itself', () => {
    const history = signed();
    const report = next();
    expect(previousReportOf(report, history)?.metadata.name).toBe(history[2]!.metadata.name);
    expect(previousReportOf(report, [...history].reverse())?.metadata.name).toBe(history[2]!.metadata.name);
    // A retry after a crash: the report already exists under its own name.
    const retried = { ...history[2]! };
    expect(previousReportOf(retried, history)?.metadata.name).toBe(history[1]!.metadata.name);
  });

  it('ignores reports of an older RestoreTest with the same name, and later runs', () => {
    const history = signed();
    const recreatedTest = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders-2' });
    const report = makeReport(recreatedTest, 5, PERIOD_START, { result: 'pass', rtoSeconds: 300 });
    expect(previousReportOf(report, history)).toBeUndefined();
    expect(previousReportOf(history[0]!, history)).toBeUndefined();
  });
});

describe('ReportSigner', () => {
  const keys = { ready: async () => ({ key }) };

  it('chains to the newest report the apiserver lists, even when the cache passed an older one', async () => {
    const history = signed();
    const lines: { msg: string }[] = [];
    const { api, calls } = fakeCustom(history);
    const signer = new ReportSigner({
      keys,
      custom: api,
      log: pino({}, { write: (line: string) => lines.push(JSON.parse(line)) }),
    });
    const report = await signer.sign(next(), history[1]);
    // One LIST per stored form of the test's name: spec.test since the fifth cut, testRef.name before.
    expect(calls).toEqual([
      expect.objectContaining({ namespace: 'rehearsal-system', plural: 'restorereports', fieldSelector: 'spec.test=orders-nightly' }),
      expect.objectContaining({ namespace: 'rehearsal-system', plural: 'restorereports', fieldSelector: 'spec.testRef.name=orders-nightly' }),
    ]);
    expect(report.spec.evidence).toMatchObject({
      previousDigest: history[2]!.spec.evidence!.digest,
      keyId: key.keyId,
    });
    expect(report.spec.evidence!.digest).toBe(
      computeEvidenceDigest(report, history[2]!.spec.evidence!.digest),
    );
    expect(verifyReportChain([...history, report], publicKeyRing([key.publicKey])).ok).toBe(true);
    expect(lines.map((line) => line.msg)).toContain(
      'the cache was behind: chaining to the newest report the apiserver has',
    );
  });

  it('chains to the newest report whichever form it was stored in (spec.test or spec.testRef.name)', async () => {
    for (const newestOlder of [true, false]) {
      const history = signed();
      // Reports before the fifth cut answer only spec.testRef.name, later ones only spec.test.
      const { api } = fakeCustom(history, (report) => (report === history[2]) === newestOlder);
      const report = await new ReportSigner({ keys, custom: api, log: pino({ level: 'silent' }) }).sign(next(), history[0]);
      expect(report.spec.evidence!.previousDigest).toBe(history[2]!.spec.evidence!.digest);
    }
  });

  it('starts a chain for the first report of a test, failed runs included', async () => {
    const { api } = fakeCustom([]);
    const report = await new ReportSigner({ keys, custom: api, log: pino({ level: 'silent' }) }).sign(
      next(),
      undefined,
    );
    expect(report.spec.result).toBe('fail');
    expect(report.spec.evidence!.previousDigest).toBeUndefined();
    expect(verifyReportChain([report], publicKeyRing([key.publicKey])).ok).toBe(true);
  });

  it('without live reads, trusts the previous report it is given', async () => {
    const history = signed();
    const report = await new ReportSigner({ keys, log: pino({ level: 'silent' }) }).sign(next(), history[2]);
    expect(report.spec.evidence!.previousDigest).toBe(history[2]!.spec.evidence!.digest);
  });

  it('fails (so the run step is retried) when no key becomes available', async () => {
    const signer = new ReportSigner({
      keys: { ready: () => new Promise(() => undefined) },
      log: pino({ level: 'silent' }),
      keyWaitMs: 20,
    });
    await expect(signer.sign(next(), undefined)).rejects.toThrow(
      'the evidence signing key is not available yet',
    );
  });
});
