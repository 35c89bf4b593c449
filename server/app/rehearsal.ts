// Builds one Rehearsal server from its configuration: caches, engine (leader only), HTTP API.
// main.ts runs it as a process; tests build it in-process with the same code. The parts are built
// in rehearsal-evidence.ts, rehearsal-engine.ts and rehearsal-http.ts; this file wires them and
// owns the start and stop order, which matters: nothing reads the cache before it synced, no
// report is written before the signing key exists, and the lease is released before anything
// the engine needs is stopped.
import { ClusterDefaultsWatch } from '../kube/cluster-defaults-watch.js';
import type { ClusterDefaults } from '../domain/run/cluster-defaults.js';
import type { Logger } from 'pino';
import type { EvidenceArchive, EvidenceArchiveDeps } from '../archive/evidence-archive.js';
import type { AnchorWriter } from '../evidence/anchor/anchor-writer.js';
import type { ReportCascade } from '../engine/report-cascade.js';
import type { Config } from '../config.js';
import type { RestoreTestController } from '../engine/reconcile-loop.js';
import type { LeaderElector } from '../engine/leader-election.js';
import type { RunReconcilerDeps } from '../engine/run/run.reconciler.js';
import type { EvidenceKeyStore } from '../evidence/evidence-keys.js';
import type { EvidenceVerifier } from '../evidence/evidence-verifier.js';
import type { LicenseWatch } from '../license/license-watch.js';
import { loadKubeConfig, makeKubeClients, type KubeClients } from '../kube/client.js';
import { RehearsalCache } from '../kube/rehearsal-cache.js';
import { RehearsalClient } from '../kube/rehearsal-client.js';
import { TestStatusWriter } from '../kube/test-status.js';
import { Metrics } from '../metrics/metrics.js';
import type { BackupProvider } from '../providers/provider.js';
import { KastenProvider } from '../providers/kasten/kasten.provider.js';
import { TrilioProvider } from '../providers/trilio/trilio.provider.js';
import { VeleroProvider } from '../providers/velero/velero.provider.js';
import { VeleroRestoreWatch } from '../providers/velero/restore-watch.js';
import { VeleroBackupWatch } from '../providers/velero/backup-watch.js';
import { testsOfProviderNamespace, testsWatchingBackups } from '../domain/run/backup-trigger.js';
import { keyOf } from '../domain/run/run-queue.js';
import type { RehearsalBasics } from './rehearsal-basics.js';
import { createEngine, EngineWakeUp } from './rehearsal-engine.js';
import { createEvidenceParts, type RunSigner } from './rehearsal-evidence.js';
import { createListeners } from './rehearsal-http.js';
import { testKeyOf } from '../domain/read-models/report-index.js';
import { createRunFollowUps, type RunFollowUps } from './run-follow-ups.js';
import { TestGauges } from '../metrics/restore-test-gauges.js';

export interface RehearsalOverrides {
  now?: () => Date;
  providers?: Partial<Record<string, BackupProvider>>;
  signer?: RunSigner;
  /** Hook for tests that act at a chosen point of a run: the stage about to be worked on. */
  onStage?: RunReconcilerDeps['onStage'];
  /** Test seam of the evidence archive: between a segment's upload and the delete of its live copies. */
  archiveAfterUpload?: EvidenceArchiveDeps['afterUpload'];
  /** Don't serve HTTP (engine-only tests). */
  withoutHttp?: boolean;
  podReadyTimeoutSeconds?: number;
  /** How long a restored claim may stay Pending after a binding failure before the run fails (default 120 s, issue 27). */
  claimBindTimeoutSeconds?: number;
  /** How often the admission guard looks for the admission policies without being asked (default 60 s). */
  admissionCheckIntervalMs?: number;
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
  /** The evidence anchor writer (write-once S3 + timestamp authority), when configured. */
  readonly anchors: AnchorWriter | undefined;
  /** Removes deleted tests' reports (leader only). */
  readonly cascade: ReportCascade;
  /** The bound HTTP port (useful with port 0). */
  port(): number | undefined;
  /** The bound aggregated-API (HTTPS) port, when REHEARSAL_AGGREGATION_PORT is set. */
  aggregationPort(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
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
  const testStatus = new TestStatusWriter(kube.customObjects, log.child({ component: 'status' }), now);
  // The engine's loop is built further down; its queue is what watch events wake.
  const wakeUp = new EngineWakeUp();
  // Velero Restores are followed by watch (each change wakes its run), not read per poll.
  const veleroRestores = new VeleroRestoreWatch(kubeConfig, {
    group: 'velero.io',
    onChange: wakeUp.enqueue,
    log: log.child({ component: 'velero-restores' }),
    metrics: { watchRestarts: (informer) => metrics.watchRestarts.inc({ informer }) },
  });
  // Completed Velero Backups wake the onBackup tests of that Velero namespace (issue 32); the
  // engine follows a namespace once an onBackup test uses it.
  const veleroBackups = new VeleroBackupWatch(kubeConfig, {
    group: 'velero.io',
    onCompleted: (veleroNamespace) => {
      for (const test of testsWatchingBackups(cache.listTests(), 'velero', veleroNamespace, config.veleroNamespace)) wakeUp.enqueue(keyOf(test));
      // Every test of that Velero namespace gets a pre-flight look (issue 32): the engine is built
      // below, and a backup completes only after the watch starts, from the engine's first pass.
      engine.preflight?.backupCompleted(testsOfProviderNamespace(cache.listTests(), 'velero', veleroNamespace, config.veleroNamespace));
    },
    log: log.child({ component: 'velero-backups' }),
    metrics: { watchRestarts: (informer) => metrics.watchRestarts.inc({ informer }) },
  });
  const providers = overrides.providers ?? {
    velero: new VeleroProvider(kube.customObjects, { namespace: config.veleroNamespace, now, restores: veleroRestores, configMaps: kube.core }),
    kasten: new KastenProvider(kube.customObjects),
    trilio: new TrilioProvider(kube.customObjects),
  };
  const basics: RehearsalBasics = { config, kubeConfig, kube, cache, client, testStatus, metrics, log, now };
  const evidenceParts = createEvidenceParts({ ...basics, signer: overrides.signer });
  const { evidenceKeys, evidence, license } = evidenceParts;
  // Coverage and test drafts read the configured backup tool (REHEARSAL_BACKUP_TOOL, issue 32).
  const coverageTool = providers[config.backupTool];
  const followUps = createRunFollowUps({ ...basics, backupTool: coverageTool });
  // Per-test gauges from the cache on every replica (survive restarts and failovers).
  const testGauges = new TestGauges(cache, metrics, now);
  // Cluster-wide defaults (issue 30): watched on every replica (the engine's runs, the API's alerts).
  const clusterDefaultsWatch = new ClusterDefaultsWatch({
    kubeConfig,
    namespace: config.namespace,
    log: log.child({ component: 'cluster-defaults' }),
    onProblems: (problems) => metrics.setClusterDefaultsInvalid(problems.map((problem) => problem.key)),
  });
  const clusterDefaults = (): Readonly<ClusterDefaults> => clusterDefaultsWatch.current();
  const engine = createEngine({
    ...basics,
    wakeUp,
    providers,
    signer: evidenceParts.signer,
    evidenceKeys,
    followUps,
    testGauges,
    clusterDefaults,
    onStage: overrides.onStage,
    followBackups: (test) => {
      if (test.spec.provider === 'velero') veleroBackups.follow(test.spec.backupSource.providerNamespace || config.veleroNamespace);
    },
    archiveAfterUpload: overrides.archiveAfterUpload,
    podReadyTimeoutSeconds: overrides.podReadyTimeoutSeconds,
    claimBindTimeoutSeconds: overrides.claimBindTimeoutSeconds,
    admissionCheckIntervalMs: overrides.admissionCheckIntervalMs,
  });
  const { leader, archive, anchors, cascade } = engine;
  const listeners = createListeners({ ...basics, scheduleTool: providers.velero, backupTool: coverageTool, followUps, evidence: evidenceParts, clusterDefaults, anchors });
  return {
    config,
    cache,
    client,
    kube,
    metrics,
    controller: engine.loop,
    leader,
    followUps,
    license,
    evidenceKeys,
    evidence,
    archive,
    anchors,
    cascade,
    port: () => listeners.port(),
    aggregationPort: () => listeners.aggregationPort(),
    async start() {
      await cache.start();
      testGauges.rebuild();
      // Resolves after the first read (found or not): the first run already uses the admin's defaults.
      await clusterDefaultsWatch.start();
      await license.start();
      // Blocks until this replica has a signing key: without one no report could be written.
      await evidenceKeys.start();
      // Archived reports join the cache before anything reads it (the keys verify their manifests).
      await archive?.load();
      // Verify the stored evidence (each test's chain) in the background, so the first compliance
      // request does not.
      evidence
        .warmChains(cache.listTests().map(testKeyOf))
        .catch((error: unknown) => log.error({ err: error }, 'verifying stored evidence failed'));
      followUps.start();
      if (!overrides.withoutHttp) await listeners.start();
      if (!config.runController) return;
      if (leader) leader.start();
      else engine.start();
      anchors?.startAuditing();
    },
    async stop() {
      engine.stop();
      await leader?.stop();
      await listeners.stop();
      followUps.stop();
      archive?.stop();
      anchors?.stopAuditing();
      license.stop();
      clusterDefaultsWatch.stop();
      evidenceKeys.stop();
      cache.stop();
      veleroRestores.stop();
      veleroBackups.stop();
    },
  };
}
