// The shapes of Rehearsal's own custom resources (group rehearsal.dev, version v1alpha1).
// crds/*.yaml is the source of truth; test/unit/crd-types.test.ts fails when these types and the
// CRD schemas drift apart. Pure types only: nothing here performs I/O.

export const GROUP = 'rehearsal.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const LABEL_TEST = 'rehearsal.dev/test';
export const LABEL_TEST_NAMESPACE = 'rehearsal.dev/test-namespace';
export const LABEL_RUN = 'rehearsal.dev/run';
export const LABEL_MANAGED_BY = 'rehearsal.dev/managed-by';
export const MANAGED_BY_VALUE = 'rehearsal';
export const LABEL_SOURCE_NAMESPACE = 'rehearsal.dev/source-namespace';
/** Set by the API's trigger endpoint (value: a unique request id); survives restarts. */
export const ANNOTATION_TRIGGER = 'rehearsal.dev/trigger-request';
/** On sandbox namespaces: when the janitor may delete it (RFC 3339). */
export const ANNOTATION_EXPIRES_AT = 'rehearsal.dev/expires-at';

export type Provider = 'velero' | 'kasten' | 'trilio';
export const PROVIDERS: readonly Provider[] = ['velero', 'kasten', 'trilio'];

export type NetworkIsolation = 'strict' | 'none';
export type Phase = 'Idle' | 'Running' | 'Completed' | 'Failed';
export type RunResult = 'pass' | 'partial' | 'fail';
export type RunTrigger = 'schedule' | 'manual';
export type CheckStatus = 'pass' | 'fail' | 'skip' | 'error';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  /** @isInt */
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

// ---------------------------------------------------------------- health checks

export interface PodsReadyCheck {
  /** Label selector (matchLabels) within the sandbox; empty = every pod. */
  selector?: Record<string, string>;
  /** Minimum number of Ready pods; default: every selected pod must be Ready. */
  minReady?: number;
}

export interface HttpGetCheck {
  service: string;
  port: number;
  path?: string; // default "/"
  scheme?: 'http' | 'https'; // default http
  expectedStatus?: number; // default 200
  /** Regular expression the response body must match. */
  bodyMatch?: string;
}

export interface TcpSocketCheck {
  service: string;
  port: number;
}

export interface SecretKeyRef {
  name: string;
  key: string;
}

export interface SqlQueryCheck {
  engine: 'postgres' | 'mysql';
  service: string;
  port?: number; // default 5432 / 3306
  database: string;
  /** Credentials come from a Secret restored into the sandbox. */
  credentialsSecret: { name: string; usernameKey?: string; passwordKey?: string };
  query: string;
  /** At least this many rows (default 1). */
  expectedMinRows?: number;
  /** The first column of the first row, as a string, must equal this. */
  expectedValue?: string;
}

export interface ResourceExistsCheck {
  apiVersion: string;
  kind: string;
  name: string;
  /** Which source namespace's sandbox to look in; default: the first. */
  sourceNamespace?: string;
}

export interface ExecCheck {
  selector?: Record<string, string>;
  container?: string;
  command: string[];
  expectedExitCode?: number; // default 0
}

export type CheckKind = 'podsReady' | 'httpGet' | 'tcpSocket' | 'sqlQuery' | 'resourceExists' | 'exec';
export const CHECK_KINDS: readonly CheckKind[] = [
  'podsReady',
  'httpGet',
  'tcpSocket',
  'sqlQuery',
  'resourceExists',
  'exec',
];

export interface HealthCheck {
  name: string;
  kind: CheckKind;
  /** Duration string, default 30s. */
  timeout?: string;
  /** Which source namespace's sandbox the check targets; default: the first. */
  sourceNamespace?: string;
  /** A failing critical check makes the run fail; any other failing check caps it at partial. */
  critical?: boolean;
  podsReady?: PodsReadyCheck;
  httpGet?: HttpGetCheck;
  tcpSocket?: TcpSocketCheck;
  sqlQuery?: SqlQueryCheck;
  resourceExists?: ResourceExistsCheck;
  exec?: ExecCheck;
}

export interface HealthCheckPolicySpec {
  description?: string;
  checks: HealthCheck[];
}

export interface HealthCheckPolicy {
  apiVersion: typeof API_VERSION;
  kind: 'HealthCheckPolicy';
  metadata: ObjectMeta;
  spec: HealthCheckPolicySpec;
}

// ---------------------------------------------------------------- RestoreTest

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
export const NOTIFICATION_CHANNEL_TYPES: readonly NotificationChannelType[] = ['slack', 'webhook', 'cloudevents'];

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
  /** uid: the namespace Rehearsal created (decisions §9: a namespace is never adopted). */
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

/** Sequence and digest of the newest RestoreReport of a test, recorded after it was created. */
export interface EvidenceAnchor {
  sequence: number;
  digest: string;
  report: string;
}

export interface RestoreTest {
  apiVersion: typeof API_VERSION;
  kind: 'RestoreTest';
  metadata: ObjectMeta;
  spec: RestoreTestSpec;
  status?: RestoreTestStatus;
}

// ---------------------------------------------------------------- RestoreReport

export type ScoreLevelName =
  | 'restoreIntegrity'
  | 'completeness'
  | 'podStartup'
  | 'healthChecks'
  | 'crossNamespace'
  | 'rtoWithinSLA';

export interface ScoreLevel {
  name: ScoreLevelName;
  /**
   * Points earned (partial credit rounded down).
   * @isInt
   */
  points: number;
  /** @isInt */
  maxPoints: number;
  /** false when the level could not be evaluated (e.g. the restore failed). */
  tested: boolean;
  detail: string;
}

export interface CheckResult {
  name: string;
  kind: CheckKind;
  status: CheckStatus;
  message: string;
  /** Duration string. */
  duration: string;
}

export interface ResultCap {
  check: string;
  critical: boolean;
  result: 'partial' | 'fail';
}

export interface KindCompleteness {
  kind: string;
  /** @isInt */
  backedUp: number;
  /** @isInt */
  restored: number;
}

/** A reference from a restored object to a Service in another namespace (decisions §4). */
export interface DependencyEntry {
  /** `<Kind>/<source namespace>/<name>` of the restored object holding the reference. */
  from: string;
  /** `<service>.<namespace>` as referenced. */
  to: string;
  status: 'restored' | 'reachable' | 'missing' | 'unreachable' | 'production';
  message?: string;
}

export interface RestoreReportSpec {
  testRef: { name: string; namespace: string; uid?: string };
  runId: string;
  trigger: RunTrigger;
  scheduledAt: string;
  startedAt: string;
  completedAt: string;
  sourceNamespaces: string[];
  backup: {
    provider: Provider;
    name: string;
    completedAt?: string;
    /** Run start - backup completion, duration string. */
    age?: string;
  };
  sandboxNamespaces: string[];
  restore?: {
    name: string;
    namespace: string;
    phase: string;
    /** @isInt */
    warnings: number;
    /** @isInt */
    errors: number;
    /** @isInt */
    itemsRestored?: number;
  };
  /** @isInt */
  score: number;
  result: RunResult;
  levels: ScoreLevel[];
  checks: CheckResult[];
  completeness: KindCompleteness[];
  /** Cross-namespace references found in the restored objects; failed ones first, at most 32. */
  dependencies?: DependencyEntry[];
  rto: {
    measured?: string;
    measuredSeconds?: number;
    target?: string;
    withinSLA?: boolean;
    phases: {
      restoreRequestedAt?: string;
      restoreCompletedAt?: string;
      podsReadyAt?: string;
      checksCompletedAt?: string;
    };
  };
  /**
   * Until when the sandboxes of a run that did not pass are kept for inspection (start + ttl,
   * decisions §3); absent when the run passed (deleted at once) or had no sandbox.
   */
  sandboxExpiresAt?: string;
  /** A failed check lowered the result the score alone gives (decisions §4): which one, and to what. */
  resultCap?: ResultCap;
  failure?: { reason: string; message: string };
  /** Tamper evidence (issue: signed evidence). Absent until signing is enabled. */
  evidence?: {
    digest: string;
    previousDigest?: string;
    /**
     * Position in the test's chain (1 = first signed with a sequence); part of the digest.
     * @isInt
     */
    sequence?: number;
    signature: string;
    keyId: string;
    algorithm: 'Ed25519';
    canonicalization: 'RFC8785';
  };
}

export interface RestoreReport {
  apiVersion: typeof API_VERSION;
  kind: 'RestoreReport';
  metadata: ObjectMeta;
  spec: RestoreReportSpec;
}
