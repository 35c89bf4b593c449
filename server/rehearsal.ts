// Builds one Rehearsal server from its configuration: caches, engine (leader only), HTTP API.
// main.ts runs it as a process; tests build it in-process with the same code.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createTargetResolver } from './checks/target-resolver.js';
import type { Config } from './config.js';
import { CheckTasks } from './controller/check-tasks.js';
import { RestoreTestController } from './controller/controller.js';
import { KubeEventRecorder } from './controller/events.js';
import { Janitor } from './controller/janitor.js';
import { KubeRunActions } from './controller/kube-run-actions.js';
import { LeaderElector } from './controller/leader-election.js';
import { ReportWriter } from './controller/report-writer.js';
import { RunAdmission } from './controller/run-admission.js';
import { RunReconciler, type RunReconcilerDeps } from './controller/run.reconciler.js';
import { SandboxManager } from './controller/sandbox.js';
import { ScheduleReconciler } from './controller/schedule.reconciler.js';
import { parseDuration } from './domain/duration.js';
import type { RunBounds } from './domain/run-policy.js';
import type { RestoreTest } from './domain/resources.js';
import { loadKubeConfig, makeKubeClients, type KubeClients } from './kube/client.js';
import { RehearsalCache } from './kube/rehearsal-cache.js';
import { RehearsalClient } from './kube/rehearsal-client.js';
import { EvidenceKeyStore } from './evidence/evidence-keys.js';
import { ReportSigner } from './evidence/report-signer.js';
import { LicenseWatch } from './evidence/license-watch.js';
import { KubeDependencyReader } from './checks/dependency-reader.kube.js';
import { KubeSandboxReader } from './checks/sandbox-reader.kube.js';
import { reportTestKeyOf } from './domain/report-index.js';
import { EvidenceVerifier } from './evidence/evidence-verifier.js';
import { loadLicenseKeyRing } from './evidence/license-keys.js';
import { Metrics } from './metrics.js';
import { TestGauges } from './test-gauges.js';
import { ProviderError, type BackupProvider } from './providers/provider.js';
import { KastenProvider } from './providers/kasten/kasten.provider.js';
import { TrilioProvider } from './providers/trilio/trilio.provider.js';
import { VeleroProvider } from './providers/velero/velero.provider.js';
import { VeleroRestoreWatch } from './providers/velero/restore-watch.js';
import { createApp, startHttpServer, type HttpDeps } from './api/http.js';
import { startAggregationServer, type AggregationServer } from './api/aggregation.js';
import { startProbeListener } from './api/probe-listener.js';
import { RequestHeaderWatch } from './api/auth/request-header-watch.js';
import { BackupToolUnavailableError, type ScheduleSource } from './api/ports.js';
import { createRunFollowUps, type RunFollowUps } from './run-follow-ups.js';
import { EvidenceArchive, type EvidenceArchiveDeps } from './archive/evidence-archive.js';

/** A watched Restore is re-read at least this often even without an event (a missed event, a stalled watch). */
const RESTORE_RESYNC_MS = 15_000;

export interface RehearsalOverrides {
  now?: () => Date;
  providers?: Partial<Record<string, BackupProvider>>;
  signer?: Pick<ReportSigner, 'sign'> & Partial<Pick<ReportSigner, 'recordAnchor'>>;
  /** Hook for tests that act at a chosen point of a run: the stage about to be worked on. */
  onStage?: RunReconcilerDeps['onStage'];
  /** Test seam of the evidence archive: between a segment's upload and the delete of its live copies. */
  archiveAfterUpload?: EvidenceArchiveDeps['afterUpload'];
  /** Don't serve HTTP (engine-only tests). */
  withoutHttp?: boolean;
  podReadyTimeoutSeconds?: number;
}

export interface Rehearsal {
  readonly config: Readonly<Config>;
  readonly cache: RehearsalCache;
  readonly client: RehearsalClient;
  readonly kube: KubeClients;
  readonly metrics: Metrics;
  readonly controller: RestoreTestController;
  readonly leader: LeaderElector | undefined;
  /** Notifications, failure diagnostics and backup coverage (issue 16). */
  readonly followUps: RunFollowUps;
  /** The license in effect (Secret rehearsal-license, watched). */
  readonly license: LicenseWatch;
  /** The evidence signing key and the published public keys. */
  readonly evidenceKeys: EvidenceKeyStore;
  /** Whether stored reports' evidence verifies (compliance, PDFs). */
  readonly evidence: EvidenceVerifier;
  /** The evidence archive (S3), when configured. */
  readonly archive: EvidenceArchive | undefined;
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

export function createRehearsal(
  config: Readonly<Config>,
  log: Logger,
  overrides: RehearsalOverrides = {},
): Rehearsal {
  const now = overrides.now ?? (() => new Date());
  const kubeConfig = loadKubeConfig(config.kubeconfigPath);
  const kube = makeKubeClients(kubeConfig);
  const metrics = new Metrics({ defaultMetrics: !overrides.withoutHttp });
  const cache = new RehearsalCache(kubeConfig, log.child({ component: 'cache' }), {
    watchRestarts: (informer) => metrics.watchRestarts.inc({ informer }),
  });
  const client = new RehearsalClient(kube.customObjects);
  const events = new KubeEventRecorder(
    kube.core,
    'rehearsal-controller',
    log.child({ component: 'events' }),
    now,
  );
  const sandboxes = new SandboxManager({
    core: kube.core,
    networking: kube.networking,
    rbac: kube.rbac,
    serviceAccount: { namespace: config.namespace, name: config.serviceAccount },
    dns: config.sandboxDns,
  });
  // The engine's loop is built further down; its queue is what watch events wake.
  const loopHolder: { loop?: RestoreTestController } = {};
  const enqueue = (key: string): void => loopHolder.loop?.queue.add(key);
  // Velero Restores are followed by watch (each change wakes its run), not read per poll.
  const veleroRestores = new VeleroRestoreWatch(kubeConfig, {
    group: 'velero.io',
    onChange: enqueue,
    log: log.child({ component: 'velero-restores' }),
    metrics: { watchRestarts: (informer) => metrics.watchRestarts.inc({ informer }) },
  });
  const providers = overrides.providers ?? {
    velero: new VeleroProvider(kube.customObjects, { namespace: config.veleroNamespace, now, restores: veleroRestores }),
    kasten: new KastenProvider(kube.customObjects),
    trilio: new TrilioProvider(kube.customObjects),
  };

  // Evidence: the signing key (created on first start, shared by every replica through a Secret),
  // the signer every RestoreReport passes through before it is created, and the verifier the
  // compliance evaluation and the PDFs use. The license decides which paid features answer.
  const evidenceKeys = new EvidenceKeyStore({
    kubeConfig,
    core: kube.core,
    namespace: config.namespace,
    log: log.child({ component: 'evidence-keys' }),
    now,
  });
  const signer =
    overrides.signer ??
    new ReportSigner({
      keys: evidenceKeys,
      custom: kube.customObjects,
      log: log.child({ component: 'evidence' }),
      metrics,
    });
  const evidence = new EvidenceVerifier(() => evidenceKeys.keyRing(), {
    reportsOfTest: (testKey) => cache.fullReportsOfTest(testKey),
  });
  cache.onReportChange((event, _key, current, previous) => {
    const report = current ?? previous;
    if (report) evidence.invalidateTest(reportTestKeyOf(report));
    if (event === 'delete' && previous) evidence.forget(previous);
  });
  const license = new LicenseWatch({
    kubeConfig,
    namespace: config.namespace,
    loadKeys: () => loadLicenseKeyRing(config.licensePublicKeys),
    log: log.child({ component: 'license' }),
    now,
  });

  const followUps = createRunFollowUps({
    config,
    kubeConfig,
    kube,
    cache,
    client,
    metrics,
    log,
    now,
    backupTool: providers.velero,
  });

  // The engine: a schedule reconciler, a run reconciler (its I/O behind KubeRunActions) and a
  // report writer, driven by one loop that runs while this replica leads. They enqueue work on the
  // loop built after them.
  const term = (): AbortSignal => loopHolder.loop?.signal() ?? AbortSignal.abort();
  const admission = new RunAdmission(config.maxConcurrentRuns, () => cache.listTests());
  const reader = new KubeSandboxReader(kubeConfig);
  const checkTasks = new CheckTasks({
    reader,
    targets: createTargetResolver(
      config.probeTargets
        ? { mode: 'static', targets: config.probeTargets }
        : { mode: 'cluster-dns', dnsSuffix: `svc.${config.clusterDomain}` },
    ),
    log: log.child({ component: 'checks' }),
    now,
    onDone: enqueue,
  });
  const bounds = (test: RestoreTest): RunBounds => ({
    ttlSeconds: parseDuration(test.spec.sandbox?.ttl ?? '1h') ?? 3600,
    podReadyTimeoutSeconds: overrides.podReadyTimeoutSeconds ?? 600,
    providerUnavailableSeconds: config.providerUnavailableSeconds,
    pollIntervalMs: config.pollIntervalMs,
    ...((providers[test.spec.provider] as BackupProvider | undefined)?.watchesRestores
      ? { restorePollMs: Math.max(config.pollIntervalMs, RESTORE_RESYNC_MS) }
      : {}),
  });
  const archive = config.archive
    ? new EvidenceArchive(config.archive, {
        cache,
        client,
        keyRing: () => evidenceKeys.keyRing(),
        signer: () => evidenceKeys.signingKey()?.key,
        log: log.child({ component: 'archive' }),
        now,
        ...(overrides.archiveAfterUpload ? { afterUpload: overrides.archiveAfterUpload } : {}),
      })
    : undefined;
  // With the archive, reports beyond historyLimit are archived by it, never deleted unarchived.
  const writer = new ReportWriter({ cache, client, signer, metrics, events, log: log.child({ component: 'reports' }), now, pruneHistory: !archive });
  const actions = new KubeRunActions({
    cache,
    client,
    providers,
    sandboxes,
    reader,
    dependencyReader: new KubeDependencyReader(kubeConfig),
    clusterDomain: config.clusterDomain,
    checkTasks,
    admission,
    writer,
    events,
    term,
    enqueue,
    bounds,
    now,
    // HOOK (issue 16): failure triage before a failed/partial run's sandbox may go.
    beforeSandboxRelease: (report) => followUps.diagnostics.beforeSandboxRelease(report),
    proberNamespace: config.namespace,
    proberPodLabels: config.proberPodLabels,
  });
  const schedules = new ScheduleReconciler({
    actions: {
      writeStatus: (test, status) => actions.writeStatus(test, status),
      record: (test, type, reason, message) => actions.record(test, type, reason, message),
      recordInterval: (test, seconds) =>
        metrics.scheduleIntervalSeconds.set({ namespace: test.metadata.namespace, test: test.metadata.name }, seconds),
    },
    now,
    missedRunWindowSeconds: config.missedRunWindowSeconds,
  });
  const janitor = new Janitor({
    core: kube.core,
    cache,
    client,
    sandboxes,
    log: log.child({ component: 'janitor' }),
    now,
  });
  const loop = new RestoreTestController(
    {
      cache,
      schedules,
      runs: new RunReconciler({ actions, now, bounds, ...(overrides.onStage ? { onStage: overrides.onStage } : {}) }),
      admission,
      checkTasks,
      janitor,
      metrics,
      log: log.child({ component: 'controller' }),
    },
    { workers: 8, janitorIntervalMs: config.janitorIntervalSeconds * 1000 },
  );
  loopHolder.loop = loop;
  // Per-test gauges from the cache on every replica (survive restarts and failovers).
  const testGauges = new TestGauges(cache, metrics, now);
  const startEngine = (): void => {
    testGauges.rebuild();
    loop.start();
    followUps.startOnLeader();
    archive?.startOnLeader();
  };
  const stopEngine = (): void => {
    loop.stop();
    followUps.stopOnLeader();
    archive?.stopOnLeader();
  };
  const leader =
    config.runController && config.leaderElection
      ? new LeaderElector(
          kube.coordination,
          { namespace: config.namespace, name: config.leaseName, identity: config.identity },
          { onStartedLeading: startEngine, onStoppedLeading: stopEngine },
          log.child({ component: 'leader-election' }),
        )
      : undefined;

  let server: Server | undefined;
  let aggregation: AggregationServer | undefined;
  let probe: Server | undefined;
  // The front-proxy trust for the aggregation port (read only when that port is served).
  const requestHeader = config.aggregation
    ? new RequestHeaderWatch(kubeConfig, log.child({ component: 'request-header' }))
    : undefined;
  const backupSchedules = scheduleSourceOf(providers.velero);
  const coverage = followUps.coverage;
  const httpDeps: HttpDeps = {
    config,
    cache,
    client,
    kube,
    metrics,
    log: log.child({ component: 'http' }),
    now,
    ...(backupSchedules ? { schedules: backupSchedules } : {}),
    ...(coverage ? { coverage } : {}),
    diagnoses: followUps.diagnoses,
    verifyEvidence: (report, keys) => evidence.verify(report, keys),
    evidenceProblems: (report) => evidence.problems(report),
    license,
    evidenceKeys: {
      publicKeys: () => evidenceKeys.publicKeys(),
      signingKey: () => evidenceKeys.signingKey(),
      keyRing: () => evidenceKeys.keyRing(),
    },
  };
  return {
    config,
    cache,
    client,
    kube,
    metrics,
    controller: loop,
    leader,
    followUps,
    license,
    evidenceKeys,
    evidence,
    archive,
    port: () => {
      const address = server?.address();
      return typeof address === 'object' && address ? address.port : undefined;
    },
    aggregationPort: () => aggregation?.port(),
    async start() {
      await cache.start();
      testGauges.rebuild();
      await license.start();
      // Blocks until this replica has a signing key: without one no report could be written.
      await evidenceKeys.start();
      // Archived reports join the cache before anything reads it (the keys verify their manifests).
      await archive?.load();
      // Verify the stored evidence in the background, so the first compliance request does not.
      evidence
        .warm(cache.allReports())
        .catch((error: unknown) => log.error({ err: error }, 'verifying stored evidence failed'));
      followUps.start();
      if (!overrides.withoutHttp) {
        const app = createApp(httpDeps);
        server = await startHttpServer(httpDeps, app);
        if (config.probe) {
          probe = await startProbeListener({
            ...config.probe,
            health: () => ({ status: cache.synced ? 'ok' : 'starting' }),
            metrics: metrics.registry,
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
      }
      if (!config.runController) return;
      if (leader) leader.start();
      else startEngine();
    },
    async stop() {
      stopEngine();
      await leader?.stop();
      await aggregation?.close();
      await new Promise<void>((resolve) => (probe ? probe.close(() => resolve()) : resolve()));
      requestHeader?.stop();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server?.closeAllConnections?.();
      followUps.stop();
      archive?.stop();
      license.stop();
      evidenceKeys.stop();
      cache.stop();
      veleroRestores.stop();
    },
  };
}
