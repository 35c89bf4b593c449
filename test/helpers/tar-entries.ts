// Every entry of a gzipped tar archive with its type, for the tests of the packaged chart (issue
// 30): a chart archive must hold real files only, never a link that would point outside it once
// unpacked. The server's tar reader (server/providers/velero/tar-reader.ts) keeps regular files
// only and skips the rest; here the links are the point. Reads ustar headers with the GNU long-name
// and PAX path records Go's archive/tar (Helm) and GNU tar write. Small archives only (in memory).
import { gunzipSync } from 'node:zlib';

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface TarEntry {
  path: string;
  type: TarEntryType;
  /** The link's target, for links. */
  linkTarget?: string;
  data: Buffer;
}

const BLOCK = 512;

function field(block: Buffer, start: number, length: number): string {
  const bytes = block.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
}

function typeOf(flag: string): TarEntryType {
  if (flag === '0' || flag === '' || flag === '7') return 'file';
  if (flag === '5') return 'directory';
  if (flag === '2') return 'symlink';
  if (flag === '1') return 'hardlink';
  return 'other';
}

/** The path= and linkpath= records of a PAX extended header. */
function paxRecords(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  for (const line of data.toString('utf8').split('\n')) {
    const match = /^\d+ ([^=]+)=(.*)$/.exec(line);
    if (match) records[match[1]!] = match[2]!;
  }
  return records;
}

export function tarEntries(gzipped: Buffer): TarEntry[] {
  const archive = gunzipSync(gzipped);
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  let longLink: string | undefined;
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // end of archive
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const flag = field(header, 156, 1);
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'L') {
      longName = field(data, 0, data.length);
      continue;
    }
    if (flag === 'K') {
      longLink = field(data, 0, data.length);
      continue;
    }
    if (flag === 'x') {
      const records = paxRecords(data);
      longName = records.path ?? longName;
      longLink = records.linkpath ?? longLink;
      continue;
    }
    if (flag === 'g') continue; // global PAX header: no entry of its own
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const type = typeOf(flag);
    const linkTarget = type === 'symlink' || type === 'hardlink' ? (longLink ?? field(header, 157, 100)) : undefined;
    entries.push({ path: name, type, ...(linkTarget === undefined ? {} : { linkTarget }), data: Buffer.from(data) });
    longName = undefined;
    longLink = undefined;
  }
  return entries;
}
