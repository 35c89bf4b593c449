// The pre-flight's reading of a Velero backup tarball (server/providers/velero/tar-reader.ts and
// backup-contents.ts): archives written by GNU tar in the formats Go's archive/tar writes (ustar,
// PAX for long names), fed in small and odd-sized chunks, and the whole path — a fake Velero
// answering the DownloadRequest, a real HTTP server on 127.0.0.1 as the bucket. The real Velero
// tarball is read in test/integration/preflight.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_CONTENTS_LIMITS, objectPath, readBackupManifests } from '../../../server/providers/velero/backup-contents.js';
import { DEFAULT_DOWNLOAD_LIMITS, DownloadError } from '../../../server/providers/velero/download-request.js';
import { TarError, TarReader } from '../../../server/providers/velero/tar-reader.js';
import type { VeleroCustomObjectsApi } from '../../../server/providers/velero/velero-types.js';

const LONG = `resources/deployments.apps/v1-preferredversion/namespaces/shop/${'a'.repeat(120)}.json`;
const FILES: Record<string, string> = {
  'metadata/version': '1.1.0',
  'resources/persistentvolumeclaims/namespaces/shop/data.json': JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'shop' }, spec: { storageClassName: 'fast' } }),
  'resources/deployments.apps/namespaces/shop/web.json': JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } }),
  'resources/deployments.apps/v1-preferredversion/namespaces/shop/web.json': JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } }),
  [LONG]: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a'.repeat(120), namespace: 'shop' }, spec: {} }),
  'resources/secrets/namespaces/shop/db.json': JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, data: { password: 'c2VjcmV0' } }),
  'resources/deployments.apps/namespaces/other/api.json': JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'other' } }),
  'resources/storageclasses.storage.k8s.io/cluster/fast.json': '{}',
};

let workdir: string;

/** The FILES as a tar archive of `format`, written by GNU tar. */
function archive(format: 'ustar' | 'pax' | 'gnu', files: Record<string, string> = FILES): Buffer {
  const root = join(workdir, `${format}-${Object.keys(files).length}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const out = `${root}.tar`;
  execFileSync('tar', [`--format=${format}`, '-cf', out, '-C', root, ...Object.keys(files)]);
  return readFileSync(out);
}

function read(tar: Buffer, chunk: number, wants = (path: string) => path.endsWith('.json')): Map<string, string> {
  const seen = new Map<string, string>();
  const reader = new TarReader({ wants, onFile: (path, data) => seen.set(path, data.toString('utf8')), maxFileBytes: 1024 * 1024 });
  for (let offset = 0; offset < tar.length; offset += chunk) reader.write(tar.subarray(offset, offset + chunk));
  reader.end();
  return seen;
}

beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'rehearsal-tar-'));
});

afterAll(() => rmSync(workdir, { recursive: true, force: true }));

describe('TarReader', () => {
  it.each([
    ['pax', 1],
    ['pax', 511],
    ['gnu', 700],
    ['pax', 1 << 20],
  ] as const)('reads every wanted file of a %s archive in chunks of %i bytes, long names included', (format, chunk) => {
    const seen = read(archive(format), chunk);
    const json = Object.fromEntries(Object.entries(FILES).filter(([path]) => path.endsWith('.json')));
    expect(Object.fromEntries(seen)).toEqual(json);
  });

  it('passes over what is not wanted without keeping it', () => {
    const seen = read(archive('ustar', { 'a.json': '{"a":1}', 'b.txt': 'x'.repeat(5000), 'c.json': '{"c":3}' }), 100, (path) => path !== 'b.txt');
    expect([...seen.keys()]).toEqual(['a.json', 'c.json']);
  });

  it('refuses a wanted file over the bound, and an archive cut inside an entry', () => {
    const tar = archive('pax');
    const small = new TarReader({ wants: () => true, onFile: () => undefined, maxFileBytes: 10 });
    expect(() => small.write(tar)).toThrow(TarError);
    const cut = new TarReader({ wants: () => true, onFile: () => undefined, maxFileBytes: 1 << 20 });
    cut.write(tar.subarray(0, 1500));
    expect(() => cut.end()).toThrow('the archive ends inside an entry');
  });

  it('refuses a malformed size field', () => {
    const header = Buffer.alloc(512);
    header.write('x.json', 0);
    header.write('12z4', 124);
    header.write('0', 156);
    expect(() => new TarReader({ wants: () => true, onFile: () => undefined, maxFileBytes: 100 }).write(header)).toThrow(/malformed size field/);
  });
});

describe('objectPath', () => {
  it.each([
    ['resources/pods/namespaces/shop/web-1.json', { resource: 'pods', namespace: 'shop', name: 'web-1' }],
    ['resources/deployments.apps/v1-preferredversion/namespaces/shop/web.json', { resource: 'deployments.apps', namespace: 'shop', name: 'web' }],
    ['resources/storageclasses.storage.k8s.io/cluster/fast.json', undefined],
    ['metadata/version', undefined],
    ['resources/pods/namespaces/shop/web-1.yaml', undefined],
  ])('%s', (path, expected) => {
    expect(objectPath(path)).toEqual(expected);
  });
});

describe('readBackupManifests', () => {
  let server: Server;
  let base = '';
  const tarball = (): Buffer => gzipSync(archive('pax'));

  beforeAll(async () => {
    const body = tarball();
    server = createServer((request, response) => {
      if (request.url?.startsWith('/ok')) response.end(body);
      else if (request.url?.startsWith('/plain')) response.end('not gzip');
      else if (request.url?.startsWith('/cut')) response.end(gzipSync(archive('pax').subarray(0, 1500)));
      else response.writeHead(403).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function velero(url: string) {
    const calls: string[] = [];
    const api = {
      createNamespacedCustomObject: async (request: { body: { spec: unknown } }) => {
        calls.push(`create ${JSON.stringify(request.body.spec)}`);
        return { metadata: { name: 'rehearsal-c1' } };
      },
      getNamespacedCustomObject: async () => ({ metadata: { name: 'rehearsal-c1' }, status: { phase: 'Processed', downloadURL: url } }),
      deleteNamespacedCustomObject: async (request: { name: string }) => {
        calls.push(`delete ${request.name}`);
        return {};
      },
    } as unknown as VeleroCustomObjectsApi;
    return { api, calls };
  }

  const answer = { ...DEFAULT_DOWNLOAD_LIMITS, pollIntervalMs: 5 };

  it('keeps the claims and workloads of the source namespaces, once each, and no Secret', async () => {
    const { api, calls } = velero(`${base}/ok`);
    const objects = await readBackupManifests(api, 'velero.io', 'velero', 'nightly', ['shop'], answer);
    expect(objects.map((object) => `${object.kind} ${object.metadata.namespace}/${object.metadata.name}`).sort()).toEqual([
      `Deployment shop/${'a'.repeat(120)}`,
      'Deployment shop/web',
      'PersistentVolumeClaim shop/data',
    ]);
    expect(calls).toEqual(['create {"target":{"kind":"BackupContents","name":"nightly"}}', 'delete rehearsal-c1']);
  });

  it.each([
    ['/plain', /not gzip|incorrect header|unreadable|reading the backup/],
    ['/cut', /ends inside an entry/],
    ['/denied', /answered HTTP 403/],
  ])('names what is wrong with %s, and still deletes the DownloadRequest', async (path, message) => {
    const { api, calls } = velero(`${base}${path}`);
    const failure = readBackupManifests(api, 'velero.io', 'velero', 'nightly', ['shop'], answer);
    await expect(failure).rejects.toThrow(DownloadError);
    await expect(failure).rejects.toThrow(message);
    expect(calls.at(-1)).toBe('delete rehearsal-c1');
  });

  it('stops at the compressed-size bound', async () => {
    const { api } = velero(`${base}/ok`);
    await expect(readBackupManifests(api, 'velero.io', 'velero', 'nightly', ['shop'], answer, { ...DEFAULT_CONTENTS_LIMITS, maxBytes: 100 })).rejects.toThrow(
      'the backup is larger than 100 bytes',
    );
  });
});
