// The input of the PDF renderers. These objects are also the machine-readable evidence embedded in
// each PDF (rehearsal-evidence.json), and what the attestation digest covers, so they must be plain
// JSON: strings, numbers, booleans, arrays, objects; no Dates, no undefined inside arrays.
//
// The renderers never compute compliance: control statuses, evidence sentences, reasons and
// exceptions come from server/domain/compliance/evaluation.ts through the API layer, which fills
// ComplianceReportData. Only plain statistics (counts, medians) are derived on this side
// (test-aggregates.ts); test-report-data.ts builds the per-test report's data from the resources.

import type { ControlStatus } from '../domain/read-models/views.js';
import type {
  CheckKind,
  CheckResult,
  CheckStatus,
  HealthCheck,
  LabelSelector,
  Provider,
  ResourceTypeRef,
  RunResult,
  RunTrigger,
  ScoreLevel,
  VolumeRestoreReport,
} from '../domain/resources/resources.js';
import type { RunsFileInfo } from './runs-file.js';

export type { ControlStatus };

/** Who produced the document, when, and for which period (common to both reports). */
export interface ReportIdentity {
  /** Unique id printed on every page footer, e.g. "RHR-SOC2-20260401-7c1e9a0b". */
  reportId: string;
  /** RFC 3339 UTC; also the PDF's CreationDate. */
  generatedAt: string;
  /** Rehearsal version that generated the report. */
  productVersion: string;
  /** Cluster name as configured, if any. */
  cluster?: string;
  /** Reporting period, UTC, inclusive start and end. */
  period: { days: number; from: string; to: string };
}

/** One run (one RestoreReport) as listed in a report. */
export interface RunRecord {
  /** RestoreReport name. */
  name: string;
  test: string;
  testNamespace: string;
  runId: string;
  trigger: RunTrigger;
  sourceNamespaces: string[];
  provider: Provider;
  backupName: string;
  /** How a randomWithin test drew the backup (issue 32): "#3 of 7", or "fallback"; absent otherwise. */
  backupChoice?: string;
  backupCompletedAt?: string;
  backupAge?: string;
  scheduledAt: string;
  startedAt: string;
  completedAt: string;
  result: RunResult;
  score: number;
  rto?: string;
  rtoSeconds?: number;
  rtoTarget?: string;
  withinSLA?: boolean;
  checksPassed: number;
  checksTotal: number;
  failure?: { reason: string; message: string };
  /** spec.evidence.digest; absent when the report is unsigned. */
  evidenceDigest?: string;
  /** Outcome of verifyReportChain for this report; absent when not checked. */
  evidenceVerified?: boolean;
}

/** Chain verification summary (from verifyReportChain) printed on the attestation page. */
export interface ChainSummary {
  checkedReports: number;
  verifiedReports: number;
  problems: string[];
}

/**
 * The evidence anchors in write-once storage (issue 33) as the attestation page prints them: where
 * they are, how many, the newest, and every chain that disagrees with one written before. Absent in
 * reports rendered before anchors existed (their pages do not change).
 */
export interface AnchorSummary {
  /** false: no write-once store is configured, the evidence is not anchored. */
  configured: boolean;
  /** "bucket B at ENDPOINT". */
  store?: string;
  /** Usable anchors read. */
  anchors?: number;
  /** When the newest was written (its authority's time, or the server's claim, said as such). */
  newest?: string;
  /** The newest anchors, newest first: the object (key and version) and when it was written. */
  recent?: Array<{ source: string; when: string }>;
  /** Problems: chains rewritten, cut or deleted after an anchor recorded them (at most MAX_ANCHOR_PROBLEMS). */
  disagreements?: string[];
  /** Objects under anchors/ that could not be used (edited, unknown key, bad time-stamp). */
  unusable?: number;
  /** Why the anchors could not be read when this report was generated. */
  error?: string;
}

export const MAX_ANCHOR_PROBLEMS = 20;

// ------------------------------------------------------------------ compliance report

export interface ControlEntry {
  /** Control id within the framework, e.g. "A1.3". */
  id: string;
  title: string;
  role: 'primary' | 'supporting';
  status: ControlStatus;
  /** The one-line evidence string of the compliance module. */
  evidence: string;
  /** What this control needs that a restore test does not evidence (the customer's duties). */
  notEvidenced: string;
  /** Why the control is at risk / not tested; empty when satisfied. */
  reasons: string[];
  remediatedExceptions: number;
  /**
   * Targets in scope and how many are satisfied for this control, counted over every target (the
   * coverage matrix may list only some). Absent: counted from `coverage`, which is then complete.
   */
  targets?: { inScope: number; satisfied: number; satisfiedNames: string[] };
}

export interface ScopeTarget {
  /** Source namespace (a "target" in the status rules). */
  namespace: string;
  tests: string[];
  /** Distinct RTO targets of those tests; empty = no target defined. */
  rtoTargets: string[];
  /** Runs in the period that restored this namespace. */
  runs: number;
}

export interface ScopeTest {
  name: string;
  namespace: string;
  provider: Provider;
  schedule: string;
  timezone: string;
  sourceNamespaces: string[];
  backupName: string;
  rtoTarget?: string;
  /** spec.sla.maxRPO (the RPO target a freshness check measures against). */
  rpoTarget?: string;
}

export interface ExceptionEntry {
  /** RestoreReport name of the exception run. */
  run: string;
  test: string;
  testNamespace: string;
  at: string;
  result: RunResult;
  reason: string;
  /** Same values as server/domain/compliance/evaluation.ts RemediationState. */
  remediation: 'remediated' | 'late' | 'pending' | 'unremediated';
  /** RestoreReport name of the qualifying pass that remediated it. */
  remediatedBy?: string;
  remediatedAt?: string;
}

export interface ComplianceReportData extends ReportIdentity {
  kind: 'compliance';
  framework: { id: string; label: string };
  /** When the status rules were evaluated (Tr). */
  evaluatedAt: string;
  summary: {
    totalRuns: number;
    passRate: number;
    avgScore: number;
    slaCompliance: number;
    namespacesCovered: number;
    namespacesInScope: number;
  };
  statusRules: {
    remediationWindowDays: number;
    /** Default freshness window; per-control overrides may be stated in the rules text. */
    freshnessDays: number;
    /** The rules as the compliance module states them; when empty the standard text is printed. */
    rules: string[];
  };
  /**
   * The rows listed, at most MAX_LISTED_ROWS each, the most worrying first; targetsTotal and
   * testsTotal count them all (absent: the lists are complete).
   */
  scope: { targets: ScopeTarget[]; tests: ScopeTest[]; targetsTotal?: number; testsTotal?: number };
  controls: ControlEntry[];
  /**
   * Namespace × control status; statuses in the order of `controls`. At most MAX_LISTED_ROWS rows,
   * the targets at risk or not tested first; coverageTotal counts every target (absent: complete).
   */
  coverage: { namespace: string; statuses: ControlStatus[] }[];
  coverageTotal?: number;
  /**
   * The exceptions listed, at most MAX_LISTED_EXCEPTIONS: the unremediated, late and pending ones
   * first, then the newest; shown oldest first. The rest are counted in exceptionsTotal and named by
   * the API (GET /api/v1/reports, kubectl restoretest reports), so the PDF stays bounded for any
   * history (decision 0016).
   */
  exceptions: ExceptionEntry[];
  /** Every exception in the period (merged across controls), listed or not. */
  exceptionsTotal: number;
  /** Customer duties never marked satisfied (policy, BIA, physical security, ...). */
  notEvidenced: string[];
  /** Limitations beyond the standard ones the renderer always prints. */
  limitations: string[];
  /** Counts over every run in the period: the complete population, failures included. */
  population: RunCounts;
  /**
   * One row of aggregates per RestoreTest with runs in the period (not one row per run), at most
   * MAX_LISTED_ROWS, the failing ones first; byTestTotal counts every test with runs (absent:
   * complete).
   */
  byTest: TestAggregate[];
  byTestTotal?: number;
  /** The RTO analysis rows, at most MAX_LISTED_ROWS, over target and worst RTO first (absent: byTest). */
  rtoByTest?: RtoRow[];
  /** The embedded gzip'd CSV of every run in the period (runs-file.ts); absent: not attached. */
  runsFile?: RunsFileInfo;
  chain?: ChainSummary;
  anchors?: AnchorSummary;
}

export interface RunCounts {
  runs: number;
  pass: number;
  partial: number;
  fail: number;
}

/** A RestoreTest's runs of the period in one row: results, score, RTO statistics, evidence. */
export interface TestAggregate extends RtoRow, RunCounts {
  avgScore: number;
  /** Runs whose evidence did not verify; absent when signatures were not checked. */
  notVerified?: number;
  latestResult: RunResult;
  latestAt: string;
}

/** What aggregateByTest reads of a run (both the domain's and the PDF's run records map to it). */
export interface AggregatedRun {
  name: string;
  test: string;
  testNamespace: string;
  sourceNamespaces: readonly string[];
  completedAt: string;
  result: RunResult;
  score: number;
  rtoSeconds?: number;
  rtoTarget?: string;
  /** Measured RTO over its target. */
  breached: boolean;
  /** Absent: not checked. */
  verified?: boolean;
}

// ------------------------------------------------------------------ test report

export interface TestDefinition {
  name: string;
  namespace: string;
  uid?: string;
  provider: Provider;
  schedule: { cron: string; timezone: string; suspend: boolean };
  backupSource: {
    backupName: string;
    namespaces: string[];
    providerNamespace?: string;
    randomWithin?: string;
    /** The part of the backup each run restores (issue 32); absent when it restores the whole namespaces. */
    subset?: { labelSelector?: LabelSelector; includedResources?: ResourceTypeRef[] };
  };
  sandbox: {
    namespacePrefix: string;
    ttl: string;
    networkIsolation: string;
    resourceQuota?: Record<string, string>;
  };
  sla: { maxRTO?: string; maxRPO?: string; alertOnExceed: boolean };
  historyLimit: number;
}

/** A run's measured RPO (spec.rpo): restore request minus the newest data a freshness check found. */
export interface RunRpo {
  /** The freshness check that measured it. */
  check: string;
  newestData: string;
  measured: string;
  measuredSeconds: number;
  target?: string;
  withinSLA?: boolean;
}

export interface TestRunRecord extends RunRecord {
  checks: CheckResult[];
  levels: ScoreLevel[];
  /** Absent when no freshness check measured one. */
  rpo?: RunRpo;
}

export interface TestReportData extends ReportIdentity {
  kind: 'test';
  test: TestDefinition;
  healthChecks: {
    /** Where the checks come from: a HealthCheckPolicy, inline in the RestoreTest, or the defaults. */
    source: 'policy' | 'inline' | 'default';
    policyName?: string;
    description?: string;
    checks: HealthCheck[];
  };
  /** Runs in the period, oldest first. */
  runs: TestRunRecord[];
  /**
   * The volumes whose data the latest run brought back (spec.volumes, at most 20); absent when it
   * restored no volume data. The latest run's only: the evidence stays bounded for any history.
   */
  latestVolumes?: { run: string; volumes: VolumeRestoreReport[] };
  chain?: ChainSummary;
  anchors?: AnchorSummary;
}

export type ReportData = ComplianceReportData | TestReportData;

// ------------------------------------------------------------------ statistics used by both

export interface RtoRow {
  test: string;
  testNamespace: string;
  sourceNamespaces: string[];
  target?: string;
  runs: number;
  measured: number;
  medianSeconds?: number;
  p95Seconds?: number;
  worstSeconds?: number;
  worstRun?: string;
  worstAt?: string;
  /** Runs whose measured RTO exceeded the target. */
  breaches: number;
}

export interface CheckBreakdownRow {
  name: string;
  kind: CheckKind;
  counts: Record<CheckStatus, number>;
  lastStatus?: CheckStatus;
  lastFailureAt?: string;
  lastFailureMessage?: string;
}

/** Drops undefined values so the object is exactly what a JSON round trip would give. */
export function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** How many runs a report covers: the attestation's `runs`. */
export function runsCovered(data: ReportData): number {
  return data.kind === 'compliance' ? data.population.runs : data.runs.length;
}

export function resultCounts(runs: readonly { result: RunResult }[]): Record<RunResult, number> {
  const counts: Record<RunResult, number> = { pass: 0, partial: 0, fail: 0 };
  for (const r of runs) counts[r.result] += 1;
  return counts;
}
