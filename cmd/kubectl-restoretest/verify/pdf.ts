// Offline check of a Rehearsal PDF's attestation (format rehearsal.dev/pdf-attestation/v1, see
// server/pdf/attestation.ts): the Info entry RehearsalAttestation, the embedded
// rehearsal-evidence.json, SHA-256 of its bytes = the attested digest, the bytes are RFC 8785
// JSON whose kind/reportId/generatedAt/version/runs equal the attestation, key id trusted and the
// Ed25519 signature over the digest valid, and an embedded run population file the evidence
// names (rehearsal-runs.csv.gz) hashes to the digest it states. The server's verifier also
// re-renders the pages and compares bytes; this one does not (it would need the server's
// renderer) and says so.
import { inflateSync } from 'node:zlib';
import type { KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex, signatureValid } from './evidence.js';

export interface PdfResult {
  ok: boolean;
  problems: string[];
  notes: string[];
  attestation?: Record<string, unknown>;
}

interface Pdf {
  text: string;
  offsets: Map<number, number>;
  trailer: string;
}

function indexPdf(bytes: Buffer): Pdf {
  const text = bytes.toString('latin1');
  if (!text.startsWith('%PDF-')) throw new Error('not a PDF file');
  const start = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-64));
  if (!start) throw new Error('no startxref at the end of the file');
  const xrefAt = Number(start[1]);
  if (text.slice(xrefAt, xrefAt + 4) !== 'xref') throw new Error('startxref does not point to an xref table');
  const trailerAt = text.indexOf('trailer', xrefAt);
  if (trailerAt < 0) throw new Error('no trailer');
  const offsets = new Map<number, number>();
  let n = 0;
  for (const line of text.slice(xrefAt + 4, trailerAt).split(/\r?\n/).map((l) => l.trim()).filter(Boolean)) {
    const section = /^(\d+) (\d+)$/.exec(line);
    if (section) {
      n = Number(section[1]);
      continue;
    }
    const entry = /^(\d{10}) (\d{5}) ([nf])$/.exec(line);
    if (!entry) throw new Error(`malformed xref entry "${line}"`);
    if (entry[3] === 'n') offsets.set(n, Number(entry[1]));
    n += 1;
  }
  return { text, offsets, trailer: text.slice(trailerAt) };
}

function object(pdf: Pdf, n: number): { body: string; streamStart?: number } {
  const at = pdf.offsets.get(n);
  if (at === undefined) throw new Error(`object ${n} is not in the xref table`);
  const header = `${n} 0 obj`;
  if (pdf.text.slice(at, at + header.length) !== header) throw new Error(`xref offset of object ${n} is wrong`);
  const end = pdf.text.indexOf('endobj', at);
  const streamAt = pdf.text.indexOf('\nstream\n', at);
  if (streamAt >= 0 && streamAt < end) return { body: pdf.text.slice(at + header.length, streamAt), streamStart: streamAt + 8 };
  return { body: pdf.text.slice(at + header.length, end) };
}

function literalString(body: string): string {
  const open = body.indexOf('(');
  if (open < 0) throw new Error('not a literal string');
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
  let out = '';
  let depth = 0;
  for (let i = open + 1; i < body.length; i += 1) {
    const ch = body[i]!;
    if (ch === '\\') {
      const next = body[++i] ?? '';
      if (next in simple) out += simple[next];
      else if (/[0-7]/.test(next)) {
        let digits = next;
        while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) digits += body[++i];
        out += String.fromCharCode(parseInt(digits, 8));
      } else if (next === '\r' && body[i + 1] === '\n') i += 1;
      else if (next !== '\n' && next !== '\r') out += next;
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

/** The attestation JSON text and the embedded evidence bytes. */
export function extractAttestation(bytes: Buffer): { attestation: string; evidence: Buffer } {
  const pdf = indexPdf(bytes);
  const info = /\/Info\s+(\d+)\s+0\s+R/.exec(pdf.trailer);
  if (!info) throw new Error('the PDF has no Info dictionary');
  const ref = /\/RehearsalAttestation\s+(\d+)\s+0\s+R/.exec(object(pdf, Number(info[1])).body);
  if (!ref) throw new Error('the PDF has no RehearsalAttestation entry: not a signed Rehearsal report');
  const attestation = literalString(object(pdf, Number(ref[1])).body);
  return { attestation, evidence: embeddedFile(pdf, 'rehearsal-evidence.json') };
}

/** The bytes of the embedded file named `name`. */
function embeddedFile(pdf: Pdf, name: string): Buffer {
  for (const n of pdf.offsets.keys()) {
    const { body } = object(pdf, n);
    if (!/\/Type\s*\/Filespec/.test(body) || !body.includes(`/F (${name})`)) continue;
    const ef = /\/EF\s*<<\s*\/F\s+(\d+)\s+0\s+R/.exec(body);
    if (!ef) throw new Error(`the file specification of ${name} has no embedded file`);
    const stream = object(pdf, Number(ef[1]));
    const length = /\/Length\s+(\d+)/.exec(stream.body);
    if (!length || stream.streamStart === undefined) throw new Error(`the embedded ${name} stream has no length`);
    const raw = Buffer.from(pdf.text.slice(stream.streamStart, stream.streamStart + Number(length[1])), 'latin1');
    if (/\/Filter\s*\/FlateDecode/.test(stream.body)) return inflateSync(raw);
    if (/\/Filter/.test(stream.body)) throw new Error(`the embedded ${name} uses an unsupported filter`);
    return raw;
  }
  throw new Error(`the PDF has no embedded ${name}`);
}

/** The run population file (compliance evidence runsFile): present and hashing to its signed digest. */
function checkRunsFile(bytes: Buffer, report: Record<string, unknown>, problems: string[]): void {
  const runs = report.kind === 'compliance' ? (report.runsFile as { name?: unknown; digest?: unknown } | undefined) : undefined;
  if (!runs || typeof runs.name !== 'string') return;
  try {
    const computed = `sha256:${sha256Hex(embeddedFile(indexPdf(bytes), runs.name))}`;
    if (computed !== runs.digest) problems.push(`the embedded ${runs.name} hashes to ${computed}, the signed evidence states ${String(runs.digest)}`);
  } catch (error) {
    problems.push(`the run population file the signed evidence names cannot be read: ${(error as Error).message}`);
  }
}

export function verifyPdf(bytes: Buffer, keys: ReadonlyMap<string, KeyObject>): PdfResult {
  const problems: string[] = [];
  const notes = ['page content was not compared: this verifier checks the signed evidence and the attestation, not the rendered pages'];
  let attestation: Record<string, unknown>;
  let evidenceBytes: Buffer;
  try {
    const extracted = extractAttestation(bytes);
    attestation = JSON.parse(extracted.attestation) as Record<string, unknown>;
    evidenceBytes = extracted.evidence;
  } catch (error) {
    return { ok: false, problems: [`cannot read the attestation: ${(error as Error).message}`], notes };
  }
  const { digest, signature, keyId } = attestation;
  if (
    attestation.format !== 'rehearsal.dev/pdf-attestation/v1' ||
    attestation.algorithm !== 'Ed25519' ||
    typeof digest !== 'string' ||
    typeof signature !== 'string' ||
    typeof keyId !== 'string'
  ) {
    return { ok: false, problems: ['the attestation is not in the rehearsal.dev/pdf-attestation/v1 format'], notes };
  }
  const computed = `sha256:${sha256Hex(evidenceBytes)}`;
  if (computed !== digest) {
    problems.push(`evidence digest mismatch: the embedded evidence hashes to ${computed}, the attestation states ${digest}`);
  }
  try {
    const evidence = JSON.parse(evidenceBytes.toString('utf8')) as { format?: unknown; report?: Record<string, unknown> };
    if (canonicalJson(evidence) !== evidenceBytes.toString('utf8')) problems.push('the embedded evidence is not RFC 8785 canonical JSON');
    const report = evidence.report;
    if (evidence.format !== 'rehearsal.dev/pdf-evidence/v1' || typeof report !== 'object' || report === null) {
      problems.push('the embedded evidence is not in the rehearsal.dev/pdf-evidence/v1 format');
    } else {
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
      checkRunsFile(bytes, report, problems);
    }
  } catch {
    problems.push('the embedded evidence is not JSON');
  }
  const key = keys.get(keyId);
  if (!key) problems.push(`signed with unknown key ${keyId} (trusted: ${[...keys.keys()].join(', ') || 'none'})`);
  else if (!signatureValid(digest, signature, key)) problems.push(`signature does not verify with key ${keyId}: wrong key or altered attestation`);
  return { ok: problems.length === 0, problems, notes, attestation };
}

/** The run count the signed evidence states: the compliance report counts its population, the test report lists its runs. */
function signedRuns(report: Record<string, unknown>): number | undefined {
  if (report.kind === 'compliance') {
    const runs = (report.population as { runs?: unknown } | undefined)?.runs;
    return typeof runs === 'number' ? runs : undefined;
  }
  return Array.isArray(report.runs) ? report.runs.length : undefined;
}
