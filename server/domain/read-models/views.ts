// The read models the API serves (seed-spec §2, decisions 0005–0007). Domain functions compute them;
// tsoa controllers return them unchanged, so these interfaces are also the OpenAPI schemas.
// Field names and meanings are fixed by the specification: do not rename. Fields the seed types
// `int` carry @isInt, so the OpenAPI document (and every generated client) says integer.
import type { Provider } from '../resources/resources.js';

/**
 * Request body of POST /api/v1/tests and PUT /api/v1/tests/{name}. An optional field that is
 * absent, null or "" takes its default. Rules JSON Schema cannot state (the server answers 400
 * naming the field): cron must be a valid schedule (no reversed ranges such as 5-3, no repeated
 * values, a day that exists in the month), timezone a zone the server knows, alertOnExceed true
 * requires maxRTO, and on PUT a name or namespace in the body must equal the request's.
 */
export interface CreateTestInput {
  /**
   * Name of the RestoreTest: an RFC 1123 label.
   * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
   * @maxLength 63
   */
  name: string;
  /**
   * Namespace of the RestoreTest (an RFC 1123 label); default: the server's namespace
   * (rehearsal-system).
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 63
   */
  namespace?: string | null;
  /** The backup provider whose backups are restored. */
  provider: Provider;
  /**
   * Backup to restore (a Kubernetes object name); "latest" picks the newest completed backup of
   * the sources.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$
   * @maxLength 253
   * @default "latest"
   */
  backupName?: string | null;
  /**
   * Source namespaces to restore: RFC 1123 labels, each at most once.
   * @minItems 1
   * @maxItems 20
   * @uniqueItems must not list a namespace twice
   */
  sourceNamespaces: NamespaceName[];
  /**
   * A 5-field cron expression (minute hour day-of-month month day-of-week; numbers, names such
   * as mon or jan, *, ranges, lists and steps) or one of the macros `@yearly`, `@annually`,
   * `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`. Spaces around it are ignored.
   * @pattern ^\x20*(\x40(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/-]+(\x20+[0-9A-Za-z*,/-]+){4})\x20*$
   * @minLength 1
   * @maxLength 128
   */
  cron: string;
  /**
   * IANA time zone of the schedule, such as UTC or Europe/Berlin.
   * @pattern ^([A-Z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*)?$
   * @maxLength 64
   * @default "UTC"
   */
  timezone?: string | null;
  /**
   * Prefix of the sandbox namespaces: an RFC 1123 label of at most 20 characters (the
   * RestoreTest CRD's limit), so that sandbox names fit in 63.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 20
   * @default "rehearsal"
   */
  namespacePrefix?: string | null;
  /**
   * Longest life of a sandbox: a duration of whole hours, minutes and seconds in that order
   * (1h, 15m, 11m35s), longer than 0s, and at most the installation's cap (168h unless the
   * administrator sets REHEARSAL_MAX_SANDBOX_TTL; decision 0009).
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   * @default "1h"
   */
  ttl?: string | null;
  /** strict: the sandbox gets a deny-all NetworkPolicy; none: no isolation (admin only). */
  networkIsolation?: 'strict' | 'none' | '' | null;
  /**
   * Name of a HealthCheckPolicy in the test's namespace (an RFC 1123 label); default: the
   * built-in checks.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 63
   */
  healthCheckPolicy?: string | null;
  /**
   * RTO target, a duration like ttl (e.g. 15m); default: no SLA.
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   */
  maxRTO?: string | null;
  /**
   * Alert when the measured RTO exceeds maxRTO (true requires maxRTO).
   * @default false
   */
  alertOnExceed?: boolean | null;
  /**
   * Reports to keep.
   * @isInt
   * @minimum 1
   * @maximum 1000
   * @default 90
   */
  historyLimit?: number | null;
}

/**
 * A namespace name: an RFC 1123 label.
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
 * @maxLength 63
 */
export type NamespaceName = string;

export interface TestResponse {
  name: string;
  namespace: string;
  provider: string;
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
  /** IANA time zone of the schedule. */
  timezone?: string;
  /** Prefix of the sandbox namespaces. */
  namespacePrefix?: string;
  /** Longest life of a sandbox (a failed or partial run's sandbox is kept that long after the run started). */
  ttl?: string;
  /** strict or none. */
  networkIsolation?: string;
  /** Name of the HealthCheckPolicy; empty for the built-in checks. */
  healthCheckPolicy?: string;
  /** Whether an RTO over rtoTarget raises an alert (false without an SLA). */
  alertOnExceed?: boolean;
  /**
   * Reports kept.
   * @isInt
   */
  historyLimit?: number;
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
  /** When the next run is (or was) due; for a scheduled run waiting for a slot, its cron instant. */
  nextRunAt: string;
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
