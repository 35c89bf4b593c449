// The HTTP server: the REST API, /metrics, and the OpenAPI document. Binds the configured host.
import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KubeClients } from '../kube/client.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { Metrics } from '../metrics.js';

export interface HttpDeps {
  config: Readonly<Config>;
  cache: RehearsalCache;
  client: RehearsalClient;
  kube: KubeClients;
  metrics: Metrics;
  log: Logger;
  now: () => Date;
}

export function createApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  app.get('/api/v1/health', (_req, res) => {
    res.json({ status: deps.cache.synced ? 'ok' : 'starting' });
  });
  return app;
}

export function startHttpServer(deps: HttpDeps): Promise<Server> {
  const server = createServer(createApp(deps));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => {
      deps.log.info({ host: deps.config.host, port: deps.config.port }, 'HTTP API listening');
      resolve(server);
    });
  });
}
