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
// per RestoreTest and recomputed after a change to one of its reports, except a new report that
// plainly extends a clean chain, which is checked on its own (reportAdded). warmChains() verifies
// every test's chain in the background after start so requests do not pay for it.
//
// Memory: one entry per stored report (up to 90,000), so an entry is one number (the version and
// two booleans, see ReportEntry) under the key string the cache already holds (sharedKey): ~180
// bytes a report as an object under a key of its own, now ~50 (issue 17).
// The texts saying why a report does not verify are only for the PDFs: they are recomputed when
// asked, and a test's texts kept for a minute after their last use (a compliance PDF asks about
// every failing run, in time order across tests). Kept for every report, they were ~40 MB in the
// benchmark, whose illustrative evidence fails everywhere (as a lost signing key would make real
// evidence do).
//
// Callers ask about summaries (what the caches index); the chains are verified over the whole
// reports of a test, unpacked from the cache when a test's chain is (re)computed.
import type { KeyObject } from 'node:crypto';
import { flatString, type ReportSummary } from '../domain/read-models/report-summary.js';
import type { RestoreReport } from '../domain/resources/resources.js';
import { reportKeyOf, reportTestKeyOf } from '../domain/read-models/report-index.js';
import { expandReport } from '../report-codec/report-encoding.js';
import {
  compareForChain,
  orderReportsForChain,
  reportEvidenceProblems,
  verifyReportChain,
  type ChainPosition,
} from '../../protocol/evidence/report-chain.js';

export interface VerifiableReports {
  /** Every stored report of one RestoreTest ("namespace/name"), any order. */
  reportsOfTest(testKey: string): readonly RestoreReport[];
  /** One whole stored report by "namespace/name" (for appending a new report to its chain). */
  report?(key: string): RestoreReport | undefined;
  /** spec.evidence.digest of every stored report of the test (from the summaries, no unpacking). */
  digestsOfTest?(testKey: string): Iterable<string | undefined>;
  /** The string the store holds for a report key, to key the memo with it instead of a copy. */
  sharedKey?(key: string): string | undefined;
}

/** A stand-in for "its own checks failed" when only whether a chain verifies is wanted. */
const OWN_CHECKS_FAILED = ['own checks failed'];
/** Reports whose own checks one turn of the event loop does when verifying in the background. */
const OWN_CHECKS_PER_TURN = 8;
/** How long texts computed for the PDFs stay (one PDF asks about many reports of each test). */
const TEXT_TTL_MS = 60_000;

/**
 * One report's memo as a number: (version code) * 8 + flags, where the version code is 0 for no
 * resourceVersion and 1 + its value for a decimal one (etcd's revisions; exact below 2^50).
 * Another resourceVersion (not decimal) keeps the object form.
 */
type ReportEntry = number | { resourceVersion: string; flags: number };

/** Its own checks (signature, digest, key) pass. */
const OWN_OK = 1;
/** Own checks and chain links were verified (the test's chain); ALL_OK says how. */
const CHAIN_KNOWN = 2;
/** Own checks and chain links pass. */
const ALL_OK = 4;
const DECIMAL = /^[1-9][0-9]{0,14}$/;

function entryOf(resourceVersion: string | undefined, flags: number): ReportEntry {
  if (resourceVersion === undefined) return flags;
  return DECIMAL.test(resourceVersion)
    ? (Number(resourceVersion) + 1) * 8 + flags
    : { resourceVersion, flags };
}

/** The entry's flags when it describes this resourceVersion, else undefined. */
function flagsFor(entry: ReportEntry | undefined, resourceVersion: string | undefined): number | undefined {
  if (entry === undefined) return undefined;
  if (typeof entry === 'object') return entry.resourceVersion === resourceVersion ? entry.flags : undefined;
  const flags = entry % 8;
  return entryOf(resourceVersion, flags) === entry ? flags : undefined;
}

/** The newest report of one chain, as far as a successor's link and order need it. */
interface ChainTail extends ChainPosition {
  digest: string;
}

interface TestEntry {
  reports: Map<string, ReportEntry>;
  chainVerified: boolean;
  /**
   * Set by a whole verification that found no problem but reports' own checks (no broken link,
   * duplicate or fork): the newest report of each chain (testRef uid). A new report that plainly
   * extends such a chain is then checked on its own (appendToChain) instead of the whole chain.
   */
  cleanTails?: Map<string, ChainTail>;
}

export class EvidenceVerifier {
  private ring: ReadonlyMap<string, KeyObject> | undefined;
  private ringIds = '';
  private readonly tests = new Map<string, TestEntry>();
  /** testKey → report key → problem texts, for the PDFs; emptied TEXT_TTL_MS after last use. */
  private readonly texts = new Map<string, Map<string, string[]>>();
  private textTimer: NodeJS.Timeout | undefined;

  /** Tests whose chains changed, re-verified in the background (verifyTestInSlices), one at a time. */
  private readonly pending = new Set<string>();
  private draining = false;

  constructor(
    private readonly keys: () => ReadonlyMap<string, KeyObject>,
    private readonly source: VerifiableReports,
    /**
     * When given and true at a change, the changed test's chain is re-verified soon in the
     * background (a few reports per macrotask, see verifyTestInSlices) instead of inside the next
     * compliance evaluation step, where several such tests at once stalled every request for
     * 0.1-0.4 s while runs kept finishing (bench:api with background runs). False while the
     * initial sync streams in: the first use verifies lazily, as before.
     */
    private readonly verifyInBackground?: () => boolean,
  ) {}

  /**
   * true when the report verifies (see the header). `keys`: its key and its test's as the caller
   * holds them (equal to reportKeyOf / reportTestKeyOf; spares building them per call).
   */
  verify(report: ReportSummary | RestoreReport, keys?: { key: string; testKey: string }): boolean {
    this.checkKeys();
    const testKey = keys?.testKey ?? reportTestKeyOf(report);
    const test = this.testEntry(testKey);
    if (!test.chainVerified) this.verifyTest(testKey, test);
    const flags = flagsFor(
      test.reports.get(keys?.key ?? reportKeyOf(report)),
      report.metadata.resourceVersion,
    );
    if (flags !== undefined && (flags & CHAIN_KNOWN) !== 0) return (flags & ALL_OK) !== 0;
    // Not in the store (yet): a whole report is judged on its own; a summary has nothing to check.
    return isWholeReport(report) && this.ownOk(report);
  }

  /** Why the report does not verify ([] = it does), each problem naming the report. */
  problems(report: ReportSummary | RestoreReport): string[] {
    if (this.verify(report)) return [];
    const name = report.metadata.name;
    const testKey = reportTestKeyOf(report);
    let texts = this.texts.get(testKey);
    if (!texts) {
      texts = this.chainTexts(testKey);
      this.texts.set(testKey, texts);
    }
    this.keepTextsAwhile();
    const found =
      texts.get(reportKeyOf(report)) ??
      (isWholeReport(report)
        ? reportEvidenceProblems(report, this.ring ?? new Map())
        : ['not in the report store']);
    return found.map((text) => `${name}: ${text}`);
  }

  /**
   * A new report (key "namespace/name") was stored. When it extends its test's chain as a finished
   * run does (ordered after the chain's newest report, linked to its digest, no duplicate digest),
   * only it is checked: re-verifying the whole chain after every run unpacked ~90 reports each
   * time (15-40 ms of the event loop and ~1.5 MB of garbage that outlived young collections, per
   * run, at one run a second in bench:api). Anything else re-verifies the chain (invalidateTest).
   */
  reportAdded(key: string, testKey: string): void {
    const test = this.tests.get(testKey);
    if (test?.chainVerified && test.cleanTails && this.verifyInBackground?.()) {
      this.checkKeys();
      // checkKeys may have dropped every entry (keys rotated): then there is nothing to extend.
      if (this.tests.get(testKey) === test && this.appendToChain(test, testKey, key)) {
        this.texts.delete(testKey);
        return;
      }
    }
    this.invalidateTest(testKey);
  }

  private appendToChain(test: TestEntry, testKey: string, key: string): boolean {
    if (test.reports.has(key) || !this.source.report || !this.source.digestsOfTest) return false;
    const stored = this.source.report(key);
    if (!stored) return false;
    const report = expandReport(stored);
    const evidence = report.spec.evidence;
    const uid = report.spec.testRef.uid ?? '';
    const tail = test.cleanTails!.get(uid);
    if (!evidence || !tail || compareForChain(tail, report) >= 0) return false;
    if (evidence.previousDigest !== tail.digest) return false;
    let seen = 0;
    for (const digest of this.source.digestsOfTest(testKey)) {
      if (digest === evidence.digest) seen += 1;
    }
    // The new report itself is among the test's reports: any other with its digest is a duplicate.
    if (seen !== 1) return false;
    const ownOk = this.ownOk(report);
    const flags = ownOk ? OWN_OK | CHAIN_KNOWN | ALL_OK : CHAIN_KNOWN;
    test.reports.set(this.source.sharedKey?.(key) ?? key, entryOf(report.metadata.resourceVersion, flags));
    test.cleanTails!.set(uid, chainTail(report, evidence.digest));
    return true;
  }

  /** A report of this test was added, changed or deleted: recompute its links on next use. */
  invalidateTest(testKey: string): void {
    const entry = this.tests.get(testKey);
    if (entry) {
      entry.chainVerified = false;
      entry.cleanTails = undefined;
    }
    this.texts.delete(testKey);
    if (entry && this.verifyInBackground?.()) {
      this.pending.add(testKey);
      this.schedulePending();
    }
  }

  private schedulePending(): void {
    if (this.draining) return;
    this.draining = true;
    void this.drainPending().finally(() => {
      this.draining = false;
    });
  }

  private async drainPending(): Promise<void> {
    for (;;) {
      await nextTurn();
      const [testKey] = this.pending;
      if (testKey === undefined) return;
      this.pending.delete(testKey);
      if (this.tests.get(testKey)?.chainVerified !== false) continue;
      try {
        await this.verifyTestInSlices(testKey);
      } catch {
        // Left unverified: the next verify() of this test verifies it and reports the error there.
      }
    }
  }

  /**
   * Verifies the chains of the given tests ahead of use, a few reports per turn of the event loop.
   * Without it the first compliance evaluation after a start verified every chain inside its own
   * steps: ~5 s of the event loop at 1,000 tests × 90 reports (bench:api).
   */
  async warmChains(testKeys: Iterable<string>): Promise<void> {
    for (const testKey of testKeys) await this.verifyTestInSlices(testKey);
  }

  /**
   * verifyTest without stalling the event loop: the reports' own checks (~0.3 ms of crypto each,
   * several times that on a loaded machine) a few per turn, then the links in one turn, which then
   * cost little (own checks memoised). One test's whole chain in one turn was 50-90 ms under
   * bench:api's load: requests queued behind it missed the 50 ms p99 target.
   */
  private async verifyTestInSlices(testKey: string): Promise<void> {
    const reports = this.source.reportsOfTest(testKey);
    for (let index = 0; index < reports.length; index += 1) {
      if (index % OWN_CHECKS_PER_TURN === 0) await nextTurn();
      this.checkKeys();
      this.ownOk(reports[index]!);
    }
    await nextTurn();
    this.checkKeys();
    const entry = this.testEntry(testKey);
    if (!entry.chainVerified) this.verifyTest(testKey, entry);
  }

  /** Drops the memo entry of a report that is gone (memory stays bounded). */
  forget(report: ReportSummary): void {
    this.tests.get(reportTestKeyOf(report))?.reports.delete(reportKeyOf(report));
  }

  private checkKeys(): void {
    const ring = this.keys();
    if (ring === this.ring) return;
    // A key id is derived from its key, so the same ids mean the same trusted keys.
    const ids = [...ring.keys()].sort().join(',');
    if (this.ring === undefined || ids !== this.ringIds) {
      this.tests.clear();
      this.texts.clear();
    }
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

  private ownOk(report: RestoreReport): boolean {
    const test = this.testEntry(reportTestKeyOf(report));
    const key = reportKeyOf(report);
    const found = test.reports.get(key);
    const flags = flagsFor(found, report.metadata.resourceVersion);
    if (flags !== undefined) return (flags & OWN_OK) !== 0;
    const ownOk = reportEvidenceProblems(report, this.ring ?? new Map()).length === 0;
    const entry = entryOf(report.metadata.resourceVersion, ownOk ? OWN_OK : 0);
    test.reports.set(found !== undefined ? key : (this.source.sharedKey?.(key) ?? flatString(key)), entry);
    return ownOk;
  }

  /** The test's reports grouped by RestoreTest uid, each group in chain order. */
  private chainsOf(testKey: string): RestoreReport[][] {
    // One chain per RestoreTest object: a test deleted and re-created under the same name starts a
    // new chain, and its predecessor's reports may linger until garbage collection removes them.
    const chains = new Map<string, RestoreReport[]>();
    for (const report of this.source.reportsOfTest(testKey)) {
      const uid = report.spec.testRef.uid ?? '';
      const chain = chains.get(uid);
      if (chain) chain.push(report);
      else chains.set(uid, [report]);
    }
    return [...chains.values()].map((reports) => orderReportsForChain(reports));
  }

  private verifyTest(testKey: string, test: TestEntry): void {
    const present = new Set<string>();
    let tails: Map<string, ChainTail> | undefined = new Map();
    for (const ordered of this.chainsOf(testKey)) {
      const result = verifyReportChain(ordered, this.ring ?? new Map(), {
        reportProblems: (report) => (this.ownOk(report) ? [] : OWN_CHECKS_FAILED),
      });
      ordered.forEach((report, index) => {
        const ownOk = this.ownOk(report); // makes sure the entry exists
        const key = reportKeyOf(report);
        present.add(key);
        const problems = result.reports[index]!.problems;
        const allOk = problems.length === 0;
        const flags = (ownOk ? OWN_OK : 0) | CHAIN_KNOWN | (allOk ? ALL_OK : 0);
        test.reports.set(key, entryOf(report.metadata.resourceVersion, flags));
        if (problems.some((problem) => problem !== OWN_CHECKS_FAILED[0])) tails = undefined;
      });
      const newest = expandReport(ordered[ordered.length - 1]!);
      const digest = newest.spec.evidence?.digest;
      if (result.chainProblems.length > 0 || digest === undefined) tails = undefined;
      else tails?.set(newest.spec.testRef.uid ?? '', chainTail(newest, digest));
    }
    for (const key of test.reports.keys()) if (!present.has(key)) test.reports.delete(key);
    test.chainVerified = true;
    test.cleanTails = tails;
  }

  private chainTexts(testKey: string): Map<string, string[]> {
    const texts = new Map<string, string[]>();
    for (const ordered of this.chainsOf(testKey)) {
      const result = verifyReportChain(ordered, this.ring ?? new Map());
      ordered.forEach((report, index) => texts.set(reportKeyOf(report), result.reports[index]!.problems));
    }
    return texts;
  }

  private keepTextsAwhile(): void {
    clearTimeout(this.textTimer);
    this.textTimer = setTimeout(() => this.texts.clear(), TEXT_TTL_MS);
    this.textTimer.unref();
  }
}

/** Copies only what a successor's order and link are checked against (not the whole report). */
function chainTail(report: RestoreReport, digest: string): ChainTail {
  return {
    spec: { startedAt: report.spec.startedAt, runId: report.spec.runId },
    metadata: { name: report.metadata.name },
    digest,
  };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isWholeReport(report: ReportSummary | RestoreReport): report is RestoreReport {
  return Array.isArray((report as RestoreReport).spec.levels);
}
