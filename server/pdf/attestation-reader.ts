// Offline verification of a Rehearsal PDF (compliance or test report). See pdf/attestation.ts for
// exactly what is signed. Checks, in order:
//   1. the PDF carries an attestation (Info key RehearsalAttestation) and the embedded evidence
//      file rehearsal-evidence.json;
//   2. SHA-256 of the embedded evidence bytes equals the attested digest, and those bytes are
//      canonical JSON (RFC 8785) of the evidence format;
//   3. the attestation's kind, report id, generation time, version and run count equal the
//      signed evidence;
//   4. the key id is trusted and the Ed25519 signature over the digest verifies;
//   5. the document re-rendered from the signed evidence is byte-identical to the file, so the
//      visible pages say what the signed evidence says (only when the evidence was rendered with
//      this build's layout version; otherwise the check is skipped and a note says so).
//
// The parser reads the PDFs Rehearsal writes (pdfkit, classic xref table). It is not a general
// PDF reader: a document rewritten by another tool fails check 5 anyway.

import { inflateSync } from 'node:zlib';
import type { KeyObject } from 'node:crypto';
import { canonicalJson, verifySignature } from '../evidence/evidence.js';
import {
  ATTESTATION_FORMAT,
  ATTESTATION_INFO_KEY,
  EVIDENCE_FILE_NAME,
  EVIDENCE_FORMAT,
  PDF_LAYOUT_VERSION,
  evidenceDigestOf,
  type EmbeddedEvidence,
  type PdfAttestation,
  type SealedEvidence,
} from './attestation.js';
import { renderSealedComplianceReport } from './compliance-report.pdf.js';
import { renderSealedTestReport } from './test-report.pdf.js';
import type { ComplianceReportData, ReportData, TestReportData } from './report-data.js';

export interface PdfVerification {
  ok: boolean;
  problems: string[];
  notes: string[];
  /** identical: the pages are exactly what the signed evidence renders to. */
  contentCheck: 'identical' | 'differs' | 'skipped';
  attestation?: PdfAttestation;
  evidence?: EmbeddedEvidence;
}

export interface PdfVerifyOptions {
  /** Re-render and compare bytes (default true). */
  rerender?: boolean;
}

// ---------------------------------------------------------------- minimal PDF object access

interface PdfObjects {
  text: string; // latin1 view: one char per byte, so string offsets are byte offsets
  offsets: Map<number, number>;
  trailer: string;
}

function indexPdf(pdf: Buffer): PdfObjects {
  const text = pdf.toString('latin1');
  if (!text.startsWith('%PDF-')) throw new Error('not a PDF file');
  const start = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-64));
  if (!start) throw new Error('no startxref at the end of the file');
  const xrefAt = Number(start[1]);
  if (text.slice(xrefAt, xrefAt + 4) !== 'xref') throw new Error('startxref does not point to an xref table');
  const trailerAt = text.indexOf('trailer', xrefAt);
  if (trailerAt < 0) throw new Error('no trailer');
  const offsets = new Map<number, number>();
  const lines = text
    .slice(xrefAt + 4, trailerAt)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  let objectNumber = 0;
  for (const line of lines) {
    const section = /^(\d+) (\d+)$/.exec(line);
    if (section) {
      objectNumber = Number(section[1]);
      continue;
    }
    const entry = /^(\d{10}) (\d{5}) ([nf])$/.exec(line);
    if (!entry) throw new Error(`malformed xref entry "${line}"`);
    if (entry[3] === 'n') offsets.set(objectNumber, Number(entry[1]));
    objectNumber += 1;
  }
  return { text, offsets, trailer: text.slice(trailerAt, xrefAt > trailerAt ? xrefAt : undefined) };
}

/** The body of object `n` between "n 0 obj" and "endobj" (for streams: up to "stream"). */
function objectBody(pdf: PdfObjects, n: number): { body: string; streamStart?: number } {
  const at = pdf.offsets.get(n);
  if (at === undefined) throw new Error(`object ${n} is not in the xref table`);
  const header = `${n} 0 obj`;
  if (pdf.text.slice(at, at + header.length) !== header)
    throw new Error(`xref offset of object ${n} is wrong`);
  const end = pdf.text.indexOf('endobj', at);
  const streamAt = pdf.text.indexOf('\nstream\n', at);
  if (streamAt >= 0 && streamAt < end) {
    return {
      body: pdf.text.slice(at + header.length, streamAt),
      streamStart: streamAt + '\nstream\n'.length,
    };
  }
  return { body: pdf.text.slice(at + header.length, end) };
}

/** Decodes a PDF literal string "( ... )" (escapes, octal codes, line continuations). */
function decodeLiteralString(body: string): string {
  const open = body.indexOf('(');
  if (open < 0) throw new Error('not a literal string');
  let out = '';
  let depth = 0;
  for (let i = open + 1; i < body.length; i += 1) {
    const ch = body[i]!;
    if (ch === '\\') {
      const next = body[++i] ?? '';
      const simple: Record<string, string> = {
        n: '\n',
        r: '\r',
        t: '\t',
        b: '\b',
        f: '\f',
        '(': '(',
        ')': ')',
        '\\': '\\',
      };
      if (next in simple) out += simple[next];
      else if (/[0-7]/.test(next)) {
        let digits = next;
        while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) digits += body[++i];
        out += String.fromCharCode(parseInt(digits, 8));
      } else if (next === '\n' || next === '\r') {
        if (next === '\r' && body[i + 1] === '\n') i += 1;
      } else out += next;
      continue;
    }
    if (ch === '(') depth += 1;
    if (ch === ')') {
      if (depth === 0) return out;
      depth -= 1;
    }
    out += ch;
  }
  throw new Error('unterminated literal string');
}

function readAttestationJson(pdf: PdfObjects): string {
  const info = /\/Info\s+(\d+)\s+0\s+R/.exec(pdf.trailer);
  if (!info) throw new Error('the PDF has no Info dictionary');
  const dict = objectBody(pdf, Number(info[1])).body;
  const ref = new RegExp(`/${ATTESTATION_INFO_KEY}\\s+(\\d+)\\s+0\\s+R`).exec(dict);
  if (!ref) throw new Error(`the PDF has no ${ATTESTATION_INFO_KEY} entry: not a signed Rehearsal report`);
  return decodeLiteralString(objectBody(pdf, Number(ref[1])).body);
}

function readEmbeddedEvidence(pdf: PdfObjects, name = EVIDENCE_FILE_NAME): Buffer {
  for (const n of pdf.offsets.keys()) {
    const { body } = objectBody(pdf, n);
    if (!/\/Type\s*\/Filespec/.test(body) || !body.includes(`/F (${name})`)) continue;
    const ef = /\/EF\s*<<\s*\/F\s+(\d+)\s+0\s+R/.exec(body);
    if (!ef) throw new Error('the evidence file specification has no embedded file');
    const stream = objectBody(pdf, Number(ef[1]));
    const length = /\/Length\s+(\d+)/.exec(stream.body);
    if (!length || stream.streamStart === undefined)
      throw new Error('the embedded evidence stream has no length');
    const raw = Buffer.from(
      pdf.text.slice(stream.streamStart, stream.streamStart + Number(length[1])),
      'latin1',
    );
    if (/\/Filter\s*\/FlateDecode/.test(stream.body)) return inflateSync(raw);
    if (/\/Filter/.test(stream.body)) throw new Error('the embedded evidence uses an unsupported filter');
    return raw;
  }
  throw new Error(`the PDF has no embedded ${name}`);
}

/**
 * The run population file the compliance evidence names, checked against its signed digest
 * (undefined when the evidence names none); a problem when it is missing or differs.
 */
function readRunsFile(pdf: Buffer, report: ReportData, problems: string[]): Buffer | undefined {
  const runs = report.kind === 'compliance' ? report.runsFile : undefined;
  if (!runs || typeof runs.name !== 'string') return undefined;
  try {
    const bytes = readEmbeddedEvidence(indexPdf(pdf), runs.name);
    if (evidenceDigestOf(bytes) === runs.digest) return bytes;
    problems.push(
      `the embedded ${runs.name} hashes to ${evidenceDigestOf(bytes)}, the signed evidence states ${runs.digest}`,
    );
  } catch (error) {
    problems.push(
      `the run population file the signed evidence names cannot be read: ${(error as Error).message}`,
    );
  }
  return undefined;
}

/** Reads the attestation and the embedded evidence bytes without checking them. */
export function extractPdfAttestation(pdf: Buffer): { attestation: PdfAttestation; evidenceBytes: Buffer } {
  const objects = indexPdf(pdf);
  const attestation = JSON.parse(readAttestationJson(objects)) as PdfAttestation;
  return { attestation, evidenceBytes: readEmbeddedEvidence(objects) };
}

/** Renders sealed evidence with the renderer its kind names. */
export function renderSealedReport(sealed: SealedEvidence<ReportData>): Promise<Buffer> {
  return sealed.data.kind === 'compliance'
    ? renderSealedComplianceReport(sealed as SealedEvidence<ComplianceReportData>)
    : renderSealedTestReport(sealed as SealedEvidence<TestReportData>);
}

// ---------------------------------------------------------------- verification

export async function verifyPdfAttestation(
  pdf: Buffer,
  publicKeys: ReadonlyMap<string, KeyObject>,
  options: PdfVerifyOptions = {},
): Promise<PdfVerification> {
  const problems: string[] = [];
  const notes: string[] = [];
  const fail = (problem: string, extra: Partial<PdfVerification> = {}): PdfVerification => ({
    ok: false,
    problems: [...problems, problem],
    notes,
    contentCheck: 'skipped',
    ...extra,
  });

  let attestation: PdfAttestation;
  let bytes: Buffer;
  try {
    ({ attestation, evidenceBytes: bytes } = extractPdfAttestation(pdf));
  } catch (error) {
    return fail(`cannot read the attestation: ${(error as Error).message}`);
  }
  if (
    typeof attestation !== 'object' ||
    attestation === null ||
    attestation.format !== ATTESTATION_FORMAT ||
    attestation.algorithm !== 'Ed25519' ||
    typeof attestation.digest !== 'string' ||
    typeof attestation.signature !== 'string' ||
    typeof attestation.keyId !== 'string'
  ) {
    return fail('the attestation is not in the rehearsal.dev/pdf-attestation/v1 format');
  }

  const digest = evidenceDigestOf(bytes);
  if (digest !== attestation.digest) {
    problems.push(
      `evidence digest mismatch: the embedded evidence hashes to ${digest}, the attestation states ${attestation.digest}`,
    );
  }
  let evidence: EmbeddedEvidence | undefined;
  try {
    evidence = JSON.parse(bytes.toString('utf8')) as EmbeddedEvidence;
    if (canonicalJson(evidence) !== bytes.toString('utf8'))
      problems.push('the embedded evidence is not RFC 8785 canonical JSON');
  } catch {
    problems.push('the embedded evidence is not JSON');
  }
  if (evidence) {
    const report = evidence.report;
    if (evidence.format !== EVIDENCE_FORMAT || typeof report !== 'object' || report === null) {
      problems.push('the embedded evidence is not in the rehearsal.dev/pdf-evidence/v1 format');
      evidence = undefined;
    } else {
      const mismatches = [
        ['kind', attestation.kind, report.kind],
        ['reportId', attestation.reportId, report.reportId],
        ['generatedAt', attestation.generatedAt, report.generatedAt],
        ['version', attestation.version, report.productVersion],
        ['runs', attestation.runs, signedRuns(report)],
      ].filter(([, stated, signed]) => stated !== signed);
      for (const [field, stated, signed] of mismatches) {
        problems.push(
          `attestation ${String(field)} ${JSON.stringify(stated)} differs from the signed evidence (${JSON.stringify(signed)})`,
        );
      }
    }
  }

  const runsFile = evidence ? readRunsFile(pdf, evidence.report, problems) : undefined;
  const key = publicKeys.get(attestation.keyId);
  if (!key) {
    problems.push(
      `signed with unknown key ${attestation.keyId} (trusted: ${[...publicKeys.keys()].join(', ') || 'none'})`,
    );
  } else if (!verifySignature(attestation.digest, attestation.signature, key)) {
    problems.push(
      `signature does not verify with key ${attestation.keyId}: wrong key or altered attestation`,
    );
  }

  let contentCheck: PdfVerification['contentCheck'] = 'skipped';
  if (options.rerender === false) {
    notes.push('page content was not compared (re-rendering disabled)');
  } else if (!evidence) {
    notes.push('page content was not compared: no usable evidence');
  } else if (evidence.layout !== PDF_LAYOUT_VERSION) {
    notes.push(
      `page content was not compared: the report was rendered with layout ${evidence.layout}, this verifier renders layout ${PDF_LAYOUT_VERSION}; use the Rehearsal version that generated it (${attestation.version})`,
    );
  } else {
    try {
      const rendered = await renderSealedReport({
        data: evidence.report,
        bytes,
        attestation,
        ...(runsFile ? { runsFile } : {}),
      });
      contentCheck = rendered.equals(pdf) ? 'identical' : 'differs';
      if (contentCheck === 'differs') {
        problems.push(
          'the pages differ from what the signed evidence renders to: the document was changed after signing',
        );
      }
    } catch (error) {
      contentCheck = 'differs';
      problems.push(`the signed evidence cannot be rendered: ${(error as Error).message}`);
    }
  }

  return { ok: problems.length === 0, problems, notes, contentCheck, attestation, evidence };
}

/** The run count the signed evidence states (read defensively: the file is untrusted input). */
function signedRuns(report: { kind?: unknown; runs?: unknown; population?: unknown }): number | undefined {
  if (report.kind === 'compliance') {
    const runs = (report.population as { runs?: unknown } | undefined)?.runs;
    return typeof runs === 'number' ? runs : undefined;
  }
  return Array.isArray(report.runs) ? report.runs.length : undefined;
}
