// What the archive store keeps of each segment (two strings per segment, not an object per report)
// gives back every report's key and evidence digest, in order: for a segment it loaded, for one it
// wrote, for digests in the signer's form and for others; purge returns those keys.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { ArchiveStore, keptReports } from '../../../server/archive/archive-store.js';
import type { S3Client } from '../../../server/archive/s3-client.js';
import { buildSegment } from '../../../server/archive/segment.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const prefix = 'evidence/';
const START = new Date('2026-01-01T00:00:00Z');
const test = makeRestoreTest('shop', ['shop'], { uid: 'uid-shop' });
const id = { namespace: 'rehearsal-system', name: 'shop', uid: 'uid-shop' };

/** `count` chained reports starting at sequence `first`. */
function history(count: number, first = 1, previous?: string): RestoreReport[] {
  const reports: RestoreReport[] = [];
  for (let i = 0; i < count; i += 1) {
    const report = withEvidence(
      JSON.parse(JSON.stringify(makeReport(test, first - 1 + i, START, { result: 'pass', rtoSeconds: 300 }))) as RestoreReport,
      previous,
      key,
      first + i,
    );
    previous = report.spec.evidence!.digest;
    reports.push(report);
  }
  return reports;
}

/** An in-memory bucket with the calls the store makes. */
function bucket(): S3Client & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    listObjects: async (under: string) => [...objects.keys()].filter((k) => k.startsWith(under)).map((k) => ({ key: k, size: objects.get(k)!.length })),
    getObject: async (k: string) => objects.get(k),
    putObject: async (k: string, body: Buffer) => {
      objects.set(k, body);
    },
    deleteObject: async (k: string) => {
      objects.delete(k);
    },
  } as unknown as S3Client & { objects: Map<string, Buffer> };
}

const expected = (reports: readonly RestoreReport[]) =>
  reports.map((r) => ({ key: `${r.metadata.namespace}/${r.metadata.name}`, digest: r.spec.evidence!.digest }));

describe('kept segments', () => {
  it('give back the keys and digests of loaded and written segments, and purge returns the keys', async () => {
    const s3 = bucket();
    const older = history(40);
    const first = buildSegment(prefix, id, older, null, key, START);
    s3.objects.set(first.key, first.body);
    const store = new ArchiveStore(s3, prefix, () => ring, pino({ level: 'silent' }));
    const added: string[] = [];
    const loaded = await store.load((report) => added.push(report.metadata.name));
    expect(loaded).toMatchObject({ segments: 1, reports: 40, problems: [] });
    const archive = store.archiveOfUid('uid-shop')!;
    expect(keptReports(archive.segments[0]!)).toEqual(expected(older));
    expect(archive.segments[0]!.reportDigests).toHaveProperty('bytes'); // the compact form

    const newer = history(5, 41, older.at(-1)!.spec.evidence!.digest);
    const second = buildSegment(prefix, id, newer, first.digest, key, START);
    await store.putSegment(second, newer);
    expect(archive.segments.map(keptReports)).toEqual([expected(older), expected(newer)]);

    expect(await store.purge(archive)).toEqual([...expected(older), ...expected(newer)].map((r) => r.key));
    expect(s3.objects.size).toBe(0);
  });

  it('keep digests in another form, or missing, as they are', async () => {
    const s3 = bucket();
    const store = new ArchiveStore(s3, prefix, () => ring, pino({ level: 'silent' }));
    const reports = history(3);
    const segment = buildSegment(prefix, id, reports, null, key, START);
    const odd = reports.map((report, i) => ({
      ...report,
      spec: { ...report.spec, evidence: i === 1 ? undefined : { ...report.spec.evidence!, digest: i === 0 ? 'sha512:abc' : report.spec.evidence!.digest } },
    })) as RestoreReport[];
    await store.putSegment(segment, odd);
    const kept = store.archiveOfUid('uid-shop')!.segments[0]!;
    expect(kept.reportDigests).toHaveProperty('texts');
    expect(keptReports(kept).map((r) => r.digest)).toEqual(['sha512:abc', undefined, reports[2]!.spec.evidence!.digest]);
  });
});
