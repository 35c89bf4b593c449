// The RestoreTest resource (crds/rehearsal.dev_restoretests.yaml): what to restore, when, into
// which sandbox and how to check it (spec), and the engine's durable record of the run in progress
// (status.currentRun), from which every step resumes after a restart. Pure types only.
import type { HealthCheck } from './health-check-policy.resource.js';
import type { API_VERSION, Condition, ObjectMeta, Provider, RunResult, RunTrigger } from './resource-common.js';
import type { EvidenceAnchor } from '../../../protocol/evidence/evidence-anchor.js';
import type { BackupSelectStrategy, DefaultTransformId, LogContainers, NetworkIsolation, PodSecurityLevel } from '../../../protocol/test-input.js';

// How a sandbox is isolated: also a choice of the API's request body, so protocol/ holds it.
export type { NetworkIsolation } from '../../../protocol/test-input.js';
// The Pod Security profiles and the default restore transforms are choices of the request body too.
export type { DefaultTransformId, PodSecurityLevel } from '../../../protocol/test-input.js';
export { POD_SECURITY_LEVELS } from '../../../protocol/test-input.js';
/**
 * How a randomWithin test chose its backup (issue 32, domain/run/backup-sampling.ts): in the run
 * (status.currentRun.backup.selection) and in the report (spec.backup.selection).
 */
export interface BackupSelectionRecord {
  strategy: 'randomWithin';
  /** The window as configured (duration string). */
  within: string;
  /** The window: [windowStart, windowEnd], windowEnd = the run's start. */
  windowStart: string;
  windowEnd: string;
  /** 8 hex digits: FNV-1a of "<test uid>/<run id>" with murmur3's final mix (domain/run/backup-sampling.ts). */
  seed: string;
  /**
   * Backups in the window.
   * @isInt
   */
  candidates: number;
  /**
   * 1-based position of the chosen backup among the candidates, newest first; absent on fallback.
   * @isInt
   */
  chosen?: number;
  /** true when the window held no candidate and the newest restorable backup was used instead. */
  fallback?: boolean;
  /** One sentence: what was chosen and why. */
  reason: string;
}

export type Phase = 'Idle' | 'Running' | 'Completed' | 'Failed';

export interface RestoreTestSpec {
  provider: Provider;
  backupSource: {
    /** A backup name, or "latest" (default) = newest completed backup covering the sources. */
    backupName?: string;
    /**
     * How "latest" is resolved (issue 32): absent or strategy latest = the newest restorable
     * backup; randomWithin = a seeded draw among those completed within `within` before the run
     * (domain/run/backup-sampling.ts).
     */
    select?: { strategy: BackupSelectStrategy; within?: string };
    namespaces: { name: string }[];
    /** Namespace of the provider's own objects (e.g. Velero's); default from server config. */
    providerNamespace?: string;
    /** Restore only the objects whose labels match (absent: every object). */
    labelSelector?: LabelSelector;
    /** Restore only objects of these resource types (absent: every type). */
    includedResources?: ResourceTypeRef[];
  };
  schedule: {
    /** Absent when the test runs only on new backups (onBackup); one of the two is required. */
    cron?: string;
    timezone?: string; // default UTC
    suspend?: boolean; // default false
    /**
     * Also (or only) run when the backup source completes a new backup (issue 32,
     * domain/run/backup-trigger.ts): every `everyNth` new backup (default 1 = each one).
     */
    onBackup?: {
      /**
       * Run on every Nth new backup (default 1).
       * @isInt
       */
      everyNth?: number;
    };
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
    /**
     * RPO target (duration string): the most data a restore may lose, measured by a freshness
     * check as the restore request time minus the newest restored data (issue 27).
     */
    maxRPO?: string;
    alertOnExceed?: boolean;
  };
  /** Name of a HealthCheckPolicy in the test's namespace. */
  healthCheckPolicy?: string;
  healthChecks?: { checks: HealthCheck[] };
  /** How the backup is changed on its way into the sandbox (docs/restore-transforms.md). */
  restore?: RestoreSpec;
  historyLimit?: number; // default 90
  /** Replaces the server's default notifications for this test (issue 16). */
  notifications?: NotificationsSpec;
  /** What a failed or partial run's diagnosis keeps of the sandbox's logs (issue 30). */
  logCollection?: LogCollectionSpec;
}

/** spec.logCollection; an absent field takes its default (domain/test-spec/log-collection-input.ts). */
export interface LogCollectionSpec {
  /** Last lines per container log, 1–1000 (default 100). */
  lines?: number;
  /** failing (default) or all. */
  containers?: LogContainers;
  /** Also init containers (default true). */
  initContainers?: boolean;
  /** Also the previous instance of a restarted container (default true). */
  previous?: boolean;
  /** Keep the Warning events (default true). */
  events?: boolean;
}

/** A label selector operator (Kubernetes' LabelSelectorRequirement). */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
export const LABEL_SELECTOR_OPERATORS: readonly LabelSelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** A Kubernetes label selector: every label and every requirement must hold. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: LabelSelectorOperator; values?: string[] }[];
}

/** A resource type as the backup tools select it. */
export interface ResourceTypeRef {
  /** API group; absent or "" for the core group. */
  group?: string;
  /** API version (Trilio's selectors name one), e.g. v1. */
  version: string;
  kind: string;
  /** Plural resource name, e.g. ingresses (Velero and Kasten select by it). */
  resource: string;
}

/** The objects a restore patch changes: every object of the type, or the one named. */
export interface PatchedObjects extends ResourceTypeRef {
  name?: string;
}

/** A JSON Patch operation (RFC 6902) on a restored object. */
export interface RestorePatchOperation {
  op: 'add' | 'replace' | 'remove' | 'copy' | 'move';
  /** JSON Pointer (RFC 6901). */
  path: string;
  /** Source of copy and move. */
  from?: string;
  /** Any JSON value (add, replace). */
  value?: unknown;
}

/** JSON patches applied to the restored objects of one kind (all of them, or one by name). */
export interface RestorePatch {
  /** Unique within the test: the report and the tool's transform name it. */
  name: string;
  target: PatchedObjects;
  /** Only objects where every path holds exactly this value (a JSON Patch test). */
  when?: { path: string; value: unknown }[];
  operations: RestorePatchOperation[];
}

/**
 * The test's changes to the default restore transforms: additions anyone who may write the test
 * may make; removing a default or lowering the Pod Security floor needs the administer verb.
 */
export interface RestoreSpec {
  /** More resource types not to restore. */
  exclude?: ResourceTypeRef[];
  /** JSON patches, applied before the defaults (so a patch cannot undo one). */
  patches?: RestorePatch[];
  /** Default transforms this test does without (administer). */
  removeDefaults?: DefaultTransformId[];
  /** Pod Security floor of this test's sandboxes (below the installation's: administer). */
  podSecurity?: PodSecurityLevel;
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
  /** The cron instant (schedule), request time (manual) or the backup's completion (backup). */
  scheduledAt: string;
  /** The backup whose completion queued the run (trigger backup): the run restores exactly it. */
  triggerBackup?: string;
  queuedAt: string;
  startedAt?: string;
  stage: RunStage;
  /** uid: the namespace Rehearsal created (decision 0009: a namespace is never adopted). */
  sandboxNamespaces?: { source: string; sandbox: string; uid?: string }[];
  /** `selection`: how a randomWithin test chose it (absent for latest or a named backup). */
  backup?: { name: string; completedAt?: string; totalItems?: number; selection?: BackupSelectionRecord };
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

/**
 * status.backupTrigger: what the onBackup trigger has seen and counted (issue 32,
 * domain/run/backup-trigger.ts), written in the same status write as the run it queues.
 */
export interface BackupTriggerLedger {
  /** The newest backup already seen (run, counted or passed over while suspended). */
  lastSeen?: { name: string; completedAt: string };
  /**
   * New backups seen since the last backup-triggered run, for everyNth (0 … everyNth − 1).
   * @isInt
   */
  countSinceRun?: number;
  /** The backup of the last backup-triggered run. */
  lastRunBackup?: string;
}

/**
 * status.preflight (issue 32): the pre-flight restorability check of the newest backup, run when
 * a new backup completes, without restoring anything (domain/preflight/preflight-checks.ts).
 */
export interface PreflightStatus {
  /** The backup checked. */
  backupName: string;
  backupCompletedAt?: string;
  checkedAt: string;
  /** passed, failed, or error: the backup or the cluster could not be read (summary says why). */
  result: 'passed' | 'failed' | 'error';
  /** One line: "failed: StorageClass fast-ssd does not exist (claims shop/data)". */
  summary: string;
  /** Errors first, at most 20. */
  problems?: { check: 'apiVersions' | 'storageClasses' | 'references' | 'images' | 'quota'; severity: 'error' | 'warning'; message: string }[];
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
  /** What the onBackup trigger has seen and counted (issue 32), written with the run it queues. */
  backupTrigger?: BackupTriggerLedger;
  currentRun?: CurrentRun;
  /** The newest signed report of the chain, so deleting the newest reports is detectable. */
  evidenceAnchor?: EvidenceAnchor;
  /** The newest backup's pre-flight check (issue 32). */
  preflight?: PreflightStatus;
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
