// The RestoreReport resource (crds/rehearsal.dev_restorereports.yaml): the scored, signed record
// of one run. This is the expanded shape every reader works with; how it is packed for storage is
// report-encoding.ts's business. Pure types only.
import type { CheckKind } from './health-check-policy.resource.js';
import type { API_VERSION, ObjectMeta, Provider, RunResult, RunTrigger } from './resource-common.js';
import type { BackupSelectionRecord, DefaultTransformId, PodSecurityLevel } from './restore-test.resource.js';

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'error';

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
  /** A freshness check's finding: the newest data in the restored copy (RFC 3339). */
  newestData?: string;
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

/** A reference from a restored object to a Service in another namespace (decision 0004). */
export interface DependencyEntry {
  /** `<Kind>/<source namespace>/<name>` of the restored object holding the reference. */
  from: string;
  /** `<service>.<namespace>` as referenced. */
  to: string;
  status: 'restored' | 'reachable' | 'missing' | 'unreachable' | 'production';
  message?: string;
}

/** What a restore transform did to one object of the backup (docs/restore-transforms.md). */
export interface AppliedTransform {
  /** A default transform's id, `exclude` or `patch/<name>` for the test's own. */
  transform: string;
  kind: string;
  /** Source namespace of the object. */
  namespace: string;
  /** Object name; "*" when the tool does not say which objects it changed (every one it matched). */
  name: string;
  /** What changed, e.g. "not restored" or "spec.suspend set to true". */
  change: string;
}

/** The transforms of a run: what each changed, and the defaults the test removed. */
export interface RestoreTransformsReport {
  /** At most 25, sorted by transform, kind, namespace, name. */
  applied: AppliedTransform[];
  /**
   * Entries left out beyond the 25.
   * @isInt
   */
  more?: number;
  removedDefaults?: DefaultTransformId[];
}

/** The Pod Security profile each sandbox enforced (never looser than its source). */
export interface PodSecurityReport {
  /** The floor: the test's spec.restore.podSecurity, else the installation's. */
  floor: PodSecurityLevel;
  namespaces: {
    source: string;
    /** The source namespace's pod-security.kubernetes.io/enforce; absent when it has none. */
    sourceLevel?: PodSecurityLevel;
    /** What the sandbox enforced (its label as read at the end of the run). */
    level: PodSecurityLevel;
  }[];
}

/**
 * How a volume's data came back (issue 27): `file-system` (Velero's node agent, file by file into
 * the restored Pod's volume), `csi-data-mover` (Velero's CSI data mover, into a claim),
 * `csi-snapshot` (a claim provisioned from a CSI snapshot kept in the cluster: the CSI driver
 * fills it), or `provider-data-mover` (the backup provider's own data mover writes a whole-volume
 * image from its backup target into a claim: Trilio).
 */
export type VolumeRestoreMethod = 'file-system' | 'csi-data-mover' | 'csi-snapshot' | 'provider-data-mover';

/**
 * One volume whose data the restore brought back, as the backup tool reports it (Velero: a
 * PodVolumeRestore of its node agent, or a DataDownload of its CSI data mover; Trilio: a
 * dataSnapshot of its Restore's status, decision 0012).
 */
export interface VolumeRestoreReport {
  /** The sandbox namespace the data went into. */
  namespace: string;
  /** The restored Pod and its volume (file-system restores), or the claim (the data movers). */
  pod?: string;
  volume?: string;
  claim?: string;
  method: VolumeRestoreMethod;
  /**
   * The tool's own phase word (Velero: New, InProgress, Completed, Failed, Canceled; Trilio: the
   * status of the claim's DataRestore condition, InProgress, Completed, Failed, Error, Skipped, …).
   */
  phase: string;
  /** The data is in the volume (the tool says so). */
  dataRestored: boolean;
  /**
   * Bytes restored (the tool's progress counter).
   * @isInt
   */
  bytes?: number;
  /**
   * From the tool's start of this volume to its completion.
   * @isInt
   */
  durationSeconds?: number;
  /** The tool's message, when it gave one (a failed volume's reason). */
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
    /** How the backup was drawn (strategy randomWithin only); absent for latest or a named backup. */
    selection?: BackupSelectionRecord;
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
    /** The part of the backup restored (issue 32), e.g. "labels app=a; types deployments.apps"; absent = everything. */
    subset?: string;
  };
  /** @isInt */
  score: number;
  result: RunResult;
  levels: ScoreLevel[];
  checks: CheckResult[];
  /**
   * The checks in one line (issue 30), e.g. "4/5 passed; failed: orders-rows", at most 160
   * characters ("+N more" for the failed names that do not fit): what kubectl shows of the checks.
   * Signed like every spec field. Absent on reports written before issue 30.
   */
  checkSummary?: string;
  completeness: KindCompleteness[];
  /** Cross-namespace references found in the restored objects; failed ones first, at most 32. */
  dependencies?: DependencyEntry[];
  /** What the restore transforms changed; absent when no restore was requested. */
  transforms?: RestoreTransformsReport;
  /** The sandboxes' Pod Security profiles; absent when no sandbox was created. */
  podSecurity?: PodSecurityReport;
  /**
   * The volumes whose data the restore brought back, failed ones first, at most 20; absent when the tool restored no
   * volume data (or cannot say).
   */
  volumes?: VolumeRestoreReport[];
  /**
   * The measured RPO (issue 27): the restore request time minus the newest data a freshness check
   * found in the restored copy. Absent without a freshness check that found a time.
   */
  rpo?: {
    /** The freshness check that measured it. */
    check: string;
    newestData: string;
    measured: string;
    /** @isInt */
    measuredSeconds: number;
    target?: string;
    withinSLA?: boolean;
  };
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
   * decision 0012); absent when the run passed (deleted at once) or had no sandbox.
   */
  sandboxExpiresAt?: string;
  /** A failed check lowered the result the score alone gives (decision 0004): which one, and to what. */
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
