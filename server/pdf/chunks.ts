// The bytes of a rendered PDF as pieces to send one after another. pdfkit writes every object in
// small pieces; joining all of them copies the whole PDF once more (~5 MB for a compliance PDF with
// its 90,000-run file), so only the small ones are joined and the large ones passed on as they are.

/** Joins runs of chunks smaller than `size` into pieces of about `size`; larger chunks stay as they are. */
export function joinSmallChunks(chunks: readonly Buffer[], size: number): Buffer[] {
  const out: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pending.length) out.push(Buffer.concat(pending, pendingBytes));
    pending = [];
    pendingBytes = 0;
  };
  for (const chunk of chunks) {
    if (chunk.length >= size) {
      flush();
      out.push(chunk);
      continue;
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= size) flush();
  }
  flush();
  return out;
}
