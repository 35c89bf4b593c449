// The dashboard verifies evidence in the browser (web/src/evidence.ts, WebCrypto) by the same scheme
// as the server (server/evidence/evidence.ts): reports signed by the server, with and without a
// chain sequence, verify there, and an edited one does not.
import { describe, expect, it } from '@jest/globals';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { exportPublicKeyPem, generateSigningKey } from '../../../server/evidence/signing-key.js';
import { importKeys, verifyReport } from '../../../web/src/evidence.js';
import type { Report } from '../../../web/src/format.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

const signer = generateSigningKey();
const test = makeRestoreTest('shop', ['shop']);
const unsigned = (index: number): RestoreReport =>
  JSON.parse(
    JSON.stringify(
      makeReport(test, index, new Date('2026-01-01T00:00:00Z'), { result: 'pass', rtoSeconds: 30 }),
    ),
  );

describe('dashboard evidence verification', () => {
  it('verifies a sequenced chain signed by the server, and names an edit', async () => {
    const keys = await importKeys([exportPublicKeyPem(signer)]);
    const first = withEvidence(unsigned(0), undefined, signer, 1);
    const second = withEvidence(unsigned(1), first.spec.evidence!.digest, signer, 2);
    expect(await verifyReport(first as unknown as Report, keys)).toEqual({ ok: true, problems: [] });
    expect(await verifyReport(second as unknown as Report, keys, first as unknown as Report)).toEqual({
      ok: true,
      problems: [],
    });

    const edited = JSON.parse(JSON.stringify(second)) as RestoreReport;
    edited.spec.evidence!.sequence = 5;
    const verdict = await verifyReport(edited as unknown as Report, keys, first as unknown as Report);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toContain('digest mismatch: the report was changed after signing');
  });

  it('verifies a report written without an ownerReference (owner from spec.testRef), and names a moved one', async () => {
    const keys = await importKeys([exportPublicKeyPem(signer)]);
    const { ownerReferences: _dropped, ...metadata } = unsigned(3).metadata;
    const report = withEvidence({ ...unsigned(3), metadata }, undefined, signer, 1);
    expect(await verifyReport(report as unknown as Report, keys)).toEqual({ ok: true, problems: [] });
    const moved = JSON.parse(JSON.stringify(report)) as RestoreReport;
    moved.spec.testRef.uid = 'uid-other';
    expect((await verifyReport(moved as unknown as Report, keys)).problems).toContain('digest mismatch: the report was changed after signing');
  });

  it('verifies a report signed before sequences existed', async () => {
    const keys = await importKeys([exportPublicKeyPem(signer)]);
    const old = withEvidence(unsigned(2), undefined, signer);
    expect(old.spec.evidence!.sequence).toBeUndefined();
    expect(await verifyReport(old as unknown as Report, keys)).toEqual({ ok: true, problems: [] });
  });
});
