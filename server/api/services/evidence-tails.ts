// Missing tails: a RestoreTest whose newest reports were deleted. Its remaining chain links
// perfectly, so no single report fails to verify; only the test's status.evidenceAnchor (the newest
// report there should be) tells. The PDFs print these in their integrity summaries and compliance
// counts them as evidence exceptions of the test's source namespaces.
import { testKeyOf, type IndexedRun } from '../../domain/read-models/report-index.js';
import type { EvidenceAnchor, RestoreTest } from '../../domain/resources/resources.js';
import { tailAgainstAnchor } from '../../../protocol/evidence/evidence-anchor.js';
import type { ApiCache } from '../ports.js';

export interface TailProblem {
  /** "namespace/name" of the RestoreTest. */
  test: string;
  sourceNamespaces: string[];
  /** Says which report the anchor names and how many newest reports are gone. */
  problem: string;
}

/** The tail problem of one test, if its newest report is not the one its anchor names. */
export function tailProblemOf(
  cache: Pick<ApiCache, 'reportIndex' | 'fullReport'>,
  test: RestoreTest,
): TailProblem | undefined {
  const anchor = test.status?.evidenceAnchor;
  if (!anchor) return undefined;
  const key = testKeyOf(test);
  // Only the newest report matters (O(1) per test): an anchor behind it is a note, not a problem.
  const latest = cache.reportIndex.latestRunOfTest(key);
  const newest = latest ? cache.fullReport(latest.key) : undefined;
  const [problem] = tailAgainstAnchor(newest ? [newest] : [], anchor).problems;
  if (!problem) return undefined;
  return {
    test: key,
    sourceNamespaces: (test.spec.backupSource?.namespaces ?? []).map((source) => source.name),
    problem: `${key}: ${problem}`,
  };
}

/** The tail problems of every test, in the order of `tests`. */
export function tailProblems(
  cache: Pick<ApiCache, 'reportIndex' | 'fullReport'>,
  tests: readonly RestoreTest[],
): TailProblem[] {
  const found: TailProblem[] = [];
  for (const test of tests) {
    const problem = tailProblemOf(cache, test);
    if (problem) found.push(problem);
  }
  return found;
}

interface TailCheck {
  latest: IndexedRun;
  anchor: EvidenceAnchor;
  /** The problem text, or undefined when the tail is intact. */
  problem: string | undefined;
}

/**
 * tailProblems, each test's check remembered while its newest run and its anchor are unchanged.
 * The check unpacks the test's newest whole report: 1,000 tests meant 1,000 unpacks before every
 * compliance evaluation, synchronously, while a run finishing changes one test at a time.
 */
export class TailProblemMemo {
  private checks = new Map<string, TailCheck>();

  problems(
    cache: Pick<ApiCache, 'reportIndex' | 'fullReport'>,
    tests: readonly RestoreTest[],
  ): TailProblem[] {
    const checks = new Map<string, TailCheck>();
    const found: TailProblem[] = [];
    for (const test of tests) {
      const anchor = test.status?.evidenceAnchor;
      if (!anchor) continue;
      const key = testKeyOf(test);
      const latest = cache.reportIndex.latestRunOfTest(key);
      let problem: string | undefined;
      const known = this.checks.get(key);
      if (latest && known && known.latest === latest && sameAnchor(known.anchor, anchor)) {
        problem = known.problem;
      } else {
        problem = tailProblemOf(cache, test)?.problem;
      }
      // Without a newest run there is nothing to unpack: checked afresh, not remembered.
      if (latest) checks.set(key, { latest, anchor: { ...anchor }, problem });
      if (problem !== undefined) {
        found.push({
          test: key,
          sourceNamespaces: (test.spec.backupSource?.namespaces ?? []).map((source) => source.name),
          problem,
        });
      }
    }
    this.checks = checks; // tests that are gone are forgotten
    return found;
  }
}

function sameAnchor(a: EvidenceAnchor, b: EvidenceAnchor): boolean {
  return a.digest === b.digest && a.sequence === b.sequence && a.report === b.report;
}
