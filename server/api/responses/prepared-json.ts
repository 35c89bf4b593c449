// A JSON response serialised once and sent many times: dashboards poll the same few read
// endpoints, whose bodies reach 3 MiB (/reports?latest=true over 1,000 tests). Serialising,
// hashing (Express's automatic ETag) and compressing per request cost tens of milliseconds of the
// event loop each; a PreparedJson does each once, and answers
//   - If-None-Match with 304 (the ETag is a hash of the body, so an unchanged answer recomputed
//     later keeps its ETag),
//   - Accept-Encoding: gzip with a body compressed once, on the libuv thread pool.
//
// tsoa: a controller method calls sendPreparedJson and returns what it resolves to (nothing);
// tsoa's response handler sees the response already sent (headersSent) and leaves it alone, while
// the method's declared type still documents the body in the OpenAPI spec.
import { hash } from 'node:crypto';
import { gzip } from 'node:zlib';
import type { Request } from 'express';

/** Below this, compression saves less than it costs. */
const MIN_GZIP_BYTES = 1_024;

export class PreparedJson {
  readonly etag: string;
  /** The body's size in bytes (known without joining a body given in parts). */
  readonly length: number;
  private compressed: Promise<Buffer> | undefined;
  private whole: Buffer | undefined;
  private parts: readonly Buffer[] | undefined;

  /**
   * `body`: the JSON, whole or in parts joined on first use (a list answer rebuilt after every run
   * is mostly asked for gzip-compressed: joining its 3 MiB per rebuild was wasted). `precomputed`:
   * an ETag and gzip form the builder already has (incremental-json-list.ts).
   */
  constructor(body: Buffer | readonly Buffer[], precomputed?: { etag: string; gzip: Buffer }) {
    if (Buffer.isBuffer(body)) this.whole = body;
    else this.parts = body;
    this.length = Buffer.isBuffer(body) ? body.length : body.reduce((sum, part) => sum + part.length, 0);
    this.etag = precomputed?.etag ?? `"${hash('sha1', this.body, 'base64url')}"`;
    if (precomputed) this.compressed = Promise.resolve(precomputed.gzip);
  }

  get body(): Buffer {
    if (!this.whole) {
      this.whole = Buffer.concat(this.parts!, this.length);
      this.parts = undefined;
    }
    return this.whole;
  }

  static of(value: unknown): PreparedJson {
    return new PreparedJson(Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** The gzip form, computed on first use off the event loop and kept. */
  gzipped(): Promise<Buffer> {
    this.compressed ??= new Promise((resolve, reject) => {
      gzip(this.body, { level: 6 }, (error, result) => (error ? reject(error) : resolve(result)));
    });
    return this.compressed;
  }
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * Sends `prepared` as the response to `request` (200, or 304 when the client has it) and resolves
 * to undefined typed as the operation's body, for the controller to return.
 */
export async function sendPreparedJson<T>(
  request: Request,
  prepared: PreparedJson | Promise<PreparedJson>,
): Promise<T> {
  const json = await prepared;
  const response = request.res!;
  response.setHeader('ETag', json.etag);
  response.setHeader('Vary', 'Accept-Encoding');
  // Clients may keep the body but must ask again: the answer changes with every run.
  response.setHeader('Cache-Control', 'no-cache');
  if (matchesEtag(request.headers['if-none-match'], json.etag)) {
    response.status(304).end();
    return undefined as T;
  }
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (json.length >= MIN_GZIP_BYTES && request.acceptsEncodings('gzip', 'identity') === 'gzip') {
    const body = await json.gzipped();
    response.setHeader('Content-Encoding', 'gzip');
    response.status(200).end(body);
  } else {
    response.status(200).end(json.body);
  }
  return undefined as T;
}
