// bench:scale --archive's history (test/bench/archive-history.ts): the pre-archived runs must be
// what the server's archive accepts as intact — a segment signed with the server's key that reads
// back without problems — and continue into the live window's chain, or the bench would measure
// the damaged-archive path instead of a production install's.
import { describe, expect, it } from '@jest/globals';
import { buildSegment, readSegment } from '../../../server/archive/segment.js';
import { decideArchive } from '../../../server/domain/retention/archive-policy.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { ARCHIVE_PREFIX, archiveLoadOf, sequencedReport } from '../../bench/archive-history.js';
import { BENCH_NAMESPACE, testShape } from '../../bench/bench-data.js';

const NOW = Date.parse('2026-11-25T17:00:00Z');
const DAYS = 90;
const LIVE = 14;

describe('bench:scale --archive history', () => {
  const shape = testShape(7, 100);
  const owner = { uid: 'uid-7' };
  const archived = Array.from({ length: DAYS - LIVE }, (_, i) => sequencedReport(shape, DAYS - 1 - i, DAYS, NOW, owner));
  const oldestLive = sequencedReport(shape, LIVE - 1, DAYS, NOW, owner);

  it('numbers the chain 1..90 from the oldest run and links the live window to the archive', () => {
    expect(archived.map((report) => report.spec.evidence?.sequence)).toEqual(
      Array.from({ length: DAYS - LIVE }, (_, i) => i + 1),
    );
    expect(oldestLive.spec.evidence?.sequence).toBe(DAYS - LIVE + 1);
    expect(oldestLive.spec.evidence?.previousDigest).toBe(archived.at(-1)!.spec.evidence?.digest);
  });

  it('builds a segment the server reads back intact with its key', () => {
    const key = generateSigningKey();
    const test = { namespace: BENCH_NAMESPACE, name: shape.name, uid: owner.uid };
    const segment = buildSegment(ARCHIVE_PREFIX, test, archived, null, key, new Date(NOW));
    const read = readSegment(segment.key, segment.body, ARCHIVE_PREFIX, publicKeyRing([key.publicKey]));
    expect(read.problems).toEqual([]);
    expect(read.reports).toHaveLength(DAYS - LIVE);
    // Signed with another key, the same segment is named: the check above can fail.
    const other = readSegment(segment.key, segment.body, ARCHIVE_PREFIX, publicKeyRing([generateSigningKey().publicKey]));
    expect(other.problems.join(' ')).toMatch(/unknown key/);
  });

  it('leaves a live window the server keeps as it is (KEEP_LIVE 14, AFTER 360h)', () => {
    const live = Array.from({ length: LIVE }, (_, i) => sequencedReport(shape, LIVE - 1 - i, DAYS, NOW, owner));
    const decision = decideArchive(
      live.map((report) => ({ completedAt: report.spec.completedAt, sequence: report.spec.evidence?.sequence })),
      90,
      { afterSeconds: (LIVE + 1) * 86_400, keepLive: LIVE, minSegment: 30, maxSegment: 1000 },
      new Date(NOW),
    );
    expect(decision.count).toBe(0);
  });

  it("reads the server's archive load line", () => {
    const log = [
      '{"level":30,"msg":"evidence signing key loaded"}',
      '{"level":30,"component":"archive","segments":3,"reports":228,"bytes":9,"problems":0,"milliseconds":812,"msg":"evidence archive loaded"}',
    ].join('\n');
    expect(archiveLoadOf(log)).toEqual({ milliseconds: 812, segments: 3, reports: 228, problems: 0 });
    expect(archiveLoadOf('{"msg":"rehearsal started"}')).toBeUndefined();
  });
});
