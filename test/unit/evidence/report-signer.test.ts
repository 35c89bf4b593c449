// The engine's signer: evidence filled in before creation, chained to the previous report it is
// handed. That it is the newest report the apiserver has (not what a stale cache has) is the
// gatherer's guarantee: test/unit/engine/report-chain.test.ts.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
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

  it('starts a chain for the first report of a test, failed runs included', async () => {
    const report = await new ReportSigner({ keys, log: pino({ level: 'silent' }) }).sign(
      next(),
      undefined,
    );
    expect(report.spec.result).toBe('fail');
    expect(report.spec.evidence!.previousDigest).toBeUndefined();
    expect(verifyReportChain([report], publicKeyRing([key.publicKey])).ok).toBe(true);
  });

  it('chains to the previous report it is given, and the chain verifies', async () => {
    const history = signed();
    const report = await new ReportSigner({ keys, log: pino({ level: 'silent' }) }).sign(next(), history[2]);
    expect(report.spec.evidence).toMatchObject({ previousDigest: history[2]!.spec.evidence!.digest, keyId: key.keyId });
    expect(report.spec.evidence!.digest).toBe(computeEvidenceDigest(report, history[2]!.spec.evidence!.digest));
    expect(verifyReportChain([...history, report], publicKeyRing([key.publicKey])).ok).toBe(true);
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
