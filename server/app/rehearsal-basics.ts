// What every part of a Rehearsal server is built from: its configuration, the Kubernetes clients
// and caches, metrics, a logger and the clock. rehearsal.ts makes them once and hands the same
// ones to each part, so every part sees the same cache and the same (in tests, fake) clock.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KubeClients } from '../kube/client.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { TestStatusWriter } from '../kube/test-status.js';
import type { Metrics } from '../metrics/metrics.js';

export interface RehearsalBasics {
  config: Readonly<Config>;
  kubeConfig: KubeConfig;
  kube: KubeClients;
  cache: RehearsalCache;
  client: RehearsalClient;
  /** The one writer of RestoreTest.status (a field manager per owner). */
  testStatus: TestStatusWriter;
  metrics: Metrics;
  log: Logger;
  now: () => Date;
}
