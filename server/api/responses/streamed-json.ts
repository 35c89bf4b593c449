// A large JSON answer written as it is produced, never whole in memory: a page of 5,000
// RestoreReports is ~15 MB, too large to keep in the response cache (it keeps answers up to 4 MiB),
// and building it whole for each request is what raised the server's RSS by ~50 MB per request.
// The body is produced in slices; each waits for the socket (or the gzip stream) to drain, so at
// most a slice or two are buffered whatever the client's speed. No ETag: it would need the whole
// body; clients of pages this large follow Link headers rather than poll.
//
// tsoa: like sendPreparedJson, the controller method awaits this and returns nothing; the response
// has been sent (headersSent), so tsoa's handler leaves it alone.
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Request } from 'express';

export type SliceWriter = (write: (chunk: Buffer) => Promise<boolean>) => Promise<void>;

/** Resolves on the first of the events; removes its listeners (one wait per slice must not pile them up). */
function first(events: [Writable, string][]): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      for (const [emitter, event] of events) emitter.off(event, done);
      resolve();
    };
    for (const [emitter, event] of events) emitter.on(event, done);
  });
}

export async function sendStreamedJson<T>(request: Request, produce: SliceWriter): Promise<T> {
  const response = request.res!;
  let closed = false;
  response.once('close', () => {
    closed = true;
  });
  response.status(200);
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Vary', 'Accept-Encoding');
  response.setHeader('Cache-Control', 'no-cache');
  const gzip = request.acceptsEncodings('gzip', 'identity') === 'gzip';
  let target: Writable = response;
  if (gzip) {
    response.setHeader('Content-Encoding', 'gzip');
    const compressor = createGzip({ level: 6 });
    compressor.pipe(response);
    target = compressor;
  }
  try {
    await produce(async (chunk) => {
      if (closed) return false;
      // Wait for room when the buffer is full, or for the client to go away.
      if (!target.write(chunk) && !closed) await first([[target, 'drain'], [response, 'close']]);
      return !closed;
    });
  } catch (error) {
    // The status line is out: the only honest signal left is a broken connection.
    response.destroy(error as Error);
    return undefined as T;
  }
  if (closed) {
    if (target !== response) target.destroy(); // the gzip stream and what it still holds
  } else {
    const finished = first([[response, 'finish'], [response, 'close']]);
    target.end();
    await finished;
  }
  return undefined as T;
}
