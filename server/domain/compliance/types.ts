// The shapes of a compliance evaluation (decision 0006): what the JSON answer, the auditor PDF and the
// services read. The rules that fill them live in rules.ts.
import type { ReportSummary } from '../read-models/report-summary.js';
import type { RestoreTest, RunResult } from '../resources/resources.js';
import type { ComplianceControl, ComplianceResponse, ControlStatus } from '../read-models/views.js';
import type { ControlRole, FrameworkId } from './catalogue.js';
import type { ReportSource } from '../read-models/report-index.js';
import type { RtoVerdict } from '../read-models/run-facts.js';

/** Why a run is an exception (not a qualifying pass) for a control. */
export type ExceptionCause =
  | 'fail'
  | 'partial'
  | 'aborted'
  | 'rto_breach'
  | 'rto_unmeasured'
  | 'rto_target_undefined'
  | 'evidence_unverified';

/** remediated: qualifying pass of the same test within W. late: one came, after W. pending: none yet, W not over. */
export type RemediationState = 'remediated' | 'late' | 'pending' | 'unremediated';

/** The reasons of the guide for at_risk, plus the cases it implies. */
export type TargetReasonCode =
  | 'no_qualifying_pass'
  | 'stale'
  | 'latest_run_failed'
  | 'latest_run_partial'
  | 'rto_breach'
  | 'rto_target_undefined'
  | 'evidence_unverified'
  | 'late_remediation'
  | 'unremediated_exception'
  | 'remediation_pending';

export interface TargetReason {
  code: TargetReasonCode;
  message: string;
}

export interface RunReference {
  /** namespace/name of the RestoreReport. */
  report: string;
  /** namespace/name of the RestoreTest. */
  test: string;
  runId: string;
  completedAt: string;
  result: RunResult;
  score: number;
}

export interface ExceptionDetail extends RunReference {
  causes: ExceptionCause[];
  remediation: RemediationState;
  /** The qualifying pass that remediated it (on time or late). */
  remediatedBy?: RunReference;
}

export interface TargetControlDetail {
  /** The target: a source namespace in scope. */
  namespace: string;
  status: ControlStatus;
  /** Empty unless at_risk. */
  reasons: TargetReason[];
  /** Runs in the period covering this namespace, aborted attempts included. */
  runs: number;
  abortedAttempts: number;
  qualifyingPasses: number;
  newestQualifyingPass?: RunReference;
  /** Age of the newest qualifying pass at generation time, in days (fractional). */
  newestQualifyingPassAgeDays?: number;
  latestRun?: RunReference & { qualifying: boolean };
  exceptions: ExceptionDetail[];
  remediatedExceptions: number;
  /** On controls about RTO/RPO objectives only; absent there too when no run completed. */
  rpo?: RpoEvidence;
}

/** Why a target's RPO evidence falls short; noted, never a status reason (the guide's rules count RTO only). */
export type RpoNoteCode = 'rpo_target_undefined' | 'rpo_not_measured' | 'rpo_over_target';

export interface RpoNote {
  code: RpoNoteCode;
  message: string;
}

/**
 * What a target's latest completed run says about the RPO, for the controls about RTO/RPO
 * objectives (ISO 27001 5.30, DORA Art. 12(6)): rpo-evidence.ts.
 */
export interface RpoEvidence {
  /**
   * The RPO target: the one the run measured against (as it applied then), or, when the run
   * measured none, its test's spec.sla.maxRPO now (the report records a target only beside a
   * measurement). Null: neither has one.
   */
  target: string | null;
  /** The latest completed run's measured RPO; absent when it measured none (no freshness check found a time). */
  latest?: RunReference & { measured: string; measuredSeconds: number; withinSLA?: boolean };
  /** Empty when the RPO was measured within a target. */
  notes: RpoNote[];
}

export interface ControlDetail extends ComplianceControl {
  role: ControlRole;
  rtoBound: boolean;
  freshnessDays: number;
  caveat?: string;
  /** Targets with at least one qualifying pass in the period ("restored and verified"). */
  verifiedTargets: number;
  remediatedExceptions: number;
  targets: TargetControlDetail[];
}

export interface RtoAnalysisRow {
  namespace: string;
  runsMeasured: number;
  runsWithTarget: number;
  runsWithinTarget: number;
  runsBreached: number;
  runsWithoutTarget: number;
  /** The run with the longest measured RTO (the most recent one on a tie). */
  worst?: RunReference & {
    rtoSeconds: number;
    rto: string;
    targetSeconds: number | null;
    target: string | null;
    verdict: RtoVerdict;
  };
}

export interface RunRecord extends RunReference {
  sourceNamespaces: string[];
  backupName: string;
  rtoSeconds: number | null;
  rtoTarget: string | null;
  rtoVerdict: RtoVerdict;
  aborted: boolean;
  evidenceVerified: boolean;
  failure?: { reason: string; message: string };
}

export interface ComplianceDetail {
  framework: FrameworkId;
  label: string;
  period: { days: number; from: string; to: string };
  generatedAt: string;
  remediationWindowDays: number;
  /** false when no verifier was supplied: signatures were not checked at all. */
  signaturesChecked: boolean;
  scope: {
    namespaces: string[];
    tests: {
      name: string;
      namespace: string;
      schedule: string;
      sourceNamespaces: string[];
      rtoTarget: string;
      /** spec.sla.maxRPO; empty when none is set. */
      rpoTarget: string;
    }[];
  };
  totals: { runs: number; pass: number; partial: number; fail: number; aborted: number };
  controls: ControlDetail[];
  rto: RtoAnalysisRow[];
  notEvidenced: string[];
  limitations: string[];
  /** The complete population of runs in the period, oldest first (built on first read). */
  readonly runs: RunRecord[];
  /**
   * The same records one at a time, none kept: the PDF aggregates 90,000 runs without holding
   * 90,000 records.
   */
  eachRun(): IterableIterator<RunRecord>;
}

export interface ComplianceEvaluation {
  response: ComplianceResponse;
  detail: ComplianceDetail;
}

export interface ComplianceInput {
  framework: FrameworkId;
  /** Length of the period [now - periodDays, now]. */
  periodDays: number;
  now: Date;
  tests: readonly RestoreTest[];
  /** Reports outside the period are ignored, so a pre-filtered window is fine. */
  reports: ReportSource;
  /** Whether a report's evidence signature verifies; absent = signatures not checked. */
  verify?: RunVerifier;
  remediationWindowDays?: number;
  /**
   * Namespaces the backup tool backs up that no passing restore test covers (coverage view);
   * named in every control's evidence as a gap. Absent = not known (nothing is said).
   */
  untestedBackedUp?: readonly string[];
  /**
   * Chains whose newest reports were deleted (the test's evidence anchor names a report that is
   * gone): an evidence exception for each of the test's source namespaces, named in the evidence.
   */
  missingTails?: readonly MissingTail[];
}

export interface MissingTail {
  /** namespace/name of the RestoreTest. */
  test: string;
  sourceNamespaces: readonly string[];
  /** What is missing (names the anchored report). */
  problem: string;
  /**
   * missing-tail (absent too): the test's status.evidenceAnchor names a report that is gone;
   * anchor: the chain disagrees with an anchor in write-once storage (issue 33).
   */
  kind?: 'missing-tail' | 'anchor';
}

/** The response's figures over the whole population (the same for every framework). */
export type HeadlineFigures = Omit<ComplianceResponse, 'framework' | 'period' | 'generatedAt' | 'controls'>;

/**
 * Whether a run's evidence verifies. `keys`: the run's report key and test key as the index holds
 * them (the same as reportKeyOf / reportTestKeyOf of the report).
 */
export type RunVerifier = (report: ReportSummary, keys: { key: string; testKey: string }) => boolean;
