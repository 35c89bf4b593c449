// The coverage view over the cache: the backup inventory is read from the tool at most every
// `maxInventoryAgeMs` (and on a timer, so the gauge stays current without requests); the coverage
// itself is recomputed from the informer cache on every call, so a test that just passed counts at
// once. Every computation sets rehearsal_namespace_backed_up_untested for every backed-up namespace.
import type { Gauge } from 'prom-client';
import type { Logger } from 'pino';
import { computeCoverage, type BackupInventory, type CoverageResponse } from '../domain/read-models/coverage.js';
import type { ReportIndex } from '../domain/read-models/report-index.js';
import type { RestoreTest } from '../domain/resources/resources.js';

export interface CoverageTrackerDeps {
  readInventory: () => Promise<BackupInventory>;
  cache: { listTests(): RestoreTest[]; readonly reportIndex: ReportIndex };
  now: () => Date;
  minimumWindowSeconds: number;
  /** Inventory older than this is read again before an answer. */
  maxInventoryAgeMs: number;
  untestedGauge: Pick<Gauge<'namespace'>, 'set' | 'reset'>;
  log: Logger;
}

export class CoverageTracker {
  private inventory: { value: BackupInventory; readAtMs: number } | undefined;
  private reading: Promise<BackupInventory> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: CoverageTrackerDeps) {}

  /** Coverage with an inventory no older than maxInventoryAgeMs (read from the tool if needed). */
  async coverage(): Promise<CoverageResponse> {
    return (await this.withInventory()).coverage;
  }

  /** The same, with the inventory it was computed from (test drafts read its schedules, issue 32). */
  async withInventory(): Promise<{ inventory: BackupInventory; coverage: CoverageResponse }> {
    const nowMs = this.deps.now().getTime();
    const known = this.inventory;
    const inventory =
      known && nowMs - known.readAtMs < this.deps.maxInventoryAgeMs ? known.value : await this.readInventory();
    return { inventory, coverage: this.compute(inventory) };
  }

  /** Coverage from the last inventory read, without I/O; undefined before the first read. */
  latest(): CoverageResponse | undefined {
    return this.inventory ? this.compute(this.inventory.value) : undefined;
  }

  /** Re-reads the inventory every intervalMs (and once now); failures are logged, not thrown. */
  start(intervalMs: number): void {
    const refresh = (): void => {
      this.readInventory()
        .then((inventory) => this.compute(inventory))
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'reading the backup inventory failed'));
    };
    refresh();
    this.timer = setInterval(refresh, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private readInventory(): Promise<BackupInventory> {
    // Concurrent callers share one read of the tool.
    this.reading ??= this.deps
      .readInventory()
      .then((value) => {
        this.inventory = { value, readAtMs: this.deps.now().getTime() };
        return value;
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  private compute(inventory: BackupInventory): CoverageResponse {
    const coverage = computeCoverage({
      inventory,
      tests: this.deps.cache.listTests(),
      reports: this.deps.cache.reportIndex,
      now: this.deps.now(),
      minimumWindowSeconds: this.deps.minimumWindowSeconds,
    });
    this.deps.untestedGauge.reset();
    for (const entry of coverage.namespaces) {
      this.deps.untestedGauge.set({ namespace: entry.namespace }, entry.status === 'tested' ? 0 : 1);
    }
    return coverage;
  }
}
