// An apiserver that refuses the streaming watch list (before Kubernetes 1.27, or with the WatchList
// feature gated off) must still be served: the informer falls back to paged LIST + watch.
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { refusesWatchList, ResilientInformer } from '../../../server/kube/informer.js';
import { createLogger } from '../../../server/logger.js';

const COLLECTION = '/apis/rehearsal.dev/v1alpha1/healthcheckpolicies';
const policy = (name: string) => ({
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'HealthCheckPolicy',
  metadata: { name, namespace: 'team-a', resourceVersion: '7' },
  spec: { checks: [] },
});

let server: Server | undefined;
afterEach(() => {
  server?.close();
});

async function fakeApiserver(
  refuseWatchList: boolean,
  busyWatchListAnswers = 0,
): Promise<{ config: KubeConfig; requests: string[] }> {
  const requests: string[] = [];
  let busy = busyWatchListAnswers;
  server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    requests.push(`${url.pathname}?${[...url.searchParams.keys()].sort().join('&')}`);
    if (url.pathname !== COLLECTION) {
      response.writeHead(404).end();
    } else if (url.searchParams.get('sendInitialEvents') === 'true' && busy > 0) {
      // API priority and fairness shedding load: not a refusal of the watch list.
      busy -= 1;
      response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      response.end(
        JSON.stringify({ kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests' }),
      );
    } else if (url.searchParams.get('sendInitialEvents') === 'true') {
      if (refuseWatchList) {
        response.writeHead(422, { 'Content-Type': 'application/json' });
        response.end(
          JSON.stringify({
            kind: 'Status',
            status: 'Failure',
            code: 422,
            message: 'sendInitialEvents is forbidden',
          }),
        );
      } else {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.write(`${JSON.stringify({ type: 'ADDED', object: policy('streamed') })}\n`);
        response.write(
          `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'HealthCheckPolicy', metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } } })}\n`,
        );
        // Left open, as a watch is.
      }
    } else if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'Content-Type': 'application/json' }); // a quiet watch
    } else {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'HealthCheckPolicyList',
          metadata: { resourceVersion: '8' },
          items: [policy('listed')],
        }),
      );
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${address.port}`, skipTLSVerify: true }],
    users: [{ name: 'fake' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return { config, requests };
}

function informerOf(config: KubeConfig) {
  return new ResilientInformer(
    config,
    {
      name: 'policies',
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'HealthCheckPolicy',
      collectionPath: COLLECTION,
      project: (object) => object,
    },
    createLogger('silent'),
  );
}

describe('ResilientInformer initial sync', () => {
  it('falls back to paged LIST + watch when the apiserver refuses the watch list', async () => {
    const { config, requests } = await fakeApiserver(true);
    const informer = informerOf(config);
    await informer.start();
    try {
      expect(informer.syncMethod).toBe('list');
      expect([...informer.values()].map((object) => object.metadata?.name)).toEqual(['listed']);
      expect(requests[0]).toContain('sendInitialEvents');
      expect(requests.some((request) => request.includes('limit'))).toBe(true);
    } finally {
      informer.stop();
    }
  });

  it('retries the watch list with backoff after 429 Too Many Requests, never falling back to LIST', async () => {
    const { config, requests } = await fakeApiserver(false, 2);
    const informer = informerOf(config);
    const started = Date.now();
    await informer.start();
    try {
      expect(informer.syncMethod).toBe('watch-list');
      expect([...informer.values()].map((object) => object.metadata?.name)).toEqual(['streamed']);
      const watchListStarts = requests.filter((request) => request.includes('sendInitialEvents'));
      expect(watchListStarts).toHaveLength(3);
      expect(requests.some((request) => request.includes('limit'))).toBe(false);
      // Backoff: 500 ms, then 1 s, before the third attempt.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    } finally {
      informer.stop();
    }
  });

  it('is synced by the bookmark that ends the initial events', async () => {
    const { config, requests } = await fakeApiserver(false);
    const informer = informerOf(config);
    await informer.start();
    try {
      expect(informer.syncMethod).toBe('watch-list');
      expect([...informer.values()].map((object) => object.metadata?.name)).toEqual(['streamed']);
      expect(requests.some((request) => request.includes('limit'))).toBe(false);
    } finally {
      informer.stop();
    }
  });
});

describe('refusesWatchList', () => {
  it.each([
    [{ statusCode: 422 }, true],
    [{ statusCode: 400 }, true],
    [{ code: 410 }, true],
    [{ statusCode: 429 }, false],
    [{ statusCode: 408 }, false],
    [{ statusCode: 500 }, false],
    [{ statusCode: 503 }, false],
    [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), false],
    [undefined, false],
  ])('%j → %s', (error, refused) => {
    expect(refusesWatchList(error)).toBe(refused);
  });
});
