// Which of a test's live reports move to the evidence archive. Pure: the archiver (server/archive/)
// asks, then acts.
//
// A report stays in etcd while it is among the newest `keepLive` reports of its test (and within
// its historyLimit) AND younger than `afterSeconds`; the newest report always stays (the next
// report chains to it, read from the apiserver). Reports move oldest first and in segments: only
// when at least `minSegment` are due, or the oldest due one is twice `afterSeconds` old, or the test
// holds more live reports than its historyLimit — so a daily test does not make one object a day.

export interface ArchiveWindow {
  afterSeconds: number;
  keepLive: number;
  minSegment: number;
  maxSegment: number;
}

export interface LiveReportFacts {
  /** spec.completedAt */
  completedAt: string;
  /** spec.evidence.sequence; undefined = signed before sequences (never archived) */
  sequence: number | undefined;
}

export interface ArchiveDecision {
  /** How many of the oldest live reports to move now (0 = none). */
  count: number;
  reason: 'NothingDue' | 'SegmentTooSmall' | 'SegmentFull' | 'OldEnough' | 'OverHistoryLimit' | 'Unsequenced';
  message: string;
}

/**
 * `live`: the test's live reports in chain order (oldest first). `historyLimit`: the test's
 * spec.historyLimit (the most it may keep live).
 */
export function decideArchive(
  live: readonly LiveReportFacts[],
  historyLimit: number,
  window: ArchiveWindow,
  now: Date,
): ArchiveDecision {
  const keep = Math.max(1, Math.min(window.keepLive, historyLimit));
  const nowMs = now.getTime();
  let due = 0;
  for (let i = 0; i < live.length - 1; i++) {
    const ageSeconds = (nowMs - Date.parse(live[i]!.completedAt)) / 1000;
    if (i < live.length - keep || ageSeconds >= window.afterSeconds) due = i + 1;
    else break;
  }
  if (due === 0) return { count: 0, reason: 'NothingDue', message: 'every live report is within the live window' };
  const unsequenced = live.slice(0, due).findIndex((report) => report.sequence === undefined);
  if (unsequenced >= 0) {
    // An unsequenced (pre-chain-sequence) report cannot be placed in a segment; it stays live.
    if (unsequenced === 0) return { count: 0, reason: 'Unsequenced', message: 'the oldest report has no chain sequence; it stays live' };
    due = unsequenced;
  }
  const count = Math.min(due, window.maxSegment);
  if (count >= window.minSegment) return { count, reason: 'SegmentFull', message: `${count} reports due` };
  if (live.length > historyLimit) {
    return { count, reason: 'OverHistoryLimit', message: `${live.length} live reports exceed historyLimit ${historyLimit}` };
  }
  const oldestAge = (nowMs - Date.parse(live[0]!.completedAt)) / 1000;
  if (oldestAge >= 2 * window.afterSeconds) {
    return { count, reason: 'OldEnough', message: `the oldest due report is ${Math.floor(oldestAge / 86400)} days old` };
  }
  return { count: 0, reason: 'SegmentTooSmall', message: `${count} reports due, waiting for ${window.minSegment}` };
}
