// The global limit on concurrent runs, with a fair queue: a queued run is promoted only when it is
// the oldest queued run (by queuedAt, then key), so a burst of due tests drains in order and none
// starves. The state is rebuilt from RestoreTest status at every leader start, so it survives
// restarts without storing anything of its own.
import type { RestoreTest } from '../domain/resources.js';

export class RunSlots {
  private readonly active = new Set<string>();

  constructor(private readonly limit: number) {}

  /** Rebuilds the set of runs holding a slot from the cached tests (leader start). */
  resync(tests: Iterable<RestoreTest>): void {
    this.active.clear();
    for (const test of tests) {
      const stage = test.status?.currentRun?.stage;
      if (stage && stage !== 'Queued') this.active.add(keyOf(test));
    }
  }

  get inUse(): number {
    return this.active.size;
  }

  holds(key: string): boolean {
    return this.active.has(key);
  }

  /** Takes a slot for `key` if one is free and `key` is first in line among `queued`. */
  tryAcquire(key: string, queued: Iterable<RestoreTest>): boolean {
    if (this.active.has(key)) return true;
    if (this.active.size >= this.limit) return false;
    const first = oldestQueued(queued, this.active);
    if (first !== undefined && first !== key) return false;
    this.active.add(key);
    return true;
  }

  /** Frees the slot of `key`; true when it held one. */
  release(key: string): boolean {
    return this.active.delete(key);
  }
}

export function keyOf(test: RestoreTest): string {
  return `${test.metadata.namespace}/${test.metadata.name}`;
}

/**
 * The key of the oldest queued run. A test being deleted is not in line: its reconcile does nothing
 * more, so its run stays Queued until the object is gone and would otherwise hold up every run
 * queued after it.
 */
export function oldestQueued(
  tests: Iterable<RestoreTest>,
  exclude: ReadonlySet<string> = new Set(),
): string | undefined {
  let best: { key: string; at: string } | undefined;
  for (const test of tests) {
    const run = test.status?.currentRun;
    if (run?.stage !== 'Queued' || test.metadata.deletionTimestamp) continue;
    const key = keyOf(test);
    if (exclude.has(key)) continue;
    if (!best || run.queuedAt < best.at || (run.queuedAt === best.at && key < best.key)) {
      best = { key, at: run.queuedAt };
    }
  }
  return best?.key;
}
