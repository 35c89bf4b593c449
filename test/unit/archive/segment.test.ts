import { describe, expect, it } from '@jest/globals';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import {
  buildSegment,
  parseSegmentKey,
  readSegment,
  segmentChainProblems,
  segmentKey,
  type ReadSegment,
} from '../../../server/archive/segment.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const prefix = 'rehearsal/evidence/';
const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments' });
const id = { namespace: 'rehearsal-system', name: 'payments-nightly', uid: 'uid-payments' };
const now = new Date('2026-05-01T00:00:00Z');

/** A signed, sequenced chain of `count` reports (sequence 1..count). */
function chain(count: number): RestoreReport[] {
  const out: RestoreReport[] = [];
  let previous: string | undefined;
  for (let i = 0; i < count; i += 1) {
    const report = withEvidence(
      JSON.parse(JSON.stringify(makeReport(test, i, PERIOD_START, { result: i % 4 === 3 ? 'fail' : 'pass', rtoSeconds: 600 + i }))) as RestoreReport,
      previous,
      key,
      i + 1,
    );
    previous = report.spec.evidence!.digest;
    out.push(report);
  }
  return out;
}

/** Rewrites the uncompressed lines of a segment (an attacker with write access to the bucket). */
function edit(body: Buffer, change: (lines: string[]) => string[]): Buffer {
  const lines = gunzipSync(body).toString('utf8').split('\n').filter((line) => line !== '');
  return gzipSync(`${change(lines).join('\n')}\n`);
}

describe('archive segments', () => {
  it('round-trips: the reports come back byte for byte, the manifest verifies, the key names the range', () => {
    const reports = chain(5);
    const segment = buildSegment(prefix, id, reports, null, key, now);
    expect(segment.key).toBe(`${prefix}rehearsal-system/payments-nightly/uid-payments/0000000001-0000000005.jsonl.gz`);
    expect(parseSegmentKey(prefix, segment.key)).toEqual({ ...id, first: 1, last: 5 });
    const read = readSegment(segment.key, segment.body, prefix, ring);
    expect(read.problems).toEqual([]);
    expect(read.reports).toEqual(reports);
    expect(read.digest).toBe(segment.digest);
    expect(read.manifest).toMatchObject({ firstSequence: 1, lastSequence: 5, count: 5, firstPreviousDigest: null, lastDigest: reports[4]!.spec.evidence!.digest });
    expect(segment.body.length).toBeLessThan(segment.rawBytes / 3);
  });

  it('the report chain continues across the boundary: archived + live verify as one chain', () => {
    const reports = chain(8);
    const segment = buildSegment(prefix, id, reports.slice(0, 5), null, key, now);
    const archived = readSegment(segment.key, segment.body, prefix, ring).reports;
    expect(verifyReportChain([...archived, ...reports.slice(5)], ring).ok).toBe(true);
    // Without the archive the live reports alone start after "pruned" reports (a note, not a problem).
    expect(verifyReportChain(reports.slice(5), ring).notes[0]).toMatch(/not in the set/);
  });

  it('names an edited report: content digest of the segment, and the report own digest', () => {
    const reports = chain(5);
    const segment = buildSegment(prefix, id, reports, null, key, now);
    const tampered = edit(segment.body, (lines) =>
      lines.map((line, i) => (i === 4 ? line.replace('"result":"fail"', '"result":"pass"') : line)),
    );
    const read = readSegment(segment.key, tampered, prefix, ring);
    expect(read.problems.join('\n')).toMatch(/content digest mismatch: the archived reports were changed/);
    const verdict = verifyReportChain(read.reports, ring);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems.join('\n')).toContain(`${reports[3]!.metadata.name}: digest mismatch`);
  });

  it('names a changed manifest, an unknown key, reordered or missing reports, a moved object, garbage', () => {
    const reports = chain(4);
    const segment = buildSegment(prefix, id, reports, null, key, now);
    const manifestEdited = edit(segment.body, ([manifest, ...rest]) => [manifest!.replace('"count":4', '"count":3'), ...rest]);
    expect(readSegment(segment.key, manifestEdited, prefix, ring).problems.join('\n')).toMatch(/manifest signature does not verify/);

    const otherKey = generateSigningKey();
    const foreign = buildSegment(prefix, id, reports, null, otherKey, now);
    expect(readSegment(foreign.key, foreign.body, prefix, ring).problems.join('\n')).toMatch(/unknown key/);

    const reordered = edit(segment.body, ([manifest, a, b, ...rest]) => [manifest!, b!, a!, ...rest]);
    expect(readSegment(segment.key, reordered, prefix, ring).problems.join('\n')).toMatch(/sequences 2,1,3,4 are not 1..4 in order \(reordered\)/);

    const dropped = edit(segment.body, (lines) => lines.slice(0, 3));
    const droppedProblems = readSegment(segment.key, dropped, prefix, ring).problems.join('\n');
    expect(droppedProblems).toMatch(/holds 2 reports, the manifest says 4/);

    const moved = segmentKey(prefix, id, 5, 8);
    expect(readSegment(moved, segment.body, prefix, ring).problems.join('\n')).toMatch(/stored under the wrong key/);

    expect(readSegment(segment.key, Buffer.from('not gzip'), prefix, ring).problems.join('\n')).toMatch(/not a gzip object/);
  });

  it('segments chain: a deleted or replaced segment is named on the one after it', () => {
    const reports = chain(9);
    const first = buildSegment(prefix, id, reports.slice(0, 3), null, key, now);
    const second = buildSegment(prefix, id, reports.slice(3, 6), first.digest, key, now);
    const third = buildSegment(prefix, id, reports.slice(6), second.digest, key, now);
    const read = (s: typeof first): ReadSegment => readSegment(s.key, s.body, prefix, ring);
    expect([...segmentChainProblems([read(first), read(second), read(third)]).values()]).toEqual([]);
    const withoutMiddle = segmentChainProblems([read(first), read(third)]);
    expect(withoutMiddle.get(third.key)?.join('\n')).toMatch(/segment chain broken: .* a segment was deleted or replaced/);
    // A re-signed replacement of the middle segment (other content) breaks the link too.
    const forged = buildSegment(prefix, id, reports.slice(3, 6), null, key, now);
    expect(segmentChainProblems([read(first), read(forged), read(third)]).get(forged.key)?.join('\n')).toMatch(/segment chain broken/);
  });
});
