// Issue 17, fourth cut: new reports carry no ownerReference. The digest binds a report to its test
// through spec.testRef instead, and reports signed before (with an ownerReference) keep their
// digest, so they still verify.
import { describe, expect, it } from '@jest/globals';
import { computeEvidenceDigest, evidenceOwner } from '../../../protocol/evidence/report-digest.js';
import { verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { packReport } from '../../../server/report-codec/report-encoding.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { previousReportOf } from '../../../server/evidence/report-signer.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const keys = publicKeyRing([key.publicKey]);
const test = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders' });
const shape = { result: 'pass', rtoSeconds: 300 } as const;

/** A report as the writer makes it since the fourth cut: no ownerReferences. */
function newForm(report: RestoreReport): RestoreReport {
  const { ownerReferences: _dropped, ...metadata } = report.metadata;
  return { ...report, metadata };
}

function signedChain(reports: RestoreReport[]): RestoreReport[] {
  const out: RestoreReport[] = [];
  for (const report of reports) {
    const previous = out.at(-1)?.spec.evidence;
    out.push(withEvidence(report, previous?.digest, key, (previous?.sequence ?? 0) + 1));
  }
  return out;
}

describe('the evidence owner of a report', () => {
  it('keeps the digest of a report signed with an ownerReference (computed before the change)', () => {
    const old = makeReport(test, 0, PERIOD_START, shape);
    expect(old.metadata.ownerReferences).toHaveLength(1);
    expect(computeEvidenceDigest(old, undefined, 1)).toBe('sha256:d859a7568a98381f103fbf7ce086558fe486bd3cb0bf9e74f04f7267e18e4098');
    expect(computeEvidenceDigest(old, `sha256:${'0'.repeat(64)}`, 2)).toBe(
      'sha256:a9549b4cb693a5283c7271615b664cebc78cebca6fdf628d29ee2e1b9524488a',
    );
  });

  it('takes the owner from spec.testRef without an ownerReference: same digest, so old reports may lose theirs', () => {
    const old = makeReport(test, 0, PERIOD_START, shape);
    expect(evidenceOwner(newForm(old).metadata, old.spec.testRef)).toEqual({ name: 'orders-nightly', uid: 'uid-orders' });
    expect(computeEvidenceDigest(newForm(old), undefined, 1)).toBe(computeEvidenceDigest(old, undefined, 1));
    // No uid anywhere: no owner, as a report without an ownerReference had before.
    const { uid: _uid, ...bare } = old.spec.testRef;
    expect(evidenceOwner({}, bare)).toBeNull();
  });

  it('verifies a chain of new-form reports, stored packed (testRef.uid inside spec.details)', () => {
    const chain = signedChain([0, 1, 2].map((i) => newForm(makeReport(test, i, PERIOD_START, shape))));
    const stored = chain.map((report) => packReport(report) as unknown as RestoreReport);
    expect(stored[0]!.spec.testRef as unknown).toBeUndefined(); // packed away (the name is spec.test)
    const result = verifyReportChain(stored, keys);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('names an edited testRef.uid (the report moved to another test) as a digest mismatch', () => {
    const [report] = signedChain([newForm(makeReport(test, 0, PERIOD_START, shape))]);
    const moved = { ...report!, spec: { ...report!.spec, testRef: { ...report!.spec.testRef, uid: 'uid-other' } } };
    const result = verifyReportChain([moved], keys);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/digest/);
  });

  it('does not chain a re-created test (same name, other uid) to the old one; the same test does chain', () => {
    const history = signedChain([0, 1].map((i) => newForm(makeReport(test, i, PERIOD_START, shape))));
    const recreated = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders-2' });
    expect(previousReportOf(newForm(makeReport(recreated, 5, PERIOD_START, shape)), history)).toBeUndefined();
    expect(previousReportOf(newForm(makeReport(test, 5, PERIOD_START, shape)), history)?.metadata.name).toBe(
      history[1]!.metadata.name,
    );
    // A new-form report after old-form ones of the same test continues their chain.
    const oldHistory = signedChain([0, 1].map((i) => makeReport(test, i, PERIOD_START, shape)));
    expect(previousReportOf(newForm(makeReport(test, 5, PERIOD_START, shape)), oldHistory)?.metadata.name).toBe(
      oldHistory[1]!.metadata.name,
    );
  });
});
