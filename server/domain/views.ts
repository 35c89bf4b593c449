// The read models the API serves (seed-spec §2, decisions §5–7). Domain functions compute them;
// tsoa controllers return them unchanged, so these interfaces are also the OpenAPI schemas.
// Field names and meanings are fixed by the specification: do not rename.

/** Request body of POST /api/v1/tests and PUT /api/v1/tests/{name}. */
export interface CreateTestInput {
  /** RFC 1123 label. Required. */
  name: string;
  /** Namespace of the RestoreTest; default: the server's namespace (rehearsal-system). */
  namespace?: string;
  /** velero, kasten or trilio. Required. */
  provider: string;
  /** Backup to restore; "latest" (default) picks the newest completed backup of the sources. */
  backupName?: string;
  /** Source namespaces to restore (at least one). Required. */
  sourceNamespaces: string[];
  /** 5-field cron expression or a macro such as @daily. Required. */
  cron: string;
  /** IANA time zone of the schedule; default UTC. */
  timezone?: string;
  /** Prefix of the sandbox namespace; default "rehearsal". */
  namespacePrefix?: string;
  /** Longest life of a sandbox, e.g. 1h (default). */
  ttl?: string;
  /** strict (default) or none. */
  networkIsolation?: string;
  /** Name of a HealthCheckPolicy; default: the built-in checks. */
  healthCheckPolicy?: string;
  /** RTO target, e.g. 15m; default: no SLA. */
  maxRTO?: string;
  /** Alert when the measured RTO exceeds maxRTO; default false. */
  alertOnExceed?: boolean;
  /** Reports to keep, 1–1000; default 90. */
  historyLimit?: number;
}

export interface TestResponse {
  name: string;
  namespace: string;
  provider: string;
  schedule: string;
  /** Idle, Running, Completed or Failed. */
  phase: string;
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
}

export interface Summary {
  averageScore: number;
  totalTests: number;
  testsLastNight: number;
  totalFailures: number;
  totalPartial: number;
  averageRTO: string;
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
  score: number;
  tests: number;
  failures: number;
}

export interface Alert {
  timestamp: string;
  testName: string;
  namespace: string;
  score: number;
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
  period: number;
  generatedAt: string;
  totalTests: number;
  passRate: number;
  avgScore: number;
  slaCompliance: number;
  namespacesCovered: number;
  controls: ComplianceControl[];
}

export interface UpcomingTest {
  name: string;
  namespace: string;
  nextRunAt: string;
  lastScore: number;
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
  trialDaysLeft: number;
  features: string[];
}
