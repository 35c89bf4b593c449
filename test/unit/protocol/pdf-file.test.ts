// The plugin's PDF reader takes files from anywhere (`kubectl restoretest verify --pdf`): an
// embedded file whose compressed stream would inflate without bound is refused, not inflated.
import { describe, expect, it } from '@jest/globals';
import { deflateSync } from 'node:zlib';
import { embeddedFile, indexPdf, MAX_EMBEDDED_FILE_BYTES } from '../../../protocol/pdf/pdf-file.js';

/** A minimal classic-xref PDF whose one embedded file `name` holds `content`, Flate-compressed. */
function pdfWithEmbedded(name: string, content: Buffer): Buffer {
  const stream = deflateSync(content, { level: 9 });
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offsets: number[] = [];
  const length = () => parts.reduce((n, b) => n + b.length, 0);
  offsets[1] = length();
  parts.push(Buffer.from(`1 0 obj\n<< /Type /Filespec /F (${name}) /EF << /F 2 0 R >> >>\nendobj\n`, 'latin1'));
  offsets[2] = length();
  parts.push(Buffer.from(`2 0 obj\n<< /Type /EmbeddedFile /Filter /FlateDecode /Length ${stream.length} >>\nstream\n`, 'latin1'));
  parts.push(stream, Buffer.from('\nendstream\nendobj\n', 'latin1'));
  const xrefAt = length();
  const entry = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n \n`;
  parts.push(Buffer.from(`xref\n0 3\n0000000000 65535 f \n${entry(offsets[1]!)}${entry(offsets[2]!)}trailer\n<< /Size 3 >>\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

describe('embedded files of a PDF', () => {
  it('are read back as they were embedded', () => {
    const pdf = indexPdf(pdfWithEmbedded('rehearsal-evidence.json', Buffer.from('{"format":"x"}')));
    expect(embeddedFile(pdf, 'rehearsal-evidence.json').toString()).toBe('{"format":"x"}');
  });

  it('are refused when they would inflate beyond the bound (a deflate bomb)', () => {
    const bomb = Buffer.alloc(MAX_EMBEDDED_FILE_BYTES + 1024 * 1024); // ~65 MiB of zeros, ~65 KB compressed
    const pdf = indexPdf(pdfWithEmbedded('rehearsal-evidence.json', bomb));
    expect(() => embeddedFile(pdf, 'rehearsal-evidence.json')).toThrow(/inflates beyond \d+ bytes: refused/);
  });
});
