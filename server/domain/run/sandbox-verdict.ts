// What becomes of one namespace labelled as a Rehearsal sandbox: the janitor deletes on `delete`,
// the administrators' sandbox list shows the state, and only an `orphaned` sandbox may be removed
// on request. One pure function over facts the janitor's gatherer read (decision 0009).
//
// A namespace is deleted only when its labels, its name and a record agree. While the test exists
// the record is Rehearsal's own (the current run, or the run's RestoreReport). Once the test is
// gone no record of Rehearsal's is left, and the label is what vouches: only the server's
// ServiceAccount (and system:masters) may set `rehearsal.dev/managed-by`
// (deploy/base/sandbox-label-admission.yaml), so a namespace carrying it whose name is the
// sandbox name of the run its labels name was made by Rehearsal. Such an orphan goes at its
// expiry (the run's start + ttl), never before; the delete carries the UID read with it.
import {
  ANNOTATION_EXPIRES_AT,
  ANNOTATION_TEST_UID,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  LABEL_TEST,
  LABEL_TEST_NAMESPACE,
  MANAGED_BY_VALUE,
} from '../resources/resources.js';
import { isSandboxNameOfRun, sandboxNamespaceName } from './sandbox-names.js';

/**
 * - in-use: the test's current run uses it (the engine releases it);
 * - kept: a finished run's sandbox kept for inspection until its expiry;
 * - expired: a finished run's sandbox past its expiry (the janitor deletes it);
 * - orphaned: its test was deleted (or deleted and created again: another UID); deleted at expiry;
 * - unrecorded: its test exists but no record of the test lists it (a crash before recording);
 * - unrecognised: the labels are incomplete or the name is not the sandbox name they describe;
 * - deleting: already being deleted.
 */
export type SandboxState = 'in-use' | 'kept' | 'expired' | 'orphaned' | 'unrecorded' | 'unrecognised' | 'deleting';

/** The test a sandbox's labels name, as the apiserver knows it now. */
export interface SandboxOwner {
  uid: string;
  /** spec.sandbox.namespacePrefix (default rehearsal). */
  namespacePrefix: string;
  /** How many source namespaces (one sandbox each). */
  sourceCount: number;
  /** The run in progress, if any. */
  currentRunId?: string;
}

export interface SandboxFacts {
  name: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  deleting: boolean;
  /** Absent: no test of that namespace and name exists (confirmed with the apiserver). */
  owner?: SandboxOwner;
  /** The run's RestoreReport lists this namespace (asked only while the test exists). */
  recorded?: boolean;
}

export interface SandboxVerdict {
  action: 'delete' | 'keep';
  reason: SandboxState;
  message: string;
}

/** Who the labels say a sandbox belongs to (empty strings when a label is missing). */
export function sandboxLabelsOf(labels: Readonly<Record<string, string>>): {
  test: string;
  testNamespace: string;
  run: string;
} {
  return {
    test: labels[LABEL_TEST] ?? '',
    testNamespace: labels[LABEL_TEST_NAMESPACE] ?? '',
    run: labels[LABEL_RUN] ?? '',
  };
}

/** The sandbox's expiry (annotation), or undefined when it has none or an unreadable one. */
export function sandboxExpiry(annotations: Readonly<Record<string, string>>): Date | undefined {
  const at = Date.parse(annotations[ANNOTATION_EXPIRES_AT] ?? '');
  return Number.isFinite(at) ? new Date(at) : undefined;
}

/** The test a sandbox's labels name no longer exists, or exists under another UID. */
export function isOrphaned(facts: Pick<SandboxFacts, 'owner' | 'annotations'>): boolean {
  if (!facts.owner) return true;
  const recordedUid = facts.annotations[ANNOTATION_TEST_UID];
  return recordedUid !== undefined && recordedUid !== facts.owner.uid;
}

export function judgeSandbox(facts: SandboxFacts, now: Date): SandboxVerdict {
  const keep = (reason: SandboxState, message: string): SandboxVerdict => ({ action: 'keep', reason, message });
  if (facts.deleting) return keep('deleting', 'already being deleted');
  const { test, testNamespace, run } = sandboxLabelsOf(facts.labels);
  if (facts.labels[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE || !test || !testNamespace || !/^[0-9a-z]{5}$/.test(run)) {
    return keep('unrecognised', 'its labels do not name a test and a run');
  }
  const expiry = sandboxExpiry(facts.annotations);
  const expired = expiry !== undefined && expiry.getTime() <= now.getTime();
  const until = expiry ? `its expiry at ${expiry.toISOString()}` : 'an administrator removes it (it has no expiry)';

  if (isOrphaned(facts)) {
    if (!isSandboxNameOfRun(facts.name, test, run)) {
      return keep('unrecognised', `the name is not a sandbox name of test ${test} run ${run}`);
    }
    const gone = facts.owner ? `was deleted and created again` : 'was deleted';
    return expired
      ? { action: 'delete', reason: 'orphaned', message: `its test ${testNamespace}/${test} ${gone}; expired at ${expiry!.toISOString()}` }
      : keep('orphaned', `its test ${testNamespace}/${test} ${gone}; kept until ${until}`);
  }

  const owner = facts.owner!;
  if (!isNameOfOwnedRun(facts.name, owner, test, run)) {
    return keep('unrecognised', `the name does not match the sandbox names of run ${run}`);
  }
  if (owner.currentRunId === run) return keep('in-use', `run ${run} is in progress`);
  if (!facts.recorded) return keep('unrecorded', `no report of run ${run} lists it`);
  return expired
    ? { action: 'delete', reason: 'expired', message: `run ${run} finished; expired at ${expiry!.toISOString()}` }
    : keep('kept', `run ${run} finished; kept for inspection until ${until}`);
}

/** `<prefix>-<test>-<run>[-<n>]` with the existing test's own prefix and source count. */
function isNameOfOwnedRun(name: string, owner: SandboxOwner, test: string, run: string): boolean {
  const count = Math.max(1, owner.sourceCount);
  for (let index = 0; index < count; index += 1) {
    if (name === sandboxNamespaceName(owner.namespacePrefix, test, run, count > 1 ? index : 0)) return true;
  }
  return false;
}
