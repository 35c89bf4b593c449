// The pure parts of the chaos soak (test/soak/): the seeded PRNG must replay the same schedule for
// one seed, the fault injector's draws must not depend on what the faults did, the report-overlap
// peak (invariant 2 after the fact) must not count runs that merely touch, and the run ledger
// (invariant 1) must flag a run with two reports at once and a run without one at the end.
import { describe, expect, it } from '@jest/globals';
import { FaultInjector, FaultNotPossible, type FaultActions } from '../../soak/fault-injector.js';
import { RunLedger } from '../../soak/invariants/run-ledger.js';
import { maxOverlap, RunSlotWatch } from '../../soak/invariants/run-slots.js';
import { Violations } from '../../soak/invariants/violations.js';
import { SeededRandom } from '../../soak/prng.js';
import { leadingStretches } from '../../soak/report.js';

describe('SeededRandom', () => {
  it('gives the same sequence for the same seed, another for another seed', () => {
    const draw = (seed: number): number[] => {
      const random = new SeededRandom(seed);
      return Array.from({ length: 5 }, () => random.between(0, 1000));
    };
    expect(draw(31)).toEqual(draw(31));
    expect(draw(31)).not.toEqual(draw(32));
  });

  it('stays within the bounds, both included', () => {
    const random = new SeededRandom(7);
    const seen = new Set(Array.from({ length: 500 }, () => random.between(2, 4)));
    expect([...seen].sort()).toEqual([2, 3, 4]);
  });

  it('forks streams that do not depend on draws made elsewhere', () => {
    const a = new SeededRandom(5);
    const b = new SeededRandom(5);
    const faultsA = a.fork('faults');
    const faultsB = b.fork('faults');
    b.fork('driver').next();
    expect([faultsA.next(), faultsA.next()]).toEqual([faultsB.next(), faultsB.next()]);
  });
});

describe('FaultInjector', () => {
  const quietActions = (skipLeader: boolean): FaultActions => ({
    killLeader: async () => {
      if (skipLeader) throw new FaultNotPossible('no leader');
      return 'killed';
    },
    killFollower: async () => 'killed',
    pauseApiserver: async () => 'paused',
    restartApiserver: async () => 'restarted',
    restartVelero: async () => 'restarted',
  });

  it('draws the same kinds for one seed whether or not a fault could act', async () => {
    const kinds = async (skipLeader: boolean): Promise<string[]> => {
      const injector = new FaultInjector(
        new SeededRandom(31),
        quietActions(skipLeader),
        { kinds: ['leader-kill', 'follower-kill', 'apiserver-pause'], minGapMs: 0, maxGapMs: 0, warmUpMs: 0, quietMs: 0 },
        () => undefined,
      );
      await injector.run(Date.now() + 20, new AbortController().signal);
      return injector.records.slice(0, 30).map((record) => record.kind);
    };
    const withSkips = await kinds(true);
    expect(withSkips).toHaveLength(30);
    expect(new Set(withSkips).size).toBe(3);
    expect(withSkips).toEqual(await kinds(false));
  });

  it('adds up the disrupted time that overlaps a window', () => {
    const injector = new FaultInjector(new SeededRandom(1), quietActions(false), { kinds: ['follower-kill'], minGapMs: 0, maxGapMs: 0, warmUpMs: 0 }, () => undefined);
    (injector as unknown as { disruptions: { from: number; to: number }[] }).disruptions.push({ from: 100, to: 200 }, { from: 300, to: 400 });
    expect(injector.disruptedMs(150, 350)).toBe(100);
    expect(injector.disruptedMs(0, 50)).toBe(0);
  });
});

describe('maxOverlap', () => {
  it('counts intervals open at one instant; touching ones do not overlap', () => {
    const peak = maxOverlap([
      { start: 0, end: 10, label: 'a' },
      { start: 10, end: 20, label: 'b' },
      { start: 5, end: 15, label: 'c' },
    ]);
    expect(peak.count).toBe(2);
    expect(peak.labels.sort()).toEqual(['a', 'c']);
  });

  it('is 0 for no runs', () => {
    expect(maxOverlap([]).count).toBe(0);
  });
});

describe('RunSlotWatch.checkReports', () => {
  const at = (second: number) => new Date(Date.UTC(2026, 11, 7, 17, 4, second)).toISOString();
  const view = (runId: string, from: number, to: number, refusedBeforeStart = false) => ({
    namespace: 'soak-tests', name: `t-${runId}`, test: 't', runId, trigger: 'manual', startedAt: at(from), completedAt: at(to), result: 'pass',
    ...(refusedBeforeStart ? { refusedBeforeStart } : {}),
  });

  it('leaves out a run refused before it started (its interval is its time in the queue), and still flags a real fourth', () => {
    const running = [view('a', 0, 30), view('b', 0, 30), view('c', 0, 30)];
    const quiet = new Violations(1, () => undefined);
    expect(new RunSlotWatch(undefined as never, 3, quiet).checkReports([...running, view('q', 5, 31, true)])).toBe(3);
    expect(quiet.list).toEqual([]);
    const loud = new Violations(1, () => undefined);
    expect(new RunSlotWatch(undefined as never, 3, loud).checkReports([...running, view('d', 5, 31)])).toBe(4);
    expect(loud.list.map((violation) => violation.invariant)).toEqual(['run-slots']);
  });
});

describe('RunLedger', () => {
  const test = (id: string) => ({ namespace: 'ns', name: 't', run: { id, stage: 'Preparing' as const, trigger: 'manual', queuedAt: '' }, suspended: false });
  const report = (name: string, runId: string) => ({ namespace: 'ns', name, test: 't', runId, trigger: 'manual', startedAt: '', completedAt: '', result: 'pass' });

  it('flags a second report of one run as soon as it is seen', () => {
    const violations = new Violations(1, () => undefined);
    const ledger = new RunLedger(violations);
    ledger.onTest('update', test('abcde'));
    ledger.onReport('add', report('t-abcde', 'abcde'), undefined);
    expect(violations.count()).toBe(0);
    ledger.onReport('add', report('t-abcde-2', 'abcde'), undefined);
    expect(violations.list.map((violation) => violation.invariant)).toEqual(['one-report-per-run']);
  });

  it('flags a run without a report at the end, and counts runs seen only through their report', () => {
    const violations = new Violations(1, () => undefined);
    const ledger = new RunLedger(violations);
    ledger.onTest('update', test('aaaaa'));
    ledger.onReport('add', report('t-bbbbb', 'bbbbb'), undefined);
    ledger.checkComplete();
    expect(violations.list).toHaveLength(1);
    expect(violations.list[0]!.what).toContain('ns/t/aaaaa');
    expect(ledger.figures()).toMatchObject({ started: 2, finished: 1, reports: 1 });
  });
});

describe('leadingStretches', () => {
  const MiB = 1024 * 1024;
  /** One sample every 10 s: `leading` per sample, RSS growing by `grow` MiB a sample from 300. */
  const series = (leading: boolean[], grow = 1) => leading.map((lead, index) => ({ at: index * 10_000, bytes: (300 + index * grow) * MiB, leading: lead }));

  it('measures each leading stretch of at least 5 minutes from a minute after it began, per incarnation', () => {
    const led = Array.from({ length: 37 }, () => true); // 6 min
    const stretches = leadingStretches('replica-0', [series([false, false, ...led, false]), series([true, true])]);
    expect(stretches).toEqual([{ replica: 'replica-0', incarnation: 1, minutes: 6, fromMiB: 308, toMiB: 338, mibPer10Minutes: 60 }]);
  });

  it('leaves out short stretches, stretches split by a sample that did not lead, and samples without a leader answer', () => {
    const split = [...Array.from({ length: 20 }, () => true), false, ...Array.from({ length: 20 }, () => true)];
    expect(leadingStretches('r', [series(split)])).toEqual([]);
    expect(leadingStretches('r', [series(Array.from({ length: 40 }, () => true)).map(({ leading: _leading, ...sample }) => sample)])).toEqual([]);
  });
});
