// The signed attestation of both PDF reports, the server's half: sealing the data a report is
// rendered from (canonical bytes, digest, signature), embedding it, and the attestation page that
// tells a reader how to check it. What the attestation covers and how a verifier reads it back is
// the protocol's (protocol/pdf/attestation-format.ts, attestation-check.ts).
//
// Every page is rendered from the parsed evidence alone (plus the attestation for the last page),
// deterministically, so a renderer with the same layout version re-renders the document from the
// embedded evidence and gets the same bytes: any edit to the visible pages is detectable too
// (test/helpers/pdf-pages.ts compares them).

import { canonicalJson } from '../../protocol/evidence/canonical-json.js';
import {
  ATTESTATION_FORMAT,
  ATTESTATION_INFO_KEY,
  EVIDENCE_FILE_NAME,
  EVIDENCE_FORMAT,
  evidenceDigestOf,
  type EmbeddedEvidence,
  type PdfAttestation,
} from '../../protocol/pdf/attestation-format.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';
import { chunk, utcDateTime } from './format.js';
import type { PdfWriter } from './layout/layout.js';
import { COLOR } from './layout/style.js';
import { runsCovered, type AnchorSummary, type ChainSummary, type ReportData } from './report-data.js';

/** Bump whenever a change to the renderers changes their output bytes for the same input. */
export const PDF_LAYOUT_VERSION = 7;

export interface SealedEvidence<D extends ReportData> {
  /** The report data as the renderer must use it: parsed back from the canonical bytes. */
  data: D;
  bytes: Buffer;
  attestation: PdfAttestation;
  /** The run population file whose digest the compliance evidence states (runsFile). */
  runsFile?: Buffer;
}

/** Canonical evidence bytes of a report (E above). Throws if the data is not plain JSON. */
export function evidenceBytes(data: ReportData, layout = PDF_LAYOUT_VERSION): Buffer {
  const evidence: EmbeddedEvidence<ReportData> = { format: EVIDENCE_FORMAT, layout, report: data };
  return Buffer.from(canonicalJson(evidence), 'utf8');
}

/** Canonicalizes, digests and signs the report data. */
export function sealEvidence<D extends ReportData>(data: D, signer: EvidenceSigner): SealedEvidence<D> {
  const bytes = evidenceBytes(data);
  const parsed = JSON.parse(bytes.toString('utf8')) as EmbeddedEvidence<D>;
  const digest = evidenceDigestOf(bytes);
  const attestation: PdfAttestation = {
    format: ATTESTATION_FORMAT,
    kind: data.kind,
    reportId: data.reportId,
    digest,
    signature: signer.sign(digest),
    keyId: signer.keyId,
    algorithm: 'Ed25519',
    generatedAt: data.generatedAt,
    version: data.productVersion,
    runs: runsCovered(data),
  };
  return { data: parsed.report, bytes, attestation };
}

/** Embeds the evidence file and the attestation info entry. Call before writer.end(). */
export function embedEvidence(writer: PdfWriter, sealed: SealedEvidence<ReportData>): void {
  const created = new Date(sealed.data.generatedAt);
  writer.doc.file(sealed.bytes, {
    name: EVIDENCE_FILE_NAME,
    type: 'application/json',
    description: `Signed evidence (${sealed.attestation.digest}) this report was rendered from`,
    creationDate: created,
    modifiedDate: created,
    relationship: 'Source',
  } as PDFKit.Mixins.PDFAttachmentOptions);
  // ASCII JSON: pdfkit writes it as a literal string; the verifier reads it back from the Info dict.
  const ascii = JSON.stringify(sealed.attestation).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  (writer.doc.info as Record<string, unknown>)[ATTESTATION_INFO_KEY] = ascii;
  const runs = sealed.data.kind === 'compliance' ? sealed.data.runsFile : undefined;
  if (!runs) return;
  if (!sealed.runsFile || evidenceDigestOf(sealed.runsFile) !== runs.digest) {
    throw new Error(`${runs.name} is missing or does not match the digest in the signed evidence`);
  }
  // Stored as is: the file is gzip already, and deflating it again (pdfkit compresses every stream
  // of a compressing document) gained nothing and held another copy of it (MBs at 90,000 runs).
  // pdfkit decides per stream when the stream object is created, inside file().
  const doc = writer.doc as PDFKit.PDFDocument & { compress: boolean };
  const compress = doc.compress;
  doc.compress = false;
  try {
    doc.file(sealed.runsFile, {
      name: runs.name,
      type: 'application/gzip',
      description: `Every run in the period as CSV (${runs.rows} rows, ${runs.digest}, in the signed evidence)`,
      creationDate: created,
      modifiedDate: created,
      relationship: 'Data',
    } as PDFKit.Mixins.PDFAttachmentOptions);
  } finally {
    doc.compress = compress;
  }
}

/** The attestation page: what the document is, the signature, and how to check it. */
export function renderAttestationPage(
  writer: PdfWriter,
  data: ReportData,
  attestation: PdfAttestation,
  chain: ChainSummary | undefined,
): void {
  writer.section('Attestation', { newPage: true });
  writer.callout(
    `This document was generated automatically by Rehearsal ${data.productVersion} from the RestoreReport resources listed in the appendix. ` +
      'It is a system-generated record of restore tests that were performed, not an audit opinion, and it makes no statement of compliance with any framework. ' +
      'The signature below proves that the evidence embedded in this file was produced by the holder of the signing key and has not been changed since.',
    { title: 'System-generated evidence, not an audit opinion' },
  );
  const covered =
    data.kind === 'compliance'
      ? `${data.population.runs} (counted per RestoreTest; ${data.exceptions.length} exception runs listed)`
      : `${data.runs.length} (${data.runs.filter((r) => r.evidenceDigest).length} with signed RestoreReport evidence)`;
  const chainText = chain
    ? chain.problems.length === 0
      ? `${chain.verifiedReports} of ${chain.checkedReports} RestoreReports verified (signature and hash chain) when this report was generated`
      : `${chain.verifiedReports} of ${chain.checkedReports} RestoreReports verified; ${chain.problems.length} problem(s), listed under Limitations`
    : 'not checked when this report was generated';
  writer.keyValues(
    [
      ['Product', `Rehearsal ${data.productVersion}`],
      ['Generated at', utcDateTime(data.generatedAt)],
      ['Report ID', data.reportId],
      ['Runs covered', covered],
      ['Run evidence chain', chainText],
      ...(data.anchors ? [['Evidence anchors', anchorsText(data.anchors)] as [string, string]] : []),
      ['Evidence digest', attestation.digest, 'mono'],
      ['Signature algorithm', 'Ed25519 (RFC 8032) over the UTF-8 digest string'],
      ['Signing key ID', `${attestation.keyId}  (first 16 hex of SHA-256 of the public key, SPKI DER)`],
      ['Signature (base64)', chunk(attestation.signature, 44), 'mono'],
    ],
    { labelWidth: 125 },
  );
  writer.subheading('What the digest covers', 40);
  writer.paragraph(
    `The digest is the SHA-256 of the file ${EVIDENCE_FILE_NAME} embedded in this PDF: the RFC 8785 canonical JSON of all the data this report was rendered from ` +
      (data.kind === 'compliance'
        ? '(period, control statuses and evidence text with their counts over all targets, the listed scope, coverage and per-RestoreTest rows with the totals of the unlisted ones, and the listed exception runs). Every page of this document is rendered from that file. '
        : '(period, scope, health checks, and every run with its RestoreReport evidence digest). Every page of this document is rendered from that file. ') +
      'The evidence of each run is itself an Ed25519-signed digest, hash-chained to the previous run of the same RestoreTest.',
  );
  writer.subheading('How to verify', 60);
  writer.text(
    'With Rehearsal: checks the signature with the published public key, recomputes the digest from the embedded evidence, and re-renders the pages to confirm they match the signed evidence byte for byte.',
    { size: 9, gapAfter: 4 },
  );
  writer.code(['kubectl restoretest verify --pdf FILE --public-key KEY']);
  writer.text(
    'With standard tools (poppler-utils, coreutils, OpenSSL 3): the SHA-256 of the extracted file must equal the digest, and the signature must verify over the digest string.',
    {
      size: 9,
      gapAfter: 4,
    },
  );
  writer.code([
    `pdfdetach -save 1 -o evidence.json FILE`,
    `sha256sum evidence.json`,
    `printf '%s' '${attestation.digest}' > digest.txt`,
    `echo '${attestation.signature}' \\`,
    `  | base64 -d > sig.bin`,
    `openssl pkeyutl -verify -pubin -inkey KEY -rawin -in digest.txt -sigfile sig.bin`,
  ]);
  writer.text(
    'To tie the runs to the cluster, compare each run digest in the appendix with spec.evidence.digest of that RestoreReport (kubectl get restorereports -n NAMESPACE -o yaml).',
    { size: 9 },
  );
  writer.text(
    `The public key is published by the Rehearsal installation (key ID ${attestation.keyId}). A valid signature from any other key, or any edit to this file, fails verification.`,
    {
      size: 8.5,
      color: COLOR.muted,
    },
  );
  if (data.anchors?.configured) renderAnchorChecks(writer, data.anchors);
}

function anchorsText(anchors: AnchorSummary): string {
  if (!anchors.configured) return 'not anchored: no write-once store is configured, so a cluster administrator holding the signing key could rewrite this history undetected';
  if (anchors.error) return `not checked when this report was generated: ${anchors.error}`;
  const count = `${anchors.anchors ?? 0} anchor(s) in ${anchors.store ?? 'the write-once store'}${anchors.newest ? `, the newest written ${anchors.newest}` : ''}`;
  const problems = anchors.disagreements?.length ?? 0;
  const unusable = anchors.unusable ? `; ${anchors.unusable} object(s) under anchors/ could not be used` : '';
  return problems === 0
    ? `anchored: ${count}; every chain agrees with every anchor${unusable}`
    : `${count}; ${problems} disagreement(s) with anchors written earlier, listed below${unusable}`;
}

/** What an auditor runs to check the anchors without trusting this cluster (docs/evidence.md). */
function renderAnchorChecks(writer: PdfWriter, anchors: AnchorSummary): void {
  if (anchors.disagreements && anchors.disagreements.length > 0) {
    writer.subheading('Evidence that disagrees with its anchors', 40);
    writer.bullets(anchors.disagreements, { size: 8.5 });
  }
  if (anchors.recent && anchors.recent.length > 0) {
    writer.subheading('The newest anchors', 40);
    writer.bullets(
      anchors.recent.map((anchor) => `${anchor.source}, written ${anchor.when}`),
      { size: 8 },
    );
  }
  writer.subheading('How to check the anchors without Rehearsal', 60);
  writer.text(
    'Every hour, a checkpoint of every RestoreTest chain (the newest report\'s sequence and digest, under one Merkle root) is signed, time-stamped by an RFC 3161 authority and written to S3 with Object Lock in compliance mode: ' +
      'no one, the bucket owner included, can change or delete it before its retention ends. A history rewritten after a checkpoint disagrees with it. With your own credentials for the bucket:',
    { size: 9, gapAfter: 4 },
  );
  writer.code([
    'aws s3api list-object-versions --bucket BUCKET --prefix PREFIXanchors/',
    'aws s3api get-object-retention --bucket BUCKET --key KEY --version-id VERSION',
    'aws s3api get-object --bucket BUCKET --key KEY --version-id VERSION anchor.json',
    'kubectl restoretest verify NAME --anchors DIR --tsa-cert TSA-CA.pem',
  ]);
  writer.text(
    "The time-stamp covers the RFC 8785 canonical JSON of the anchor's checkpoint field; openssl ts -verify -data CHECKPOINT -in TOKEN -token_in -CAfile TSA-CA.pem checks it (docs/evidence.md says how to extract both).",
    { size: 8.5, color: COLOR.muted },
  );
}
