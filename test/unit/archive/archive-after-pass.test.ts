// The evidence archive tells the anchor writer when reports left etcd (issue 33: an anchor "at
// every archive segment"): after a pass or an orphan move that wrote a segment, never after one
// that wrote none or failed. The archiver's own work is tested against a real S3 server
// (test/integration/evidence-archive.test.ts); here its result is given.
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { EvidenceArchive, type EvidenceArchiveDeps } from '../../../server/archive/evidence-archive.js';
import type { PassResult } from '../../../server/archive/archiver.js';
import type { ArchiveConfig } from '../../../server/config.js';

const config: ArchiveConfig = {
  endpoint: 'http://127.0.0.1:1',
  bucket: 'evidence',
  region: 'us-east-1',
  prefix: 'rehearsal/evidence/',
  accessKeyId: 'key',
  secretAccessKey: 'secret',
  afterSeconds: 3600,
  keepLive: 14,
  minSegment: 30,
  maxSegment: 1000,
  retentionSeconds: 86_400,
  intervalSeconds: 600,
};

const result = (segments: number): PassResult => ({ segments, reports: segments * 30, bytes: 0, rawBytes: 0, liveDeleted: 0, purgedTests: 0, milliseconds: 1 });

function archiveWith(pass: () => Promise<PassResult>, afterPass: (result: PassResult) => void): EvidenceArchive {
  const deps = {
    cache: {},
    client: { deleteReport: async () => undefined },
    keyRing: () => new Map(),
    signer: () => undefined,
    log: pino({ level: 'silent' }),
    now: () => new Date('2026-12-07T10:00:00Z'),
    afterPass,
  } as unknown as EvidenceArchiveDeps;
  const archive = new EvidenceArchive(config, deps);
  archive.archiver.pass = pass;
  archive.archiver.retireOrphans = pass;
  return archive;
}

describe('EvidenceArchive afterPass', () => {
  it('is called after a pass that wrote a segment, with its result', async () => {
    const seen: PassResult[] = [];
    const archive = archiveWith(async () => result(2), (passed) => seen.push(passed));
    await archive.pass();
    await archive.retireOrphans();
    expect(seen).toEqual([result(2), result(2)]);
  });

  it('is not called after a pass that wrote nothing, nor after one that failed', async () => {
    const seen: PassResult[] = [];
    await archiveWith(async () => result(0), (passed) => seen.push(passed)).pass();
    const failing = archiveWith(async () => {
      throw new Error('S3 PUT answered 503');
    }, (passed) => seen.push(passed));
    expect(await failing.pass()).toBeUndefined();
    expect(seen).toEqual([]);
  });
});
