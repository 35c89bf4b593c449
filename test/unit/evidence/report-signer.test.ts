// The engine's signer: evidence filled in before creation, chained to the newest report of the same
// RestoreTest as the apiserver has it (not as a possibly stale cache has it).
import { describe, expect, it } from '@jest/globals';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import type { RestoreReport } from '../../../server/domain/resources.js';
import { previousReportOf, ReportSigner } from '../../../server/evidence/report-signer.js';
import { computeEvidenceDigest, verifyReportChain } from '../../../server/evidence/evidence.js';
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

function fakeCustom(items: RestoreReport[]) {
  const calls: Record<string, unknown>[] = [];
  const api = {
    listNamespacedCustomObject: async (request: Record<string, unknown>) => {
      calls.push(request);
      return { items };
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
    expect(calls).toEqual([
      expect.objectContaining({
        namespace: 'rehearsal-system',
        plural: 'restorereports',
        fieldSelector: 'spec.testRef.name=orders-nightly',
      }),
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
