// Whether a stored RestoreReport's evidence verifies, for compliance (a report whose evidence does
// not verify never makes a control satisfied) and for the PDFs' integrity summaries.
//
// A report verifies when it is signed, its digest recomputes (content not edited), its key is
// trusted (current or retired published key), its signature is valid, AND it links to the report
// before it in its RestoreTest's chain (one chain per RestoreTest uid; verifyReportChain's rules:
// a deleted, reordered or forked report shows up as a broken link on its successor). The oldest
// report of a test may link to a digest that is gone: that is what pruning by historyLimit
// leaves, and it still verifies.
//
// Cost: ~0.3 ms of crypto per report, so 90,000 reports are ~25 s of CPU. The per-report checks
// are memoized by uid + resourceVersion (any change to a stored object bumps its resourceVersion;
// a deleted and re-created report has a new uid) and cleared when the trusted keys change; chain
// links are memoized per RestoreTest and recomputed after any change to one of its reports. warm()
// fills the memo in the background in small slices so requests do not pay for it.
//
// Callers ask about summaries (what the caches index); the chains are verified over the whole
// reports of a test, unpacked from the cache when a test's chain is (re)computed.
import type { KeyObject } from 'node:crypto';
import type { ReportSummary } from '../domain/report-summary.js';
import type { RestoreReport } from '../domain/resources.js';
import { reportTestKeyOf } from '../domain/report-index.js';
import { orderReportsForChain, reportEvidenceProblems, verifyReportChain } from './evidence.js';

export interface VerifiableReports {
  /** Every stored report of one RestoreTest ("namespace/name"), any order. */
  reportsOfTest(testKey: string): readonly RestoreReport[];
}

function memoKey(report: ReportSummary): string {
  const meta = report.metadata;
  return `${meta.uid ?? `${meta.namespace ?? ''}/${meta.name}`}@${meta.resourceVersion ?? ''}`;
}

function reportKey(report: ReportSummary): string {
  return `${report.metadata.namespace ?? ''}/${report.metadata.name}`;
}

export class EvidenceVerifier {
  private ring: ReadonlyMap<string, KeyObject> | undefined;
  private ringIds = '';
  private readonly own = new Map<string, string[]>();
  /** testKey → report key → problems (own and chain). */
  private readonly chains = new Map<string, Map<string, string[]>>();

  constructor(
    private readonly keys: () => ReadonlyMap<string, KeyObject>,
    private readonly source: VerifiableReports,
  ) {}

  /** true when the report verifies (see the header). */
  verify(report: ReportSummary | RestoreReport): boolean {
    return this.problems(report).length === 0;
  }

  /** Why the report does not verify ([] = it does), each problem naming the report. */
  problems(report: ReportSummary | RestoreReport): string[] {
    this.checkKeys();
    const testKey = reportTestKeyOf(report);
    let chain = this.chains.get(testKey);
    if (!chain) {
      chain = this.verifyTest(testKey);
      this.chains.set(testKey, chain);
    }
    const found = chain.get(reportKey(report));
    if (found !== undefined) return found;
    // Not in the store (yet): a whole report is judged on its own; a summary has nothing to check.
    const name = report.metadata.name;
    if (!isWholeReport(report)) return [`${name}: not in the report store`];
    return this.ownProblems(report).map((text) => `${name}: ${text}`);
  }

  /** A report of this test was added, changed or deleted: recompute its links on next use. */
  invalidateTest(testKey: string): void {
    this.chains.delete(testKey);
  }

  /** Verifies the given reports ahead of use, yielding to the event loop between slices. */
  async warm(reports: Iterable<RestoreReport>, sliceSize = 100): Promise<void> {
    let count = 0;
    for (const report of reports) {
      this.checkKeys();
      if (report.spec.evidence) this.ownProblems(report);
      count += 1;
      if (count % sliceSize === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private checkKeys(): void {
    const ring = this.keys();
    if (ring === this.ring) return;
    // A key id is derived from its key, so the same ids mean the same trusted keys.
    const ids = [...ring.keys()].sort().join(',');
    if (this.ring === undefined || ids !== this.ringIds) {
      this.own.clear();
      this.chains.clear();
    }
    this.ring = ring;
    this.ringIds = ids;
  }

  private ownProblems(report: RestoreReport): string[] {
    const key = memoKey(report);
    let problems = this.own.get(key);
    if (!problems) {
      problems = reportEvidenceProblems(report, this.ring ?? new Map());
      this.own.set(key, problems);
    }
    return problems;
  }

  private verifyTest(testKey: string): Map<string, string[]> {
    // One chain per RestoreTest object: a test deleted and re-created under the same name starts a
    // new chain, and its predecessor's reports may linger until garbage collection removes them.
    const chains = new Map<string, RestoreReport[]>();
    for (const report of this.source.reportsOfTest(testKey)) {
      const uid = report.spec.testRef.uid ?? '';
      const chain = chains.get(uid);
      if (chain) chain.push(report);
      else chains.set(uid, [report]);
    }
    const byReport = new Map<string, string[]>();
    for (const reports of chains.values()) {
      const ordered = orderReportsForChain(reports);
      const result = verifyReportChain(ordered, this.ring ?? new Map(), {
        reportProblems: (report) => this.ownProblems(report),
      });
      ordered.forEach((report, index) => {
        const name = report.metadata.name;
        byReport.set(
          reportKey(report),
          result.reports[index]!.problems.map((text) => `${name}: ${text}`),
        );
      });
    }
    return byReport;
  }

  /** Drops memo entries of reports that are gone (call now and then; memory stays bounded). */
  forget(report: ReportSummary): void {
    this.own.delete(memoKey(report));
  }
}

function isWholeReport(report: ReportSummary | RestoreReport): report is RestoreReport {
  return Array.isArray((report as RestoreReport).spec.levels);
}
