// The concurrency limit, derived from the cache: a property test over random interleavings of
// stale cache views, conflicting writes, failed writes and run ends (the limit holds at every
// instant and no slot is ever lost), and per-namespace fairness under a noisy neighbour.
import { describe, expect, it } from '@jest/globals';
import { RunAdmission } from '../../../server/engine/run/run-slots.js';
import { nextInLine } from '../../../server/domain/run/run-queue.js';
import type { RestoreTest, RunStage } from '../../../server/domain/resources/resources.js';

function testObject(key: string, rv: number, run?: { id: string; stage: RunStage; queuedAt: string }): RestoreTest {
  const [namespace, name] = key.split('/') as [string, string];
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { namespace, name, resourceVersion: String(rv) },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '* * * * *' } },
    status: run ? { currentRun: { id: run.id, trigger: 'schedule', scheduledAt: run.queuedAt, queuedAt: run.queuedAt, stage: run.stage } } : {},
  };
}

/** A tiny seeded PRNG (mulberry32): every failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Stored {
  rv: number;
  run?: { id: string; stage: RunStage; queuedAt: string };
}

/** The apiserver (store), an informer cache that lags per key, and in-flight writes. */
class World {
  rv = 1;
  runs = 0;
  readonly store = new Map<string, Stored>();
  readonly cache = new Map<string, RestoreTest>();
  readonly events = new Map<string, RestoreTest[]>();
  readonly inFlight: { view: RestoreTest; settle: (written: RestoreTest | undefined) => void }[] = [];

  constructor(keys: string[]) {
    for (const key of keys) {
      this.store.set(key, { rv: this.rv });
      this.cache.set(key, testObject(key, this.rv));
    }
  }

  private commit(key: string, change: (stored: Stored) => void): RestoreTest {
    const stored = this.store.get(key)!;
    change(stored);
    stored.rv = ++this.rv;
    const object = testObject(key, stored.rv, stored.run && { ...stored.run });
    this.events.set(key, [...(this.events.get(key) ?? []), object]);
    return object;
  }

  queueRun(key: string): void {
    if (this.store.get(key)!.run) return;
    this.commit(key, (stored) => (stored.run = { id: `run-${++this.runs}`, stage: 'Queued', queuedAt: new Date(this.rv * 1000).toISOString() }));
  }

  /** Another writer touches the test (a trigger annotation, a spec edit): later stale writes conflict. */
  touch(key: string): void {
    this.commit(key, () => undefined);
  }

  finishRun(key: string): void {
    const stage = this.store.get(key)!.run?.stage;
    if (stage && stage !== 'Queued') this.commit(key, (stored) => delete stored.run);
  }

  /** The object as the apiserver has it now: what a write returns, fresher than the cache. */
  latest(key: string): RestoreTest {
    const stored = this.store.get(key)!;
    return testObject(key, stored.rv, stored.run && { ...stored.run });
  }

  deliverOne(key: string): void {
    const pending = this.events.get(key);
    const next = pending?.shift();
    if (next) this.cache.set(key, next);
  }

  deliverAll(): void {
    for (const key of this.events.keys()) while (this.events.get(key)!.length) this.deliverOne(key);
  }

  /** The promotion write: optimistic concurrency on the promoted test, or a failure of the call. */
  resolve(index: number, fails: boolean): void {
    const [write] = this.inFlight.splice(index, 1);
    const key = `${write!.view.metadata.namespace}/${write!.view.metadata.name}`;
    const stored = this.store.get(key)!;
    if (fails || String(stored.rv) !== write!.view.metadata.resourceVersion) return write!.settle(undefined);
    write!.settle(this.commit(key, (entry) => (entry.run = { ...entry.run!, stage: 'Preparing' })));
  }

  running(): number {
    return [...this.store.values()].filter((stored) => stored.run && stored.run.stage !== 'Queued').length;
  }

  queued(): number {
    return [...this.store.values()].filter((stored) => stored.run?.stage === 'Queued').length;
  }
}

describe('RunAdmission: the limit holds and no slot is lost', () => {
  it('over 1,000 random interleavings of stale cache views, conflicts and failed writes', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
      const limit = 1 + Math.floor(rand() * 4);
      const keys = Array.from({ length: 10 }, (_, index) => `team-${index % 3}/test-${index}`);
      const world = new World(keys);
      const admission = new RunAdmission(limit, () => [...world.cache.values()], () => 0);
      const reconcile = (key: string, fresh = false): void => {
        // A reconcile sees the cache, or the object a write just returned (the engine queues and
        // promotes in one pass): then the cache may not even show the run as queued yet.
        const view = fresh ? world.latest(key) : world.cache.get(key)!;
        if (view.status?.currentRun?.stage !== 'Queued') return;
        const decision = admission.admit(view);
        if (decision.admitted) world.inFlight.push({ view, settle: decision.promotion.settle });
      };

      for (let step = 0; step < 300; step++) {
        const roll = rand();
        if (roll < 0.15) world.queueRun(pick(keys));
        else if (roll < 0.35) reconcile(pick(keys));
        else if (roll < 0.45) reconcile(pick(keys), true);
        else if (roll < 0.6 && world.inFlight.length) world.resolve(Math.floor(rand() * world.inFlight.length), rand() < 0.1);
        else if (roll < 0.65) world.touch(pick(keys));
        else if (roll < 0.75) world.finishRun(pick(keys));
        else world.deliverOne(pick(keys));
        if (world.running() > limit) throw new Error(`seed ${seed}: ${world.running()} runs in progress, limit ${limit}`);
      }

      // Drain: every queued run must still get a slot, and the derived count must match the store.
      for (let round = 0; round < 500 && (world.queued() > 0 || world.running() > 0 || world.inFlight.length); round++) {
        while (world.inFlight.length) world.resolve(0, false);
        world.deliverAll();
        for (const key of keys) reconcile(key);
        while (world.inFlight.length) world.resolve(0, false);
        expect(world.running()).toBeLessThanOrEqual(limit);
        world.deliverAll();
        expect(admission.counts().inProgress).toBe(world.running());
        for (const key of keys) world.finishRun(key);
      }
      world.deliverAll();
      if (world.queued() !== 0 || admission.counts().inProgress !== 0) {
        throw new Error(`seed ${seed}: ${world.queued()} runs never started, ${admission.counts().inProgress} slots held at rest`);
      }
    }
  });

  it('a stale view of a run already promoted takes no second slot', () => {
    const world = new World(['a/one', 'a/two']);
    world.queueRun('a/one');
    world.queueRun('a/two');
    world.deliverAll();
    const admission = new RunAdmission(1, () => [...world.cache.values()], () => 0);
    const first = admission.admit(world.cache.get('a/one')!);
    expect(first.admitted).toBe(true);
    // The write lands; the cache has not seen it yet: neither the same view nor the other test gets in.
    if (first.admitted) world.inFlight.push({ view: world.cache.get('a/one')!, settle: first.promotion.settle });
    world.resolve(0, false);
    expect(admission.admit(world.cache.get('a/one')!).admitted).toBe(false);
    expect(admission.admit(world.cache.get('a/two')!).admitted).toBe(false);
    expect(admission.counts()).toEqual({ inProgress: 1, queued: 1 });
    world.deliverAll();
    expect(admission.counts()).toEqual({ inProgress: 1, queued: 1 });
    world.finishRun('a/one');
    world.deliverAll();
    expect(admission.admit(world.cache.get('a/two')!).admitted).toBe(true);
  });

  it('a run queued and promoted in one pass counts before the cache shows it queued', () => {
    const world = new World(['a/one', 'a/two']);
    const admission = new RunAdmission(1, () => [...world.cache.values()], () => 0);
    // Both queue writes landed; the cache shows neither yet. One is promoted on its fresh object.
    world.queueRun('a/one');
    world.queueRun('a/two');
    const first = admission.admit(world.latest('a/one'));
    expect(first.admitted).toBe(true);
    if (first.admitted) world.inFlight.push({ view: world.latest('a/one'), settle: first.promotion.settle });
    world.resolve(0, false);
    expect(admission.counts().inProgress).toBe(1);
    expect(admission.admit(world.latest('a/two')).admitted).toBe(false);
  });

  it('a failed promotion write gives the slot back at once', () => {
    const world = new World(['a/one']);
    world.queueRun('a/one');
    world.deliverAll();
    const admission = new RunAdmission(1, () => [...world.cache.values()], () => 0);
    const decision = admission.admit(world.cache.get('a/one')!);
    expect(admission.counts().inProgress).toBe(1);
    if (decision.admitted) decision.promotion.settle(undefined);
    expect(admission.counts()).toEqual({ inProgress: 0, queued: 1 });
  });
});

describe('RunAdmission: per-namespace fairness', () => {
  it('picks the namespace with the fewest runs in progress, then the oldest head', () => {
    const tests = [
      ...Array.from({ length: 20 }, (_, index) => testObject(`noisy/t${index}`, 1, { id: `n${index}`, stage: 'Queued', queuedAt: '2026-03-01T00:00:00Z' })),
      testObject('noisy/busy', 1, { id: 'b', stage: 'Restoring', queuedAt: '2026-03-01T00:00:00Z' }),
      testObject('quiet/daily', 1, { id: 'q', stage: 'Queued', queuedAt: '2026-03-01T00:05:00Z' }),
    ];
    // 20 older runs of another namespace wait, but quiet/ has nothing in progress: it goes first.
    expect(nextInLine(tests, new Set())).toBe('quiet/daily');
    // Without the quiet namespace, the oldest queued run (then the name) is first: plain FIFO.
    expect(nextInLine(tests.filter((test) => test.metadata.namespace === 'noisy'), new Set())).toBe('noisy/t0');
  });

  it('a tenant with 20 failing tests due every minute does not delay another tenant’s test', () => {
    // Simulated time, one-second ticks, limit 5: team-a's 20 tests are due every minute and each
    // run takes 150 s (failing runs keep going until their checks time out); team-b's one test is
    // due every minute too and takes 20 s. team-b's run takes the first slot that frees after it is
    // due — no team-a run starts while it waits — so it waits at most one team-a run.
    const limit = 5;
    const keys = [...Array.from({ length: 20 }, (_, index) => `team-a/t${index}`), 'team-b/daily'];
    const world = new World(keys);
    const admission = new RunAdmission(limit, () => [...world.cache.values()], () => 0);
    const startedAt = new Map<string, number>();
    const delays: number[] = [];
    let queuedB = -1;
    for (let second = 0; second < 15 * 60; second++) {
      for (const key of keys) {
        const run = world.store.get(key)!.run;
        const duration = key.startsWith('team-b') ? 20 : 150;
        if (run && run.stage !== 'Queued' && second - startedAt.get(key)! >= duration) world.finishRun(key);
      }
      if (second % 60 === 0) {
        for (const key of keys) world.queueRun(key);
        if (world.store.get('team-b/daily')!.run?.stage === 'Queued') queuedB = second;
      }
      world.deliverAll();
      // Reconcile in the order least kind to team-b: every team-a test first.
      for (const key of keys) {
        const view = world.cache.get(key)!;
        if (view.status?.currentRun?.stage !== 'Queued') continue;
        const decision = admission.admit(view);
        if (!decision.admitted) continue;
        const teamABusy = keys.filter((other) => other.startsWith('team-a') && world.store.get(other)!.run && world.store.get(other)!.run!.stage !== 'Queued').length;
        if (key.startsWith('team-a') && teamABusy > 0 && world.store.get('team-b/daily')!.run?.stage === 'Queued') {
          throw new Error(`second ${second}: ${key} started while team-b's run waited`);
        }
        world.inFlight.push({ view, settle: decision.promotion.settle });
        world.resolve(0, false);
        startedAt.set(key, second);
        if (key === 'team-b/daily') delays.push(second - queuedB);
      }
      expect(world.running()).toBeLessThanOrEqual(limit);
    }
    // Slots free in bursts (team-a's runs started together): team-b runs every time one frees.
    expect(delays.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...delays)).toBeLessThanOrEqual(150);
    // And team-a is not starved either: it keeps the other slots busy.
    expect(world.runs - delays.length).toBeGreaterThanOrEqual(4 * 15 * 60 / 150);
  });
});
