// Which per-target and per-test rows the compliance PDF lists. Those tables (scope, coverage
// matrix, RTO analysis, runs per RestoreTest) had one row per namespace or RestoreTest: ~210 MB
// and 13 s of pdfkit pages at 1,000 tests. Each now lists at most MAX_LISTED_ROWS rows, the most
// worrying first (at risk, not tested, failing, over target before satisfied); the PDF counts the
// rest and names where the complete list is. Every total is computed before the cap.
import type { ComplianceEvaluation } from '../../domain/compliance/evaluation.js';
import type { ControlStatus } from '../../domain/read-models/views.js';
import { parseDuration } from '../../pdf/format.js';
import type { RtoRow, ScopeTarget, ScopeTest, TestAggregate } from '../../pdf/report-data.js';

/** Rows per per-target / per-test table of the compliance PDF (decision 0016). */
export const MAX_LISTED_ROWS = 100;

type CoverageRow = { namespace: string; statuses: ControlStatus[] };

/** Namespaces the executive summary names per control before "and N more". */
export const SATISFIED_NAMES = 5;

/** Namespace × control statuses over every target (one map per control, not a scan per cell). */
export function coverageRows(detail: ComplianceEvaluation['detail']): CoverageRow[] {
  const byControl = detail.controls.map(
    (control) => new Map(control.targets.map((target) => [target.namespace, target.status])),
  );
  return detail.scope.namespaces.map((namespace) => ({
    namespace,
    statuses: byControl.map((statuses): ControlStatus => statuses.get(namespace) ?? 'not_tested'),
  }));
}

/** Sorts by the keys (smaller first), then by the tie-breaker, and keeps the first `max`. */
function worstFirst<T>(
  rows: readonly T[],
  max: number,
  keys: (row: T) => number[],
  tie: (row: T) => string,
): T[] {
  const keyed = rows.map((row) => ({ row, keys: keys(row), tie: tie(row) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.keys.length; i += 1) {
      const diff = a.keys[i]! - b.keys[i]!;
      if (diff !== 0) return diff;
    }
    return a.tie.localeCompare(b.tie);
  });
  return keyed.slice(0, max).map((entry) => entry.row);
}

function countOf(statuses: readonly ControlStatus[], status: ControlStatus): number {
  return statuses.filter((s) => s === status).length;
}

/** Targets with the most controls not satisfied first (not tested before at risk). */
export function listedCoverage(rows: readonly CoverageRow[], max: number): CoverageRow[] {
  return worstFirst(
    rows,
    max,
    (row) => [-countOf(row.statuses, 'not_tested'), -countOf(row.statuses, 'at_risk')],
    (row) => row.namespace,
  );
}

/** Not tested first, then at risk (per the coverage matrix), then without an RTO target. */
export function listedTargets(
  targets: readonly ScopeTarget[],
  coverage: readonly CoverageRow[],
  max: number,
): ScopeTarget[] {
  const unsatisfied = new Map(
    coverage.map((row) => [row.namespace, row.statuses.length - countOf(row.statuses, 'satisfied')]),
  );
  return worstFirst(
    targets,
    max,
    (t) => [t.runs === 0 ? 0 : 1, -(unsatisfied.get(t.namespace) ?? 0), t.rtoTargets.length === 0 ? 0 : 1],
    (t) => t.namespace,
  );
}

const LATEST_RANK = { fail: 0, partial: 1, pass: 2 } as const;

/** Tests without runs in the period, then latest run failed or partial, then without RTO target. */
export function listedTests(
  tests: readonly ScopeTest[],
  byTest: readonly TestAggregate[],
  max: number,
): ScopeTest[] {
  const latest = new Map(
    byTest.map((row) => [`${row.testNamespace}/${row.test}`, LATEST_RANK[row.latestResult]]),
  );
  return worstFirst(
    tests,
    max,
    (t) => [latest.get(`${t.namespace}/${t.name}`) ?? -1, t.rtoTarget ? 1 : 0],
    (t) => `${t.namespace}/${t.name}`,
  );
}

/** Latest run failed or partial first, then most failed runs, evidence not verified, RTO breaches. */
export function listedAggregates(rows: readonly TestAggregate[], max: number): TestAggregate[] {
  return worstFirst(
    rows,
    max,
    (r) => [LATEST_RANK[r.latestResult], -(r.fail + r.partial), -(r.notVerified ?? 0), -r.breaches],
    (r) => `${r.testNamespace}/${r.test}`,
  );
}

/** Over target first (most breaches), then without a target, then worst RTO against its target. */
export function listedRto(rows: readonly TestAggregate[], max: number): RtoRow[] {
  return worstFirst(
    rows,
    max,
    (r) => {
      const target = parseDuration(r.target);
      const ratio = target && r.worstSeconds !== undefined ? r.worstSeconds / target : 0;
      return [
        r.breaches > 0 ? 0 : r.target === undefined ? 1 : 2,
        -r.breaches,
        -ratio,
        -(r.worstSeconds ?? 0),
      ];
    },
    (r) => `${r.testNamespace}/${r.test}`,
  ).map(rtoRow);
}

/** Only the RTO table's columns, so the signed evidence holds no second copy of the aggregates. */
function rtoRow(r: TestAggregate): RtoRow {
  return {
    test: r.test,
    testNamespace: r.testNamespace,
    sourceNamespaces: r.sourceNamespaces,
    ...(r.target !== undefined ? { target: r.target } : {}),
    runs: r.runs,
    measured: r.measured,
    ...(r.medianSeconds !== undefined ? { medianSeconds: r.medianSeconds } : {}),
    ...(r.p95Seconds !== undefined ? { p95Seconds: r.p95Seconds } : {}),
    ...(r.worstSeconds !== undefined ? { worstSeconds: r.worstSeconds } : {}),
    ...(r.worstRun !== undefined ? { worstRun: r.worstRun } : {}),
    ...(r.worstAt !== undefined ? { worstAt: r.worstAt } : {}),
    breaches: r.breaches,
  };
}

/** Per control, over every target: how many are in scope and satisfied, and the first names. */
export function controlTargets(
  coverage: readonly CoverageRow[],
  index: number,
  names: number,
): { inScope: number; satisfied: number; satisfiedNames: string[] } {
  const satisfiedNames: string[] = [];
  let satisfied = 0;
  for (const row of coverage) {
    if (row.statuses[index] !== 'satisfied') continue;
    satisfied += 1;
    if (satisfiedNames.length < names) satisfiedNames.push(row.namespace);
  }
  return { inScope: coverage.length, satisfied, satisfiedNames };
}
