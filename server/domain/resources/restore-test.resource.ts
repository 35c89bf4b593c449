// The RestoreTest resource (crds/rehearsal.dev_restoretests.yaml): what to restore, when, into
// which sandbox and how to check it (spec), and the engine's durable record of the run in progress
// (status.currentRun), from which every step resumes after a restart. Pure types only.
import type { HealthCheck } from './health-check-policy.resource.js';
import type { API_VERSION, Condition, ObjectMeta, Provider, RunResult, RunTrigger } from './resource-common.js';
import type { EvidenceAnchor } from '../../../protocol/evidence/evidence-anchor.js';
import type { NetworkIsolation } from '../../../protocol/test-input.js';

// How a sandbox is isolated: also a choice of the API's request body, so protocol/ holds it.
export type { NetworkIsolation } from '../../../protocol/test-input.js';
export type Phase = 'Idle' | 'Running' | 'Completed' | 'Failed';

export interface RestoreTestSpec {
  provider: Provider;
  backupSource: {
    /** A backup name, or "latest" (default) = newest completed backup covering the sources. */
    backupName?: string;
    namespaces: { name: string }[];
    /** Namespace of the provider's own objects (e.g. Velero's); default from server config. */
    providerNamespace?: string;
  };
  schedule: {
    cron: string;
    timezone?: string; // default UTC
    suspend?: boolean; // default false
  };
  sandbox?: {
    namespacePrefix?: string; // default rehearsal
    ttl?: string; // default 1h
    networkIsolation?: NetworkIsolation; // default strict
    resourceQuota?: { hard: Record<string, string> };
    limitRange?: { limits: Record<string, unknown>[] };
  };
  sla?: {
    maxRTO?: string;
    alertOnExceed?: boolean;
  };
  /** Name of a HealthCheckPolicy in the test's namespace. */
  healthCheckPolicy?: string;
  healthChecks?: { checks: HealthCheck[] };
  historyLimit?: number; // default 90
  /** Replaces the server's default notifications for this test (issue 16). */
  notifications?: NotificationsSpec;
}

export type NotificationChannelType = 'slack' | 'webhook' | 'cloudevents';

export interface SecretKeySelector {
  name: string;
  key: string;
}

export interface NotificationChannel {
  name: string;
  type: NotificationChannelType;
  /** Secret key with the URL (in the test's namespace; the server's for the global default). */
  urlSecretRef: SecretKeySelector;
  /** HMAC-SHA256 key of webhook channels. */
  signingKeySecretRef?: SecretKeySelector;
}

export interface NotificationsSpec {
  onFailure?: boolean; // default true
  onPartial?: boolean; // default false
  onSuccess?: boolean; // default false
  onSLAExceeded?: boolean; // default true
  onRegression?: boolean; // default true
  channels: NotificationChannel[];
}

export type RunStage = 'Queued' | 'Preparing' | 'Restoring' | 'Validating' | 'Finalizing';

/** The durable state of the run in progress; every step can resume from it after a restart. */
export interface CurrentRun {
  id: string;
  trigger: RunTrigger;
  /** The cron instant (schedule) or request time (manual). */
  scheduledAt: string;
  queuedAt: string;
  startedAt?: string;
  stage: RunStage;
  /** uid: the namespace Rehearsal created (decision 0009: a namespace is never adopted). */
  sandboxNamespaces?: { source: string; sandbox: string; uid?: string }[];
  backup?: { name: string; completedAt?: string; totalItems?: number };
  /** `namespaces`: one restore object of this name in each (Kasten, Trilio with several sources). */
  restore?: { namespace: string; name: string; namespaces?: string[] };
  restoreRequestedAt?: string;
  restoreCompletedAt?: string;
  restorePhase?: string;
  podsReadyAt?: string;
  /** Since when the backup provider has not answered (absent while it answers). */
  providerUnavailableSince?: string;
  /** Set when the run has already failed and only the report remains to be written. */
  failure?: { reason: string; message: string };
}

export interface RestoreTestStatus {
  observedGeneration?: number;
  phase?: Phase;
  conditions?: Condition[];
  lastScore?: number;
  lastResult?: RunResult;
  lastRunAt?: string;
  nextRunAt?: string;
  lastReport?: string;
  /** The latest cron instant that was acted on (run, skipped or missed). */
  lastScheduleTime?: string;
  /** The last trigger-request annotation value that was acted on. */
  handledTrigger?: string;
  currentRun?: CurrentRun;
  /** The newest signed report of the chain, so deleting the newest reports is detectable. */
  evidenceAnchor?: EvidenceAnchor;
}

// Sequence and digest of the newest RestoreReport of a test, recorded after it was created: what
// every verifier compares a chain's tail with, so its shape is the protocol's.
export type { EvidenceAnchor } from '../../../protocol/evidence/evidence-anchor.js';

export interface RestoreTest {
  apiVersion: typeof API_VERSION;
  kind: 'RestoreTest';
  metadata: ObjectMeta;
  spec: RestoreTestSpec;
  status?: RestoreTestStatus;
}
