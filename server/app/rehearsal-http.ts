// The listeners of a Rehearsal server: the HTTP API, the probe port (health and metrics) and the
// aggregated-API port the Kubernetes API server proxies to. They run on every replica, leader or
// not, and answer from the caches; the engine's parts reach them only through the API's ports.
import type { AnchorWriter } from '../evidence/anchor/anchor-writer.js';
import type { ClusterDefaults } from '../domain/run/cluster-defaults.js';
import type { Server } from 'node:http';
import { startAggregationServer, type AggregationServer } from '../api/aggregation.js';
import { RequestHeaderWatch } from '../api/auth/request-header-watch.js';
import { createApp, createMetricsReviewer, startHttpServer, type HttpDeps } from '../api/http.js';
import { BackupToolUnavailableError, type ScheduleSource } from '../api/ports.js';
import { startProbeListener } from '../api/probe-listener.js';
import { ProviderError, type BackupProvider } from '../providers/provider.js';
import type { RehearsalBasics } from './rehearsal-basics.js';
import type { EvidenceParts } from './rehearsal-evidence.js';
import type { RunFollowUps } from './run-follow-ups.js';
import { DiagnosisUnreadableError } from '../triage/diagnosis-store.js';
import { SandboxInventory } from '../engine/sandbox/sandbox-inventory.js';
import { SandboxVolumes } from '../engine/sandbox/sandbox-volumes.js';
import { sandboxAdmin } from './sandbox-admin.js';
import { readNamespaceFacts } from '../inventory/workloads.kube.js';

export interface ListenerDeps extends RehearsalBasics {
  /** The provider whose schedules GET /api/v1/schedules lists (Velero). */
  scheduleTool: BackupProvider | undefined;
  /** The provider coverage and test drafts read (REHEARSAL_BACKUP_TOOL): drafts restore from it. */
  backupTool: BackupProvider | undefined;
  followUps: RunFollowUps;
  evidence: Pick<EvidenceParts, 'evidence' | 'evidenceKeys' | 'license'>;
  /** The cluster-wide defaults in effect (the alert thresholds of the API's alert list). */
  clusterDefaults: () => Readonly<ClusterDefaults>;
  /** The evidence anchor writer, when anchors are configured (its audit goes on the PDFs). */
  anchors: AnchorWriter | undefined;
}

export interface Listeners {
  /** The bound HTTP port (useful with port 0). */
  port(): number | undefined;
  /** The bound aggregated-API (HTTPS) port, when REHEARSAL_AGGREGATION_PORT is set. */
  aggregationPort(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A provider's schedules as the API's port; "tool unavailable" becomes the API's 503 error. */
function scheduleSourceOf(provider: BackupProvider | undefined): ScheduleSource | undefined {
  const listSchedules = provider?.listSchedules?.bind(provider);
  if (!listSchedules) return undefined;
  return {
    async listSchedules() {
      try {
        return await listSchedules();
      } catch (error) {
        if (error instanceof ProviderError && error.reason === 'ProviderUnavailable') {
          throw new BackupToolUnavailableError(error.message);
        }
        throw error;
      }
    },
  };
}

export function createListeners(deps: ListenerDeps): Listeners {
  const { config, kubeConfig, cache, metrics, log, followUps } = deps;
  const { evidence, evidenceKeys, license } = deps.evidence;
  let server: Server | undefined;
  let aggregation: AggregationServer | undefined;
  let probe: Server | undefined;
  // The front-proxy trust for the aggregation port (read only when that port is served).
  const requestHeader = config.aggregation
    ? new RequestHeaderWatch(kubeConfig, log.child({ component: 'request-header' }))
    : undefined;
  const backupSchedules = scheduleSourceOf(deps.scheduleTool);
  const coverage = followUps.coverage;
  const httpDeps: HttpDeps = {
    config,
    cache,
    client: deps.client,
    kube: deps.kube,
    metrics,
    log: log.child({ component: 'http' }),
    now: deps.now,
    clusterDefaults: deps.clusterDefaults,
    ...(backupSchedules ? { schedules: backupSchedules } : {}),
    sandboxes: sandboxAdmin({
      inventory: new SandboxInventory({ core: deps.kube.core, cache, client: deps.client, now: deps.now }),
      core: deps.kube.core,
      volumes: new SandboxVolumes({
        core: deps.kube.core,
        custom: deps.kube.customObjects,
        namespace: config.namespace,
        now: deps.now,
        log: log.child({ component: 'sandbox-volumes' }),
      }),
    }),
    ...(coverage ? { coverage } : {}),
    ...(deps.backupTool
      ? { workloads: { provider: deps.backupTool.name, readNamespace: (namespace: string) => readNamespaceFacts(deps.kube, namespace) } }
      : {}),
    // An unreadable stored diagnosis is answered as none (the collector replaces it).
    diagnoses: {
      load: (run) =>
        followUps.diagnoses.load(run).catch((error: unknown) => {
          if (error instanceof DiagnosisUnreadableError) return undefined;
          throw error;
        }),
    },
    verifyEvidence: (report, keys) => evidence.verify(report, keys),
    evidenceProblems: (report) => evidence.problems(report),
    license,
    ...(deps.anchors ? { anchors: deps.anchors } : {}),
    evidenceKeys: {
      publicKeys: () => evidenceKeys.publicKeys(),
      signingKey: () => evidenceKeys.signingKey(),
      keyRing: () => evidenceKeys.keyRing(),
    },
  };
  return {
    port: () => {
      const address = server?.address();
      return typeof address === 'object' && address ? address.port : undefined;
    },
    aggregationPort: () => aggregation?.port(),
    async start() {
      const app = createApp(httpDeps);
      server = await startHttpServer(httpDeps, app);
      if (config.probe) {
        probe = await startProbeListener({
          ...config.probe,
          health: () => ({ status: cache.synced ? 'ok' : 'starting' }),
          metrics: metrics.registry,
          // In every auth mode: this port is on the pod network (none relaxes port 8080 only).
          metricsReviewer: createMetricsReviewer(httpDeps),
          log: log.child({ component: 'probe' }),
        });
      }
      if (config.aggregation && requestHeader) {
        await requestHeader.start();
        aggregation = await startAggregationServer({
          app,
          host: config.aggregation.host,
          port: config.aggregation.port,
          tls: { certFile: config.aggregation.tlsCertFile, keyFile: config.aggregation.tlsKeyFile },
          requestHeader: () => requestHeader.current(),
          onRequestHeaderChange: (listener) => requestHeader.onChange(listener),
          log: log.child({ component: 'aggregation' }),
        });
      }
    },
    async stop() {
      await aggregation?.close();
      await new Promise<void>((resolve) => (probe ? probe.close(() => resolve()) : resolve()));
      requestHeader?.stop();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server?.closeAllConnections?.();
    },
  };
}
