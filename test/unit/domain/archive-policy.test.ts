import { describe, expect, it } from '@jest/globals';
import { decideArchive, type LiveReportFacts } from '../../../server/domain/retention/archive-policy.js';

const now = new Date('2026-05-01T00:00:00Z');
const window = { afterSeconds: 7 * 86_400, keepLive: 14, minSegment: 30, maxSegment: 1000 };
/** `count` daily reports, the newest `newestDaysAgo` days before now. */
function daily(count: number, newestDaysAgo = 0, sequence = true): LiveReportFacts[] {
  return Array.from({ length: count }, (_, i) => ({
    completedAt: new Date(now.getTime() - (newestDaysAgo + count - 1 - i) * 86_400_000).toISOString(),
    sequence: sequence ? i + 1 : undefined,
  }));
}

describe('decideArchive', () => {
  it.each([
    ['nothing due: 7 recent reports', daily(7), 90, window, 0, 'NothingDue'],
    ['due but too few for a segment', daily(12), 90, window, 0, 'SegmentTooSmall'],
    ['a full segment: 60 daily reports, the last 7 days stay', daily(60), 90, window, 53, 'SegmentFull'],
    ['over historyLimit: everything due moves at once', daily(12), 10, window, 5, 'OverHistoryLimit'],
    ['old enough: the oldest due report is 2x the window old', daily(16), 90, window, 9, 'OldEnough'],
    ['by count: keepLive 3 of 40 recent hourly-like reports', daily(40), 90, { ...window, afterSeconds: 1e9, keepLive: 3 }, 37, 'SegmentFull'],
    ['the newest report always stays live', daily(40, 30), 90, { ...window, minSegment: 1 }, 39, 'SegmentFull'],
    ['segments are capped', daily(60), 90, { ...window, maxSegment: 25, minSegment: 10 }, 25, 'SegmentFull'],
    ['unsequenced oldest report stays live', daily(60, 0, false), 90, window, 0, 'Unsequenced'],
  ] as const)('%s', (_name, live, historyLimit, w, count, reason) => {
    const decision = decideArchive(live, historyLimit, w, now);
    expect(decision).toMatchObject({ count, reason });
  });
});
