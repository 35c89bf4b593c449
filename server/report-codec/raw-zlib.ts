// Raw deflate / inflate with a preset dictionary, many small inputs through ONE zlib state.
//
// zlib.inflateRawSync / deflateRawSync build a whole zlib stream per call: a Transform, a native
// handle that keeps its own copy of the dictionary (malloc'd, invisible to V8), zlib's state and a
// 16 KiB output buffer. The handle object survives young-generation collections, so at thousands of
// calls (a page of 5,000 reports, 90,000 reports ingested at start-up) the copies pile up until a
// full GC: what made one reports page raise the server's RSS by 40-80 MB (issue 12). Here one native
// zlib state serves every call: after each input it is reset, which re-applies the dictionary
// (Node's ZlibContext::ResetStream: inflateReset/deflateReset, then the dictionary again), and the
// output lands in one growing scratch buffer. Per ~3 KB report (bench:inflate): inflate 4-6 µs
// instead of 15-20, deflate ~25 µs instead of ~65, and no garbage but what the caller keeps.
//
// Node has no public API for this (its sync path closes the handle after one call), so this drives
// the stream's handle directly: `_handle.writeSync/reset` and `_writeState`, the calls
// zlib.inflateRawSync itself makes. They are checked when the object is built; where they are
// missing (another Node) every call falls back to the one-shot function, and the unit test that
// asserts `reusesZlibState` fails, so an upgrade that changes them is noticed.
import { types } from 'node:util';
import { constants, DeflateRaw, deflateRawSync, InflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';

interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  reset(): void;
}

interface StreamInternals {
  _handle?: ZlibHandle | null;
  _writeState?: Uint32Array;
}

interface Native {
  stream: InflateRaw | DeflateRaw;
  handle: ZlibHandle;
  /** [avail_out, avail_in] after each writeSync. */
  state: Uint32Array;
}

function tooLarge(max: number): RangeError {
  return new RangeError(`output is larger than ${max} bytes`);
}

/** One zlib state, reset after every input. */
abstract class ReusedRawZlib {
  private native: Native | undefined;
  private readonly supported: boolean;
  private output = Buffer.allocUnsafe(16 * 1024);

  protected constructor(
    protected readonly options: ZlibOptions & { dictionary: Buffer; maxOutputLength: number },
  ) {
    this.supported = this.open() !== undefined;
  }

  protected abstract createStream(): InflateRaw | DeflateRaw;
  /** The one-shot call, where the handle's internals are missing. */
  protected abstract oneShot(input: Uint8Array): Buffer;

  /** Whether calls share one zlib state (false: this Node lacks the internals; one stream per call). */
  get reusesZlibState(): boolean {
    return this.supported;
  }

  /**
   * The output for `input` as a view of the scratch buffer: valid until the next call, so copy it
   * (or decode it) at once. The cheapest form for a caller that copies anyway.
   */
  view(input: Uint8Array): Buffer {
    const native = this.supported ? (this.native ?? this.open()) : undefined;
    if (!native) return this.oneShot(input);
    try {
      return this.run(native, input);
    } finally {
      // Also after a failure: the next input starts from a clean state with the dictionary.
      if (this.native) native.handle.reset();
    }
  }

  /** The output for `input` in a buffer of its own. */
  protected copy(input: Uint8Array): Buffer {
    return Buffer.from(this.view(input));
  }

  private run(native: Native, input: Uint8Array): Buffer {
    const max = this.options.maxOutputLength;
    let inOffset = 0;
    let produced = 0;
    for (;;) {
      native.handle.writeSync(
        constants.Z_FINISH,
        input,
        inOffset,
        input.length - inOffset,
        this.output,
        produced,
        this.output.length - produced,
      );
      if (native.stream.destroyed) {
        // zlib reported an error (corrupt or truncated input): Node destroyed the stream and
        // closed its handle. The next call opens a new one.
        this.native = undefined;
        throw native.stream.errored ?? new Error('zlib failed');
      }
      const availOut = native.state[0]!;
      inOffset = input.length - native.state[1]!;
      produced = this.output.length - availOut;
      if (produced > max) throw tooLarge(max);
      // With Z_FINISH zlib stops early only for want of output space: room left means done.
      if (availOut > 0) return this.output.subarray(0, produced);
      if (this.output.length > max) throw tooLarge(max);
      const grown = Buffer.allocUnsafe(Math.min(this.output.length * 2, max + 1));
      this.output.copy(grown, 0, 0, produced);
      this.output = grown;
    }
  }

  private open(): Native | undefined {
    const stream = this.createStream();
    // Node also emits a data error on the stream, a tick later; run() has thrown it already.
    stream.on('error', () => undefined);
    const internals = stream as unknown as StreamInternals;
    const handle = internals._handle;
    const state = internals._writeState;
    if (
      !handle ||
      typeof handle.writeSync !== 'function' ||
      typeof handle.reset !== 'function' ||
      !types.isUint32Array(state) ||
      state.length < 2
    ) {
      stream.destroy();
      return undefined;
    }
    this.native = { stream, handle, state };
    return this.native;
  }
}

export interface RawInflaterOptions {
  dictionary: Buffer;
  /** Inputs that inflate to more than this fail with a RangeError (a deflate bomb in stored data). */
  maxOutputLength?: number;
}

export class RawInflater extends ReusedRawZlib {
  constructor(options: RawInflaterOptions) {
    super({ dictionary: options.dictionary, maxOutputLength: options.maxOutputLength ?? Number.MAX_SAFE_INTEGER });
  }

  /** The inflated bytes in a buffer of their own. */
  inflate(input: Uint8Array): Buffer {
    return this.copy(input);
  }

  protected createStream(): InflateRaw {
    return new InflateRaw({ dictionary: this.options.dictionary });
  }

  protected oneShot(input: Uint8Array): Buffer {
    return inflateRawSync(input, { dictionary: this.options.dictionary, maxOutputLength: this.options.maxOutputLength });
  }
}

export interface RawDeflaterOptions {
  dictionary: Buffer;
  level: number;
  strategy?: number;
}

export class RawDeflater extends ReusedRawZlib {
  constructor(options: RawDeflaterOptions) {
    super({ ...options, maxOutputLength: Number.MAX_SAFE_INTEGER });
  }

  /** The deflated bytes in a buffer of their own (the same bytes deflateRawSync gives). */
  deflate(input: Uint8Array): Buffer {
    return this.copy(input);
  }

  protected createStream(): DeflateRaw {
    return new DeflateRaw(this.zlibOptions());
  }

  protected oneShot(input: Uint8Array): Buffer {
    return deflateRawSync(input, this.zlibOptions());
  }

  private zlibOptions(): ZlibOptions {
    const { dictionary, level, strategy } = this.options;
    return { dictionary, level: level!, ...(strategy !== undefined ? { strategy } : {}) };
  }
}
