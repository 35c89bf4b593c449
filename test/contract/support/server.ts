// Runs the real Express app in-process on 127.0.0.1 (port 0) over the in-memory fakes, with the
// generated openapi-fetch client pointed at it through the contract-checking fetch.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { loadConfig } from '../../../server/config.js';
import { Metrics } from '../../../server/metrics.js';
import { createApp, type HttpDeps } from '../../../server/api/http.js';
import type { AccessReviewer } from '../../../server/api/auth/access-review.js';
import { createRehearsalClient, type RehearsalApiClient } from '../../../openapi/client.js';
import { ContractValidator, loadDocument } from './contract.js';
import { FakeCluster, FakeSchedules, writerOf } from './fake-cluster.js';

export const NOW = new Date('2026-03-15T12:00:00Z');

export interface TestServer {
  baseUrl: string;
  cluster: FakeCluster;
  schedules: FakeSchedules;
  contract: ContractValidator;
  /** The generated client; every answer it receives is checked against openapi.json. */
  api: RehearsalApiClient;
  /** A plain fetch that is checked too, for requests the typed client cannot express. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  /** An unchecked fetch, for paths outside the API (/openapi.json, /docs, unknown routes). */
  rawFetch: (path: string, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  authMode?: 'none' | 'kubernetes';
  reviewer?: AccessReviewer;
  token?: string;
  triggerWaitMs?: number;
  withoutSchedules?: boolean;
  contract?: ContractValidator;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const cluster = new FakeCluster();
  const schedules = new FakeSchedules();
  const contract = options.contract ?? new ContractValidator(loadDocument());
  const config = loadConfig({
    REHEARSAL_AUTH_MODE: options.authMode ?? 'none',
    REHEARSAL_HOST: '127.0.0.1',
    REHEARSAL_PORT: '0',
  });
  const deps: HttpDeps = {
    config,
    cache: cluster,
    client: writerOf(cluster),
    metrics: new Metrics({ defaultMetrics: false }),
    log: pino({ level: 'silent' }),
    now: () => NOW,
    triggerWaitMs: options.triggerWaitMs ?? 1_000,
    ...(options.withoutSchedules ? {} : { schedules }),
    ...(options.reviewer ? { accessReviewer: options.reviewer } : {}),
  };
  const server: Server = createServer(createApp(deps));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const checkedFetch = contract.fetch();
  return {
    baseUrl,
    cluster,
    schedules,
    contract,
    api: createRehearsalClient({
      baseUrl,
      fetch: checkedFetch,
      ...(options.token ? { token: options.token } : {}),
    }),
    fetch: (path, init) => checkedFetch(new Request(`${baseUrl}${path}`, init)),
    rawFetch: (path, init) => fetch(`${baseUrl}${path}`, init),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
