// The anchor writer and the server's audit over an in-memory bucket that keeps versions as an
// Object Lock bucket does (the real store is test/integration/evidence-anchors.test.ts's): what
// is written, what is refused, how anchors link, and the chains named when they disagree.
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { verifySignature } from '../../../protocol/evidence/signature.js';
import { parseAnchorDocument, type ChainHead } from '../../../protocol/evidence/anchor/checkpoint.js';
import { AnchorAudit, type AuditedChain } from '../../../server/evidence/anchor/anchor-audit.js';
import type { AnchorBucket, AnchorObjectVersion } from '../../../server/evidence/anchor/anchor-bucket.js';
import { AnchorWriter, type AnchorWriterDeps } from '../../../server/evidence/anchor/anchor-writer.js';
import { generateSigningKey } from '../../../server/evidence/signing-key.js';
import { Metrics } from '../../../server/metrics/metrics.js';

class VersionedBucket implements AnchorBucket {
  readonly where = 'bucket anchors at memory';
  readonly objects: Array<AnchorObjectVersion & { body: Buffer; retainUntil: Date }> = [];
  constructor(public lock = true) {}
  async objectLockEnabled() {
    return this.lock;
  }
  async putLocked(key: string, body: Buffer, retainUntil: Date) {
    const versionId = `v${this.objects.length + 1}`;
    this.objects.push({ key, versionId, deleteMarker: false, body, retainUntil });
    return versionId;
  }
  async versions(prefix: string) {
    return this.objects.filter((object) => object.key.startsWith(prefix)).map(({ key, versionId, deleteMarker }) => ({ key, versionId, deleteMarker }));
  }
  async get(key: string, versionId: string | undefined) {
    return this.objects.find((object) => object.key === key && object.versionId === versionId)?.body;
  }
}

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const log = pino({ level: 'silent' });
const key = generateSigningKey();
const ring = new Map([[key.keyId, key.publicKey]]);

interface Setup {
  bucket: VersionedBucket;
  writer: AnchorWriter;
  metrics: Metrics;
  chain: { reports: Array<{ name: string; sequence: number; digest: string }> };
}

function setup(overrides: Partial<AnchorWriterDeps> = {}, bucket = new VersionedBucket(), at = '2026-12-07T10:00:00Z'): Setup {
  const metrics = new Metrics();
  const chain = { reports: [1, 2, 3].map((sequence) => ({ name: `r${sequence}`, sequence, digest: digestOf(`r${sequence}`) })) };
  const heads = (): ChainHead[] => {
    const newest = chain.reports.at(-1)!;
    return [{ testUid: 'uid-a', sequence: newest.sequence, digest: newest.digest }];
  };
  const chains = (): AuditedChain[] => [
    {
      test: 'team-a/orders',
      uid: 'uid-a',
      digests: () => chain.reports.map((report) => report.digest),
      reports: () => chain.reports.map((report) => ({ metadata: { name: report.name }, spec: { evidence: { sequence: report.sequence, digest: report.digest } } })),
    },
  ];
  const writer = new AnchorWriter({
    bucket,
    audit: new AnchorAudit({ bucket, prefix: 'rehearsal/', keyRing: () => ring, authorities: [], log }),
    prefix: 'rehearsal/',
    installation: 'prod/rehearsal-system',
    retentionSeconds: 86_400,
    intervalSeconds: 3600,
    heads,
    chains,
    signer: () => key,
    metrics,
    log,
    now: () => new Date(at),
    ...overrides,
  });
  return { bucket, writer, metrics, chain };
}

describe('AnchorWriter', () => {
  it('writes a signed checkpoint of every head, locked for the retention, under anchors/', async () => {
    const { bucket, writer, metrics } = setup();
    const result = await writer.write('scheduled');
    expect(result).toMatchObject({ written: true, versionId: 'v1' });
    const [object] = bucket.objects;
    expect(object!.key).toMatch(/^rehearsal\/anchors\/20261207T100000Z-[0-9a-f]{16}\.json$/);
    expect(object!.retainUntil.toISOString()).toBe('2026-12-08T10:00:00.000Z');
    const document = parseAnchorDocument(object!.body.toString('utf8'))!;
    expect(document.checkpoint).toMatchObject({ installation: 'prod/rehearsal-system', reason: 'scheduled', heads: [{ testUid: 'uid-a', sequence: 3, digest: digestOf('r3') }] });
    expect(document.checkpoint.previous).toBeUndefined();
    expect(document.timestamp).toBeUndefined();
    expect(verifySignature(canonicalJson(document.checkpoint), document.signature.value, key.publicKey)).toBe(true);
    expect((await metrics.registry.getSingleMetricAsString('rehearsal_evidence_anchor_writes_total'))).toContain('result="written"} 1');
  });

  it('writes nothing to a bucket without Object Lock, and says so', async () => {
    const { bucket, writer, metrics } = setup({}, new VersionedBucket(false));
    const result = await writer.write('scheduled');
    expect(result).toEqual({ written: false, reason: 'bucket anchors at memory has no Object Lock: evidence is not anchored (an anchor there could be rewritten)' });
    expect(bucket.objects).toHaveLength(0);
    expect(await metrics.registry.getSingleMetricAsString('rehearsal_evidence_anchor_writes_total')).toContain('result="refused"} 1');
  });

  it('links each anchor to the one before, also across a new leader reading the bucket', async () => {
    const bucket = new VersionedBucket();
    const first = await setup({}, bucket, '2026-12-07T10:00:00Z').writer.write('start');
    const second = await setup({}, bucket, '2026-12-07T11:00:00Z').writer.write('scheduled');
    expect(first.written && second.written).toBe(true);
    if (!first.written || !second.written) return;
    expect(second.document.checkpoint.previous).toBe(first.document.digest);
  });

  it('names a chain rewritten after it was anchored, and counts it', async () => {
    const { writer, chain, metrics } = setup();
    await writer.write('scheduled');
    // Rewritten and re-chained: r2 and r3 get new digests at the same sequences.
    chain.reports = [chain.reports[0]!, { name: 'r2', sequence: 2, digest: digestOf('r2-edited') }, { name: 'r3', sequence: 3, digest: digestOf('r3-rechained') }];
    const result = await writer.write('scheduled');
    expect(result.audit?.disagreements).toEqual([
      expect.stringMatching(/^team-a\/orders: rewritten after it was anchored: r3 \(sequence 3\) has digest sha256:[0-9a-f]{12}, but the anchor written 2026-12-07T10:00:00.000Z \(the server's claim, not time-stamped\) recorded sequence 3/),
    ]);
    expect(await metrics.registry.getSingleMetricAsString('rehearsal_evidence_anchor_disagreements')).toContain('rehearsal_evidence_anchor_disagreements 1');
    expect(writer.audit?.anchors).toBe(1);
    expect(writer.audit?.recent).toEqual([{ source: expect.stringMatching(/^rehearsal\/anchors\/20261207T100000Z-[0-9a-f]{16}\.json\?versionId=v1$/), when: "2026-12-07T10:00:00.000Z (the server's claim, not time-stamped)" }]);
  });

  it('writes the anchor without a token when the authority fails, and says why', async () => {
    const { bucket, writer } = setup({
      timestamp: async () => {
        throw new Error('timestamp authority http://127.0.0.1:1 answered HTTP 500');
      },
    });
    const result = await writer.write('scheduled');
    expect(result).toMatchObject({ written: true, timestampError: 'timestamp authority http://127.0.0.1:1 answered HTTP 500' });
    expect(parseAnchorDocument(bucket.objects[0]!.body.toString('utf8'))!.timestamp).toBeUndefined();
  });

  it('names an object under anchors/ that is not an anchor as unusable, without failing', async () => {
    const { bucket, writer } = setup();
    await bucket.putLocked('rehearsal/anchors/junk.json', Buffer.from('{"not":"an anchor"}'), new Date());
    const result = await writer.write('scheduled');
    expect(result.audit?.unusable).toEqual(['anchor rehearsal/anchors/junk.json?versionId=v1 is not used: not an anchor document']);
    expect(result.written).toBe(true);
  });
});
