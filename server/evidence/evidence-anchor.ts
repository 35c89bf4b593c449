// The evidence anchor a signed report leaves in its test's status.evidenceAnchor (and in metrics):
// its chain sequence and digest. What the anchor means to a verifier, and the check of a chain's
// tail against it, is the protocol's (protocol/evidence/evidence-anchor.ts).
//
// Written after the report exists (never before: an anchor naming a report whose create failed
// would read as a deletion), by recordEvidenceAnchor, which the engine calls once per report.
import type { EvidenceAnchor, RestoreReport } from '../domain/resources/resources.js';

/** The anchor a signed report leaves in its test's status; undefined for an unsequenced report. */
export function evidenceAnchorOf(report: RestoreReport): EvidenceAnchor | undefined {
  const evidence = report.spec.evidence;
  if (evidence?.sequence === undefined) return undefined;
  return { sequence: evidence.sequence, digest: evidence.digest, report: report.metadata.name };
}
