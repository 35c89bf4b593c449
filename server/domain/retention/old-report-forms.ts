// Reports stored before issue 17's fourth cut carry an ownerReference to their RestoreTest, so
// kube-controller-manager's garbage collector deletes them with their test, unarchived, although
// their evidence must outlive it (issue 31: "reports with ownerReferences still go through the
// garbage collector unarchived"). The leader migrates them to today's form by removing that
// reference (engine/report-migration.ts); the report cascade then treats them like every other
// report (archived first when the archive is on). Pure.
//
// The reference may go only when the evidence does not change: the signed content names the test
// by the ownerReference when there is one, else by spec.testRef (protocol/evidence/
// evidence-content.ts, evidenceOwner). When both name the same test (name and uid), removing the
// reference leaves every digest and signature as it was. A report whose testRef names no uid, or
// another test, keeps its reference (and the collector's old behaviour): rewriting its evidence is
// not ours to do.
import { evidenceOwner } from '../../../protocol/evidence/report-digest.js';
import type { OwnerReference, RestoreReport } from '../resources/resources.js';

/** The report's ownerReferences to a RestoreTest (the old form), if any. */
export function testOwnerReferences(report: Pick<RestoreReport, 'metadata'>): OwnerReference[] {
  return (report.metadata.ownerReferences ?? []).filter((owner) => owner.kind === 'RestoreTest');
}

export type OldFormDecision =
  | { action: 'none' }
  /** Remove the RestoreTest references; `keep` are the others (replace with them, or remove the field). */
  | { action: 'migrate'; keep: OwnerReference[] }
  | { action: 'keep'; reason: string };

export function decideOldForm(report: Pick<RestoreReport, 'metadata' | 'spec'>): OldFormDecision {
  const owners = testOwnerReferences(report);
  if (owners.length === 0) return { action: 'none' };
  const signedOwner = evidenceOwner(report.metadata, report.spec.testRef);
  const withoutReference = evidenceOwner({}, report.spec.testRef);
  if (!withoutReference || !signedOwner || withoutReference.name !== signedOwner.name || withoutReference.uid !== signedOwner.uid) {
    return {
      action: 'keep',
      reason: `its spec.testRef (${report.spec.testRef?.name ?? '?'}, uid ${report.spec.testRef?.uid || 'none'}) does not name the test its ownerReference does, so the evidence would change`,
    };
  }
  return { action: 'migrate', keep: (report.metadata.ownerReferences ?? []).filter((owner) => owner.kind !== 'RestoreTest') };
}
