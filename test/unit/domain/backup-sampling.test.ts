// Issue 32: the seeded draw among older restore points (server/domain/run/backup-sampling.ts).
import { describe, expect, it } from '@jest/globals';
import { sampleBackup, samplingSeed, type SamplingCandidate } from '../../../server/domain/run/backup-sampling.js';

const RUN_START = new Date('2026-03-31T02:00:00Z');
const DAY = 86_400;

/** One daily backup per day before the run, completed at 01:00, named by date. */
function dailyBackups(days: number): SamplingCandidate[] {
  return Array.from({ length: days }, (_, index) => {
    const at = new Date(Date.UTC(2026, 2, 31 - index, 1, 0, 0));
    return { name: `daily-${at.toISOString().slice(0, 10).replaceAll('-', '')}`, completedAt: at.toISOString() };
  });
}

function sample(restorable: SamplingCandidate[], seed: string, withinSeconds = 30 * DAY, within = '720h') {
  return sampleBackup({ restorable, within, withinSeconds, runStartedAt: RUN_START, seed });
}

describe('samplingSeed', () => {
  it('is 8 hex digits, the same for the same test and run, different for another run or test', () => {
    const seed = samplingSeed('uid-1', 'r20260331-0200');
    expect(seed).toMatch(/^[0-9a-f]{8}$/);
    expect(samplingSeed('uid-1', 'r20260331-0200')).toBe(seed);
    expect(samplingSeed('uid-1', 'r20260401-0200')).not.toBe(seed);
    expect(samplingSeed('uid-2', 'r20260331-0200')).not.toBe(seed);
  });
});

describe('sampleBackup', () => {
  it('draws the same backup for the same seed whatever order the provider lists them in (a restart chooses again the same)', () => {
    const backups = dailyBackups(10);
    const seed = samplingSeed('uid-1', 'run-a');
    const first = sample(backups, seed);
    const again = sample([...backups].reverse(), seed);
    expect(again?.backup.name).toBe(first?.backup.name);
    expect(again?.selection).toEqual(first?.selection);
  });

  it('over many runs, chooses every candidate of the window, none outside it', () => {
    const backups = dailyBackups(60); // 30 inside a 720h window, 30 older
    const chosen = new Map<string, number>();
    for (let run = 0; run < 3000; run += 1) {
      const result = sample(backups, samplingSeed('uid-1', `r${run}`));
      chosen.set(result!.backup.name, (chosen.get(result!.backup.name) ?? 0) + 1);
    }
    const inWindow = backups.filter((backup) => Date.parse(backup.completedAt!) >= RUN_START.getTime() - 30 * DAY * 1000);
    expect(inWindow).toHaveLength(30);
    expect([...chosen.keys()].sort()).toEqual(inWindow.map((backup) => backup.name).sort());
    // Roughly even: no backup drawn fewer than a third or more than three times its share (100).
    for (const count of chosen.values()) {
      expect(count).toBeGreaterThan(33);
      expect(count).toBeLessThan(300);
    }
  });

  it('records the window, the candidates, the seed and the chosen position newest first in its reason', () => {
    const backups = dailyBackups(7);
    const seed = '00000002'; // 2 % 7 = index 2: the third newest
    const result = sample(backups, seed)!;
    expect(result.backup.name).toBe('daily-20260329');
    expect(result.selection).toEqual({
      strategy: 'randomWithin',
      within: '720h',
      windowStart: '2026-03-01T02:00:00.000Z',
      windowEnd: '2026-03-31T02:00:00.000Z',
      seed,
      candidates: 7,
      chosen: 3,
      reason:
        'random within 720h: 7 candidate(s), chose #3 newest first ' +
        '(backup daily-20260329, completed 2026-03-29T01:00:00.000Z, 49h before the run; seed 00000002)',
    });
  });

  it('includes a backup completed exactly at either edge of the window, and nothing after the run started', () => {
    const edges: SamplingCandidate[] = [
      { name: 'at-start', completedAt: '2026-03-30T02:00:00Z' },
      { name: 'at-end', completedAt: '2026-03-31T02:00:00Z' },
      { name: 'before-start', completedAt: '2026-03-30T01:59:59Z' },
      { name: 'after-run-start', completedAt: '2026-03-31T02:00:01Z' },
    ];
    const names = new Set<string>();
    for (let seed = 0; seed < 16; seed += 1) {
      const result = sample(edges, seed.toString(16).padStart(8, '0'), DAY, '24h')!;
      expect(result.selection.candidates).toBe(2);
      names.add(result.backup.name);
    }
    expect([...names].sort()).toEqual(['at-end', 'at-start']);
  });

  it('falls back to the latest as of the run start when the window holds none, and says so', () => {
    const old: SamplingCandidate[] = [
      { name: 'older', completedAt: '2026-01-01T01:00:00Z' },
      { name: 'old', completedAt: '2026-02-01T01:00:00Z' },
      { name: 'after-run-start', completedAt: '2026-03-31T03:00:00Z' },
    ];
    const result = sample(old, 'ffffffff', DAY, '24h')!;
    expect(result.backup.name).toBe('old');
    expect(result.selection.candidates).toBe(0);
    expect(result.selection.fallback).toBe(true);
    expect(result.selection.chosen).toBeUndefined();
    expect(result.selection.reason).toContain('fell back to the latest, old');
  });

  it('falls back to the newest of all when every backup completed after the run started', () => {
    const result = sample([{ name: 'later', completedAt: '2026-03-31T03:00:00Z' }], '00000000', DAY, '24h')!;
    expect(result.backup.name).toBe('later');
    expect(result.selection.fallback).toBe(true);
  });

  it('never places a backup without a completion time in the window', () => {
    const result = sample([{ name: 'no-time' }, { name: 'dated', completedAt: '2026-03-30T12:00:00Z' }], '00000001', DAY, '24h')!;
    expect(result.selection.candidates).toBe(1);
    expect(result.backup.name).toBe('dated');
  });

  it('answers nothing when there is no restorable backup at all (the caller fails BackupNotFound)', () => {
    expect(sample([], '00000000')).toBeUndefined();
  });
});
