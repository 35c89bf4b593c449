// An archive segment: a run of consecutive reports of one RestoreTest moved out of etcd, as one
// gzip'd object of JSON lines. Line 1 is the signed manifest, every further line one report exactly
// as it was stored (its own signed evidence block included), oldest first. Shape-agnostic: the
// reports are opaque JSON apart from the evidence fields the chain needs.
//
// MANIFEST (scheme "rehearsal.dev/evidence-archive/v1"):
//   test {namespace, name, uid}; firstSequence, lastSequence, count; firstPreviousDigest (what the
//   first report links to, null for the start of a chain); lastDigest (the last report's digest,
//   which the next segment's — or the oldest live report's — previousDigest must equal);
//   previousSegment (the manifest digest of the segment before, null for the first); contentDigest
//   ("sha256:" + hex SHA-256 of the report lines as stored, each ended by "\n"); createdAt.
//   digest   M = "sha256:" + hex SHA-256 of the RFC 8785 canonical JSON of the manifest without
//              keyId and signature; signature = base64 Ed25519 over the UTF-8 string M, keyId as for
//              reports. Segments chain by M; reports keep chaining by their own digests, so the
//              report chain continues across the move unchanged.
//
// BOUNDS (issue 26): whoever may write to the bucket may put anything under a segment's key, and
// every replica reads every segment at start. A segment is at most MAX_SEGMENT_BYTES, compressed
// (the S3 client stops reading there) and inflated (zlib stops there); a line at most
// MAX_LINE_BYTES, nested at most MAX_JSON_DEPTH deep. A segment past a bound is reported as a
// problem like any other damage; buildSegment refuses to write one that its own reader would refuse.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KeyObject } from 'node:crypto';
import { isPlainObject, parseBoundedJson } from '../domain/common/bounded-json.js';
import type { RestoreReport } from '../domain/resources/resources.js';
import { canonicalJson, sha256Hex } from '../../protocol/evidence/canonical-json.js';
import { verifySignature } from '../../protocol/evidence/signature.js';
import { short } from '../../protocol/evidence/digest-text.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';

export const SEGMENT_SCHEME = 'rehearsal.dev/evidence-archive/v1';

/**
 * Most bytes of a segment, compressed or inflated: 1,000 reports (the default most per segment) of
 * up to ~100 KB each. A report is ~3-5 KB; etcd keeps none over 1.5 MiB (MAX_LINE_BYTES).
 */
export const MAX_SEGMENT_BYTES = 96 * 1024 * 1024;
/** Most bytes of one line (the manifest or one report): etcd's own limit on an object. */
export const MAX_LINE_BYTES = 1536 * 1024;
/** Reports nest a few levels (spec → checks → result); the manifest fewer. */
const MAX_JSON_DEPTH = 32;

function parseLine(line: string): unknown {
  return parseBoundedJson(line, { maxLength: MAX_LINE_BYTES, maxDepth: MAX_JSON_DEPTH });
}

export interface SegmentTest {
  namespace: string;
  name: string;
  uid: string;
}

export interface SegmentManifest {
  scheme: string;
  test: SegmentTest;
  firstSequence: number;
  lastSequence: number;
  count: number;
  firstPreviousDigest: string | null;
  lastDigest: string;
  previousSegment: string | null;
  contentDigest: string;
  createdAt: string;
  keyId: string;
  signature: string;
}

export interface BuiltSegment {
  key: string;
  manifest: SegmentManifest;
  /** M, the digest the next segment links to. */
  digest: string;
  body: Buffer;
  /** Uncompressed bytes (for the compression ratio). */
  rawBytes: number;
}

export interface ReadSegment {
  key: string;
  manifest?: SegmentManifest;
  digest?: string;
  reports: RestoreReport[];
  /** Empty = the segment is intact (manifest signed by a trusted key, content as signed). */
  problems: string[];
}

/** Sequences are zero-padded so that keys sort in chain order. */
function pad(sequence: number): string {
  return String(sequence).padStart(10, '0');
}

/** Where a test's archived objects live: <prefix><namespace>/<name>/<uid>/ */
export function testPrefix(prefix: string, test: SegmentTest): string {
  return `${prefix}${test.namespace}/${test.name}/${test.uid}/`;
}

export function segmentKey(prefix: string, test: SegmentTest, first: number, last: number): string {
  return `${testPrefix(prefix, test)}${pad(first)}-${pad(last)}.jsonl.gz`;
}

/** Parses "<prefix><ns>/<name>/<uid>/<first>-<last>.jsonl.gz"; undefined for other objects. */
export function parseSegmentKey(prefix: string, key: string): (SegmentTest & { first: number; last: number }) | undefined {
  if (!key.startsWith(prefix)) return undefined;
  const match = /^([^/]+)\/([^/]+)\/([^/]+)\/(\d{10})-(\d{10})\.jsonl\.gz$/.exec(key.slice(prefix.length));
  if (!match) return undefined;
  return { namespace: match[1]!, name: match[2]!, uid: match[3]!, first: Number(match[4]), last: Number(match[5]) };
}

export function manifestDigest(manifest: SegmentManifest): string {
  const { keyId: _keyId, signature: _signature, ...signed } = manifest;
  return `sha256:${sha256Hex(canonicalJson(signed))}`;
}

/**
 * Builds the segment of `reports` (one test, consecutive sequences, oldest first; every report
 * signed with a sequence), linked to the previous segment's digest.
 */
export function buildSegment(
  prefix: string,
  test: SegmentTest,
  reports: readonly RestoreReport[],
  previousSegment: string | null,
  signer: EvidenceSigner,
  now: Date,
): BuiltSegment {
  const first = reports[0]?.spec.evidence;
  const last = reports.at(-1)?.spec.evidence;
  if (!first || !last || first.sequence === undefined || last.sequence === undefined) {
    throw new Error('a segment needs at least one report, each signed with a sequence');
  }
  const lines = reports.map((report) => `${JSON.stringify(report)}\n`).join('');
  const unsigned = {
    scheme: SEGMENT_SCHEME,
    test,
    firstSequence: first.sequence,
    lastSequence: last.sequence,
    count: reports.length,
    firstPreviousDigest: first.previousDigest ?? null,
    lastDigest: last.digest,
    previousSegment,
    contentDigest: `sha256:${sha256Hex(lines)}`,
    createdAt: now.toISOString(),
    keyId: signer.keyId,
    signature: '',
  };
  const digest = manifestDigest(unsigned);
  const manifest: SegmentManifest = { ...unsigned, signature: signer.sign(digest) };
  const raw = Buffer.from(`${JSON.stringify(manifest)}\n${lines}`, 'utf8');
  if (raw.length > MAX_SEGMENT_BYTES) {
    throw new Error(`a segment of ${reports.length} reports takes ${raw.length} bytes, more than the ${MAX_SEGMENT_BYTES} a reader accepts`);
  }
  return {
    key: segmentKey(prefix, test, first.sequence, last.sequence),
    manifest,
    digest,
    body: gzipSync(raw, { level: 9 }),
    rawBytes: raw.length,
  };
}

/**
 * Reads a segment object and checks it on its own: gzip and JSON intact, manifest signed by a
 * trusted key, content digest, count and sequences as the manifest says, the object where its
 * range says. Reports that parse are returned even from a damaged segment, so the report chain
 * (verifyReportChain) names the edited ones too.
 */
export function readSegment(
  key: string,
  body: Uint8Array,
  prefix: string,
  publicKeys: ReadonlyMap<string, KeyObject>,
): ReadSegment {
  const problems: string[] = [];
  if (body.length > MAX_SEGMENT_BYTES) {
    return { key, reports: [], problems: [`larger than ${MAX_SEGMENT_BYTES} bytes: the segment was replaced`] };
  }
  let text: string;
  try {
    text = gunzipSync(body, { maxOutputLength: MAX_SEGMENT_BYTES }).toString('utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      return { key, reports: [], problems: [`inflates to more than ${MAX_SEGMENT_BYTES} bytes: the segment was replaced`] };
    }
    return { key, reports: [], problems: [`not a gzip object (${(error as Error).message}): the segment was replaced or damaged`] };
  }
  const newline = text.indexOf('\n');
  const manifestLine = newline < 0 ? text : text.slice(0, newline);
  const content = newline < 0 ? '' : text.slice(newline + 1);
  let manifest: SegmentManifest | undefined;
  try {
    const parsed = parseLine(manifestLine);
    if (!isPlainObject(parsed) || parsed.scheme !== SEGMENT_SCHEME) {
      throw new Error(`unknown scheme ${String(isPlainObject(parsed) ? parsed.scheme : parsed)}`);
    }
    manifest = manifestShape(parsed);
  } catch (error) {
    return { key, reports: [], problems: [`manifest unreadable (${(error as Error).message})`] };
  }
  const reports: RestoreReport[] = [];
  content
    .split('\n')
    .filter((line) => line !== '')
    .forEach((line, index) => {
      try {
        const report = parseLine(line);
        if (!isPlainObject(report) || !isPlainObject(report.metadata) || !isPlainObject(report.spec)) throw new Error('not a report');
        reports.push(report as unknown as RestoreReport);
      } catch {
        problems.push(`report line ${index + 1} is not a report in JSON`);
      }
    });
  let digest: string | undefined;
  try {
    digest = manifestDigest(manifest);
  } catch (error) {
    problems.push(`manifest cannot be canonicalized: ${(error as Error).message}`);
  }
  const key_ = publicKeys.get(manifest.keyId);
  if (!key_) problems.push(`manifest signed with unknown key ${manifest.keyId}`);
  else if (digest === undefined || !verifySignature(digest, manifest.signature, key_)) {
    problems.push('manifest signature does not verify: the manifest was changed after signing');
  }
  const contentDigest = `sha256:${sha256Hex(content)}`;
  if (contentDigest !== manifest.contentDigest) {
    problems.push(
      `content digest mismatch: the archived reports were changed (manifest ${short(manifest.contentDigest)}, recomputed ${short(contentDigest)})`,
    );
  }
  if (reports.length !== manifest.count) problems.push(`holds ${reports.length} reports, the manifest says ${manifest.count}`);
  const sequences = reports.map((report) => report.spec?.evidence?.sequence);
  // Compared without building the manifest's range: its bounds are whatever the bucket holds.
  const inOrder =
    manifest.lastSequence - manifest.firstSequence + 1 === sequences.length &&
    sequences.every((sequence, index) => sequence === manifest.firstSequence + index);
  if (!inOrder) {
    problems.push(`sequences ${sequences.join(',')} are not ${manifest.firstSequence}..${manifest.lastSequence} in order (reordered)`);
  }
  const placed = parseSegmentKey(prefix, key);
  if (
    !placed ||
    placed.first !== manifest.firstSequence ||
    placed.last !== manifest.lastSequence ||
    placed.uid !== manifest.test.uid ||
    placed.name !== manifest.test.name ||
    placed.namespace !== manifest.test.namespace
  ) {
    problems.push(`stored under the wrong key: the manifest says ${segmentKey(prefix, manifest.test, manifest.firstSequence, manifest.lastSequence)} (moved or renamed)`);
  }
  return { key, manifest, ...(digest ? { digest } : {}), reports, problems };
}

/** The manifest's fields with their types checked: a bucket writer chooses them. */
function manifestShape(value: Record<string, unknown>): SegmentManifest {
  const text = (name: string) => {
    if (typeof value[name] !== 'string') throw new Error(`${name} is not a string`);
    return value[name] as string;
  };
  const count = (name: string) => {
    if (!Number.isSafeInteger(value[name]) || (value[name] as number) < 0) throw new Error(`${name} is not a count`);
    return value[name] as number;
  };
  const test = value.test;
  if (!isPlainObject(test) || typeof test.namespace !== 'string' || typeof test.name !== 'string' || typeof test.uid !== 'string') {
    throw new Error('test is not {namespace, name, uid}');
  }
  const nullable = (name: string) => (value[name] === null ? null : text(name));
  const firstSequence = count('firstSequence');
  const lastSequence = count('lastSequence');
  return {
    scheme: text('scheme'),
    test: { namespace: test.namespace, name: test.name, uid: test.uid },
    firstSequence,
    lastSequence,
    count: count('count'),
    firstPreviousDigest: nullable('firstPreviousDigest'),
    lastDigest: text('lastDigest'),
    previousSegment: nullable('previousSegment'),
    contentDigest: text('contentDigest'),
    createdAt: text('createdAt'),
    keyId: text('keyId'),
    signature: text('signature'),
  };
}

/**
 * Checks the segments of one test (one uid) as a chain, in key order: each links to the manifest
 * digest of the one before and continues its sequences. Problems are keyed by segment.
 */
export function segmentChainProblems(segments: readonly Pick<ReadSegment, 'key' | 'manifest' | 'digest'>[]): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  const add = (key: string, text: string) => problems.set(key, [...(problems.get(key) ?? []), text]);
  const ordered = [...segments].sort((a, b) => a.key.localeCompare(b.key));
  ordered.forEach((segment, index) => {
    const manifest = segment.manifest;
    if (!manifest || index === 0) return;
    const before = ordered[index - 1]!;
    if (!before.manifest) return; // the damaged one carries the problem
    if (manifest.previousSegment !== before.digest) {
      add(segment.key, `segment chain broken: links to ${manifest.previousSegment ? short(manifest.previousSegment) : 'nothing'}, but the segment before it (${before.key}) has ${before.digest ? short(before.digest) : 'no digest'}; a segment was deleted or replaced`);
    } else if (manifest.firstSequence !== before.manifest.lastSequence + 1) {
      add(segment.key, `sequence gap: starts at ${manifest.firstSequence} after ${before.manifest.lastSequence}`);
    }
  });
  return problems;
}
