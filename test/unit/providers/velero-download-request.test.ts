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
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith('/ok')) response.end(body);
    else if (request.url?.startsWith('/big')) response.end(Buffer.alloc(64 * 1024));
    else if (request.url?.startsWith('/slow')) setTimeout(() => response.end(body), 2000);
    else if (request.url?.startsWith('/plain')) response.end('not gzip');
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
    const file = await downloadVeleroFile(api, 'velero.io', 'velero', target, limits);
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
  ])('fails with a reason when %s, and still deletes the request', async (_case, url, reason) => {
    const { api, calls } = fakeVelero(url?.startsWith('/') ? `${base}${url}` : url);
    const attempt = downloadVeleroFile(api, 'velero.io', 'velero', target, limits);
    await expect(attempt).rejects.toThrow(DownloadError);
    await expect(attempt).rejects.toThrow(reason);
    expect(calls.at(-1)).toBe('delete rehearsal-x1');
  });

  it('never puts the URL’s signature into an error', async () => {
    const { api } = fakeVelero(`${base}/denied?X-Amz-Signature=secret-signature`);
    const error = await downloadVeleroFile(api, 'velero.io', 'velero', target, limits).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).not.toContain('secret-signature');
  });
});
