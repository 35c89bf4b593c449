// What follows runs without being part of them (issue 16), built beside the engine so the engine
// needs no more than one hook: notifications and failure diagnostics (on the leader, like the
// engine; both are driven by the reports in the cache), and the backup coverage tracker (on every
// replica, for the API and its gauge).
import { StorageV1Api } from '@kubernetes/client-node';
import { BackupToolUnavailableError, type CoverageSource } from '../api/ports.js';
import { inventoryReader } from '../inventory/backup-inventory.js';
import { CoverageTracker } from '../inventory/coverage-tracker.js';
import { DiagnosticsCollector } from '../triage/diagnosis-collector.js';
import { DiagnosisStore } from '../triage/diagnosis-store.js';
import { SandboxObserver } from '../triage/sandbox-observer.js';
import { DEFAULT_RETRY_POLICY } from '../domain/notifications/deliveries.js';
import type { RehearsalBasics } from './rehearsal-basics.js';
import { sendToChannel } from '../notifications/channel-sender.js';
import { DEFAULT_CLUSTER_CIDRS, EgressGuard } from '../notifications/egress-guard.js';
import { Notifier } from '../notifications/notifier.js';
import { secretValueReader } from '../notifications/secret-values.js';
import { ProviderError, type BackupProvider } from '../providers/provider.js';

/** Reports older than this are neither notified nor diagnosed (a first start does not replay history). */
const FOLLOW_UP_WINDOW_MS = 3_600_000;
/** Requests re-read the backup tool at most this often (the timer keeps the gauge current). */
const MAX_INVENTORY_AGE_MS = 30_000;

export interface FollowUpDeps extends RehearsalBasics {
  /** The provider whose backups define coverage (REHEARSAL_BACKUP_TOOL); absent → no coverage. */
  backupTool: BackupProvider | undefined;
}

export interface RunFollowUps {
  readonly notifier: Notifier;
  readonly diagnostics: DiagnosticsCollector;
  readonly diagnoses: DiagnosisStore;
  readonly coverage: CoverageSource | undefined;
  /** With the engine, on the leader. */
  startOnLeader(): void;
  stopOnLeader(): void;
  /** On every replica. */
  start(): void;
  stop(): void;
}

/** The coverage tracker as the API's port; "tool unavailable" becomes the API's 503 error. */
function coverageSourceOf(tracker: CoverageTracker | undefined): CoverageSource | undefined {
  if (!tracker) return undefined;
  const unavailableAsApiError = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ProviderError && error.reason === 'ProviderUnavailable') {
        throw new BackupToolUnavailableError(error.message);
      }
      throw error;
    }
  };
  return {
    latest: () => tracker.latest(),
    coverage: () => unavailableAsApiError(() => tracker.coverage()),
    withInventory: () => unavailableAsApiError(() => tracker.withInventory()),
  };
}

/** The apiserver as this server reaches it: the kubeconfig's server host (in a pod, the Service's address). */
function apiServerHosts(kubeConfig: FollowUpDeps['kubeConfig']): string[] {
  const server = kubeConfig.getCurrentCluster()?.server;
  try {
    return server ? [new URL(server).hostname] : [];
  } catch {
    return [];
  }
}

export function createRunFollowUps(deps: FollowUpDeps): RunFollowUps {
  const { config, kube, cache, client, metrics, log, now } = deps;
  const diagnoses = new DiagnosisStore(kube.core, config.namespace);
  const diagnostics = new DiagnosticsCollector({
    observer: new SandboxObserver({
      core: kube.core,
      storage: deps.kubeConfig.makeApiClient(StorageV1Api),
      logs: config.diagnosticsLogs,
    }),
    store: diagnoses,
    cache: {
      onReportChange: (handler) => cache.onReportChange(handler),
      isLiveReport: (namespace, name) => cache.liveReport(`${namespace}/${name}`) !== undefined,
    },
    reports: client,
    tests: { getTest: (namespace, name) => cache.getTest(namespace, name) },
    log: log.child({ component: 'diagnostics' }),
    now,
    maxReportAgeMs: FOLLOW_UP_WINDOW_MS,
  });
  // Where notifications may go: never the apiserver (the kubeconfig's, and the in-cluster Service
  // the kubelet names), loopback, link-local or the cluster's ranges unless allowed.
  const egress = new EgressGuard({
    allowedCidrs: config.notificationAllowedCidrs,
    clusterCidrs: config.notificationClusterCidrs ?? DEFAULT_CLUSTER_CIDRS,
    apiServerHosts: apiServerHosts(deps.kubeConfig),
  });
  // One sender (the leader); the delivery records on the reports keep a new leader from sending
  // again what the old one sent.
  const notifier = new Notifier({
    cache,
    reports: client,
    secretValue: secretValueReader(kube.core),
    send: (target, notification) =>
      sendToChannel(target, notification, { timeoutMs: config.notificationTimeoutSeconds * 1000, now: now(), guard: egress }),
    defaults: config.notifications,
    serverNamespace: config.namespace,
    outcomes: metrics.notifications,
    log: log.child({ component: 'notifications' }),
    now,
    policy: { ...DEFAULT_RETRY_POLICY, backoffBaseMs: config.notificationBackoffMs },
    maxReportAgeMs: FOLLOW_UP_WINDOW_MS,
  });
  const readInventory = deps.backupTool
    ? inventoryReader({
        provider: deps.backupTool,
        core: kube.core,
        // Velero's namespace holds no application; Kasten's and Trilio's objects live in the
        // applications' namespaces, so only Rehearsal's own is left out for them.
        excludedNamespaces: config.backupTool === 'velero' ? [config.veleroNamespace, config.namespace] : [config.namespace],
      })
    : undefined;
  const tracker = readInventory
    ? new CoverageTracker({
        readInventory,
        cache,
        now,
        minimumWindowSeconds: config.coverageMinimumWindowSeconds,
        maxInventoryAgeMs: Math.min(MAX_INVENTORY_AGE_MS, config.coverageRefreshSeconds * 1000),
        untestedGauge: metrics.namespaceBackedUpUntested,
        log: log.child({ component: 'coverage' }),
      })
    : undefined;
  return {
    notifier,
    diagnostics,
    diagnoses,
    coverage: coverageSourceOf(tracker),
    startOnLeader() {
      notifier.start();
      diagnostics.start();
    },
    stopOnLeader() {
      notifier.stop();
      diagnostics.stop();
    },
    start() {
      tracker?.start(config.coverageRefreshSeconds * 1000);
    },
    stop() {
      tracker?.stop();
    },
  };
}
