// Sampling older restore points (issue 32, decision 0003): `backupSource.select.strategy:
// randomWithin` restores a backup drawn from those completed within `within` before the run
// started, because the backup that fails is often not the newest. Pure: the provider lists the
// restorable backups (completed, not being deleted, not expired, covering every source namespace:
// the same filter as "latest"), this file chooses one and says why.
//
// The draw is deterministic: the seed is a hash of the test's uid and the run id, and the window
// ends at the run's start (status.currentRun.startedAt, recorded before Preparing). A restarted
// engine that asks again for the same run therefore draws the same backup from the same
// candidates; a backup that completes after the run started is never a candidate.
import { formatDuration } from '../common/duration.js';
import type { BackupSelectionRecord } from '../resources/restore-test.resource.js';

export type { BackupSelectionRecord } from '../resources/restore-test.resource.js';

/** One restorable backup, as the provider lists it. */
export interface SamplingCandidate {
  name: string;
  /** RFC 3339; a backup without one cannot be placed in the window. */
  completedAt?: string;
  totalItems?: number;
}

export interface SampledBackup {
  backup: SamplingCandidate;
  selection: BackupSelectionRecord;
}

/** FNV-1a (32 bit) of the test uid and run id, with a final avalanche so nearby run ids spread. */
export function samplingSeed(testUid: string, runId: string): string {
  let hash = 0x811c9dc5;
  const text = `${testUid}/${runId}`;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // murmur3's fmix32: FNV alone leaves the low bits (the ones a modulo reads) poorly mixed.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  hash ^= hash >>> 16;
  return (hash >>> 0).toString(16).padStart(8, '0');
}

function timeOf(value: string | undefined): number {
  const parsed = value ? Date.parse(value) : NaN;
  return Number.isNaN(parsed) ? -Infinity : parsed;
}

/** Newest completion first; ties by name descending (scheduled names follow time). */
function newestFirst(left: SamplingCandidate, right: SamplingCandidate): number {
  return timeOf(right.completedAt) - timeOf(left.completedAt) || (right.name < left.name ? -1 : right.name > left.name ? 1 : 0);
}

/**
 * Chooses the run's backup among `restorable` (every restorable backup the provider holds, in any
 * order). Undefined when there is none at all: the caller reports BackupNotFound as for "latest".
 */
export function sampleBackup(input: {
  restorable: readonly SamplingCandidate[];
  within: string;
  withinSeconds: number;
  /** The run's start: the window's end. */
  runStartedAt: Date;
  seed: string;
}): SampledBackup | undefined {
  const end = input.runStartedAt.getTime();
  const start = end - input.withinSeconds * 1000;
  const sorted = [...input.restorable].sort(newestFirst);
  const inWindow = sorted.filter((backup) => {
    const at = timeOf(backup.completedAt);
    return at >= start && at <= end;
  });
  const base = {
    strategy: 'randomWithin' as const,
    within: input.within,
    windowStart: new Date(start).toISOString(),
    windowEnd: new Date(end).toISOString(),
    seed: input.seed,
    candidates: inWindow.length,
  };
  if (inWindow.length > 0) {
    const index = Number.parseInt(input.seed, 16) % inWindow.length;
    const backup = inWindow[index] as SamplingCandidate;
    const when = backup.completedAt ? `, completed ${backup.completedAt}` : '';
    const age = backup.completedAt ? `, ${formatDuration((end - timeOf(backup.completedAt)) / 1000)} before the run` : '';
    return {
      backup,
      selection: {
        ...base,
        chosen: index + 1,
        reason:
          `random within ${input.within}: ${inWindow.length} candidate(s), chose #${index + 1} newest first ` +
          `(backup ${backup.name}${when}${age}; seed ${input.seed})`,
      },
    };
  }
  // No candidate in the window: "latest" as of the run's start (a backup completed since is not
  // taken, so a restart cannot change the choice), or the newest of all when none is that old.
  const fallback = sorted.find((backup) => timeOf(backup.completedAt) <= end) ?? sorted[0];
  if (!fallback) return undefined;
  return {
    backup: fallback,
    selection: {
      ...base,
      fallback: true,
      reason:
        `random within ${input.within}: no restorable backup completed between ${base.windowStart} and ${base.windowEnd}; ` +
        `fell back to the latest, ${fallback.name}`,
    },
  };
}
