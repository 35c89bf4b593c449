// What the HTTP API needs from the rest of the server, as narrow interfaces. The real
// implementations are the informer cache (RehearsalCache), the typed writer (RehearsalClient) and,
// for schedules, the Velero provider wired in server/app/rehearsal.ts; the contract tests plug in
// in-memory fakes. api/ must not import providers/ or checks/ (ESLint), hence ScheduleSource.
import type { KeyObject } from 'node:crypto';
import type { HealthCheckPolicy, RestoreReport, RestoreTest, RestoreTestSpec } from '../domain/resources/resources.js';
import type { ReportIndex } from '../domain/read-models/report-index.js';
import type { ReportSummary } from '../domain/read-models/report-summary.js';
import type { LicenseResponse, ScheduleInfo } from '../domain/read-models/views.js';
import type { BackupInventory, CoverageResponse } from '../domain/read-models/coverage.js';
import type { NamespaceFacts } from '../domain/test-drafts/namespace-facts.js';
import type { Provider } from '../domain/resources/resources.js';
import type { RunDiagnosis } from '../domain/diagnosis/diagnosis.js';
import type { InformerHandler } from '../kube/informer.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';
import type { EvidencePublicKey, SandboxInfo } from './dto.js';

/** Reads. Every read endpoint answers from these; nothing here lists against the apiserver. */
export interface ApiCache {
  /** false until every informer has completed its first list. */
  readonly synced: boolean;
  readonly reportIndex: ReportIndex;
  /**
   * Changes whenever a cached test or report changes: a response computed from the cache stays
   * valid while it does (apart from the clock).
   */
  readonly version: string;
  listTests(): RestoreTest[];
  /** A whole report by key "namespace/name" (the index holds summaries). */
  fullReport(key: string): RestoreReport | undefined;
  /** The JSON array of whole reports, in the given order (keys "namespace/name"). */
  reportsJson(keys: readonly string[]): Promise<Buffer>;
  /**
   * The same array in slices: `write` resolves when the next slice may follow, or to false to stop
   * (the client went away). For pages too large to keep (server/api/responses/streamed-json.ts).
   */
  writeReportsJson(keys: readonly string[], write: (chunk: Buffer) => Promise<boolean>): Promise<void>;
  getTest(namespace: string, name: string): RestoreTest | undefined;
  onTestChange(handler: InformerHandler<RestoreTest>): void;
  /** The HealthCheckPolicy a test names (test report PDFs); absent = not available. */
  getPolicy?(namespace: string, name: string): HealthCheckPolicy | undefined;
}

/** Writes, straight to the apiserver (the cache catches up through its watch). */
export interface TestWriter {
  getTest(namespace: string, name: string): Promise<RestoreTest>;
  createTest(test: RestoreTest): Promise<RestoreTest>;
  replaceTestSpec(test: RestoreTest, spec: RestoreTestSpec): Promise<RestoreTest>;
  deleteTest(namespace: string, name: string): Promise<void>;
  annotateTest(
    namespace: string,
    name: string,
    annotations: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<RestoreTest>;
}

/** Backup schedules of the backup tool (only Velero has them, decision 0001). */
export interface ScheduleSource {
  /** Throws BackupToolUnavailableError when the tool is not installed or not reachable. */
  listSchedules(): Promise<ScheduleInfo[]>;
}

/** Which backed-up namespaces are restore-tested (server/inventory/coverage-tracker.ts). */
export interface CoverageSource {
  /** Throws BackupToolUnavailableError when the tool cannot be read. */
  coverage(): Promise<CoverageResponse>;
  /** From the last inventory read, without I/O; undefined before the first read. */
  latest(): CoverageResponse | undefined;
  /** coverage() with the inventory it was computed from (the schedules test drafts follow). */
  withInventory(): Promise<{ inventory: BackupInventory; coverage: CoverageResponse }>;
}

/** What a source namespace runs, read for test drafts (server/inventory/workloads.kube.ts). */
export interface WorkloadSource {
  /** The backup tool the drafts restore from (the one whose inventory coverage reads). */
  readonly provider: Provider;
  /** Throws KubeError when the namespace cannot be read. */
  readNamespace(namespace: string): Promise<NamespaceFacts>;
}

/** Stored diagnoses of failed and partial runs (server/triage/diagnosis-store.ts). */
export interface DiagnosisSource {
  /** The stored diagnosis of a run (its report's namespace and name), or undefined when it has none. */
  load(run: { namespace: string; name: string; runId: string }): Promise<RunDiagnosis | undefined>;
}

/** Thrown by a ScheduleSource (or any backup-tool port) when the tool cannot answer → 503. */
export class BackupToolUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupToolUnavailableError';
  }
}

/**
 * Whether a report's evidence signature verifies (compliance counts unverified evidence as a gap).
 * `keys`: the report's and its test's "namespace/name" as the caller already holds them (the report
 * index's shared strings), so 90,000 calls per compliance evaluation do not build and hash new ones.
 */
export type EvidenceVerifier = (report: ReportSummary, keys?: ReportKeys) => boolean;

export interface ReportKeys {
  key: string;
  testKey: string;
}

/** Why a report's evidence does not verify, each line naming the report ([] = it verifies). */
export type EvidenceProblems = (report: ReportSummary | RestoreReport) => string[];

/** The license in effect (the license Secret, verified and watched). */
export interface LicenseSource {
  current(): { license: LicenseResponse; reason?: string };
}

/** The evidence signing key and the published public keys. */
export interface EvidenceKeySource {
  /** Current and retired public keys, current first. */
  publicKeys(): EvidencePublicKey[];
  /** The key PDFs are signed with; undefined until one has been loaded or created. */
  signingKey(): { key: EvidenceSigner } | undefined;
  /** keyId → public key, every trusted key. */
  keyRing(): ReadonlyMap<string, KeyObject>;
}

/**
 * Sandbox namespaces for administrators: read live from the apiserver (a rare, admin-only call;
 * no cache holds namespaces) and judged exactly as the janitor judges them
 * (server/app/sandbox-admin.ts over server/engine/sandbox/sandbox-inventory.ts).
 */
export interface SandboxAdmin {
  /** Every namespace carrying the sandbox label, sorted by name. */
  list(): Promise<SandboxInfo[]>;
  /**
   * Removes one orphaned sandbox: only when it is orphaned now and, when `uid` is given, has that
   * UID; the delete carries the UID as a precondition either way.
   */
  removeOrphan(name: string, uid: string | undefined): Promise<OrphanRemoval>;
}

export type OrphanRemoval =
  | { outcome: 'removed' }
  | { outcome: 'not-found' | 'not-orphaned' | 'uid-mismatch'; message: string };
