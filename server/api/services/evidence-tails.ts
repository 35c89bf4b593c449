// Missing tails: a RestoreTest whose newest reports were deleted. Its remaining chain links
// perfectly, so no single report fails to verify; only the test's status.evidenceAnchor (the newest
// report there should be) tells. The PDFs print these in their integrity summaries and compliance
// counts them as evidence exceptions of the test's source namespaces.
import { testKeyOf } from '../../domain/report-index.js';
import type { RestoreTest } from '../../domain/resources.js';
import { tailAgainstAnchor } from '../../evidence/evidence-anchor.js';
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
