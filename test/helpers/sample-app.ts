// A small "shop" application for restore tests: a web Deployment + Service, a database Service
// whose credentials live in a Secret, and a ConfigMap — created in a source namespace so a
// (simulated) Velero backup of it can be restored into sandboxes. The HTTP and SQL endpoints the
// health checks probe are real servers on 127.0.0.1 (the target-resolution seam maps the
// sandbox Services there), because KWOK pods serve nothing and must never be dialed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { HealthCheck } from '../../server/domain/resources/resources.js';
import { startPostgres, type PostgresServer } from './postgres.js';

export const SHOP_DB = { name: 'shop', user: 'shop_app', password: 'restore-me-0' };

export async function createShopApp(kubeConfig: KubeConfig, namespace: string): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace, labels: { app: 'shop' } } } });
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'example/shop-web:1.4', ports: [{ containerPort: 8080 }] }] },
        },
      },
    },
  });
  await core.createNamespacedService({
    namespace,
    body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 as never }] } },
  });
  await core.createNamespacedService({
    namespace,
    body: { metadata: { name: 'db' }, spec: { selector: { app: 'db' }, ports: [{ port: 5432 }] } },
  });
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'db-credentials' },
      stringData: { username: SHOP_DB.user, password: SHOP_DB.password },
    },
  });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { currency: 'EUR' } } });
}

export interface ShopEndpoints {
  http: Server;
  httpPort: number;
  postgres: PostgresServer;
  /** Probe targets for the sandbox Services (REHEARSAL_PROBE_TARGETS). */
  targets: Record<string, string>;
  /** Makes /healthz slow (ms) to keep checks in flight. */
  setHealthDelay(ms: number): void;
  stop(): Promise<void>;
}

/** The app's real endpoints: /healthz (200 "ok"), /broken (500), and a PostgreSQL with orders. */
export async function startShopEndpoints(): Promise<ShopEndpoints> {
  let delay = 0;
  const http = createServer((request, response) => {
    const answer = (): void => {
      if (request.url === '/healthz') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('ok');
      } else {
        response.writeHead(500);
        response.end('internal error');
      }
    };
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const httpPort = (http.address() as AddressInfo).port;
  const postgres = await startPostgres({
    databases: [
      {
        name: SHOP_DB.name,
        owner: { user: SHOP_DB.user, password: SHOP_DB.password },
        sql: [
          'CREATE TABLE orders (id serial PRIMARY KEY, total numeric NOT NULL, placed_at timestamptz NOT NULL DEFAULT now())',
          'INSERT INTO orders (total) VALUES (19.90), (42.00), (7.50)',
        ],
      },
    ],
  });
  return {
    http,
    httpPort,
    postgres,
    targets: { 'web:80': `127.0.0.1:${httpPort}`, 'db:5432': `127.0.0.1:${postgres.port}` },
    setHealthDelay(ms: number) {
      delay = ms;
    },
    async stop() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await postgres.stop();
    },
  };
}

/** Inline checks that prove the shop works: pods, HTTP, SQL data, and the credentials Secret. */
export function shopChecks(overrides: { httpPath?: string; expectedOrders?: string } = {}): HealthCheck[] {
  return [
    { name: 'web-pods', kind: 'podsReady', podsReady: { selector: { app: 'web' }, minReady: 2 } },
    {
      name: 'web-health',
      kind: 'httpGet',
      // Generous: the test machine may be loaded; a hung endpoint is still caught.
      timeout: '15s',
      httpGet: { service: 'web', port: 80, path: overrides.httpPath ?? '/healthz', expectedStatus: 200, bodyMatch: 'ok' },
    },
    {
      name: 'orders-present',
      kind: 'sqlQuery',
      timeout: '20s',
      // The shop's data: missing orders is never a pass (decision 0004).
      critical: true,
      sqlQuery: {
        engine: 'postgres',
        service: 'db',
        port: 5432,
        database: SHOP_DB.name,
        credentialsSecret: { name: 'db-credentials' },
        query: 'SELECT count(*) FROM orders',
        expectedValue: overrides.expectedOrders ?? '3',
      },
    },
    {
      name: 'credentials-restored',
      kind: 'resourceExists',
      resourceExists: { apiVersion: 'v1', kind: 'Secret', name: 'db-credentials' },
    },
  ];
}
