// A keyed work queue in the manner of client-go: a key is queued at most once, processed by one
// worker at a time, retried with per-key exponential backoff, and can be scheduled for later.
// Informer handlers only call add(); all work happens in the processor.

export interface WorkQueueOptions {
  concurrency: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Injectable timers for tests. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export interface WorkQueueMetrics {
  depth(value: number): void;
  processed(outcome: 'success' | 'error', seconds: number): void;
}

export type Processor = (key: string) => Promise<void>;

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added while being processed: run again when the current pass ends. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; handle: unknown }>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(
    private readonly processor: Processor,
    private readonly options: WorkQueueOptions,
    private readonly metrics?: WorkQueueMetrics,
    private readonly onError?: (key: string, error: unknown) => void,
  ) {
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
  }

  get length(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.metrics?.depth(this.queue.length);
    this.pump();
  }

  /** Queues the key after a delay; an earlier pending timer for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) this.clearTimer(existing.handle);
    const handle = this.setTimer(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    this.timers.set(key, { at, handle });
  }

  /** Retries with per-key exponential backoff. */
  addRateLimited(key: string): void {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const base = this.options.baseBackoffMs ?? 500;
    const max = this.options.maxBackoffMs ?? 60_000;
    this.addAfter(key, Math.min(base * 2 ** (failures - 1), max));
  }

  /** Clears the backoff history of a key after a success. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Accepts keys again after stop() (leadership regained). */
  resume(): void {
    this.stopped = false;
  }

  stop(): void {
    this.stopped = true;
    for (const { handle } of this.timers.values()) this.clearTimer(handle);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
  }

  /** Resolves when nothing is queued or processing (timers may still be pending). */
  whenIdle(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.active < this.options.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.metrics?.depth(this.queue.length);
      this.active++;
      this.processing.add(key);
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    const started = process.hrtime.bigint();
    let outcome: 'success' | 'error' = 'success';
    try {
      await this.processor(key);
    } catch (error) {
      outcome = 'error';
      this.onError?.(key, error);
      this.addRateLimited(key);
    } finally {
      this.metrics?.processed(outcome, Number(process.hrtime.bigint() - started) / 1e9);
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
      if (this.active === 0 && this.queue.length === 0) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
  }
}
