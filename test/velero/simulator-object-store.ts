// The Velero simulator's answer to DownloadRequests (NOT VELERO; see simulator.ts). Real Velero
// answers a DownloadRequest with a URL pre-signed for its object store; the simulator keeps no
// object store, so it serves each answer itself from an HTTP server on 127.0.0.1, one unguessable
// path per request. Only target kind BackupResourceList has content (built from the backup's
// snapshot in Velero's own shape); any other target, or a backup without data, gets a URL that
// answers 404, as a URL signed for a missing object key would.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { BackupSnapshot } from './simulator-model.js';

/** Velero's BackupResourceList: "<apiVersion>/<Kind>" → sorted "namespace/name" entries. */
export function resourceListOf(snapshot: BackupSnapshot): Record<string, string[]> {
  const list: Record<string, string[]> = {};
  for (const item of snapshot.items) {
    const key = `${item.apiVersion}/${item.kind}`;
    (list[key] ??= []).push(`${item.metadata.namespace}/${item.metadata.name}`);
  }
  for (const entries of Object.values(list)) entries.sort();
  return list;
}

export class SimulatedObjectStore {
  private readonly files = new Map<string, Buffer>();
  private server: Server | undefined;
  private base = '';

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((request, response) => {
      const file = this.files.get((request.url ?? '').split('?')[0] ?? '');
      if (!file) {
        response.writeHead(404).end('NoSuchKey');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/gzip' }).end(file);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A URL for this JSON document gzip'd (undefined: a URL that answers 404). */
  publish(document: unknown | undefined): string {
    const path = `/${randomBytes(12).toString('hex')}`;
    if (document !== undefined) this.files.set(path, gzipSync(JSON.stringify(document)));
    return `${this.base}${path}?X-Amz-Signature=simulated`;
  }
}
