// Offline verification of a Rehearsal PDF's attestation (attestation-format.ts), as the plugin's
// `verify --pdf` runs it. Checks, in order:
//   1. the PDF carries an attestation (Info key RehearsalAttestation) and the embedded evidence
//      file rehearsal-evidence.json;
//   2. SHA-256 of the embedded evidence bytes equals the attested digest, and those bytes are
//      canonical JSON (RFC 8785) of the evidence format;
//   3. the attestation's kind, report id, generation time, version and run count equal the
//      signed evidence, and a run population file the evidence names is embedded and hashes to
//      the digest it states;
//   4. the key id is trusted and the Ed25519 signature over the digest verifies.
// It does not compare the visible pages with the signed evidence: that needs the server's
// renderer at the same layout version (the server's tests re-render and compare bytes).
import type { KeyObject } from 'node:crypto';
import { canonicalJson } from '../evidence/canonical-json.js';
import { verifySignature } from '../evidence/signature.js';
import {
  ATTESTATION_FORMAT,
  ATTESTATION_INFO_KEY,
  EVIDENCE_FILE_NAME,
  EVIDENCE_FORMAT,
  evidenceDigestOf,
  type EmbeddedEvidence,
  type PdfAttestation,
} from './attestation-format.js';
import { embeddedFile, indexPdf, infoString } from './pdf-file.js';

export interface PdfVerification {
  ok: boolean;
  problems: string[];
  notes: string[];
  /** The attestation, when it could be read and is in the attestation format. */
  attestation?: PdfAttestation;
  /** The signed evidence, when it is in the evidence format (even if it does not verify). */
  evidence?: EmbeddedEvidence;
  /** The bytes of the embedded evidence (E), for a renderer that compares the pages with them. */
  evidenceBytes?: Buffer;
  /** The run population file the evidence names, when it is embedded and matches its digest. */
  runsFile?: Buffer;
}

/** Reads the attestation and the embedded evidence bytes without checking them. */
export function extractPdfAttestation(pdf: Buffer): { attestation: PdfAttestation; evidenceBytes: Buffer } {
  const file = indexPdf(pdf);
  const attestation = JSON.parse(infoString(file, ATTESTATION_INFO_KEY)) as PdfAttestation;
  return { attestation, evidenceBytes: embeddedFile(file, EVIDENCE_FILE_NAME) };
}

function isAttestation(value: unknown): value is PdfAttestation {
  const attestation = value as Partial<PdfAttestation> | null;
  return (
    typeof attestation === 'object' &&
    attestation !== null &&
    attestation.format === ATTESTATION_FORMAT &&
    attestation.algorithm === 'Ed25519' &&
    typeof attestation.digest === 'string' &&
    typeof attestation.signature === 'string' &&
    typeof attestation.keyId === 'string'
  );
}

/** The run count the signed evidence states: the compliance report counts its population, the test report lists its runs. */
function signedRuns(report: Record<string, unknown>): number | undefined {
  if (report.kind === 'compliance') {
    const runs = (report.population as { runs?: unknown } | undefined)?.runs;
    return typeof runs === 'number' ? runs : undefined;
  }
  return Array.isArray(report.runs) ? report.runs.length : undefined;
}

/** The run population file (compliance evidence runsFile): present and hashing to its signed digest. */
function readRunsFile(pdf: Buffer, report: Record<string, unknown>, problems: string[]): Buffer | undefined {
  const runs = report.kind === 'compliance' ? (report.runsFile as { name?: unknown; digest?: unknown } | undefined) : undefined;
  if (!runs || typeof runs.name !== 'string') return undefined;
  try {
    const bytes = embeddedFile(indexPdf(pdf), runs.name);
    const digest = evidenceDigestOf(bytes);
    if (digest === runs.digest) return bytes;
    problems.push(`the embedded ${runs.name} hashes to ${digest}, the signed evidence states ${String(runs.digest)}`);
  } catch (error) {
    problems.push(`the run population file the signed evidence names cannot be read: ${(error as Error).message}`);
  }
  return undefined;
}

/** The parsed evidence when it is canonical JSON in the evidence format; problems otherwise. */
function readEvidence(bytes: Buffer, problems: string[]): EmbeddedEvidence | undefined {
  const text = bytes.toString('utf8');
  let evidence: EmbeddedEvidence;
  try {
    evidence = JSON.parse(text) as EmbeddedEvidence;
  } catch {
    problems.push('the embedded evidence is not JSON');
    return undefined;
  }
  try {
    if (canonicalJson(evidence) !== text) problems.push('the embedded evidence is not RFC 8785 canonical JSON');
  } catch {
    problems.push('the embedded evidence is not RFC 8785 canonical JSON');
  }
  if (evidence?.format !== EVIDENCE_FORMAT || typeof evidence.report !== 'object' || evidence.report === null) {
    problems.push('the embedded evidence is not in the rehearsal.dev/pdf-evidence/v1 format');
    return undefined;
  }
  return evidence;
}

export function verifyPdfAttestation(pdf: Buffer, publicKeys: ReadonlyMap<string, KeyObject>): PdfVerification {
  const problems: string[] = [];
  let attestation: unknown;
  let evidenceBytes: Buffer;
  try {
    ({ attestation, evidenceBytes } = extractPdfAttestation(pdf));
  } catch (error) {
    return { ok: false, problems: [`cannot read the attestation: ${(error as Error).message}`], notes: [] };
  }
  if (!isAttestation(attestation)) {
    return { ok: false, problems: ['the attestation is not in the rehearsal.dev/pdf-attestation/v1 format'], notes: [] };
  }

  const digest = evidenceDigestOf(evidenceBytes);
  if (digest !== attestation.digest) {
    problems.push(`evidence digest mismatch: the embedded evidence hashes to ${digest}, the attestation states ${attestation.digest}`);
  }
  const evidence = readEvidence(evidenceBytes, problems);
  let runsFile: Buffer | undefined;
  if (evidence) {
    const report = evidence.report;
    const pairs: [string, unknown, unknown][] = [
      ['kind', attestation.kind, report.kind],
      ['reportId', attestation.reportId, report.reportId],
      ['generatedAt', attestation.generatedAt, report.generatedAt],
      ['version', attestation.version, report.productVersion],
      ['runs', attestation.runs, signedRuns(report)],
    ];
    for (const [field, stated, signed] of pairs) {
      if (stated !== signed) {
        problems.push(`attestation ${field} ${JSON.stringify(stated)} differs from the signed evidence (${JSON.stringify(signed)})`);
      }
    }
    runsFile = readRunsFile(pdf, report, problems);
  }

  const key = publicKeys.get(attestation.keyId);
  if (!key) {
    problems.push(`signed with unknown key ${attestation.keyId} (trusted: ${[...publicKeys.keys()].join(', ') || 'none'})`);
  } else if (!verifySignature(attestation.digest, attestation.signature, key)) {
    problems.push(`signature does not verify with key ${attestation.keyId}: wrong key or altered attestation`);
  }
  return {
    ok: problems.length === 0,
    problems,
    notes: [],
    attestation,
    ...(evidence ? { evidence } : {}),
    evidenceBytes,
    ...(runsFile ? { runsFile } : {}),
  };
}
