// The engine part of a Rehearsal server: a schedule reconciler, a run reconciler (its reads behind
// KubeRunReads, its writes behind KubeRunActions) and a report writer, driven by one loop that
// runs while this replica leads, and the evidence archive that keeps the reports the writer no
// longer prunes, and the report cascade that removes deleted tests' reports.
import { createTargetResolver } from '../checks/target-resolver.js';
import { KubeDependencyReader } from '../checks/dependency-reader.kube.js';
import { KubeSandboxReader } from '../checks/sandbox-reader.kube.js';
import { CheckTasks } from '../engine/run/check-tasks.js';
import { RestoreTestController } from '../engine/reconcile-loop.js';
import { KubeClaimReader } from '../engine/run/claim-reader.js';
import { KubeEventRecorder } from '../engine/events.js';
import { Janitor } from '../engine/sandbox/janitor.js';
import { SandboxInventory } from '../engine/sandbox/sandbox-inventory.js';
import { KubeRunActions } from '../engine/run/kube-run-actions.js';
import { KubeRunReads } from '../engine/run/kube-run-reads.js';
import { AuthorReview } from '../engine/run/author-review.js';
import { AdmissionGuard } from '../engine/admission-guard.js';
import { AdmissionregistrationV1Api, StorageV1Api } from '@kubernetes/client-node';
import { RunGatherer } from '../engine/run/run-gatherer.js';
import { LeaderElector } from '../engine/leader-election.js';
import { findOrphanReports, ReportCascade } from '../engine/report-cascade.js';
import { ReportWriter } from '../engine/run/report-writer.js';
import { RunAdmission } from '../engine/run/run-slots.js';
import { RunReconciler, type RunReconcilerDeps } from '../engine/run/run.reconciler.js';
import { SandboxManager } from '../engine/sandbox/sandbox.js';
import { ReportMigration } from '../engine/report-migration.js';
import { SandboxVolumes } from '../engine/sandbox/sandbox-volumes.js';
import { PodSecurityPlanner } from '../engine/sandbox/pod-security.js';
import { ScheduleReconciler } from '../engine/schedule.reconciler.js';
import { PreflightRunner } from '../engine/preflight/preflight-runner.js';
import { KubeClusterFacts } from '../engine/preflight/cluster-facts.kube.js';
import type { RestoreTest } from '../domain/resources/resources.js';
import type { RunBounds } from '../domain/run/run-observations.js';
import { effectiveTtlSeconds, type ClusterDefaults } from '../domain/run/cluster-defaults.js';
import { EvidenceArchive, type EvidenceArchiveDeps } from '../archive/evidence-archive.js';
import type { AnchorWriter } from '../evidence/anchor/anchor-writer.js';
import { createAnchorWriter } from './rehearsal-anchors.js';
import type { EvidenceKeyStore } from '../evidence/evidence-keys.js';
import type { BackupInfo, BackupProvider } from '../providers/provider.js';
import type { RehearsalBasics } from './rehearsal-basics.js';
import type { RunSigner } from './rehearsal-evidence.js';
import type { RunFollowUps } from './run-follow-ups.js';
import type { TestGauges } from '../metrics/restore-test-gauges.js';

/**
 * The backups an onBackup test may run on (issue 32): what "latest" chooses from. Undefined when
 * they cannot be read now — the tool is down, or cannot offer one backup for all the sources
 * (Kasten and Trilio with several source namespaces) — so the ledger is left as it is.
 */
async function restorableBackupsOf(provider: BackupProvider | undefined, test: RestoreTest, log: EngineDeps['log']): Promise<BackupInfo[] | undefined> {
  if (!provider?.listRestorableBackups) return undefined;
  try {
    return await provider.listRestorableBackups(test.spec.backupSource.namespaces.map((entry) => entry.name), test.spec.backupSource.providerNamespace);
  } catch (error) {
    log.warn({ err: error, test: `${test.metadata.namespace}/${test.metadata.name}` }, 'could not list the backups of an onBackup test; looking again later');
    return undefined;
  }
}

/** A watched Restore is re-read at least this often even without an event (a missed event, a stalled watch). */
const RESTORE_RESYNC_MS = 15_000;

/**
 * How watches and finished checks wake the loop. They are built before the loop (the providers
 * take their watch at construction), so they hold this and reach the loop once it exists.
 */
export class EngineWakeUp {
  loop: RestoreTestController | undefined;
  readonly enqueue = (key: string): void => this.loop?.queue.add(key);
  /** The loop's stop signal: work started while no loop runs is aborted at once. */
  readonly term = (): AbortSignal => this.loop?.signal() ?? AbortSignal.abort();
}

export interface EngineDeps extends RehearsalBasics {
  wakeUp: EngineWakeUp;
  providers: Partial<Record<string, BackupProvider>>;
  signer: RunSigner;
  evidenceKeys: EvidenceKeyStore;
  followUps: RunFollowUps;
  testGauges: TestGauges;
  /** The cluster-wide defaults in effect (ConfigMap rehearsal-cluster-defaults, watched). */
  clusterDefaults: () => Readonly<ClusterDefaults>;
  /** Starts the watch of the test's backups, where the tool has one (Velero), for onBackup. */
  followBackups: (test: RestoreTest) => void;
  /** Test seams (RehearsalOverrides). */
  onStage: RunReconcilerDeps['onStage'] | undefined;
  archiveAfterUpload: EvidenceArchiveDeps['afterUpload'] | undefined;
  podReadyTimeoutSeconds: number | undefined;
  claimBindTimeoutSeconds: number | undefined;
  admissionCheckIntervalMs: number | undefined;
}

export interface Engine {
  readonly loop: RestoreTestController;
  /** Present when leader election is on: the engine then runs only while this replica leads. */
  readonly leader: LeaderElector | undefined;
  /** The evidence archive (S3), when configured. */
  readonly archive: EvidenceArchive | undefined;
  /** Writes evidence anchors to write-once storage while leading, when configured (issue 33). */
  readonly anchors: AnchorWriter | undefined;
  /** Removes deleted tests' reports while leading. */
  readonly cascade: ReportCascade;
  /** The pre-flight runner (issue 32), unless REHEARSAL_PREFLIGHT=off. */
  readonly preflight: PreflightRunner | undefined;
  /** Runs the loop and what runs with it on the leader. */
  start(): void;
  stop(): void;
}

export function createEngine(deps: EngineDeps): Engine {
  const { config, kubeConfig, kube, cache, client, testStatus, metrics, log, now, wakeUp, providers, followUps } = deps;
  const { enqueue, term } = wakeUp;
  const events = new KubeEventRecorder(kube.core, 'rehearsal-controller', log.child({ component: 'events' }), now);
  // The PVs and snapshot contents sandboxes provisioned: recorded when a sandbox goes, removed by the janitor (issue 27).
  const sandboxVolumes = new SandboxVolumes({
    core: kube.core,
    custom: kube.customObjects,
    namespace: config.namespace,
    now,
    log: log.child({ component: 'sandbox-volumes' }),
  });
  const sandboxes = new SandboxManager({
    volumes: sandboxVolumes,
    core: kube.core,
    networking: kube.networking,
    rbac: kube.rbac,
    serviceAccount: { namespace: config.namespace, name: config.serviceAccount },
    dns: config.sandboxDns,
    storageQuota: config.sandboxStorageQuota,
    clusterDefaults: deps.clusterDefaults,
    claims: { signer: () => deps.evidenceKeys.signingKey()?.key, keyRing: () => deps.evidenceKeys.keyRing() },
    log: log.child({ component: 'sandboxes' }),
  });
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
    fileCheckImage: config.fileCheckImage,
    onDone: enqueue,
  });
  const bounds = (test: RestoreTest): RunBounds => ({
    // The test's ttl > the cluster default > 1h, capped by the installation (issue 30).
    ttlSeconds: effectiveTtlSeconds(test.spec.sandbox?.ttl, deps.clusterDefaults(), config.maxSandboxTtlSeconds),
    podReadyTimeoutSeconds: deps.podReadyTimeoutSeconds ?? config.podReadyTimeoutSeconds,
    claimBindTimeoutSeconds: deps.claimBindTimeoutSeconds ?? config.claimBindTimeoutSeconds,
    providerUnavailableSeconds: config.providerUnavailableSeconds,
    pollIntervalMs: config.pollIntervalMs,
    ...((providers[test.spec.provider] as BackupProvider | undefined)?.watchesRestores
      ? { restorePollMs: Math.max(config.pollIntervalMs, RESTORE_RESYNC_MS) }
      : {}),
  });
  const anchors = createAnchorWriter({ config, cache, metrics, log, now, evidenceKeys: deps.evidenceKeys });
  const archive = config.archive
    ? new EvidenceArchive(config.archive, {
        cache,
        client,
        keyRing: () => deps.evidenceKeys.keyRing(),
        signer: () => deps.evidenceKeys.signingKey()?.key,
        log: log.child({ component: 'archive' }),
        now,
        ...(deps.archiveAfterUpload ? { afterUpload: deps.archiveAfterUpload } : {}),
        orphans: () => findOrphanReports({ cache, client }),
        // A segment moved reports out of etcd: anchor the chains as they now stand.
        ...(anchors ? { afterPass: () => void anchors.write('archive-segment') } : {}),
      })
    : undefined;
  // Deleted tests' live reports: no ownerReference since issue 17, so no garbage collector.
  const cascade = new ReportCascade({
    cache,
    client,
    ...(archive ? { archive } : {}),
    migration: new ReportMigration({ cache, client, log: log.child({ component: 'report-migration' }) }),
    log: log.child({ component: 'cascade' }),
  });
  // With the archive, reports beyond historyLimit are archived by it, never deleted unarchived.
  const writer = new ReportWriter({
    client,
    signer: deps.signer,
    metrics,
    events,
    log: log.child({ component: 'reports' }),
    now,
    clusterDefaults: deps.clusterDefaults,
    pruneHistory: !archive,
  });
  // The sandboxes' Pod Security profiles: planned when they are created, read back for the report.
  const podSecurity = new PodSecurityPlanner(kube.core, config.podSecurityFloor);
  const admissionGuard = new AdmissionGuard({
    api: kubeConfig.makeApiClient(AdmissionregistrationV1Api),
    metrics,
    log: log.child({ component: 'admission-guard' }),
    now: () => now().getTime(),
    ...(deps.admissionCheckIntervalMs ? { intervalMs: deps.admissionCheckIntervalMs } : {}),
  });
  const reads = new KubeRunReads({
    admissionGuard,
    authorReview: new AuthorReview(kube.authorization, {
      providerNamespace: config.veleroNamespace,
      maxSandboxTtlSeconds: config.maxSandboxTtlSeconds,
      podSecurityFloor: config.podSecurityFloor,
    }),
    cache,
    client,
    providers,
    podSecurity,
    reader,
    claims: new KubeClaimReader(kube.core),
    dependencyReader: new KubeDependencyReader(kubeConfig),
    clusterDomain: config.clusterDomain,
    checkTasks,
    admission,
    term,
    log: log.child({ component: 'reports' }),
  });
  const actions = new KubeRunActions({
    status: testStatus,
    providers,
    sandboxes,
    podSecurity,
    checkTasks,
    writer,
    events,
    term,
    enqueue,
    now,
    // HOOK (issue 16): failure triage before a failed/partial run's sandbox may go.
    beforeSandboxRelease: (report) => followUps.diagnostics.beforeSandboxRelease(report),
    proberNamespace: config.namespace,
    proberPodLabels: config.proberPodLabels,
  });
  const schedules = new ScheduleReconciler({
    actions: {
      writeStatus: (test, owner, status) => actions.writeStatusAs(owner, test, status),
      record: (test, type, reason, message) => actions.record(test, type, reason, message),
      recordInterval: (test, seconds) =>
        metrics.scheduleIntervalSeconds.set({ namespace: test.metadata.namespace, test: test.metadata.name }, seconds),
      restorableBackups: async (test) => {
        deps.followBackups(test);
        return restorableBackupsOf(providers[test.spec.provider], test, log);
      },
    },
    now,
    missedRunWindowSeconds: config.missedRunWindowSeconds,
  });
  const janitor = new Janitor({
    inventory: new SandboxInventory({ core: kube.core, cache, client, now }),
    sandboxes,
    volumes: sandboxVolumes,
    log: log.child({ component: 'janitor' }),
  });
  // Issue 32: the newest backup's pre-flight, in the background (engine/preflight/preflight-runner.ts).
  const preflight = config.preflight.enabled
    ? new PreflightRunner({
        providers,
        facts: new KubeClusterFacts({
          kubeConfig,
          core: kube.core,
          storage: kubeConfig.makeApiClient(StorageV1Api),
          storageQuota: config.sandboxStorageQuota,
          clusterDefaults: deps.clusterDefaults,
          checkImages: config.preflight.images,
        }),
        getTest: (namespace, name) => cache.getTest(namespace, name),
        // No resourceVersion guard: the pre-flight's fields are its own (forced apply), and a
        // concurrent change of the test's other fields must not cost the result.
        writeStatus: (test, status) => testStatus.apply('preflight', { metadata: { name: test.metadata.name, namespace: test.metadata.namespace } }, status),
        record: (test, type, reason, message) => events.record(test, type, reason, message),
        metrics,
        term,
        now,
        log: log.child({ component: 'preflight' }),
      })
    : undefined;
  const loop = new RestoreTestController(
    {
      cache,
      schedules,
      ...(preflight ? { preflight: { consider: (test: RestoreTest) => (deps.followBackups(test), preflight.consider(test)) } } : {}),
      runs: new RunReconciler({
        gatherer: new RunGatherer(reads, bounds),
        actions,
        now,
        ...(deps.onStage ? { onStage: deps.onStage } : {}),
      }),
      admission,
      checkTasks,
      janitor,
      metrics,
      log: log.child({ component: 'controller' }),
    },
    { workers: 8, janitorIntervalMs: config.janitorIntervalSeconds * 1000 },
  );
  wakeUp.loop = loop;
  const start = (): void => {
    deps.testGauges.rebuild();
    admissionGuard.start();
    loop.start();
    followUps.startOnLeader();
    archive?.startOnLeader();
    anchors?.startOnLeader();
    cascade.startOnLeader();
  };
  const stop = (): void => {
    admissionGuard.stop();
    loop.stop();
    followUps.stopOnLeader();
    archive?.stopOnLeader();
    anchors?.stopOnLeader();
    cascade.stopOnLeader();
  };
  const leader =
    config.runController && config.leaderElection
      ? new LeaderElector(
          kube.coordination,
          { namespace: config.namespace, name: config.leaseName, identity: config.identity },
          { onStartedLeading: start, onStoppedLeading: stop },
          log.child({ component: 'leader-election' }),
        )
      : undefined;
  return { loop, leader, archive, anchors, cascade, preflight, start, stop };
}
