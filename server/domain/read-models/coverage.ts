// Backup coverage (issue 16): which namespaces the backup tool backs up, and whether a restore of
// each has been proven by a passing run recently enough. Namespaces counted by
// Summary.namespacesCovered are the ones with a test; this view starts from the backups instead, so
// the namespaces nobody restore-tests show up.
//
// "Recently enough" is the namespace's RPO window: the interval of the most frequent backup
// schedule that covers it (a restore proven for every backup cycle), but never less than
// `minimumWindowSeconds` (restore-testing hourly backups every hour would be absurd), and
// `minimumWindowSeconds` itself when only one-off Backups cover it.
import { formatDuration } from '../common/duration.js';
import { testKeyOf, type ReportIndex } from './report-index.js';
import type { RestoreTest } from '../resources/resources.js';
import { scheduleIntervalSeconds } from '../run/schedule.js';

/** One backup schedule of the tool, as the provider reports it. */
export interface BackupScheduleFacts {
  /** The tool's word for it: Schedule (Velero, the default), Policy (Kasten), BackupPlan (Trilio). */
  kind?: string;
  name: string;
  /** UTC; empty when the tool's objects do not say when it runs (cadenceNote says why). */
  cron: string;
  /**
   * What Rehearsal assumed to write `cron`, or why there is none: a sentence a test drafted from
   * this schedule carries in its notes (issue 32).
   */
  cadenceNote?: string;
  paused: boolean;
  /** Empty or containing "*" = every namespace. */
  includedNamespaces: readonly string[];
  excludedNamespaces: readonly string[];
  lastBackup?: string;
}

/** One backup that completed (fully or partially). */
export interface BackupFacts {
  /** The tool's word for it: Backup (Velero, Trilio; the default), RestorePoint (Kasten). */
  kind?: string;
  name: string;
  includedNamespaces: readonly string[];
  excludedNamespaces: readonly string[];
  completedAt?: string;
}

export interface BackupInventory {
  schedules: readonly BackupScheduleFacts[];
  backups: readonly BackupFacts[];
  /** Namespaces a wildcard backup stands for (the cluster's, without system ones and sandboxes). */
  clusterNamespaces: readonly string[];
}

export type CoverageStatus = 'tested' | 'stale' | 'untested';

export interface NamespaceCoverage {
  namespace: string;
  /** tested: a pass within the window; stale: the newest pass is older; untested: never a pass. */
  status: CoverageStatus;
  /** What backs it up, e.g. "Schedule/daily", "Backup/manual-1" (Velero), "Policy/kasten-io/daily", "RestorePoint/…" (Kasten), "BackupPlan/shop-plan" (Trilio). */
  backedUpBy: string[];
  /** Completion time of its newest backup; empty when unknown. */
  lastBackupAt: string;
  /** How old the newest passing run may be, e.g. 24h0m0s. */
  window: string;
  /** RestoreTests ("namespace/name") that restore it. */
  tests: string[];
  /** Completion time of the newest passing run that restored it; empty when none. */
  lastPassedAt: string;
}

export interface CoverageResponse {
  generatedAt: string;
  /**
   * Namespaces backed up (by a schedule or a completed backup).
   * @isInt
   */
  backedUp: number;
  /** @isInt */
  tested: number;
  /**
   * Namespaces with status untested or stale.
   * @isInt
   */
  untested: number;
  namespaces: NamespaceCoverage[];
}

export interface CoverageInput {
  inventory: BackupInventory;
  tests: readonly RestoreTest[];
  reports: ReportIndex;
  now: Date;
  minimumWindowSeconds: number;
}

interface Backing {
  by: Set<string>;
  lastBackupMs: number | null;
  /** Shortest schedule interval; null when only one-off backups cover the namespace. */
  intervalSeconds: number | null;
}

function isWildcard(included: readonly string[]): boolean {
  return included.length === 0 || included.includes('*');
}

/** The namespaces a backup definition stands for. */
export function namespacesOf(
  included: readonly string[],
  excluded: readonly string[],
  clusterNamespaces: readonly string[],
): string[] {
  const candidates = isWildcard(included)
    ? [...clusterNamespaces, ...included.filter((name) => name !== '*')]
    : included;
  const skip = new Set(excluded);
  return [...new Set(candidates)].filter((name) => !skip.has(name));
}

/**
 * Seconds between a schedule's backups; null when its cron has no two future instants or is one
 * Rehearsal does not read (Velero also takes `@every 6h` and `CRON_TZ=` prefixes): such a schedule
 * still backs its namespaces up, it only gives them no window of its own.
 */
function intervalOf(schedule: BackupScheduleFacts, now: Date): number | null {
  try {
    return scheduleIntervalSeconds(schedule.cron, 'UTC', now);
  } catch {
    return null;
  }
}

/**
 * The unpaused schedules that back `namespace` up, most frequent first, then by name (a test
 * drafted for it follows the first, issue 32). A cron that cannot be read sorts last.
 */
export function schedulesBacking(inventory: BackupInventory, namespace: string, now: Date): BackupScheduleFacts[] {
  const interval = (schedule: BackupScheduleFacts): number => intervalOf(schedule, now) ?? Number.POSITIVE_INFINITY;
  return inventory.schedules
    .filter((schedule) => !schedule.paused)
    .filter((schedule) =>
      namespacesOf(schedule.includedNamespaces, schedule.excludedNamespaces, inventory.clusterNamespaces).includes(namespace),
    )
    .map((schedule) => ({ schedule, seconds: interval(schedule) }))
    .sort((a, b) => a.seconds - b.seconds || (a.schedule.name < b.schedule.name ? -1 : 1))
    .map(({ schedule }) => schedule);
}

function parseMs(text: string | undefined): number | null {
  if (!text) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

function backingOf(inventory: BackupInventory, now: Date): Map<string, Backing> {
  const backing = new Map<string, Backing>();
  const entry = (namespace: string): Backing => {
    let found = backing.get(namespace);
    if (!found) {
      found = { by: new Set(), lastBackupMs: null, intervalSeconds: null };
      backing.set(namespace, found);
    }
    return found;
  };
  const noteBackup = (found: Backing, completedMs: number | null): void => {
    if (completedMs !== null && (found.lastBackupMs === null || completedMs > found.lastBackupMs)) {
      found.lastBackupMs = completedMs;
    }
  };
  for (const schedule of inventory.schedules) {
    if (schedule.paused) continue; // a paused schedule backs nothing up any more
    const interval = intervalOf(schedule, now);
    for (const namespace of namespacesOf(schedule.includedNamespaces, schedule.excludedNamespaces, inventory.clusterNamespaces)) {
      const found = entry(namespace);
      found.by.add(`${schedule.kind ?? 'Schedule'}/${schedule.name}`);
      if (interval !== null && (found.intervalSeconds === null || interval < found.intervalSeconds)) {
        found.intervalSeconds = interval;
      }
      noteBackup(found, parseMs(schedule.lastBackup));
    }
  }
  for (const backup of inventory.backups) {
    for (const namespace of namespacesOf(backup.includedNamespaces, backup.excludedNamespaces, inventory.clusterNamespaces)) {
      const found = entry(namespace);
      found.by.add(`${backup.kind ?? 'Backup'}/${backup.name}`);
      noteBackup(found, parseMs(backup.completedAt));
    }
  }
  return backing;
}

/** Per source namespace: the tests restoring it and the completion time of its newest pass. */
function passesByNamespace(
  tests: readonly RestoreTest[],
  reports: ReportIndex,
  nowMs: number,
): Map<string, { tests: string[]; lastPassMs: number | null }> {
  const result = new Map<string, { tests: string[]; lastPassMs: number | null }>();
  for (const test of tests) {
    const testKey = testKeyOf(test);
    for (const source of test.spec.backupSource?.namespaces ?? []) {
      const found = result.get(source.name) ?? { tests: [], lastPassMs: null };
      found.tests.push(testKey);
      result.set(source.name, found);
    }
    const runs = reports.runsOfTest(testKey);
    // Newest pass per namespace this test restored (a test's sources may have changed over time).
    const seen = new Set<string>();
    for (let position = runs.length - 1; position >= 0; position -= 1) {
      const run = runs[position]!;
      if (run.completedAt > nowMs || run.report.spec.result !== 'pass') continue;
      for (const namespace of run.report.spec.sourceNamespaces) {
        if (seen.has(namespace)) continue;
        seen.add(namespace);
        const found = result.get(namespace) ?? { tests: [], lastPassMs: null };
        if (found.lastPassMs === null || run.completedAt > found.lastPassMs) found.lastPassMs = run.completedAt;
        result.set(namespace, found);
      }
    }
  }
  return result;
}

/** Every backed-up namespace with its coverage, untested first, then by name. */
export function computeCoverage(input: CoverageInput): CoverageResponse {
  const nowMs = input.now.getTime();
  const backing = backingOf(input.inventory, input.now);
  const passes = passesByNamespace(input.tests, input.reports, nowMs);
  const order: Record<CoverageStatus, number> = { untested: 0, stale: 1, tested: 2 };
  const namespaces = [...backing.entries()]
    .map(([namespace, found]): NamespaceCoverage => {
      const windowSeconds = Math.max(found.intervalSeconds ?? 0, input.minimumWindowSeconds);
      const tested = passes.get(namespace);
      const lastPassMs = tested?.lastPassMs ?? null;
      const status: CoverageStatus =
        lastPassMs === null ? 'untested' : nowMs - lastPassMs > windowSeconds * 1000 ? 'stale' : 'tested';
      return {
        namespace,
        status,
        backedUpBy: [...found.by].sort(),
        lastBackupAt: found.lastBackupMs === null ? '' : new Date(found.lastBackupMs).toISOString(),
        window: formatDuration(windowSeconds),
        tests: [...(tested?.tests ?? [])].sort(),
        lastPassedAt: lastPassMs === null ? '' : new Date(lastPassMs).toISOString(),
      };
    })
    .sort((a, b) => order[a.status] - order[b.status] || (a.namespace < b.namespace ? -1 : 1));
  const tested = namespaces.filter((entry) => entry.status === 'tested').length;
  return {
    generatedAt: input.now.toISOString(),
    backedUp: namespaces.length,
    tested,
    untested: namespaces.length - tested,
    namespaces,
  };
}

/** The namespaces compliance evidence names as a gap: backed up, but untested or stale. */
export function untestedNamespaces(coverage: CoverageResponse): string[] {
  return coverage.namespaces.filter((entry) => entry.status !== 'tested').map((entry) => entry.namespace);
}

/**
 * The coverage of the namespaces a caller may read (issue 30): their entries, naming only the
 * tests in readable namespaces, and the counts of those entries. A namespace's status stays the
 * cluster's truth about it (another team's passing test still covers it).
 */
export function coverageWithin(coverage: CoverageResponse, readable: (namespace: string) => boolean): CoverageResponse {
  const namespaces = coverage.namespaces
    .filter((entry) => readable(entry.namespace))
    .map((entry) => ({ ...entry, tests: entry.tests.filter((test) => readable(test.slice(0, test.indexOf('/')))) }));
  const tested = namespaces.filter((entry) => entry.status === 'tested').length;
  return { ...coverage, backedUp: namespaces.length, tested, untested: namespaces.length - tested, namespaces };
}
