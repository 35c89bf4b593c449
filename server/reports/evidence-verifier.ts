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
// are memoized by report and resourceVersion (every write, a re-creation included, gets a new
// resourceVersion from etcd) and cleared when the trusted keys change; chain links are memoized
// per RestoreTest and recomputed after any change to one of its reports. warm() fills the memo in
// the background in small slices so requests do not pay for it.
//
// Memory: one entry per stored report (up to 90,000), so entries are small: the report's key once,
// problem texts without the report's name (added when asked) and shared between reports, and one
// shared empty list for the reports that verify.
//
// Callers ask about summaries (what the caches index); the chains are verified over the whole
// reports of a test, unpacked from the cache when a test's chain is (re)computed.
import type { KeyObject } from 'node:crypto';
import { flatString, type ReportSummary } from '../domain/report-summary.js';
import type { RestoreReport } from '../domain/resources.js';
import { reportKeyOf, reportTestKeyOf } from '../domain/report-index.js';
import { orderReportsForChain, reportEvidenceProblems, verifyReportChain } from './evidence.js';

export interface VerifiableReports {
  /** Every stored report of one RestoreTest ("namespace/name"), any order. */
  reportsOfTest(testKey: string): readonly RestoreReport[];
}

type Problems = readonly string[];
const NONE: Problems = Object.freeze([]);

interface ReportEntry {
  resourceVersion: string | undefined;
  /** Its own checks (signature, digest, key). */
  own: Problems;
  /** Own and chain problems; undefined until the test's chain is verified. */
  all?: Problems;
}

interface TestEntry {
  reports: Map<string, ReportEntry>;
  chainVerified: boolean;
}

export class EvidenceVerifier {
  private ring: ReadonlyMap<string, KeyObject> | undefined;
  private ringIds = '';
  private readonly tests = new Map<string, TestEntry>();
  /** Problem lists by content: 90,000 reports share a handful of distinct lists. */
  private readonly lists = new Map<string, Problems>();

  constructor(
    private readonly keys: () => ReadonlyMap<string, KeyObject>,
    private readonly source: VerifiableReports,
  ) {}

  /** true when the report verifies (see the header). */
  verify(report: ReportSummary | RestoreReport): boolean {
    return this.problemsOf(report).length === 0;
  }

  /** Why the report does not verify ([] = it does), each problem naming the report. */
  problems(report: ReportSummary | RestoreReport): string[] {
    const name = report.metadata.name;
    return this.problemsOf(report).map((text) => `${name}: ${text}`);
  }

  /** A report of this test was added, changed or deleted: recompute its links on next use. */
  invalidateTest(testKey: string): void {
    const entry = this.tests.get(testKey);
    if (entry) entry.chainVerified = false;
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

  /** Drops the memo entry of a report that is gone (memory stays bounded). */
  forget(report: ReportSummary): void {
    this.tests.get(reportTestKeyOf(report))?.reports.delete(reportKeyOf(report));
  }

  private problemsOf(report: ReportSummary | RestoreReport): Problems {
    this.checkKeys();
    const test = this.testEntry(reportTestKeyOf(report));
    if (!test.chainVerified) this.verifyTest(reportTestKeyOf(report), test);
    const found = test.reports.get(reportKeyOf(report));
    if (found?.all && found.resourceVersion === report.metadata.resourceVersion) return found.all;
    // Not in the store (yet): a whole report is judged on its own; a summary has nothing to check.
    if (!isWholeReport(report)) return this.shared(['not in the report store']);
    return this.ownProblems(report);
  }

  private checkKeys(): void {
    const ring = this.keys();
    if (ring === this.ring) return;
    // A key id is derived from its key, so the same ids mean the same trusted keys.
    const ids = [...ring.keys()].sort().join(',');
    if (this.ring === undefined || ids !== this.ringIds) this.tests.clear();
    this.ring = ring;
    this.ringIds = ids;
  }

  private testEntry(testKey: string): TestEntry {
    let entry = this.tests.get(testKey);
    if (!entry) {
      entry = { reports: new Map(), chainVerified: false };
      this.tests.set(flatString(testKey), entry);
    }
    return entry;
  }

  private shared(problems: readonly string[]): Problems {
    if (problems.length === 0) return NONE;
    const id = problems.join('\n');
    let list = this.lists.get(id);
    if (!list) {
      list = Object.freeze(problems.map((text) => flatString(text)));
      this.lists.set(id, list);
    }
    return list;
  }

  private ownProblems(report: RestoreReport): Problems {
    const test = this.testEntry(reportTestKeyOf(report));
    const key = reportKeyOf(report);
    const found = test.reports.get(key);
    if (found && found.resourceVersion === report.metadata.resourceVersion) return found.own;
    const own = this.shared(reportEvidenceProblems(report, this.ring ?? new Map()));
    test.reports.set(found ? key : flatString(key), {
      resourceVersion: report.metadata.resourceVersion,
      own,
    });
    return own;
  }

  private verifyTest(testKey: string, test: TestEntry): void {
    // One chain per RestoreTest object: a test deleted and re-created under the same name starts a
    // new chain, and its predecessor's reports may linger until garbage collection removes them.
    const chains = new Map<string, RestoreReport[]>();
    for (const report of this.source.reportsOfTest(testKey)) {
      const uid = report.spec.testRef.uid ?? '';
      const chain = chains.get(uid);
      if (chain) chain.push(report);
      else chains.set(uid, [report]);
    }
    const present = new Set<string>();
    for (const reports of chains.values()) {
      const ordered = orderReportsForChain(reports);
      const result = verifyReportChain(ordered, this.ring ?? new Map(), {
        reportProblems: (report) => [...this.ownProblems(report)],
      });
      ordered.forEach((report, index) => {
        this.ownProblems(report); // makes sure the entry exists
        const key = reportKeyOf(report);
        present.add(key);
        test.reports.get(key)!.all = this.shared(result.reports[index]!.problems);
      });
    }
    for (const key of test.reports.keys()) if (!present.has(key)) test.reports.delete(key);
    test.chainVerified = true;
  }
}

function isWholeReport(report: ReportSummary | RestoreReport): report is RestoreReport {
  return Array.isArray((report as RestoreReport).spec.levels);
}
