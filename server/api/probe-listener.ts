// The probe port (REHEARSAL_PROBE_PORT): /api/v1/health and /metrics only, for the kubelet's
// probes and Prometheus, on every interface of the pod. It answers nothing else, which is what lets
// the API port (8080, bearer tokens in plain HTTP) bind loopback only (reached with kubectl
// port-forward) while probes and scraping still reach the pod (decision 0009). Health is open (the
// kubelet sends no token); /metrics needs a token allowed to `get /metrics` in every auth mode
// (metrics-access.ts, issue 26): this port is on the pod network.
import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import { requireMetricsAccess, type MetricsReviewer } from './auth/metrics-access.js';
import type { HealthResponse } from './context.js';
import { securityHeaders } from './security-headers.js';

export interface ProbeListenerOptions {
  host: string;
  port: number;
  health: () => HealthResponse;
  metrics: { contentType: string; metrics(): Promise<string> };
  /** Reviews the bearer token of a /metrics request; absent = /metrics always answers 401. */
  metricsReviewer: MetricsReviewer | undefined;
  log: Logger;
}

export function startProbeListener(options: ProbeListenerOptions): Promise<Server> {
  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  app.get('/api/v1/health', (_req, res) => {
    res.json(options.health());
  });
  app.get('/metrics', requireMetricsAccess(options.metricsReviewer, options.log), async (_req, res) => {
    res.setHeader('Content-Type', options.metrics.contentType);
    res.send(await options.metrics.metrics());
  });
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('the probe port serves /api/v1/health and /metrics only\n');
  });
  const server = createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      options.log.info({ host: options.host, port: options.port }, 'probe port listening');
      resolve(server);
    });
  });
}
