// The PDF exports (decision 0006): the compliance evidence report of one framework and the report of
// one RestoreTest. Both are signed with the evidence signing key (the attestation page and the
// embedded evidence, see server/pdf/attestation.ts). Order of refusals: malformed query
// (400, tsoa) → license (402) → caches loading (503) → unknown test (404) → no signing key (503) →
// too many renders at once (503 pdf-busy, Retry-After).
//
// Bounded for any history: the compliance PDF aggregates runs per RestoreTest and lists runs only
// as exceptions (at most MAX_LISTED_EXCEPTIONS) and at most MAX_LISTED_ROWS targets or tests per
// table; the test PDF lists the runs of one test, which its historyLimit (≤ 1,000) bounds. At most
// MAX_CONCURRENT_RENDERS render at once.
import { createHash } from 'node:crypto';
import type { FrameworkId } from '../../domain/compliance/catalogue.js';
import type { RestoreReport, RestoreTest } from '../../domain/resources/resources.js';
import { MILLISECONDS_PER_DAY } from '../../domain/common/utc-days.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { orderReportsForChain, verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { renderComplianceReportChunks } from '../../pdf/compliance-report.pdf.js';
import { MAX_ANCHOR_PROBLEMS, type AnchorSummary, type ChainSummary, type ComplianceReportData } from '../../pdf/report-data.js';
import { buildTestReportData } from '../../pdf/test-report-data.js';
import { buildRunsFile } from '../../pdf/runs-file.js';
import { renderTestReport } from '../../pdf/test-report.pdf.js';
import type { EvidenceSigner } from '../../evidence/signing-key.js';
import type { AnchorWriter } from '../../evidence/anchor/anchor-writer.js';
import type { ApiCache, EvidenceKeySource, EvidenceProblems, EvidenceVerifier } from '../ports.js';
import { ProblemError } from '../problem.js';
import { complianceReportData } from './compliance-report-data.js';
import { periodRuns, runsFileRows, type PeriodRuns } from './compliance-runs.js';
import type { ComplianceService } from './compliance.service.js';
import { PDF_EXPORT, PDF_REPORTS, type LicenseService } from './license.service.js';
import { tailProblemOf } from './evidence-tails.js';
import { requireSynced } from './readiness.js';
import { RenderSlots } from './render-slots.js';

/**
 * PDFs rendered at the same time. A render is a few hundred ms to a few s of CPU and tens of MB;
 * more at once would only share the same cores while holding more memory.
 */
export const MAX_CONCURRENT_RENDERS = 2;
const BUSY_RETRY_AFTER_SECONDS = 5;

export interface PdfDocument {
  /** The PDF's bytes in the chunks pdfkit wrote (sent one after another: no copy into one buffer). */
  chunks: readonly Buffer[];
  filename: string;
}

export interface PdfServiceDeps {
  cache: ApiCache;
  compliance: ComplianceService;
  license: LicenseService;
  keys?: EvidenceKeySource;
  evidenceProblems?: EvidenceProblems;
  /** The verifier the ComplianceService judges runs with (the same one: the CSV states its verdicts). */
  verifyEvidence?: EvidenceVerifier;
  now: () => Date;
  namespace: string;
  productVersion: string;
  cluster?: string;
  /** The evidence anchors (issue 33), when a write-once store is configured. */
  anchors?: Pick<AnchorWriter, 'store' | 'currentAudit'>;
}

/** How long a PDF waits for the anchor store before saying the anchors were not checked. */
const ANCHOR_AUDIT_TIMEOUT_MS = 10_000;

/** The file name of the compliance PDF (decision 0001). */
export function compliancePdfFilename(framework: string, period: number): string {
  return `rehearsal-compliance-${framework}-${period}d.pdf`;
}

export function testReportPdfFilename(namespace: string, name: string, period: number): string {
  return `rehearsal-test-${namespace}-${name}-${period}d.pdf`;
}

/** `attachment; filename="..."` (names are RFC 1123 labels and digits: nothing to escape). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename}"`;
}

export class PdfService {
  private readonly slots = new RenderSlots(MAX_CONCURRENT_RENDERS, BUSY_RETRY_AFTER_SECONDS);

  constructor(private readonly deps: PdfServiceDeps) {}

  async compliance(framework: FrameworkId, period: number): Promise<PdfDocument> {
    this.deps.license.require(PDF_EXPORT);
    requireSynced(this.deps.cache);
    const signer = this.signer();
    return this.slots.run(async () => {
      const anchors = await this.anchorSummary();
      const { data, runs } = this.complianceData(framework, period);
      data.anchors = anchors;
      // The whole population as an embedded CSV, written from the index in slices; its digest
      // joins the evidence. The evaluation is no longer referenced here: its memory is free for
      // the rendering.
      const runsFile = await buildRunsFile(runsFileRows(runs));
      data.runsFile = runsFile.info;
      return {
        chunks: await renderComplianceReportChunks(data, signer, runsFile.bytes),
        filename: compliancePdfFilename(framework, period),
      };
    });
  }

  /** Evaluates and maps in one tick (the runs are the evaluation's), keeping only the PDF's data. */
  private complianceData(
    framework: FrameworkId,
    period: number,
  ): { data: ComplianceReportData; runs: PeriodRuns } {
    const now = this.deps.now();
    const tests = this.deps.cache.listTests();
    // Deleted tails and, when anchors are on, chains that disagree with one (evidence exceptions).
    const tails = this.deps.compliance.missingTails(tests);
    const evaluation = this.deps.compliance.evaluate(framework, period, now, tails);
    const runs = periodRuns(
      this.deps.cache.reportIndex,
      evaluation.detail.period,
      evaluation.detail.signaturesChecked ? this.deps.verifyEvidence : undefined,
    );
    const data = complianceReportData({
      evaluation,
      runs,
      tests,
      reportOf: (key) => this.deps.cache.fullReport(key),
      chainProblems: tails.map((tail) => tail.problem),
      productVersion: this.deps.productVersion,
      ...(this.deps.cluster ? { cluster: this.deps.cluster } : {}),
      ...(this.deps.evidenceProblems ? { evidenceProblems: this.deps.evidenceProblems } : {}),
    });
    return { data, runs };
  }

  async testReport(name: string, namespace: string | undefined, period: number): Promise<PdfDocument> {
    this.deps.license.require(PDF_REPORTS);
    requireSynced(this.deps.cache);
    const ns = namespace || this.deps.namespace;
    const test = this.deps.cache.getTest(ns, name);
    if (!test) throw new ProblemError('not-found', `RestoreTest "${name}" not found in namespace "${ns}".`);
    const signer = this.signer();
    return this.slots.run(() => this.renderTestReport(test, ns, name, period, signer));
  }

  private async renderTestReport(
    test: RestoreTest,
    ns: string,
    name: string,
    period: number,
    signer: EvidenceSigner,
  ): Promise<PdfDocument> {
    const now = this.deps.now();
    const from = now.getTime() - period * MILLISECONDS_PER_DAY;
    const reports = this.deps.cache.reportIndex
      .runsOfTest(`${ns}/${name}`)
      .filter((run) => run.completedAt >= from && run.completedAt <= now.getTime())
      .map((run) => this.deps.cache.fullReport(run.key))
      .filter((report): report is RestoreReport => report !== undefined);
    const tail = tailProblemOf(this.deps.cache, test);
    const { verified, chain } = this.integrity(reports, tail ? [tail.problem] : []);
    const policyName = test.spec.healthCheckPolicy;
    const policy = policyName ? this.deps.cache.getPolicy?.(ns, policyName) : undefined;
    const generatedAt = now.toISOString();
    const data = buildTestReportData({
      reportId: testReportId(ns, name, generatedAt, reports),
      generatedAt,
      productVersion: this.deps.productVersion,
      ...(this.deps.cluster ? { cluster: this.deps.cluster } : {}),
      period: { days: period, from: new Date(from).toISOString(), to: generatedAt },
      test,
      ...(policy ? { policy } : {}),
      reports,
      ...(verified ? { verified } : {}),
      ...(chain ? { chain } : {}),
    });
    data.anchors = await this.anchorSummary(`${ns}/${name}`);
    return { chunks: [await renderTestReport(data, signer)], filename: testReportPdfFilename(ns, name, period) };
  }

  /** The anchors as the attestation page states them; `testKey` keeps one test's disagreements. */
  private async anchorSummary(testKey?: string): Promise<AnchorSummary> {
    const anchors = this.deps.anchors;
    if (!anchors) return { configured: false };
    let timer: NodeJS.Timeout | undefined;
    try {
      const audit = await Promise.race([
        anchors.currentAudit(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${anchors.store} did not answer within ${ANCHOR_AUDIT_TIMEOUT_MS / 1000} s`)), ANCHOR_AUDIT_TIMEOUT_MS);
        }),
      ]);
      const disagreements = testKey ? audit.disagreements.filter((text) => text.startsWith(`${testKey}: `)) : audit.disagreements;
      return {
        configured: true,
        store: anchors.store,
        anchors: audit.anchors,
        ...(audit.newest ? { newest: audit.newest } : {}),
        ...(audit.recent.length > 0 ? { recent: audit.recent } : {}),
        disagreements: limited(disagreements, MAX_ANCHOR_PROBLEMS),
        ...(audit.unusable.length > 0 ? { unusable: audit.unusable.length } : {}),
      };
    } catch (error) {
      return { configured: true, store: anchors.store, error: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  private signer(): EvidenceSigner {
    const active = this.deps.keys?.signingKey();
    if (!active) {
      throw new ProblemError(
        'signing-key-unavailable',
        'The evidence signing key has not been loaded yet, so no signed PDF can be produced; retry shortly.',
        { headers: { 'Retry-After': '5' } },
      );
    }
    return active.key;
  }

  /** Per-report verification and the summary printed on the attestation page. */
  private integrity(
    reports: readonly RestoreReport[],
    tailProblems: readonly string[],
  ): {
    verified?: Map<string, boolean>;
    chain?: ChainSummary;
  } {
    const ordered = orderReportsForChain(reports);
    let problemsOf: ((report: RestoreReport, index: number) => string[]) | undefined;
    if (this.deps.evidenceProblems) {
      problemsOf = this.deps.evidenceProblems;
    } else if (this.deps.keys) {
      const result = verifyReportChain(ordered, this.deps.keys.keyRing());
      problemsOf = (report, index) =>
        result.reports[index]!.problems.map((text) => `${report.metadata.name}: ${text}`);
    }
    if (!problemsOf) return {};
    const verified = new Map<string, boolean>();
    // A deleted tail leaves every remaining report verifying; only the test's anchor tells.
    const problems: string[] = [...tailProblems];
    ordered.forEach((report, index) => {
      const found = problemsOf(report, index);
      verified.set(report.metadata.name, found.length === 0);
      problems.push(...found);
    });
    return {
      verified,
      chain: {
        checkedReports: ordered.length,
        verifiedReports: [...verified.values()].filter(Boolean).length,
        problems:
          problems.length > 40
            ? [...problems.slice(0, 40), `... and ${problems.length - 40} more`]
            : problems,
      },
    };
  }
}

function testReportId(
  namespace: string,
  name: string,
  generatedAt: string,
  reports: readonly RestoreReport[],
): string {
  const digest = createHash('sha256')
    .update(
      canonicalJson({
        test: `${namespace}/${name}`,
        generatedAt,
        runs: reports.map((report) => report.spec.evidence?.digest ?? report.metadata.name).sort(),
      }),
    )
    .digest('hex');
  return `RHR-TEST-${generatedAt.slice(0, 10).replaceAll('-', '')}-${digest.slice(0, 8)}`;
}

/** The first `max` texts, the last one saying how many more there were. */
function limited(texts: readonly string[], max: number): string[] {
  return texts.length <= max ? [...texts] : [...texts.slice(0, max), `... and ${texts.length - max} more`];
}
