// A minimal reader of the PDFs Rehearsal writes (pdfkit: a classic xref table, literal strings,
// Flate-compressed embedded files), enough to take out the attestation and the embedded files.
// It is not a general PDF reader: a document rewritten by another tool may not parse, and then
// does not verify.
import { inflateSync } from 'node:zlib';

export interface PdfFile {
  /** latin1 view: one char per byte, so string offsets are byte offsets. */
  text: string;
  /** Object number → byte offset (the xref table). */
  offsets: Map<number, number>;
  trailer: string;
}

export function indexPdf(bytes: Buffer): PdfFile {
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

/** The body of object `n` between "n 0 obj" and "endobj" (for streams: up to "stream"). */
export function objectBody(pdf: PdfFile, n: number): { body: string; streamStart?: number } {
  const at = pdf.offsets.get(n);
  if (at === undefined) throw new Error(`object ${n} is not in the xref table`);
  const header = `${n} 0 obj`;
  if (pdf.text.slice(at, at + header.length) !== header) throw new Error(`xref offset of object ${n} is wrong`);
  const end = pdf.text.indexOf('endobj', at);
  const streamAt = pdf.text.indexOf('\nstream\n', at);
  if (streamAt >= 0 && streamAt < end) {
    return { body: pdf.text.slice(at + header.length, streamAt), streamStart: streamAt + '\nstream\n'.length };
  }
  return { body: pdf.text.slice(at + header.length, end) };
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };

/** Decodes a PDF literal string "( ... )" (escapes, octal codes, line continuations). */
export function literalString(body: string): string {
  const open = body.indexOf('(');
  if (open < 0) throw new Error('not a literal string');
  let out = '';
  let depth = 0;
  for (let i = open + 1; i < body.length; i += 1) {
    const ch = body[i]!;
    if (ch === '\\') {
      const next = body[++i] ?? '';
      if (next in ESCAPES) out += ESCAPES[next];
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

/** The string value of a key of the Info dictionary that refers to a string object. */
export function infoString(pdf: PdfFile, key: string): string {
  const info = /\/Info\s+(\d+)\s+0\s+R/.exec(pdf.trailer);
  if (!info) throw new Error('the PDF has no Info dictionary');
  const ref = new RegExp(`/${key}\\s+(\\d+)\\s+0\\s+R`).exec(objectBody(pdf, Number(info[1])).body);
  if (!ref) throw new Error(`the PDF has no ${key} entry: not a signed Rehearsal report`);
  return literalString(objectBody(pdf, Number(ref[1])).body);
}

/**
 * The largest embedded file a verifier inflates. The evidence JSON of a compliance PDF is bounded
 * (100 listed rows, counts for the rest) and the runs file of 90,000 runs is a few MB; a PDF handed
 * to `verify` may come from anywhere, so a compressed stream that would inflate beyond this is
 * refused rather than exhausting the verifier's memory.
 */
export const MAX_EMBEDDED_FILE_BYTES = 64 * 1024 * 1024;

/** The bytes of the embedded file named `name`. */
export function embeddedFile(pdf: PdfFile, name: string): Buffer {
  for (const n of pdf.offsets.keys()) {
    const { body } = objectBody(pdf, n);
    if (!/\/Type\s*\/Filespec/.test(body) || !body.includes(`/F (${name})`)) continue;
    const ef = /\/EF\s*<<\s*\/F\s+(\d+)\s+0\s+R/.exec(body);
    if (!ef) throw new Error(`the file specification of ${name} has no embedded file`);
    const stream = objectBody(pdf, Number(ef[1]));
    const length = /\/Length\s+(\d+)/.exec(stream.body);
    if (!length || stream.streamStart === undefined) throw new Error(`the embedded ${name} stream has no length`);
    const raw = Buffer.from(pdf.text.slice(stream.streamStart, stream.streamStart + Number(length[1])), 'latin1');
    if (/\/Filter\s*\/FlateDecode/.test(stream.body)) {
      try {
        return inflateSync(raw, { maxOutputLength: MAX_EMBEDDED_FILE_BYTES });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new Error(`the embedded ${name} inflates beyond ${MAX_EMBEDDED_FILE_BYTES} bytes: refused`);
        }
        throw error;
      }
    }
    if (/\/Filter/.test(stream.body)) throw new Error(`the embedded ${name} uses an unsupported filter`);
    return raw;
  }
  throw new Error(`the PDF has no embedded ${name}`);
}
