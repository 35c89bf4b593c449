// The read models the API serves (decisions 0005–0007). Domain functions compute them;
// tsoa controllers return them unchanged, so these interfaces are also the OpenAPI schemas.
// Field names and meanings are fixed by the specification: do not rename. Fields the seed types
// `int` carry @isInt, so the OpenAPI document (and every generated client) says integer.

import type { BackupSelectInput, LabelSelectorInput, LogContainers, ResourceTypeInput, RestoreInput } from '../../../protocol/test-input.js';

export interface TestResponse {
  name: string;
  namespace: string;
  provider: string;
  /** The cron; empty for a test that runs on new backups only (onBackup). */
  schedule: string;
  /** Idle, Running, Completed or Failed. */
  phase: string;
  /** @isInt */
  lastScore: number;
  /** pass, fail or partial; empty before the first run. */
  lastResult: string;
  /** Completion time of the most recent run; empty before the first run. */
  lastRunAt: string;
  /** Next scheduled run; empty when suspended or not yet computed. */
  nextRunAt: string;
  sourceNamespaces: string[];
  /** spec.sla.maxRTO, or empty when no SLA is configured. */
  rtoTarget: string;
  // The rest of what CreateTestInput expresses, defaults applied, so a client can send back what it
  // read (PUT returns omitted fields to their defaults, decision 0003). Always sent by this server;
  // optional in the schema because they were added later (older servers and fixtures lack them).
  /** Backup restored: a backup's name, or "latest". */
  backupName?: string;
  /** spec.backupSource.select: how latest is resolved (issue 32); absent = latest. */
  backupSelect?: BackupSelectInput;
  /** IANA time zone of the schedule. */
  timezone?: string;
  /** The test also (or, without a cron, only) runs after each new backup of its source (issue 32). */
  onBackup?: boolean;
  /**
   * With onBackup: runs on every Nth new backup.
   * @isInt
   */
  everyNthBackup?: number;
  /** Prefix of the sandbox namespaces. */
  namespacePrefix?: string;
  /** Longest life of a sandbox (a failed or partial run's sandbox is kept that long after the run started). */
  ttl?: string;
  /** strict or none. */
  networkIsolation?: string;
  /** Name of the HealthCheckPolicy; empty for the built-in checks. */
  healthCheckPolicy?: string;
  /** spec.sla.maxRPO, or empty when no RPO target is configured. */
  rpoTarget?: string;
  /** Whether an RTO over rtoTarget raises an alert (false without an SLA). */
  alertOnExceed?: boolean;
  /**
   * Reports kept.
   * @isInt
   */
  historyLimit?: number;
  /** spec.backupSource.labelSelector: only the matching objects are restored; absent = every object. */
  labelSelector?: LabelSelectorInput;
  /** spec.backupSource.includedResources: only these types are restored; absent = every type. */
  includedResources?: ResourceTypeInput[];
  /** spec.restore: the test's restore transforms beyond the defaults; absent = the defaults only. */
  restore?: RestoreInput;
  /**
   * spec.logCollection with its omitted fields filled in: what a failed or partial run's diagnosis
   * keeps; absent = the defaults (100 lines of the failing containers, init, previous, events).
   */
  logCollection?: LogCollectionResponse;
  /** The newest backup's pre-flight restorability check (issue 32); absent before the first. Read-only. */
  preflight?: PreflightResponse;
}

/** status.preflight of a test (issue 32): the newest backup checked without restoring it. */
export interface PreflightResponse {
  backupName: string;
  checkedAt: string;
  /** passed, failed, or error (the backup or the cluster could not be read). */
  result: string;
  /** One line naming the first problem. */
  summary: string;
  /** Errors first, at most 20. */
  problems: PreflightProblemResponse[];
}

export interface PreflightProblemResponse {
  /** apiVersions, storageClasses, references, images or quota. */
  check: string;
  /** error (fails the pre-flight) or warning. */
  severity: string;
  message: string;
}

/** The log collection of a test, every default applied (issue 30). */
export interface LogCollectionResponse {
  /**
   * Last lines kept per container log.
   * @isInt
   */
  lines: number;
  /** failing: the containers that are not Ready; all: every container. */
  containers: LogContainers;
  initContainers: boolean;
  previous: boolean;
  events: boolean;
}

export interface Summary {
  /** @isInt */
  averageScore: number;
  /** @isInt */
  totalTests: number;
  /** @isInt */
  testsLastNight: number;
  /** @isInt */
  totalFailures: number;
  /** @isInt */
  totalPartial: number;
  averageRTO: string;
  /** @isInt */
  namespacesCovered: number;
  /**
   * Namespaces the backup tool backs up that no passing restore test covers within their window
   * (GET /api/v1/coverage lists them); absent while the backup tool has not been read.
   * @isInt
   */
  namespacesBackedUpUntested?: number;
}

export interface DailySummary {
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** @isInt */
  score: number;
  /** @isInt */
  tests: number;
  /** @isInt */
  failures: number;
}

export interface Alert {
  timestamp: string;
  testName: string;
  namespace: string;
  /** @isInt */
  score: number;
  /** @isInt */
  prevScore: number;
  result: string;
  message: string;
  /** preflight: a failed pre-flight check of the test's newest backup (no run; issue 32); absent for a run's alert. */
  kind?: string;
}

export type ControlStatus = 'satisfied' | 'at_risk' | 'not_tested';

export interface ComplianceControl {
  id: string;
  title: string;
  status: ControlStatus;
  evidence: string;
}

export interface ComplianceResponse {
  framework: string;
  /** @isInt */
  period: number;
  generatedAt: string;
  /** @isInt */
  totalTests: number;
  passRate: number;
  /** @isInt */
  avgScore: number;
  slaCompliance: number;
  /** @isInt */
  namespacesCovered: number;
  controls: ComplianceControl[];
}

export interface UpcomingTest {
  name: string;
  namespace: string;
  /**
   * When the next run is (or was) due; for a scheduled run waiting for a slot, its cron instant.
   * Empty for a test that runs on new backups only (onNextBackup).
   */
  nextRunAt: string;
  /**
   * True: the test (also) runs when its source's next backup completes (issue 32); with an empty
   * nextRunAt, that is its only next run ("on next backup"). Such entries come after the timed ones.
   */
  onNextBackup?: boolean;
  /** @isInt */
  lastScore: number;
  /**
   * True: the run due at nextRunAt has not started more than a minute after its time (the engine
   * was down, or the run still waits in the queue). Overdue entries come first. Always sent by
   * this server; optional for clients of older servers.
   */
  overdue?: boolean;
}

export interface ScheduleInfo {
  name: string;
  cron: string;
  namespaces: string[];
  lastBackup: string;
}

export interface LicenseResponse {
  tier: string;
  expiresAt: string | null;
  trialEndsAt: string | null;
  isExpired: boolean;
  isTrialing: boolean;
  /** @isInt */
  trialDaysLeft: number;
  features: string[];
}
