// The signed attestation of Rehearsal's PDF reports (compliance and test report): what the server
// embeds when it renders one (server/pdf/attestation.ts) and what every verifier reads back
// (attestation-check.ts: the plugin's `verify --pdf`, the server's tests).
//
// WHAT THE PDF ATTESTATION COVERS (format rehearsal.dev/pdf-attestation/v1):
//
//   evidence E = the UTF-8 bytes of the RFC 8785 canonical JSON of
//                { "format": "rehearsal.dev/pdf-evidence/v1", "layout": <the renderer's layout version>,
//                  "report": <the data the PDF was rendered from> }
//                E is embedded as the attachment "rehearsal-evidence.json" (a Flate-compressed
//                embedded-file stream, like every PDF stream; pdfdetach or a viewer's attachment
//                panel extracts the exact bytes). It includes the RestoreReport digest of every
//                run it lists (the test report: every run; the compliance report: the exceptions,
//                with the population as counts per test), so the attestation also covers the
//                listed runs' own evidence. When the compliance evidence has runsFile, the file it
//                names (every run of the period, gzip'd CSV) is embedded too, and runsFile.digest
//                is its SHA-256.
//   digest   D = "sha256:" + lowercase hex SHA-256 of E (so `sha256sum` of the extracted file).
//   signature S = base64 Ed25519 over the UTF-8 string D (the same scheme as RestoreReports).
//   The attestation JSON { format, kind, reportId, digest, signature, keyId, algorithm,
//   generatedAt, version, runs } is stored in the PDF Info dictionary under the key
//   "RehearsalAttestation" (`pdfinfo -custom` shows it) and printed on the attestation page.
//   Its kind, reportId, generatedAt, version and runs must equal the signed evidence.
import { sha256Hex } from '../evidence/canonical-json.js';

export const EVIDENCE_FORMAT = 'rehearsal.dev/pdf-evidence/v1';
export const ATTESTATION_FORMAT = 'rehearsal.dev/pdf-attestation/v1';
export const EVIDENCE_FILE_NAME = 'rehearsal-evidence.json';
export const ATTESTATION_INFO_KEY = 'RehearsalAttestation';

/** E above, parsed: `report` is the data the pages were rendered from. */
export interface EmbeddedEvidence<R = Record<string, unknown>> {
  format: typeof EVIDENCE_FORMAT;
  layout: number;
  report: R;
}

export interface PdfAttestation {
  format: typeof ATTESTATION_FORMAT;
  kind: 'compliance' | 'test';
  reportId: string;
  digest: string;
  signature: string;
  keyId: string;
  algorithm: 'Ed25519';
  generatedAt: string;
  version: string;
  runs: number;
}

/** D above, of the evidence bytes (also the runs file's digest). */
export function evidenceDigestOf(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}
