// The one gate of the concurrency limit. The runs in progress are counted from the informer cache
// on every decision (domain/run/run-queue.ts); the only thing held here is what the cache cannot
// know yet: promotions this replica has written (or is writing) that have not come back through
// the watch. Each one is dropped as soon as its write fails or the cache shows its outcome, so
// nothing here can outlive the truth. The promotion write itself uses the test's resourceVersion:
// a stale view of that test loses with a Conflict and takes no slot.
import { countRuns, decideAdmission, keyOf, nextInLine, type RunCounts } from '../../domain/run/run-queue.js';
import type { RestoreTest } from '../../domain/resources/resources.js';

export interface Promotion {
  /** Call with the object the promoting status write returned, or undefined when it failed. */
  settle(written: RestoreTest | undefined): void;
}

export type Admission =
  | { admitted: true; promotion: Promotion; next: string | undefined; counts: RunCounts }
  | { admitted: false; next: string | undefined; counts: RunCounts };

/** A promotion the cache has not shown after this long is forgotten (a watch that stalls for minutes). */
const PROMOTION_MEMORY_MS = 60_000;

export class RunAdmission {
  private readonly promoting = new Map<string, { since: number; writtenVersion?: string }>();

  constructor(
    private readonly limit: number,
    private readonly tests: () => RestoreTest[],
    private readonly clock: () => number = Date.now,
  ) {}

  /** Runs in progress and queued, derived from the cache (the gauges use this too). */
  counts(): RunCounts {
    return countRuns(this.current(), new Set(this.promoting.keys()));
  }

  /** The queued run that gets the next free slot, if a slot is free. */
  next(): string | undefined {
    const tests = this.current();
    const promoting = new Set(this.promoting.keys());
    if (countRuns(tests, promoting).inProgress >= this.limit) return undefined;
    return nextInLine(tests, promoting);
  }

  /** Decides for `test` (as its reconcile sees it); an admitted run must settle its promotion. */
  admit(test: RestoreTest): Admission {
    const key = keyOf(test);
    // The cache may be older or newer than the object the reconcile holds: decide on the
    // reconcile's view of this test and the cache's view of the others.
    const tests = this.current().filter((other) => keyOf(other) !== key);
    tests.push(test);
    const promoting = new Set(this.promoting.keys());
    const decision = decideAdmission(key, tests, promoting, this.limit);
    if (!decision.admit) {
      return { admitted: false, next: decision.reason === 'NotFirstInLine' ? decision.next : undefined, counts: decision.counts };
    }
    const entry: { since: number; writtenVersion?: string } = { since: this.clock() };
    this.promoting.set(key, entry);
    promoting.add(key);
    const counts = countRuns(tests, promoting);
    const next = counts.inProgress < this.limit ? nextInLine(tests, promoting) : undefined;
    return {
      admitted: true,
      next,
      counts,
      promotion: {
        settle: (written) => {
          if (this.promoting.get(key) !== entry) return;
          if (written?.metadata.resourceVersion) entry.writtenVersion = written.metadata.resourceVersion;
          else this.promoting.delete(key);
        },
      },
    };
  }

  /** The cached tests, after forgetting promotions whose outcome the cache now shows. */
  private current(): RestoreTest[] {
    const tests = this.tests();
    if (this.promoting.size === 0) return tests;
    const byKey = new Map(tests.map((test) => [keyOf(test), test]));
    const now = this.clock();
    for (const [key, entry] of this.promoting) {
      const cached = byKey.get(key);
      const shown = entry.writtenVersion !== undefined && atLeast(cached?.metadata.resourceVersion, entry.writtenVersion);
      if (!cached || shown || now - entry.since > PROMOTION_MEMORY_MS) this.promoting.delete(key);
    }
    return tests;
  }
}

/**
 * Whether the cache has caught up with a version we wrote. Resource versions are etcd revisions:
 * integers that only grow (Kubernetes calls them opaque, but the watch cache itself orders them).
 * Anything else is compared for equality only; the memory bound above then ends the wait.
 */
function atLeast(cached: string | undefined, written: string): boolean {
  if (cached === undefined) return false;
  if (/^\d+$/.test(cached) && /^\d+$/.test(written)) return BigInt(cached) >= BigInt(written);
  return cached === written;
}
