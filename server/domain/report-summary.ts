// What the read models (summary, daily, alerts, compliance, upcoming, the engine's history) need
// of a RestoreReport: a few hundred bytes of the few KB a report is. The API keeps up to 90,000
// reports in memory; holding each as a full object graph (~50 objects, ~4.4 KB) cost ~380 MB and
// made every major GC mark ~5 million objects, which is what broke the latency budget. The full
// report stays available in packed form (server/kube/packed-report.ts) for the endpoints that
// return it.
//
// A full RestoreReport is structurally a ReportSummary, so every function over summaries also
// accepts full reports (tests, PDFs).
import type { RestoreReportSpec } from './resources.js';

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
  failure?: { reason: string; message: string };
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

/** The summary of a full report; pass an Interner to share repeated values between summaries. */
export function summarizeReport(
  report: { metadata: ReportSummary['metadata']; spec: RestoreReportSpec },
  interner: Interner = new Interner(),
): ReportSummary {
  const { metadata, spec } = report;
  const rto = spec.rto ?? { phases: {} };
  return {
    metadata: {
      name: metadata.name,
      namespace: interner.string(metadata.namespace),
      resourceVersion: metadata.resourceVersion,
    },
    spec: {
      testRef: interner.testRef(spec.testRef),
      runId: spec.runId,
      completedAt: spec.completedAt,
      score: spec.score,
      result: spec.result,
      sourceNamespaces: interner.list(spec.sourceNamespaces),
      backup: { name: spec.backup?.name ?? '' },
      ...(spec.restore ? { restore: { phase: interner.string(spec.restore.phase) } } : {}),
      rto: {
        ...(rto.measured !== undefined ? { measured: rto.measured } : {}),
        ...(rto.measuredSeconds !== undefined ? { measuredSeconds: rto.measuredSeconds } : {}),
        ...(rto.target !== undefined ? { target: interner.string(rto.target) } : {}),
        ...(rto.withinSLA !== undefined ? { withinSLA: rto.withinSLA } : {}),
      },
      ...(spec.failure
        ? { failure: { reason: interner.string(spec.failure.reason), message: spec.failure.message } }
        : {}),
      ...packedDigest(spec.evidence?.digest),
    },
  };
}

const DIGEST = /^sha256:([0-9a-f]{64})$/;

function packedDigest(digest: string | undefined): { evidenceDigestBytes?: string } {
  const hex = digest === undefined ? undefined : DIGEST.exec(digest)?.[1];
  return hex ? { evidenceDigestBytes: Buffer.from(hex, 'hex').toString('latin1') } : {};
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
