// Full RestoreReports kept in memory as deflated JSON: ~400 bytes each instead of a ~4.4 KB object
// graph of ~50 objects. The read models work on summaries (domain/read-models/report-summary.ts); only the
// endpoints that return whole reports (GET /reports, PDFs) and the evidence checks unpack them.
//
// Reports are small and alike, so plain deflate gains little (3.1 KB → 1.3 KB); a preset
// dictionary made of typical reports lets each one refer to the shared field names and phrases
// (→ ~0.4 KB). The packed form lives only in this process, so the dictionary may differ between
// processes: it is a built-in typical report plus the first real report this process packs (the
// cluster's own names, check messages and phrasing), fixed from then on. With the built-in one
// alone the benchmark's reports packed to ~800 bytes. The JSON inside is exactly what the API returns for the report, so a list
// response is the packed reports inflated and joined, without parsing or re-serialising them.
import { constants } from 'node:zlib';
import { RawDeflater, RawInflater } from './raw-zlib.js';
import type { RestoreReport } from '../domain/resources/resources.js';

const TYPICAL_REPORT = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreReport',
  metadata: {
    name: 'shop-daily-20260101-0500',
    namespace: 'rehearsal-system',
    uid: '00000000-0000-4000-8000-000000000000',
    resourceVersion: '1000000',
    creationTimestamp: '2026-01-01T05:14:41Z',
    labels: {
      'rehearsal.dev/managed-by': 'rehearsal',
      'rehearsal.dev/run': 'r20260101-0500',
      'rehearsal.dev/test': 'shop-daily',
      'rehearsal.dev/test-namespace': 'rehearsal-system',
    },
    ownerReferences: [
      {
        apiVersion: 'rehearsal.dev/v1alpha1',
        kind: 'RestoreTest',
        name: 'shop-daily',
        uid: '00000000-0000-4000-8000-000000000000',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
  spec: {
    testRef: {
      name: 'shop-daily',
      namespace: 'rehearsal-system',
      uid: '00000000-0000-4000-8000-000000000000',
    },
    runId: 'r20260101-0500',
    trigger: 'schedule',
    scheduledAt: '2026-01-01T05:00:00Z',
    startedAt: '2026-01-01T05:00:02Z',
    completedAt: '2026-01-01T05:14:41Z',
    sourceNamespaces: ['shop'],
    backup: {
      provider: 'velero',
      name: 'daily-20260101020000',
      completedAt: '2026-01-01T02:11:09Z',
      age: '2h48m53s',
    },
    sandboxNamespaces: ['rehearsal-shop-daily-r20260101-0500'],
    restore: {
      name: 'shop-daily-r20260101-0500',
      namespace: 'velero',
      phase: 'Completed',
      warnings: 0,
      errors: 0,
      itemsRestored: 31,
    },
    score: 100,
    result: 'pass',
    levels: [
      {
        name: 'restoreIntegrity',
        points: 25,
        maxPoints: 25,
        tested: true,
        detail: 'Restore Completed, 0 errors, 0 warnings',
      },
      { name: 'completeness', points: 20, maxPoints: 20, tested: true, detail: '31 of 31 objects restored' },
      {
        name: 'podStartup',
        points: 20,
        maxPoints: 20,
        tested: true,
        detail: '3 of 3 Pods Ready after 1m12s',
      },
      { name: 'healthChecks', points: 20, maxPoints: 20, tested: true, detail: '4 of 4 checks passed' },
      {
        name: 'crossNamespace',
        points: 10,
        maxPoints: 10,
        tested: true,
        detail: 'no references to namespaces outside the restore',
      },
      { name: 'rtoWithinSLA', points: 5, maxPoints: 5, tested: true, detail: 'RTO 14m39s within target 30m' },
    ],
    checks: [
      {
        name: 'all-pods-ready',
        kind: 'podsReady',
        status: 'pass',
        message: '3 of 3 Pods Ready',
        duration: '1s',
      },
      {
        name: 'api-health',
        kind: 'httpGet',
        status: 'pass',
        message: 'HTTP 200 after 2 attempts',
        duration: '3s',
      },
      { name: 'db-port', kind: 'tcpSocket', status: 'pass', message: 'connected', duration: '0s' },
      {
        name: 'orders-rows',
        kind: 'sqlQuery',
        status: 'pass',
        message: '1 rows, expected at least 1',
        duration: '1s',
      },
      {
        name: 'tls-secret',
        kind: 'resourceExists',
        status: 'pass',
        message: 'v1/Secret tls found',
        duration: '0s',
      },
    ],
    completeness: [
      { kind: 'Deployment', backedUp: 2, restored: 2 },
      { kind: 'Service', backedUp: 2, restored: 2 },
      { kind: 'ConfigMap', backedUp: 3, restored: 3 },
      { kind: 'Secret', backedUp: 3, restored: 3 },
      { kind: 'PersistentVolumeClaim', backedUp: 1, restored: 1 },
    ],
    rto: {
      measured: '14m39s',
      measuredSeconds: 879,
      target: '30m',
      withinSLA: true,
      phases: {
        restoreRequestedAt: '2026-01-01T05:00:03Z',
        restoreCompletedAt: '2026-01-01T05:02:10Z',
        podsReadyAt: '2026-01-01T05:03:22Z',
        checksCompletedAt: '2026-01-01T05:14:41Z',
      },
    },
    failure: { reason: 'BackupNotFound', message: 'no completed backup' },
    evidence: {
      digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
      previousDigest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
      signature: '',
      keyId: '',
      algorithm: 'Ed25519',
      canonicalization: 'RFC8785',
    },
  },
};

// Level 3: nearly the size of level 9 here, at a fraction of the time (90,000 reports are packed
// on the main thread while the first list arrives).
const LEVEL = 3;
const BUILT_IN = JSON.stringify(TYPICAL_REPORT);
let dictionary: Buffer | undefined;

/** The process's dictionary; the first report packed completes it (later ones find it fixed). */
function dictionaryFor(firstJson: string | undefined): Buffer {
  // deflate looks back at most 32 KiB, and the end of the dictionary is the closest.
  dictionary ??= Buffer.from(`${BUILT_IN}${firstJson ?? ''}`.slice(-32_768));
  return dictionary;
}

/** The dictionary the process's reports are packed against (bench:inflate compares inflate paths on it). */
export function packedReportDictionary(): Buffer {
  return dictionaryFor(undefined);
}

/**
 * A report's JSON, deflated, as a one-byte string: V8 stores it inline on the heap with a 16-byte
 * header and the GC never looks inside (a Buffer per report would add an object and a malloc).
 */
export type PackedReport = string & { readonly __packed: unique symbol };

/** One zlib state for every pack (raw-zlib.ts): the informer packs each report it ingests. */
let deflater: RawDeflater | undefined;

export function packReport(report: RestoreReport): PackedReport {
  const json = JSON.stringify(report);
  deflater ??= new RawDeflater({ dictionary: dictionaryFor(json), level: LEVEL, strategy: constants.Z_DEFAULT_STRATEGY });
  return deflater.view(utf8Bytes(json)).toString('latin1') as PackedReport;
}

/**
 * Every unpack goes through one zlib state (raw-zlib.ts): zlib.inflateRawSync per report left a
 * native copy of the dictionary behind each call, ~40-80 MB of garbage per page of 5,000 reports.
 * Calls are synchronous, so they never interleave.
 */
let inflater: RawInflater | undefined;
/** Input bytes (a packed string, a report's JSON) written into one reused buffer, not a Buffer each. */
let input = Buffer.allocUnsafe(64 * 1024);

function inputBytes(text: string, encoding: 'latin1' | 'utf8', maxBytesPerChar: number): Buffer {
  const bound = text.length * maxBytesPerChar;
  if (bound > input.length) input = Buffer.allocUnsafe(Math.max(bound, input.length * 2));
  return input.subarray(0, input.write(text, 0, encoding));
}

function utf8Bytes(json: string): Buffer {
  return inputBytes(json, 'utf8', 3); // a UTF-16 code unit is at most 3 UTF-8 bytes
}

/** The report's JSON bytes as a view valid until the next unpack (copy or parse them at once). */
function inflatedView(packed: PackedReport): Buffer {
  inflater ??= new RawInflater({ dictionary: dictionaryFor(undefined) });
  return inflater.view(inputBytes(packed, 'latin1', 1));
}

export function unpackReport(packed: PackedReport): RestoreReport {
  return JSON.parse(inflatedView(packed).toString('utf8')) as RestoreReport;
}

/** Reports inflated per turn of the event loop when building a list (each takes ~6 µs). */
const SLICE = 100;

/**
 * A JSON array of packed reports, in the given order. Inflated in slices between which other
 * requests run: a list of 1,000 reports costs the event loop under a millisecond at a time.
 */
export async function packedReportsJson(reports: readonly PackedReport[]): Promise<Buffer> {
  const out = new ByteBuilder();
  out.append(OPEN);
  for (let start = 0; start < reports.length; start += SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (let index = start; index < Math.min(start + SLICE, reports.length); index += 1) {
      if (index > 0) out.append(COMMA);
      out.append(inflatedView(reports[index]!));
    }
    // After the first slice, room for the whole list at the size seen so far (no doubling).
    if (start === 0 && reports.length > SLICE) out.reserve(Math.ceil((out.size / SLICE) * reports.length * 1.1));
  }
  out.append(CLOSE);
  return out.result();
}

/**
 * The same JSON array as packedReportsJson, handed to `write` a slice (SLICE reports, ~300 KB) at a
 * time instead of built whole: a page of 5,000 reports is ~15 MB. Each slice is assembled in one
 * buffer reused for the whole list and handed over as an exact-size copy (the socket keeps it
 * until sent). `write` resolves when the slice may be followed by the next (the socket drained); it
 * returns false to stop early (the client went away).
 */
export async function writePackedReportsJson(
  reports: readonly PackedReport[],
  write: (chunk: Buffer) => Promise<boolean>,
): Promise<void> {
  const slice = new ByteBuilder();
  for (let start = 0; start < reports.length || start === 0; start += SLICE) {
    slice.clear();
    slice.append(start === 0 ? OPEN : COMMA);
    const end = Math.min(start + SLICE, reports.length);
    for (let index = start; index < end; index += 1) {
      if (index > start) slice.append(COMMA);
      slice.append(inflatedView(reports[index]!));
    }
    if (end === reports.length) slice.append(CLOSE);
    if (!(await write(slice.copy()))) return;
    if (end === reports.length) return;
  }
}

/** A growing byte buffer (capacity doubles), so the parts of a large answer are not kept each. */
class ByteBuilder {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;

  get size(): number {
    return this.length;
  }

  reserve(capacity: number): void {
    if (capacity <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(capacity);
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  append(bytes: Buffer): void {
    if (this.length + bytes.length > this.buffer.length) {
      this.reserve(Math.max(this.buffer.length * 2, this.length + bytes.length));
    }
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
  }

  clear(): void {
    this.length = 0;
  }

  /** The bytes so far in a buffer of their own, of their exact size. */
  copy(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  /** The bytes; copied to their exact size only when over 1/8 of the capacity would be spare. */
  result(): Buffer {
    const bytes = this.buffer.subarray(0, this.length);
    return this.buffer.length - this.length > this.buffer.length / 8 ? Buffer.from(bytes) : bytes;
  }
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
