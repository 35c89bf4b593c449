// What the read models (summary, daily, alerts, compliance, upcoming, the engine's history) need
// of a RestoreReport: a few hundred bytes of the few KB a report is. The API keeps up to 90,000
// reports in memory; holding each as a full object graph (~50 objects, ~4.4 KB) cost ~380 MB and
// made every major GC mark ~5 million objects, which is what broke the latency budget. The full
// report stays available in packed form (server/report-codec/packed-report.ts) for the endpoints that
// return it.
//
// A full RestoreReport is structurally a ReportSummary, so every function over summaries also
// accepts full reports (tests, PDFs).
import type { RestoreReportSpec } from '../resources/resources.js';
import { parseDuration } from '../common/duration.js';

export interface ReportSummarySpec {
  testRef: RestoreReportSpec['testRef'];
  runId: string;
  completedAt: string;
  score: number;
  result: RestoreReportSpec['result'];
  sourceNamespaces: readonly string[];
  backup: { name: string };
  /** Only whether a restore was requested matters to the read models (aborted attempts). */
  restore?: { phase: string };
  rto: Pick<RestoreReportSpec['rto'], 'measured' | 'measuredSeconds' | 'target' | 'withinSLA'>;
  /** The measured RPO (compliance names each target's latest); absent when no freshness check measured one. */
  rpo?: Pick<NonNullable<RestoreReportSpec['rpo']>, 'measuredSeconds' | 'target' | 'withinSLA'>;
  failure?: { reason: string; message: string };
  /** Run start − backup completion in seconds (spec.backup.age), for the backup-age alert; absent when unknown. */
  backupAgeSeconds?: number;
  /**
   * The 32 bytes of spec.evidence.digest as a latin1 string (48 bytes in V8, against 88 for the
   * "sha256:<hex>" text): the compliance PDF's run file names each run's digest. Read it with
   * reportEvidenceDigest, which also takes a full report.
   */
  evidenceDigestBytes?: string;
}

export interface ReportSummary {
  metadata: {
    name: string;
    namespace?: string;
    /** Changes with every write (etcd's revision), so it also tells a re-created report apart. */
    resourceVersion?: string;
  };
  spec: ReportSummarySpec;
}

/**
 * Shares equal strings and small arrays between summaries: 90,000 reports of 1,000 tests repeat the
 * same test names, namespaces and source lists; JSON.parse gives each its own copy.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<string, readonly string[]>();
  private readonly refs = new Map<string, RestoreReportSpec['testRef']>();
  /**
   * Restore phases and RTOs: a few thousand distinct values among 90,000 runs (an RTO is whole
   * seconds of at most hours, against a handful of targets), so the map stays bounded.
   */
  private readonly shared = new Map<string, object>();

  string(value: string): string;
  string(value: string | undefined): string | undefined;
  string(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  /**
   * A key such as "namespace/name", shared and flat. A template literal makes a V8 cons string
   * (32 bytes pointing at its parts, which stay alive); 90,000 reports each keyed in a few maps
   * made 1.4 million of them.
   */
  key(...parts: string[]): string {
    return this.string(flatString(parts.join('/')));
  }

  list(values: readonly string[] | undefined): readonly string[] {
    const list = values ?? [];
    const key = list.join('\u0000');
    const known = this.lists.get(key);
    if (known) return known;
    const shared = Object.freeze(list.map((value) => this.string(value)));
    this.lists.set(key, shared);
    return shared;
  }

  restore(phase: string): { phase: string } {
    return this.sharedObject(`restore\u0000${phase}`, () => ({ phase: this.string(phase) }));
  }

  rto(
    measured: string | undefined,
    measuredSeconds: number | undefined,
    target: string | undefined,
    withinSLA: boolean | undefined,
  ): ReportSummarySpec['rto'] {
    const key = `rto\u0000${measured}\u0000${measuredSeconds}\u0000${target}\u0000${withinSLA}`;
    return this.sharedObject(key, () => ({
      measured: this.string(measured),
      measuredSeconds,
      target: this.string(target),
      withinSLA,
    }));
  }

  private sharedObject<T extends object>(key: string, make: () => T): T {
    const known = this.shared.get(key);
    if (known) return known as T;
    const made = Object.freeze(make());
    this.shared.set(flatString(key), made);
    return made;
  }

  testRef(ref: RestoreReportSpec['testRef']): RestoreReportSpec['testRef'] {
    const key = `${ref.namespace}\u0000${ref.name}\u0000${ref.uid ?? ''}`;
    const known = this.refs.get(key);
    if (known) return known;
    const shared = Object.freeze({
      name: this.string(ref.name),
      namespace: this.string(ref.namespace),
      ...(ref.uid !== undefined ? { uid: this.string(ref.uid) } : {}),
    });
    this.refs.set(key, shared);
    return shared;
  }
}

/**
 * One summary is ONE object: its metadata and spec are itself (prototype getters), so the fields
 * the read models read (`summary.metadata.name`, `summary.spec.score`) cost one 8-byte slot each
 * and the summary one object header, not four objects (summary, metadata, spec, backup: ~520
 * bytes a report at 90,000 reports, now ~300 with the strings; issue 17). Absent optional fields
 * are undefined, not missing, so every summary has the same hidden class. The sub-objects that
 * repeat across runs (restore phase, RTO) are shared, frozen. Only property reads are supported:
 * a summary is never serialised or spread (whole reports are, from the packed form).
 */
class CompactSummary implements ReportSummary, ReportSummarySpec {
  constructor(
    /** Undefined when it is the usual `<test>-<runId>` (sandbox-names.ts reportName): built on read. */
    private readonly ownName: string | undefined,
    readonly namespace: string | undefined,
    readonly resourceVersion: string | undefined,
    readonly testRef: RestoreReportSpec['testRef'],
    readonly runId: string,
    readonly completedAt: string,
    readonly score: number,
    readonly result: RestoreReportSpec['result'],
    readonly sourceNamespaces: readonly string[],
    private readonly backupName: string,
    readonly restore: { phase: string } | undefined,
    readonly rto: ReportSummarySpec['rto'],
    readonly rpo: ReportSummarySpec['rpo'],
    readonly failure: { reason: string; message: string } | undefined,
    readonly evidenceDigestBytes: string | undefined,
    readonly backupAgeSeconds: number | undefined,
  ) {}

  get name(): string {
    return this.ownName ?? `${this.testRef.name}-${this.runId}`;
  }

  get metadata(): ReportSummary['metadata'] {
    return this;
  }

  get spec(): ReportSummarySpec {
    return this;
  }

  /** A new object per read: read by a few PDF and record paths only. */
  get backup(): { name: string } {
    return { name: this.backupName };
  }
}

/** The summary of a full report; pass an Interner to share repeated values between summaries. */
export function summarizeReport(
  report: { metadata: ReportSummary['metadata']; spec: RestoreReportSpec },
  interner: Interner = new Interner(),
): ReportSummary {
  const { metadata, spec } = report;
  const rto = spec.rto;
  return new CompactSummary(
    metadata.name === `${spec.testRef.name}-${spec.runId}` ? undefined : metadata.name,
    interner.string(metadata.namespace),
    metadata.resourceVersion,
    interner.testRef(spec.testRef),
    spec.runId,
    spec.completedAt,
    spec.score,
    interner.string(spec.result) as RestoreReportSpec['result'],
    interner.list(spec.sourceNamespaces),
    spec.backup?.name ?? '',
    spec.restore ? interner.restore(spec.restore.phase) : undefined,
    interner.rto(rto?.measured, rto?.measuredSeconds, rto?.target, rto?.withinSLA),
    // Not shared: RPOs spread over any number of seconds, and only runs with a freshness check have one.
    spec.rpo
      ? Object.freeze({ measuredSeconds: spec.rpo.measuredSeconds, target: interner.string(spec.rpo.target), withinSLA: spec.rpo.withinSLA })
      : undefined,
    // Not shared: a failure message may name the run (its sandbox), and few runs fail.
    spec.failure ? { reason: interner.string(spec.failure.reason), message: spec.failure.message } : undefined,
    packedDigest(spec.evidence?.digest),
    spec.backup?.age ? (parseDuration(spec.backup.age) ?? undefined) : undefined,
  );
}

/** Run start − backup completion in seconds of a summary or a full report; undefined when unknown. */
export function reportBackupAgeSeconds(report: {
  spec: Pick<ReportSummarySpec, 'backupAgeSeconds'> & { backup?: { name: string; age?: string } };
}): number | undefined {
  if (report.spec.backupAgeSeconds !== undefined) return report.spec.backupAgeSeconds;
  const age = report.spec.backup?.age;
  return age ? (parseDuration(age) ?? undefined) : undefined;
}

const DIGEST = /^sha256:([0-9a-f]{64})$/;

function packedDigest(digest: string | undefined): string | undefined {
  const hex = digest === undefined ? undefined : DIGEST.exec(digest)?.[1];
  return hex ? Buffer.from(hex, 'hex').toString('latin1') : undefined;
}

/** spec.evidence.digest ("sha256:<hex>") of a summary or a full report; undefined when unsigned. */
export function reportEvidenceDigest(report: {
  spec: Pick<ReportSummarySpec, 'evidenceDigestBytes'> & { evidence?: { digest?: string } };
}): string | undefined {
  const bytes = report.spec.evidenceDigestBytes;
  if (bytes !== undefined) return `sha256:${Buffer.from(bytes, 'latin1').toString('hex')}`;
  return report.spec.evidence?.digest;
}

/** The same text as one flat (sequential) string, holding nothing else alive. */
export function flatString(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
