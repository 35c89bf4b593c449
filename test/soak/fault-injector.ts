// The fault injector: one fault at a time, chosen from the seed, spaced so that runs still complete
// in between (the next fault starts a seeded 40–75 s after the previous one started, and never less
// than 15 s after it was repaired). Each fault repairs itself before it ends (a killed replica
// is started again, a stopped apiserver resumed), so faults never pile up. Every draw is made in
// the same order whatever happens, so one seed always gives the same schedule of kinds, targets and
// durations; the machine's timing still varies from run to run.
import type { SeededRandom } from './prng.js';

export const FAULT_KINDS = ['leader-kill', 'follower-kill', 'apiserver-pause', 'apiserver-restart', 'velero-restart'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What each kind does; soak.ts wires these to the replicas, the control plane and the simulator. */
export interface FaultActions {
  /** SIGKILL the replica that leads now, start it again after `downMs`. */
  killLeader(downMs: number): Promise<string>;
  /** SIGKILL a replica that does not lead (`pick` in [0,1) chooses which), start it again after `downMs`. */
  killFollower(downMs: number, pick: number): Promise<string>;
  /** SIGSTOP the kube-apiserver for `pauseMs`, then SIGCONT. */
  pauseApiserver(pauseMs: number): Promise<string>;
  /** SIGKILL the kube-apiserver and start it again on its port. */
  restartApiserver(): Promise<string>;
  /** Stop the Velero simulator (work in flight stops where it is), start it again after `downMs`. */
  restartVelero(downMs: number): Promise<string>;
}

/** Thrown by an action that cannot act now (e.g. no replica leads); the fault is counted as skipped. */
export class FaultNotPossible extends Error {}

export interface FaultRecord {
  kind: FaultKind;
  startedAt: string;
  seconds: number;
  outcome: 'done' | 'skipped' | 'failed';
  detail: string;
}

export interface FaultSchedule {
  kinds: readonly FaultKind[];
  /** Start-to-start spacing, drawn in [minGapMs, maxGapMs]. */
  minGapMs: number;
  maxGapMs: number;
  /** No fault before the runs are under way. */
  warmUpMs: number;
  /** After a repair, at least this long without faults (default 15 s). */
  quietMs?: number;
}

/** A new leader takes over only once the old lease expired (15 s): count that as disrupted too. */
const TAKEOVER_MS = 20_000;

export class FaultInjector {
  readonly records: FaultRecord[] = [];
  private readonly disruptions: { from: number; to: number }[] = [];

  constructor(
    private readonly random: SeededRandom,
    private readonly actions: FaultActions,
    private readonly schedule: FaultSchedule,
    private readonly print: (line: string) => void,
  ) {}

  /** Injects faults until `deadline` (a fault under way at the deadline is finished and repaired). */
  async run(deadline: number, signal: AbortSignal): Promise<void> {
    let nextAt = Date.now() + this.schedule.warmUpMs;
    while (!signal.aborted) {
      await sleepUntil(Math.min(nextAt, deadline), signal);
      if (signal.aborted || Date.now() >= deadline) return;
      const kind = this.random.pick(this.schedule.kinds);
      const downMs = this.random.between(2000, 10_000);
      const pauseMs = this.random.between(10_000, 60_000);
      const pick = this.random.next();
      const gapMs = this.random.between(this.schedule.minGapMs, this.schedule.maxGapMs);
      const started = Date.now();
      let outcome: FaultRecord['outcome'] = 'done';
      let detail: string;
      this.print(`[soak] fault ${kind} starting`);
      try {
        detail = await this.perform(kind, { downMs, pauseMs, pick });
      } catch (error) {
        outcome = error instanceof FaultNotPossible ? 'skipped' : 'failed';
        detail = (error as Error).message;
      }
      const ended = Date.now();
      const record: FaultRecord = { kind, startedAt: new Date(started).toISOString(), seconds: Math.round((ended - started) / 100) / 10, outcome, detail };
      this.records.push(record);
      if (outcome !== 'skipped') this.disruptions.push({ from: started, to: ended + (kind === 'follower-kill' || kind === 'velero-restart' ? 0 : TAKEOVER_MS) });
      this.print(`[soak] fault ${kind} ${outcome} in ${record.seconds} s: ${detail}`);
      nextAt = Math.max(started + gapMs, ended + (this.schedule.quietMs ?? 15_000));
    }
  }

  /** Milliseconds of [from, to] that some fault (with its takeover time) covered. */
  disruptedMs(from: number, to: number): number {
    let total = 0;
    for (const disruption of this.disruptions) total += Math.max(0, Math.min(to, disruption.to) - Math.max(from, disruption.from));
    return total;
  }

  counts(): Record<FaultKind, { done: number; skipped: number; failed: number }> {
    const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, { done: 0, skipped: 0, failed: 0 }])) as Record<FaultKind, { done: number; skipped: number; failed: number }>;
    for (const record of this.records) counts[record.kind][record.outcome]++;
    return counts;
  }

  private perform(kind: FaultKind, drawn: { downMs: number; pauseMs: number; pick: number }): Promise<string> {
    switch (kind) {
      case 'leader-kill':
        return this.actions.killLeader(drawn.downMs);
      case 'follower-kill':
        return this.actions.killFollower(drawn.downMs, drawn.pick);
      case 'apiserver-pause':
        return this.actions.pauseApiserver(drawn.pauseMs);
      case 'apiserver-restart':
        return this.actions.restartApiserver();
      case 'velero-restart':
        return this.actions.restartVelero(drawn.downMs);
    }
  }
}

function sleepUntil(at: number, signal: AbortSignal): Promise<void> {
  const ms = at - Date.now();
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
