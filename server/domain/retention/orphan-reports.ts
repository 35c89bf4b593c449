// Which live RestoreReports belong to a RestoreTest that no longer exists. Pure: the report
// cascade (engine/report-cascade.ts) confirms against the apiserver, then acts.
//
// A report names its test by spec.testRef (namespace of the report, name, uid). It is an orphan
// when no test of that name exists, or when one exists with another uid (the test was deleted and
// re-created under the same name: a new chain, as the evidence owner says). A report without a
// testRef uid (never written by this server) is an orphan only when no test of its name exists.
import type { RestoreReport } from '../resources/resources.js';
import type { ReportSummary } from '../read-models/report-summary.js';

/** The test a report was written for. */
export interface ReportOwner {
  namespace: string;
  name: string;
  uid: string;
}

export interface OrphanCandidates extends ReportOwner {
  /** Report keys "namespace/name". */
  keys: string[];
}

export function isOrphan(reportUid: string, currentUid: string | undefined): boolean {
  if (currentUid === undefined) return true;
  return reportUid !== '' && reportUid !== currentUid;
}

/**
 * Groups the orphans among `reports` by the test they were written for. `testUid` answers the uid
 * of the test of that namespace and name, or undefined when there is none.
 */
export function orphanCandidates(
  reports: Iterable<{ key: string; summary: ReportSummary }>,
  testUid: (namespace: string, name: string) => string | undefined,
): OrphanCandidates[] {
  const groups = new Map<string, OrphanCandidates>();
  for (const { key, summary } of reports) {
    const namespace = summary.metadata.namespace ?? '';
    const { name } = summary.spec.testRef;
    const uid = summary.spec.testRef.uid ?? '';
    if (!isOrphan(uid, testUid(namespace, name))) continue;
    const id = `${namespace}/${name}/${uid}`;
    const group = groups.get(id) ?? { namespace, name, uid, keys: [] };
    group.keys.push(key);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** Confirmed orphans of one test, whole reports in chain order (oldest first). */
export interface OrphanGroup extends ReportOwner {
  reports: RestoreReport[];
}
