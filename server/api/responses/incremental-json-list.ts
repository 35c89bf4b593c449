// A large JSON array answered many times while only a few of its elements change between answers:
// /reports?latest=true over 1,000 tests is 3.1 MiB of JSON (~330 KiB gzip), and every finished run
// replaces one element and moves it to the front. Rebuilding it whole (inflate 1,000 reports,
// gzip 3.1 MiB) after every run kept each request that came after a change waiting for ~0.1-0.3 s.
//
// Here the array is cut into chunks of consecutive elements and each chunk's JSON and its deflated
// form are kept; a new answer reuses every chunk whose elements are unchanged and compresses only
// the others. Chunk boundaries are content-defined (after an element whose group, the test, hashes
// to 0 mod CHUNK), so moving one element to the front changes the chunk it left and the first chunk,
// not every chunk after it.
//
// The gzip answer is ONE gzip member (RFC 1952) whose deflate stream is the chunks' streams in a
// row: each chunk is compressed on its own and ends with a sync flush (a byte-aligned empty stored
// block, not final), so the streams can be concatenated; an empty final block and the CRC-32 and
// length of the whole body close it. The same construction as pigz's parallel compression; any
// gzip decoder reads it (no reliance on multi-member support). Back-references never cross chunks,
// which costs a few per cent of size.
import { hash } from 'node:crypto';
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { PreparedJson } from './prepared-json.js';

/** Average elements per chunk: ~100 KiB of report JSON, compressed in a few milliseconds. */
const CHUNK = 32;
/** A chunk never grows past this, whatever the hashes (bounds the work one change costs). */
const MAX_CHUNK = 4 * CHUNK;
/** Elements whose JSON is produced between two turns of the event loop. */
const SLICE = 50;

export interface ListElement {
  /** Identifies the element (a report's "namespace/name"). */
  readonly key: string;
  /** What decides chunk boundaries (a test's key): stable while the element moves. */
  readonly group: string;
  /** Changes (by identity) whenever the element's content does (the cache's summary object). */
  readonly source: object;
}

interface Chunk {
  readonly keys: string;
  readonly sources: readonly object[];
  /** The members' JSON and the commas between them (the fragments' own buffers, not copies). */
  readonly parts: readonly Buffer[];
  readonly deflated: Buffer;
}

interface Fragment {
  readonly source: object;
  readonly json: Buffer;
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** An empty stored block with BFINAL set (the stream is byte-aligned after a sync flush). */
const FINAL_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

function flushed(bytes: Buffer): Buffer {
  return deflateRawSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
}
const OPEN_DEFLATED = flushed(OPEN);
const COMMA_DEFLATED = flushed(COMMA);
const CLOSE_DEFLATED = flushed(CLOSE);

function deflateChunk(raw: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    deflateRaw(raw, { level: 6, finishFlush: constants.Z_SYNC_FLUSH }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** FNV-1a: a cheap, stable hash of the group (only its low bits are used). */
function endsChunk(group: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < group.length; i += 1) h = Math.imul(h ^ group.charCodeAt(i), 0x01000193);
  return (h >>> 0) % CHUNK === 0;
}

/** Cuts the elements into chunks at content-defined boundaries. */
export function chunkBoundaries(elements: readonly ListElement[]): ListElement[][] {
  const chunks: ListElement[][] = [];
  let current: ListElement[] = [];
  for (const element of elements) {
    current.push(element);
    if (endsChunk(element.group) || current.length >= MAX_CHUNK) {
      chunks.push(current);
      current = [];
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * One list answer kept incrementally. `json(key)` gives an element's JSON (undefined: it vanished
 * meanwhile, and is left out). Only what the latest build used is kept.
 */
export class IncrementalJsonList {
  private fragments = new Map<string, Fragment>();
  private chunks = new Map<string, Chunk>();
  private previous: Promise<unknown> = Promise.resolve();

  constructor(private readonly json: (key: string) => Buffer | undefined) {}

  /**
   * The answer for `elements`, in their order: body, gzip form and ETag. Builds run one after the
   * other, each starting from what the previous one kept: concurrent builds (a new version while
   * the first, whole build still runs) would each redo the whole list.
   */
  build(elements: readonly ListElement[]): Promise<PreparedJson> {
    const run = this.previous.then(() => this.buildAfterPrevious(elements));
    this.previous = run.catch(() => undefined);
    return run;
  }

  private async buildAfterPrevious(elements: readonly ListElement[]): Promise<PreparedJson> {
    const fragments = new Map<string, Fragment>();
    const chunks = new Map<string, Chunk>();
    const parts: Chunk[] = [];
    let produced = 0;
    for (const members of chunkBoundaries(elements)) {
      const keys = members.map((member) => member.key).join('\n');
      const known = this.chunks.get(keys) ?? chunks.get(keys);
      if (known && known.sources.every((source, i) => source === members[i]!.source)) {
        chunks.set(keys, known);
        parts.push(known);
        for (const member of members) {
          const fragment = this.fragments.get(member.key);
          if (fragment?.source === member.source) fragments.set(member.key, fragment);
        }
        continue;
      }
      const jsons: Buffer[] = [];
      const sources: object[] = [];
      for (const member of members) {
        let fragment = this.fragments.get(member.key);
        if (fragment?.source !== member.source) {
          if (++produced % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
          const json = this.json(member.key);
          fragment = json && { source: member.source, json };
        }
        if (!fragment) continue;
        fragments.set(member.key, fragment);
        if (jsons.length > 0) jsons.push(COMMA);
        jsons.push(fragment.json);
        sources.push(member.source);
      }
      if (sources.length === 0) continue;
      const deflated = await deflateChunk(Buffer.concat(jsons));
      const chunk: Chunk = { keys, sources: members.map((member) => member.source), parts: jsons, deflated };
      // Kept only whole: a chunk that lost a vanished element must not stand in for one that has it.
      if (sources.length === members.length) chunks.set(keys, chunk);
      parts.push(chunk);
    }
    this.fragments = fragments;
    this.chunks = chunks;
    return assemble(parts);
  }
}

function assemble(parts: readonly Chunk[]): PreparedJson {
  const raw: Buffer[] = [OPEN];
  const deflated: Buffer[] = [GZIP_HEADER, OPEN_DEFLATED];
  parts.forEach((part, index) => {
    if (index > 0) {
      raw.push(COMMA);
      deflated.push(COMMA_DEFLATED);
    }
    raw.push(...part.parts);
    deflated.push(part.deflated);
  });
  raw.push(CLOSE);
  deflated.push(CLOSE_DEFLATED, FINAL_BLOCK);
  // CRC and length over the parts: the body is joined only if a client asks for it uncompressed.
  let crc = 0;
  let length = 0;
  for (const part of raw) {
    crc = crc32(part, crc);
    length += part.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  deflated.push(trailer);
  const gzip = Buffer.concat(deflated);
  // The gzip form determines the body (and is a tenth of its size): its hash is the content ETag.
  return new PreparedJson(raw, { etag: `"${hash('sha1', gzip, 'base64url')}"`, gzip });
}
