// Which queued run may start now (decision 0012: a global limit on concurrent runs queues the rest;
// decision 0009: one tenant must not starve the others). Pure and derived: the runs in progress are
// counted from the tests as they are (status.currentRun past Queued), never from a set kept in
// step by hand, so nothing can leak. The caller adds the promotions it has written but not yet
// seen come back (engine/run/run-slots.ts).
//
// Fairness: among the queued runs the next one comes from the namespace with the fewest runs in
// progress, ties broken by the oldest head of each namespace's queue (queuedAt, then name). With
// one namespace this is plain first-come first-served; with several it is round robin, so a
// namespace with twenty failing tests due every minute cannot push another namespace's test back.
import type { RestoreTest } from '../resources/resources.js';

export function keyOf(test: RestoreTest): string {
  return `${test.metadata.namespace}/${test.metadata.name}`;
}

/** A run holds a slot from its promotion until its status no longer shows it. */
export function holdsSlot(test: RestoreTest): boolean {
  const stage = test.status?.currentRun?.stage;
  return stage !== undefined && stage !== 'Queued' && !test.metadata.deletionTimestamp;
}

/** A test being deleted is not in line: its run will never be reconciled again. */
export function isQueued(test: RestoreTest): boolean {
  return test.status?.currentRun?.stage === 'Queued' && !test.metadata.deletionTimestamp;
}

export interface RunCounts {
  inProgress: number;
  queued: number;
}

/** `promoting`: keys whose promotion was written (or is being written) but the tests do not show yet. */
export function countRuns(tests: Iterable<RestoreTest>, promoting: ReadonlySet<string>): RunCounts {
  let inProgress = 0;
  let queued = 0;
  for (const test of tests) {
    // A promotion counts whatever stage the cache still shows: the queue write and the promotion
    // may both be newer than the cache (a run is queued and promoted in one pass), so the cached
    // test can show no run at all while its slot is already taken.
    if (holdsSlot(test) || promoting.has(keyOf(test))) inProgress++;
    else if (isQueued(test)) queued++;
  }
  return { inProgress, queued };
}

/** The queued run that gets the next free slot (see the fairness rule above), if any. */
export function nextInLine(tests: Iterable<RestoreTest>, promoting: ReadonlySet<string>): string | undefined {
  const busy = new Map<string, number>();
  const heads = new Map<string, { key: string; at: string }>();
  for (const test of tests) {
    const namespace = test.metadata.namespace ?? '';
    const key = keyOf(test);
    if (holdsSlot(test) || promoting.has(key)) {
      busy.set(namespace, (busy.get(namespace) ?? 0) + 1);
      continue;
    }
    if (!isQueued(test)) continue;
    const at = test.status!.currentRun!.queuedAt;
    const head = heads.get(namespace);
    if (!head || at < head.at || (at === head.at && key < head.key)) heads.set(namespace, { key, at });
  }
  let best: { key: string; at: string; busy: number } | undefined;
  for (const [namespace, head] of heads) {
    const candidate = { ...head, busy: busy.get(namespace) ?? 0 };
    if (
      !best ||
      candidate.busy < best.busy ||
      (candidate.busy === best.busy && (candidate.at < best.at || (candidate.at === best.at && candidate.key < best.key)))
    ) {
      best = candidate;
    }
  }
  return best?.key;
}

export type AdmissionDecision =
  | { admit: true; counts: RunCounts }
  | { admit: false; reason: 'LimitReached' | 'NotFirstInLine' | 'NotQueued'; next?: string; counts: RunCounts };

export function decideAdmission(
  key: string,
  tests: readonly RestoreTest[],
  promoting: ReadonlySet<string>,
  limit: number,
): AdmissionDecision {
  const counts = countRuns(tests, promoting);
  const test = tests.find((candidate) => keyOf(candidate) === key);
  if (!test || !isQueued(test) || promoting.has(key)) return { admit: false, reason: 'NotQueued', counts };
  if (counts.inProgress >= limit) return { admit: false, reason: 'LimitReached', counts };
  const next = nextInLine(tests, promoting);
  if (next !== key) return { admit: false, reason: 'NotFirstInLine', ...(next ? { next } : {}), counts };
  return { admit: true, counts };
}
