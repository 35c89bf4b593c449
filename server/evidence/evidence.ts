// Signing RestoreReports: the evidence block the report writer puts on every report before it is
// created. What is signed, and how any verifier checks it, is the protocol shared with the plugin
// (protocol/evidence/report-digest.ts and report-chain.ts); this is the server's half, the only
// one that holds a signing key.
import { computeEvidenceDigest } from '../../protocol/evidence/report-digest.js';
import type { RestoreReport, RestoreReportSpec } from '../domain/resources/resources.js';
import type { EvidenceSigner } from './signing-key.js';

export type ReportEvidence = NonNullable<RestoreReportSpec['evidence']>;

/**
 * Signs a report that is about to be created. `previousDigest` is spec.evidence.digest of the
 * previous report of the same RestoreTest (undefined for its first report); `sequence` its place
 * in the chain (undefined only for the old, unsequenced scheme). Returns the evidence block for
 * spec.evidence; any spec.evidence already present is ignored.
 */
export function signEvidence(
  report: RestoreReport,
  previousDigest: string | undefined,
  signer: EvidenceSigner,
  sequence?: number,
): ReportEvidence {
  const digest = computeEvidenceDigest(report, previousDigest, sequence);
  const evidence: ReportEvidence = {
    ...(sequence !== undefined ? { sequence } : {}),
    digest,
    signature: signer.sign(digest),
    keyId: signer.keyId,
    algorithm: 'Ed25519',
    canonicalization: 'RFC8785',
  };
  if (previousDigest !== undefined) evidence.previousDigest = previousDigest;
  return evidence;
}

/** The report with its evidence block filled in (a copy; the input is not changed). */
export function withEvidence(
  report: RestoreReport,
  previousDigest: string | undefined,
  signer: EvidenceSigner,
  sequence?: number,
): RestoreReport {
  return {
    ...report,
    spec: { ...report.spec, evidence: signEvidence(report, previousDigest, signer, sequence) },
  };
}
