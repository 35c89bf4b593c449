// Bulk writes to the apiserver for the benchmark's data load: one undici Pool (keep-alive TLS
// connections with the kubeconfig's client certificate) and a bounded number of requests in
// flight. The @kubernetes/client-node API clients would do, but a pool of reused connections and
// plain JSON keep 90,000 creates to a few minutes on two cores.
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Pool } from 'undici';

export interface KubeResponse<T = unknown> {
  status: number;
  body: T;
}

export class KubeBulkClient {
  private constructor(
    private readonly pool: Pool,
    private readonly headers: Record<string, string>,
  ) {}

  static async fromKubeconfig(path: string, connections: number): Promise<KubeBulkClient> {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(path);
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(`${path}: no current cluster`);
    const server = new URL(cluster.server);
    if (server.hostname !== '127.0.0.1' && server.hostname !== 'localhost') {
      throw new Error(`refusing to load benchmark data into ${cluster.server}: only a loopback test cluster`);
    }
    const tls: RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    const authorization = (tls.headers as Record<string, string> | undefined)?.Authorization;
    if (authorization) headers.authorization = authorization;
    const pool = new Pool(server.origin, {
      connections,
      pipelining: 1,
      connect: {
        ca: tls.ca as string | Buffer | undefined,
        cert: tls.cert as string | Buffer | undefined,
        key: tls.key as string | Buffer | undefined,
        rejectUnauthorized: !cluster.skipTLSVerify,
      },
    });
    return new KubeBulkClient(pool, headers);
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<KubeResponse<T>> {
    const response = await this.pool.request({
      method: method as 'GET',
      path,
      headers: contentType ? { ...this.headers, 'content-type': contentType } : this.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Runs `work` for every item with at most `concurrency` at a time; rejects on the first error. */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
  onProgress?: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const index = next;
      next += 1;
      if (index >= items.length) return;
      await work(items[index]!, index);
      done += 1;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, () => worker()));
}
