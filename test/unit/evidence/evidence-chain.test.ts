import { describe, expect, it } from '@jest/globals';
import { createHash, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { computeEvidenceDigest, evidenceContent } from '../../../protocol/evidence/report-digest.js';
import { orderReportsForChain, verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { keyIdOf } from '../../../protocol/evidence/signature.js';
import { signEvidence, withEvidence } from '../../../server/evidence/evidence.js';
import {
  exportPrivateKeyPem,
  exportPublicKeyPem,
  generateSigningKey,
  importPrivateKeyPem,
  importPublicKeyPem,
  publicKeyRing,
} from '../../../server/evidence/signing-key.js';
import {
  makeReport,
  makeRestoreTest,
  makeSignedHistory,
  PAYMENTS_CHECKS,
  PERIOD_START,
} from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const test = makeRestoreTest('payments-nightly', ['payments'], {
  maxRTO: '15m',
  uid: 'uid-payments',
  checks: PAYMENTS_CHECKS,
});
const history = (): RestoreReport[] =>
  makeSignedHistory(test, 5, PERIOD_START, key, (i) => ({
    result: i === 2 ? 'fail' : 'pass',
    rtoSeconds: 600 + i * 10,
  }));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const names = (reports: RestoreReport[]) => reports.map((r) => r.metadata.name);

describe('signing keys', () => {
  it('key id is the first 16 hex of SHA-256 over the SPKI DER public key', () => {
    const der = key.publicKey.export({ type: 'spki', format: 'der' });
    expect(key.keyId).toBe(createHash('sha256').update(der).digest('hex').slice(0, 16));
    expect(keyIdOf(key.privateKey)).toBe(key.keyId);
  });

  it('round-trips through PEM (PKCS#8 private, SPKI public)', () => {
    const pem = exportPrivateKeyPem(key);
    expect(pem).toContain('BEGIN PRIVATE KEY');
    const again = importPrivateKeyPem(pem);
    expect(again.keyId).toBe(key.keyId);
    expect(again.sign('x')).toBe(key.sign('x')); // Ed25519 is deterministic
    const publicPem = exportPublicKeyPem(key);
    expect(publicPem).toContain('BEGIN PUBLIC KEY');
    expect(keyIdOf(importPublicKeyPem(publicPem))).toBe(key.keyId);
    expect([...publicKeyRing([publicPem]).keys()]).toEqual([key.keyId]);
  });

  it('rejects keys that are not Ed25519', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => importPublicKeyPem(ec.publicKey.export({ type: 'spki', format: 'pem' }).toString())).toThrow(
      'expected Ed25519',
    );
    expect(() =>
      importPrivateKeyPem(ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    ).toThrow('expected Ed25519');
  });
});

describe('evidence signing', () => {
  it('follows the documented scheme exactly (so other verifiers can reimplement it)', () => {
    const report = makeReport(test, 0, PERIOD_START, { result: 'pass', rtoSeconds: 600 });
    const previous = 'sha256:' + 'ab'.repeat(32);
    const evidence = signEvidence(report, previous, key);
    const { evidence: _none, ...spec } = clone(report.spec);
    const content = {
      metadata: { name: report.metadata.name, namespace: 'rehearsal-system' },
      owner: { name: 'payments-nightly', uid: 'uid-payments' },
      spec,
    };
    expect(evidenceContent(report)).toEqual(content);
    const digest =
      'sha256:' +
      createHash('sha256')
        .update(canonicalize(content)! + previous, 'utf8')
        .digest('hex');
    expect(evidence).toEqual({
      digest,
      previousDigest: previous,
      signature: expect.any(String),
      keyId: key.keyId,
      algorithm: 'Ed25519',
      canonicalization: 'RFC8785',
    });
    expect(
      verify(null, Buffer.from(digest, 'utf8'), key.publicKey, Buffer.from(evidence.signature, 'base64')),
    ).toBe(true);
    expect(signEvidence(report, undefined, key).previousDigest).toBeUndefined();
  });

  it('does not cover apiserver-set metadata, labels or the evidence block itself', () => {
    const report = makeReport(test, 0, PERIOD_START, { result: 'pass', rtoSeconds: 600 });
    const digest = computeEvidenceDigest(report, undefined);
    const stored = clone(withEvidence(report, undefined, key));
    stored.metadata = {
      ...stored.metadata,
      uid: 'u-1',
      resourceVersion: '42',
      generation: 1,
      creationTimestamp: '2026-01-01T02:11:00Z',
      labels: { extra: 'x' },
    };
    expect(computeEvidenceDigest(stored, undefined)).toBe(digest);
  });

  it('covers the owner reference and the chain link', () => {
    const report = makeReport(test, 0, PERIOD_START, { result: 'pass', rtoSeconds: 600 });
    const moved = clone(report);
    moved.metadata.ownerReferences![0]!.uid = 'uid-other';
    expect(computeEvidenceDigest(moved, undefined)).not.toBe(computeEvidenceDigest(report, undefined));
    expect(computeEvidenceDigest(report, 'sha256:00')).not.toBe(computeEvidenceDigest(report, undefined));
  });
});

describe('verifyReportChain', () => {
  it('an untouched chain verifies, also after a JSON round trip and with apiserver fields added', () => {
    const reports = history().map((r) => ({
      ...clone(r),
      metadata: { ...r.metadata, creationTimestamp: r.spec.completedAt, uid: `uid-${r.spec.runId}` },
    }));
    const result = verifyReportChain(reports, ring);
    expect(result).toEqual({
      ok: true,
      reports: reports.map((r) => ({ name: r.metadata.name, ok: true, problems: [] })),
      problems: [],
      chainProblems: [],
      wholeChainProblems: [],
      notes: [],
    });
  });

  it('names the report whose field was edited (digest mismatch)', () => {
    const reports = history();
    reports[2]!.spec.result = 'pass';
    reports[2]!.spec.score = 97;
    const result = verifyReportChain(reports, ring);
    expect(result.ok).toBe(false);
    expect(result.reports.map((r) => r.ok)).toEqual([true, true, false, true, true]);
    expect(result.reports[2]!.problems).toEqual([
      expect.stringContaining('digest mismatch: the report was changed after signing'),
    ]);
    expect(result.problems).toEqual([
      expect.stringMatching(new RegExp(`^${reports[2]!.metadata.name}: digest mismatch`)),
    ]);
  });

  it('detects an edit that was re-signed with another key', () => {
    const reports = history();
    const attacker = generateSigningKey();
    reports[1]!.spec.rto.measured = '1m';
    reports[1] = withEvidence(reports[1]!, reports[1]!.spec.evidence!.previousDigest, attacker);
    const result = verifyReportChain(reports, ring);
    expect(result.reports[1]!.problems).toContain(
      `signed with unknown key ${attacker.keyId} (trusted: ${key.keyId})`,
    );
    // Its new digest breaks the next link too, and that problem names the follower.
    expect(result.reports[2]!.problems[0]).toContain('missing predecessor');
  });

  it('detects a changed chain link (previousDigest edited)', () => {
    const reports = history();
    reports[3]!.spec.evidence!.previousDigest = reports[1]!.spec.evidence!.digest;
    const result = verifyReportChain(reports, ring);
    expect(result.reports[3]!.problems).toEqual([
      expect.stringContaining('digest mismatch'),
      `out of order: it links to ${reports[1]!.metadata.name} but is listed after ${reports[2]!.metadata.name} (reordered)`,
    ]);
    expect(result.problems.some((p) => p.includes('fork'))).toBe(true);
  });

  it('names the gap when a report in the middle was deleted', () => {
    const reports = history();
    const deleted = reports.splice(2, 1)[0]!;
    const result = verifyReportChain(reports, ring);
    expect(result.ok).toBe(false);
    expect(result.reports.map((r) => r.ok)).toEqual([true, true, false, true]);
    expect(result.chainProblems).toEqual([
      `${reports[2]!.metadata.name}: missing predecessor: it links to sha256:${deleted.spec.evidence!.digest.slice(7, 19)}, which no report in the set has; a report between ${reports[1]!.metadata.name} and ${reports[2]!.metadata.name} was deleted`,
    ]);
  });

  it('names both reports when two were swapped', () => {
    const reports = history();
    [reports[1], reports[2]] = [reports[2]!, reports[1]!];
    const result = verifyReportChain(reports, ring);
    expect(result.ok).toBe(false);
    // Every report whose predecessor is not right before it is named; signatures stay valid.
    expect(result.reports.map((r) => r.ok)).toEqual([true, false, false, false, true]);
    expect(result.chainProblems).toEqual([
      `${reports[1]!.metadata.name}: out of order: its predecessor ${reports[2]!.metadata.name} is listed after it (reordered)`,
      `${reports[2]!.metadata.name}: out of order: it links to ${reports[0]!.metadata.name} but is listed after ${reports[1]!.metadata.name} (reordered)`,
      `${reports[3]!.metadata.name}: out of order: it links to ${reports[1]!.metadata.name} but is listed after ${reports[2]!.metadata.name} (reordered)`,
    ]);
    expect(result.problems.every((p) => p.includes('out of order'))).toBe(true);
    // The caller's ordering helper restores the true order.
    expect(verifyReportChain(orderReportsForChain(reports), ring).ok).toBe(true);
  });

  it('detects a wrong signature under a trusted key id and an unknown key', () => {
    const reports = history();
    const other = generateSigningKey();
    reports[4]!.spec.evidence!.signature = other.sign(reports[4]!.spec.evidence!.digest);
    let result = verifyReportChain(reports, ring);
    expect(result.reports[4]!.problems).toEqual([
      `signature does not verify with key ${key.keyId}: wrong key or altered evidence block`,
    ]);

    result = verifyReportChain(history(), publicKeyRing([other.publicKey]));
    expect(
      result.reports.every((r) => !r.ok && r.problems[0]!.startsWith(`signed with unknown key ${key.keyId}`)),
    ).toBe(true);
  });

  it('accepts a chain that starts after pruned reports, with a note', () => {
    const reports = history().slice(2);
    const result = verifyReportChain(reports, ring);
    expect(result.ok).toBe(true);
    expect(result.notes).toEqual([expect.stringContaining(`${reports[0]!.metadata.name} links to sha256:`)]);
  });

  it('flags an unsigned report and a report listed twice', () => {
    const reports = history();
    delete reports[0]!.spec.evidence;
    let result = verifyReportChain(reports, ring);
    expect(result.reports[0]!.problems).toEqual(['no evidence block: the report is not signed']);
    expect(result.reports[1]!.problems[0]).toContain('missing predecessor');

    const doubled = history();
    doubled.splice(2, 0, clone(doubled[1]!));
    result = verifyReportChain(doubled, ring);
    expect(result.ok).toBe(false);
    expect(result.problems.some((p) => p.includes('duplicate'))).toBe(true);
    // The fork (the copy and its original both link to the same report) belongs to no one report:
    // it is the one problem of the chain as a whole (`kubectl restoretest verify` prints it as
    // "chain: ...", after each report's own).
    const name = doubled[1]!.metadata.name;
    expect(result.wholeChainProblems).toEqual([
      `fork: ${name} and ${name} both link to ${doubled[1]!.spec.evidence!.previousDigest!.slice(0, 19)}`,
    ]);
  });

  it('orders reports oldest first by startedAt', () => {
    const reports = history();
    expect(names(orderReportsForChain([...reports].reverse()))).toEqual(names(reports));
  });
});
