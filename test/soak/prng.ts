// A small seeded PRNG (mulberry32), so that one --seed replays the same decisions: which fault,
// against which replica, how long, and the pauses between. It cannot replay the machine's timing,
// so a seed reproduces the fault schedule, not every interleaving. Not for anything secret.

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /**
   * An independent stream for one part of the harness: the run driver's draws must not shift the
   * fault injector's, or a change in how often runs are triggered would change the fault schedule.
   */
  fork(label: string): SeededRandom {
    let hash = 0x811c9dc5; // FNV-1a of the label, mixed with this stream's seed
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    return new SeededRandom((hash ^ this.state) >>> 0);
  }
}
