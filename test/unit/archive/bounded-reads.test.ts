// What a writer of the bucket can put in front of every replica's archive load (issue 26): the
// segment reader refuses gzip bombs, truncated and corrupted streams, oversized lines, deep nesting
// and manifests with absurd ranges as damage (problems), never by inflating or allocating without
// bound; the S3 client follows no redirect (the signed headers stay home) and reads no body past
// its bound. The "bucket" here is a hostile loopback server: s3s-fs (the real S3 server of the
// integration tests) would never answer like this.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_LINE_BYTES, MAX_SEGMENT_BYTES, buildSegment, readSegment } from '../../../server/archive/segment.js';
import { MAX_LIST_PAGE_BYTES, S3Client, S3Error } from '../../../server/archive/s3-client.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { makeReport, makeRestoreTest, PERIOD_START } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const prefix = 'rehearsal/evidence/';
const id = { namespace: 'rehearsal-system', name: 'payments-nightly', uid: 'uid-payments' };
const segmentKey = `${prefix}rehearsal-system/payments-nightly/uid-payments/0000000001-0000000002.jsonl.gz`;

function twoReports(): RestoreReport[] {
  const test = makeRestoreTest('payments-nightly', ['payments'], { maxRTO: '15m', uid: 'uid-payments' });
  const first = withEvidence(JSON.parse(JSON.stringify(makeReport(test, 0, PERIOD_START, { result: 'pass', rtoSeconds: 600 }))) as RestoreReport, undefined, key, 1);
  const second = withEvidence(JSON.parse(JSON.stringify(makeReport(test, 1, PERIOD_START, { result: 'pass', rtoSeconds: 601 }))) as RestoreReport, first.spec.evidence!.digest, key, 2);
  return [first, second];
}

const read = (body: Buffer) => readSegment(segmentKey, body, prefix, ring);

describe('readSegment (fuzz: what a bucket writer can put under a segment key)', () => {
  it('reads an intact segment', () => {
    const segment = buildSegment(prefix, id, twoReports(), null, key, new Date(0));
    expect(read(segment.body).problems).toEqual([]);
  });

  it('refuses a gzip bomb as damage without inflating it past the bound', () => {
    // 128 gzip members of 1 MiB of zeros: 135 KB that inflate to 128 MiB.
    const bomb = Buffer.concat(Array(128).fill(gzipSync(Buffer.alloc(1024 * 1024), { level: 9 })));
    const before = process.memoryUsage().arrayBuffers;
    const result = read(bomb);
    expect(result.reports).toEqual([]);
    expect(result.problems).toEqual([`inflates to more than ${MAX_SEGMENT_BYTES} bytes: the segment was replaced`]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(MAX_SEGMENT_BYTES + 16 * 1024 * 1024);
  });

  it('refuses an object larger than the bound before inflating anything', () => {
    expect(read(Buffer.alloc(MAX_SEGMENT_BYTES + 1)).problems).toEqual([`larger than ${MAX_SEGMENT_BYTES} bytes: the segment was replaced`]);
  });

  it('reports truncated and corrupted streams as damage, never throws', () => {
    const body = buildSegment(prefix, id, twoReports(), null, key, new Date(0)).body;
    for (let cut = 0; cut < body.length; cut += 13) {
      expect(read(body.subarray(0, cut)).problems.length).toBeGreaterThan(0);
    }
    for (let trial = 0; trial < 300; trial += 1) {
      const corrupted = Buffer.from(body);
      const at = 10 + ((trial * 7919) % (body.length - 18));
      corrupted[at] = corrupted[at]! ^ (1 + (trial % 255));
      expect(() => read(corrupted)).not.toThrow();
    }
  });

  it('refuses a line longer than etcd would ever have stored, and deep nesting, as unreadable', () => {
    const manifest = gunzipSync(buildSegment(prefix, id, twoReports(), null, key, new Date(0)).body).toString('utf8').split('\n')[0]!;
    const long = read(gzipSync(`${manifest}\n"${'x'.repeat(MAX_LINE_BYTES)}"\n`));
    expect(long.problems).toContain('report line 1 is not a report in JSON');
    const deep = read(gzipSync(`${'['.repeat(50_000)}${']'.repeat(50_000)}\n`));
    expect(deep.problems[0]).toMatch(/manifest unreadable \(JSON nested deeper than/);
    const deepReport = read(gzipSync(`${manifest}\n{"metadata":{},"spec":${'['.repeat(50_000)}${']'.repeat(50_000)}}\n`));
    expect(deepReport.problems).toContain('report line 1 is not a report in JSON');
  });

  it('does not build the range a forged manifest claims (sequences 0..2^53)', () => {
    const segment = buildSegment(prefix, id, twoReports(), null, key, new Date(0));
    const [manifestLine, ...rest] = gunzipSync(segment.body).toString('utf8').split('\n');
    const forged = { ...JSON.parse(manifestLine!), firstSequence: 0, lastSequence: Number.MAX_SAFE_INTEGER, count: Number.MAX_SAFE_INTEGER };
    const result = read(gzipSync([JSON.stringify(forged), ...rest].join('\n')));
    expect(result.problems.join('\n')).toMatch(/are not 0\.\.9007199254740991 in order/);
    const wrongTypes = { ...JSON.parse(manifestLine!), count: '2', test: 'x' };
    expect(read(gzipSync([JSON.stringify(wrongTypes), ...rest].join('\n'))).problems[0]).toMatch(/manifest unreadable/);
  });
});

describe('S3Client against a hostile endpoint', () => {
  let hostile: Server;
  let elsewhere: Server;
  let base = '';
  let elsewhereUrl = '';
  const reachedElsewhere: IncomingHttpHeaders[] = [];
  let lastRequestHeaders: IncomingHttpHeaders = {};

  beforeAll(async () => {
    elsewhere = createServer((req, res) => {
      reachedElsewhere.push(req.headers);
      res.end('stolen');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    hostile = createServer((req, res) => {
      lastRequestHeaders = req.headers;
      const url = req.url ?? '';
      if (url.includes('redirect')) {
        res.writeHead(307, { location: `${elsewhereUrl}/collect` });
        res.end();
      } else if (url.includes('endless')) {
        // No content-length: a stream that never ends unless the reader stops.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        const pump = () => {
          while (res.write(chunk)) {
            if (res.destroyed) return;
          }
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else if (url.includes('declared-huge')) {
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024 * 1024) });
        res.write('x');
      } else if (url.includes('versions=')) {
        // A truncated page whose markers never move on: a client that trusted it would list forever.
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          '<ListVersionsResult><Version><Key>a</Key><VersionId>v1</VersionId><IsLatest>true</IsLatest><Size>1</Size></Version>' +
            '<IsTruncated>true</IsTruncated><NextKeyMarker>a</NextKeyMarker><NextVersionIdMarker>v1</NextVersionIdMarker></ListVersionsResult>',
        );
      } else if (url.includes('list-type=2')) {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<ListBucketResult>${'<Contents><Key>a</Key><Size>1</Size></Contents>'.repeat(MAX_LIST_PAGE_BYTES / 40)}</ListBucketResult>`);
      } else {
        res.writeHead(500);
        res.end(`<Error><Code>Boom</Code>${'y'.repeat(10 * 1024 * 1024)}</Error>`);
      }
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    hostile.closeAllConnections();
    hostile.close();
    elsewhere.close();
  });

  const client = () =>
    new S3Client({ endpoint: base, bucket: 'b', region: 'us-east-1', accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'session-token' });

  it('follows no redirect: the signed request and its session token go nowhere else', async () => {
    await expect(client().getObject('redirect', 1024)).rejects.toThrow(/answered 307/);
    await expect(client().putObject('redirect', Buffer.from('x'))).rejects.toThrow(/answered 307/);
    expect(lastRequestHeaders['x-amz-security-token']).toBe('session-token');
    expect(reachedElsewhere).toEqual([]);
  });

  it('stops reading an object at the bound (declared or streamed)', async () => {
    await expect(client().getObject('declared-huge', 1024)).rejects.toThrow(/more than the 1024 accepted/);
    const before = process.memoryUsage().arrayBuffers;
    const error = await client().getObject('endless', 8 * 1024 * 1024).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(S3Error);
    expect((error as S3Error).code).toBe('TooLarge');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a listing page past its bound', async () => {
    await expect(client().listObjects('')).rejects.toThrow(/longer than the \d+ bytes accepted/);
  });

  it('stops listing versions when a truncated page does not move its markers on', async () => {
    await expect(client().listObjectVersions('')).rejects.toThrow('S3 list versions : a truncated page without new markers');
  });

  it('reads an error body only to its bound and still names the status', async () => {
    await expect(client().deleteObject('boom')).rejects.toThrow('S3 DELETE boom answered 500');
  });
});
