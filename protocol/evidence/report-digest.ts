// Tamper evidence for RestoreReports: every report is signed, and hash-chained to the previous
// report of the same RestoreTest, so an edited, deleted or reordered report is detectable offline.
// The server signs with this scheme (server/evidence/evidence.ts); the server, the plugin's
// `verify` and the archive verify with it (report-chain.ts).
//
// WHAT IS SIGNED (scheme "rehearsal.dev/evidence/v1"; change it and you must version it):
//
//   content  C = RFC 8785 (JCS) canonical JSON of
//                { "metadata": { "name": <metadata.name>, "namespace": <metadata.namespace | null> },
//                  "owner":    { "name": <RestoreTest name>, "uid": <RestoreTest uid> } | null,
//                  "spec":     <spec without spec.evidence>,
//                  "sequence": <spec.evidence.sequence>   (only when the report has one) }
//              where owner is the report's ownerReference of kind RestoreTest (the controller one
//              if several); a report without one (written since issue 17: the server, not the
//              garbage collector, removes a deleted test's reports) takes it from spec.testRef
//              (name, uid) when testRef.uid is set — the same values the ownerReference held, so
//              either form binds the report to the test's uid, and removing an old report's
//              ownerReference does not change its digest. Otherwise null. sequence numbers a
//              test's reports 1, 2, 3, ...; the RestoreTest's status.evidenceAnchor keeps the
//              newest (sequence, digest), so deleting the newest reports — which leaves an intact,
//              shorter chain — is detectable too (evidence-anchor.ts). Reports signed before
//              sequences existed have none, and their C is unchanged: they still verify.
//   previous P = spec.evidence.previousDigest of this report (the digest of the previous report of
//              the same RestoreTest), or "" for the first report of a chain.
//   digest   D = "sha256:" + lowercase hex SHA-256 over the UTF-8 bytes of C followed directly by P.
//              The chain link is inside the hashed material: changing previousDigest changes D.
//   signature S = base64 Ed25519 signature over the UTF-8 bytes of the string D.
//   keyId      = first 16 hex of SHA-256 over the signer's public key (SPKI DER, signature.ts).
//
// NOT covered, on purpose:
//   - metadata.creationTimestamp, uid, resourceVersion, generation, managedFields: the API server
//     sets them when the report is created, after it has been signed. The run's own times
//     (scheduledAt, startedAt, completedAt, RTO phases) are in spec and are covered.
//   - labels and annotations: selectors and bookkeeping that tools may legitimately change; every
//     fact they repeat (test, run id, source namespaces) is also in spec.
//   - spec.evidence itself (it holds the result of signing).
// Storage: since issue 17 the server stores most spec fields, spec.evidence included, as one
// string, spec.details (../stored-report/). "spec" and "spec.evidence" above are always those of
// the expanded spec (details decoded back into fields), so the digest of a report does not depend
// on how it is stored, reports stored before that verify unchanged, and editing spec.details
// changes the digest (or the evidence block) like editing any field.
// JSON values that are `undefined` are absent, exactly as after a JSON round trip through the
// API server, so a report read back from the cluster verifies like the object that was signed.
import { expandStoredSpec } from '../stored-report/stored-report.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { contentOfExpanded, type EvidenceContent, type OwnerReference } from './evidence-content.js';

export { evidenceOwner, type EvidenceContent, type OwnerReference } from './evidence-content.js';

/** spec.evidence: the result of signing a report. */
export interface ReportEvidence {
  digest: string;
  previousDigest?: string;
  /** Position in the test's chain (1 = first signed with a sequence); part of the digest. */
  sequence?: number;
  signature: string;
  keyId: string;
  algorithm: string;
  canonicalization: string;
}

/** The parts of a RestoreReport the scheme reads; the server's RestoreReport is one. */
export interface SignedReport {
  metadata: {
    name: string;
    namespace?: string;
    ownerReferences?: readonly OwnerReference[];
    /** Unsigned; the server marks reports it serves from its evidence archive (archive-annotations.ts). */
    annotations?: Record<string, string>;
  };
  /** As stored (spec.details, ../stored-report/) or expanded; every other field is content. */
  spec: { startedAt?: string; runId?: string; testRef?: unknown; evidence?: ReportEvidence; details?: unknown };
}

/** The part of a report the digest covers; the sequence defaults to the report's own. */
export function evidenceContent(report: SignedReport, sequence?: number): EvidenceContent {
  return contentOfExpanded({ metadata: report.metadata, spec: expandStoredSpec(report.spec) as Record<string, unknown> }, sequence);
}

/** D = "sha256:" + hex(SHA-256(C ‖ P)); the sequence defaults to the report's own. */
export function computeEvidenceDigest(report: SignedReport, previousDigest: string | undefined, sequence?: number): string {
  return `sha256:${sha256Hex(canonicalJson(evidenceContent(report, sequence)) + (previousDigest ?? ''))}`;
}
