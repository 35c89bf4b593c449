// downloadVeleroFile against a fake Velero (the CustomObjectsApi calls) and a real HTTP server on
// 127.0.0.1 standing in for the object store. The real Velero + s3s-fs path is in
// test/integration/real-velero.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DEFAULT_DOWNLOAD_LIMITS,
  DownloadError,
  downloadVeleroFile,
} from '../../../server/providers/velero/download-request.js';
import type { VeleroCustomObjectsApi } from '../../../server/providers/velero/velero-types.js';

const body = gzipSync(JSON.stringify({ 'v1/Secret': ['shop/db-credentials'] }));
// 64 gzip members of 1 MiB of zeros each: 67 KB that inflate to 64 MiB.
const bomb = Buffer.concat(Array(64).fill(gzipSync(Buffer.alloc(1024 * 1024), { level: 9 })));
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/ok')) response.end(body);
    else if (request.url?.startsWith('/big')) response.end(Buffer.alloc(64 * 1024));
    else if (request.url?.startsWith('/slow')) setTimeout(() => response.end(body), 2000);
    else if (request.url?.startsWith('/plain')) response.end('not gzip');
    // What a writer of Velero's bucket (or of its answer) could serve instead of the resource list.
    else if (request.url?.startsWith('/bomb')) response.end(bomb);
    else if (request.url?.startsWith('/truncated')) response.end(body.subarray(0, body.length - 6));
    else if (request.url?.startsWith('/redirect')) response.writeHead(307, { location: `${base}/ok` }).end();
    else if (request.url?.startsWith('/endless')) {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024);
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    }
    else response.writeHead(403).end('denied');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

function fakeVelero(url: string | undefined, answerAfterGets = 1) {
  const calls: string[] = [];
  let gets = 0;
  const api = {
    createNamespacedCustomObject: async (request: { body: { spec: unknown } }) => {
      calls.push(`create ${JSON.stringify(request.body.spec)}`);
      return { metadata: { name: 'rehearsal-x1' } };
    },
    getNamespacedCustomObject: async () => {
      calls.push('get');
      gets++;
      return gets >= answerAfterGets && url
        ? { metadata: { name: 'rehearsal-x1' }, status: { phase: 'Processed', downloadURL: url } }
        : { metadata: { name: 'rehearsal-x1' }, status: {} };
    },
    deleteNamespacedCustomObject: async (request: { name: string }) => {
      calls.push(`delete ${request.name}`);
      return {};
    },
    listNamespacedCustomObject: async () => ({}),
  } as unknown as VeleroCustomObjectsApi;
  return { api, calls };
}

const limits = { ...DEFAULT_DOWNLOAD_LIMITS, pollIntervalMs: 5, answerTimeoutMs: 200, fetchTimeoutMs: 500, maxBytes: 1024 };
const target = { kind: 'BackupResourceList' as const, name: 'nightly' };

describe('downloadVeleroFile', () => {
  it('waits for Velero’s signed URL, fetches and inflates the file, then deletes the request', async () => {
    const { api, calls } = fakeVelero(`${base}/ok?X-Amz-Signature=s`, 3);
    // A generous fetch bound here: on a loaded machine 500 ms can pass before the first byte.
    const file = await downloadVeleroFile(api, 'velero.io', 'velero', target, { ...limits, fetchTimeoutMs: 10_000 });
    expect(JSON.parse(file.toString('utf8'))).toEqual({ 'v1/Secret': ['shop/db-credentials'] });
    expect(calls).toEqual([
      'create {"target":{"kind":"BackupResourceList","name":"nightly"}}',
      'get',
      'get',
      'get',
      'delete rehearsal-x1',
    ]);
  });

  it.each([
    ['Velero never answers', undefined, /did not answer/],
    ['the store refuses', '/denied', /answered HTTP 403/],
    ['the file is over the cap', '/big', /larger than 1024 bytes/],
    ['the store is too slow', '/slow', /fetching from the object store|reading from/],
    ['the file is not gzip', '/plain', /not gzip/],
    ['the URL is not http(s)', 'file:///etc/passwd', /scheme file:/],
    ['the URL is not a URL', 'not a url', /not a URL/],
    ['the store answers with a redirect (never followed)', '/redirect', /answered HTTP 307/],
    ['the body never ends', '/endless', /larger than 1024 bytes/],
    ['the gzip stream is truncated', '/truncated', /not gzip/],
  ])('fails with a reason when %s, and still deletes the request', async (_case, url, reason) => {
    const { api, calls } = fakeVelero(url?.startsWith('/') ? `${base}${url}` : url);
    const attempt = downloadVeleroFile(api, 'velero.io', 'velero', target, limits);
    await expect(attempt).rejects.toThrow(DownloadError);
    await expect(attempt).rejects.toThrow(reason);
    expect(calls.at(-1)).toBe('delete rehearsal-x1');
  });

  it('refuses a gzip bomb at the inflated bound', async () => {
    const { api } = fakeVelero(`${base}/bomb`);
    const attempt = downloadVeleroFile(api, 'velero.io', 'velero', target, { ...limits, maxBytes: 1024 * 1024, maxInflatedBytes: 1024 * 1024 });
    await expect(attempt).rejects.toThrow(/not gzip within 1048576 bytes/);
  });

  it('never puts the URL’s signature into an error', async () => {
    const { api } = fakeVelero(`${base}/denied?X-Amz-Signature=secret-signature`);
    const error = await downloadVeleroFile(api, 'velero.io', 'velero', target, limits).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).not.toContain('secret-signature');
  });
});
