// A streaming reader of tar archives (POSIX ustar, with the PAX and GNU long-name extensions Go's
// archive/tar writes), for Velero's backup tarball: entries are seen one by one as the bytes
// arrive, and only the files the caller wants are kept, so a large backup never sits in memory.
// The archive comes from the backup bucket (whoever can write there writes it): sizes are checked
// against a bound before anything is kept. Pure.

const BLOCK = 512;

export class TarError extends Error {}

export interface TarReaderOptions {
  /** Whether to keep this regular file's bytes (called with its path and size). */
  wants: (path: string, size: number) => boolean;
  /** Called with each wanted file, in archive order. */
  onFile: (path: string, data: Buffer) => void;
  /** Largest file (or PAX/long-name record) kept, in bytes. */
  maxFileBytes: number;
}

type State =
  | { at: 'header' }
  | { at: 'data'; path: string; type: string; remaining: number; padding: number; keep: Buffer[] | undefined }
  | { at: 'padding'; remaining: number }
  | { at: 'end' };

function cString(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

function octal(block: Buffer, start: number, length: number): number {
  if ((block[start]! & 0x80) !== 0) throw new TarError('a base-256 size (a file over 8 GiB) is not read');
  const text = cString(block, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`malformed size field "${text.slice(0, 20)}"`);
  return parseInt(text, 8);
}

/** The "path" record of a PAX extended header ("<length> path=<value>\n" records). */
function paxPath(data: Buffer): string | undefined {
  let offset = 0;
  let path: string | undefined;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) break;
    const length = Number(data.subarray(offset, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= space - offset || offset + length > data.length) throw new TarError('malformed PAX record');
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0 && record.slice(0, equals) === 'path') path = record.slice(equals + 1);
    offset += length;
  }
  return path;
}

export class TarReader {
  private state: State = { at: 'header' };
  private pending: Buffer = Buffer.alloc(0);
  /** The name a PAX or GNU long-name entry gave the next file. */
  private nextPath: string | undefined;

  constructor(private readonly options: TarReaderOptions) {}

  write(chunk: Buffer): void {
    let input = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (input.length > 0 && this.state.at !== 'end') {
      const state = this.state;
      if (state.at === 'header') {
        if (input.length < BLOCK) break;
        this.header(input.subarray(0, BLOCK));
        input = input.subarray(BLOCK);
      } else if (state.at === 'data') {
        const take = Math.min(state.remaining, input.length);
        state.keep?.push(input.subarray(0, take));
        state.remaining -= take;
        input = input.subarray(take);
        if (state.remaining === 0) this.endOfData(state);
      } else if (state.at === 'padding') {
        const take = Math.min(state.remaining, input.length);
        state.remaining -= take;
        input = input.subarray(take);
        if (state.remaining === 0) this.state = { at: 'header' };
      }
    }
    if (this.state.at === 'header' && input.length > 0) this.pending = Buffer.from(input);
  }

  /** The archive ended: throws when it stopped inside an entry. */
  end(): void {
    if (this.state.at === 'data' || this.state.at === 'padding' || this.pending.length > 0) throw new TarError('the archive ends inside an entry');
  }

  private header(block: Buffer): void {
    if (block.every((byte) => byte === 0)) {
      this.state = { at: 'end' };
      return;
    }
    const size = octal(block, 124, 12);
    const type = String.fromCharCode(block[156]!);
    const name = cString(block, 0, 100);
    const magic = cString(block, 257, 6);
    const prefix = magic.startsWith('ustar') ? cString(block, 345, 155) : '';
    const path = this.nextPath ?? (prefix ? `${prefix}/${name}` : name);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    const meta = type === 'x' || type === 'L';
    if (!meta) this.nextPath = undefined;
    const regular = type === '0' || type === '\0';
    let keep: Buffer[] | undefined;
    if (meta || (regular && this.options.wants(path, size))) {
      if (size > this.options.maxFileBytes) throw new TarError(`entry ${path.slice(0, 200)} is ${size} bytes, over ${this.options.maxFileBytes}`);
      keep = [];
    }
    if (size === 0) {
      this.endOfData({ at: 'data', path, type, remaining: 0, padding, keep });
      return;
    }
    this.state = { at: 'data', path, type, remaining: size, padding, keep };
  }

  private endOfData(state: Extract<State, { at: 'data' }>): void {
    if (state.keep) {
      const data = Buffer.concat(state.keep);
      if (state.type === 'x') this.nextPath = paxPath(data) ?? this.nextPath;
      else if (state.type === 'L') this.nextPath = cString(data, 0, data.length);
      else this.options.onFile(state.path, data);
    }
    this.state = state.padding > 0 ? { at: 'padding', remaining: state.padding } : { at: 'header' };
  }
}
