// The shape of the S3 client's Object Lock requests, which a server may take without checking
// (test/integration/object-lock-store.test.ts shows versitygw's answers): the retention headers are
// signed, the Content-MD5 S3 requires of a PUT with a retention is the body's, and a bucket's
// default retention is read. The "bucket" is a loopback server that records each request.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { S3Client, S3Error } from '../../../server/archive/s3-client.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('S3Client: Object Lock requests', () => {
  let server: Server;
  let base: string;
  let last: Recorded;
  let answer: { status: number; headers?: Record<string, string>; body?: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        last = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const client = () => new S3Client({ endpoint: base, bucket: 'anchors', region: 'eu-west-1', accessKeyId: 'AKID', secretAccessKey: 'secret' });
  const signedHeaders = () => /SignedHeaders=([^,]+)/.exec(String(last.headers.authorization))?.[1]?.split(';');
  const retainUntil = new Date('2027-01-02T03:04:05.000Z');

  it('puts a retained object with the mode, the date and the body\'s Content-MD5, all signed, and answers its version id', async () => {
    answer = { status: 200, headers: { 'x-amz-version-id': '01M988WMMDFX4G112GZ7F45KJB' } };
    const body = Buffer.from('{"root":"3f1c"}');
    const versionId = await client().putObject('anchors/1.json', body, 'application/json', { retention: { mode: 'COMPLIANCE', retainUntil } });
    expect(versionId).toBe('01M988WMMDFX4G112GZ7F45KJB');
    expect(last.method).toBe('PUT');
    expect(last.url).toBe('/anchors/anchors/1.json');
    expect(last.headers['x-amz-object-lock-mode']).toBe('COMPLIANCE');
    expect(last.headers['x-amz-object-lock-retain-until-date']).toBe('2027-01-02T03:04:05.000Z');
    expect(last.headers['content-md5']).toBe(createHash('md5').update(body).digest('base64'));
    expect(signedHeaders()).toEqual(expect.arrayContaining(['content-md5', 'x-amz-object-lock-mode', 'x-amz-object-lock-retain-until-date']));
    expect(last.body).toEqual(body);
  });

  it('puts an object without a retention as before: no lock headers, no version id from an unversioned bucket', async () => {
    answer = { status: 200 };
    expect(await client().putObject('plain', Buffer.from('x'))).toBeUndefined();
    expect(Object.keys(last.headers).filter((name) => name.startsWith('x-amz-object-lock') || name === 'content-md5')).toEqual([]);
  });

  it('sets a retention with a signed, MD5-checked document naming the version', async () => {
    answer = { status: 200 };
    await client().putObjectRetention('anchors/1.json', 'v 1', { mode: 'COMPLIANCE', retainUntil });
    expect(last.url).toBe('/anchors/anchors/1.json?retention=&versionId=v%201');
    expect(last.body.toString()).toBe(
      '<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Mode>COMPLIANCE</Mode><RetainUntilDate>2027-01-02T03:04:05.000Z</RetainUntilDate></Retention>',
    );
    expect(last.headers['content-md5']).toBe(createHash('md5').update(last.body).digest('base64'));
    expect(signedHeaders()).toContain('content-md5');
  });

  it('reads a bucket\'s default retention', async () => {
    answer = {
      status: 200,
      body: '<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>7</Years></DefaultRetention></Rule></ObjectLockConfiguration>',
    };
    expect(await client().getObjectLockConfiguration()).toEqual({ enabled: true, mode: 'COMPLIANCE', years: 7 });
    expect(last.url).toBe('/anchors/?object-lock=');
  });

  it('reads "no retention" as undefined whichever status carries it, and names the version in other errors', async () => {
    for (const status of [400, 404]) {
      answer = { status, body: '<Error><Code>NoSuchObjectLockConfiguration</Code></Error>' };
      expect(await client().getObjectRetention('anchors/1.json', 'v1')).toBeUndefined();
    }
    answer = { status: 404, body: '<Error><Code>NoSuchVersion</Code></Error>' };
    const error = await client()
      .getObjectRetention('anchors/1.json', 'v1')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(S3Error);
    expect((error as S3Error).message).toBe('S3 GET anchors/1.json version v1 ?retention answered 404 NoSuchVersion');
  });

  it('refuses a retention answer with a mode S3 does not have', async () => {
    answer = { status: 200, body: '<Retention><Mode>LENIENT</Mode><RetainUntilDate>2027-01-02T03:04:05Z</RetainUntilDate></Retention>' };
    await expect(client().getObjectRetention('anchors/1.json')).rejects.toThrow('S3 GET anchors/1.json ?retention: the answer names no retention mode ("LENIENT")');
  });
});
