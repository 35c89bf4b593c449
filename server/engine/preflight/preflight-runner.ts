// Runs the pre-flight restorability check (issue 32) of each test's newest backup, in the
// background: the reconcile pass only asks whether a look is due (never waits for one), and the
// looks run one at a time, so a large backup's download never holds a reconcile worker or crowds
// the leader. A look is due once per leadership term for every test (a new leader catches up on
// what completed while nobody led) and again whenever its backup tool reports a completed backup
// (Velero's backup watch). A look that finds the newest backup already checked (status.preflight)
// costs one list of the backups; a new one downloads its manifests, checks them against the
// cluster, and writes status.preflight and the PreflightPassed condition under its own field
// manager, an Event, and the metrics. Nothing is restored and no sandbox is created.
import type { Logger } from 'pino';
import { preflight, type ClusterFacts, type PreflightOutcome } from '../../domain/preflight/preflight-checks.js';
import type { PreflightStatus, RestoreTest, RestoreTestStatus } from '../../domain/resources/resources.js';
import { keyOf } from '../../domain/run/run-queue.js';
import { resolveSubset } from '../../domain/run/restore-subset.js';
import type { Metrics } from '../../metrics/metrics.js';
import { ProviderError, type BackupProvider } from '../../providers/provider.js';
import { setCondition } from '../conditions.js';
import type { EventType } from '../events.js';

const MAX_TEXT = 1024;

export interface PreflightRunnerDeps {
  providers: Partial<Record<string, BackupProvider>>;
  facts: { read(test: RestoreTest, kinds: readonly { apiVersion: string; kind: string }[]): Promise<ClusterFacts> };
  /** The test as it is now (the cache), undefined when it is gone. */
  getTest: (namespace: string, name: string) => RestoreTest | undefined;
  /** Applies status.preflight and its condition (field manager rehearsal-preflight). */
  writeStatus: (test: RestoreTest, status: RestoreTestStatus) => Promise<unknown>;
  record: (test: RestoreTest, type: EventType, reason: string, message: string) => void;
  metrics: Pick<Metrics, 'preflightChecks'>;
  /** The current leadership term: a look started in a term that ended writes nothing. */
  term: () => AbortSignal;
  now: () => Date;
  log: Logger;
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

export class PreflightRunner {
  /** Tests looked at in this term (a look is due once per term). */
  private looked = new Set<string>();
  /** Tests a completed backup woke since their last look. */
  private woken = new Set<string>();
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private running = false;
  private termSignal: AbortSignal | undefined;

  constructor(private readonly deps: PreflightRunnerDeps) {}

  /** Whether the test's tool can be pre-flighted at all. */
  supports(test: RestoreTest): boolean {
    return typeof this.deps.providers[test.spec.provider]?.backupManifests === 'function';
  }

  /** Called by each reconcile pass: queues a look when one is due. Never waits for it. */
  consider(test: RestoreTest): void {
    this.resetOnNewTerm();
    if (!this.supports(test) || test.spec.schedule.suspend) return;
    const key = keyOf(test);
    if (this.looked.has(key) && !this.woken.has(key)) return;
    this.enqueue(key);
  }

  /** A completed backup may concern these tests: each gets a look. */
  backupCompleted(tests: readonly RestoreTest[]): void {
    this.resetOnNewTerm();
    for (const test of tests) {
      if (!this.supports(test)) continue;
      const key = keyOf(test);
      this.woken.add(key);
      this.enqueue(key);
    }
  }

  /** A new term starts from nothing: every test is due once, and the last term's queue is gone. */
  private resetOnNewTerm(): void {
    const signal = this.deps.term();
    if (signal === this.termSignal) return;
    this.termSignal = signal;
    this.looked = new Set();
    this.woken = new Set();
    this.waiting.length = 0;
    this.queued.clear();
  }

  private enqueue(key: string): void {
    if (this.deps.term().aborted || this.queued.has(key)) return;
    this.queued.add(key);
    this.waiting.push(key);
    if (!this.running) void this.drain();
  }

  /** One look at a time, until the queue is empty or the term ends. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let key = this.waiting.shift(); key !== undefined; key = this.waiting.shift()) {
        this.queued.delete(key);
        const signal = this.deps.term();
        if (signal.aborted) break;
        this.woken.delete(key);
        this.looked.add(key);
        const [namespace, name] = key.split('/') as [string, string];
        const test = this.deps.getTest(namespace, name);
        if (!test || test.metadata.deletionTimestamp) continue;
        try {
          await this.look(test, signal);
        } catch (error) {
          // Looked at again on the next completed backup or the next term.
          this.deps.log.warn({ err: error, test: key }, 'pre-flight check could not run');
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** The newest backup's pre-flight, unless it was checked already. */
  private async look(test: RestoreTest, signal: AbortSignal): Promise<void> {
    const provider = this.deps.providers[test.spec.provider]!;
    const source = test.spec.backupSource;
    const sources = source.namespaces.map((entry) => entry.name);
    let backup;
    try {
      backup = await provider.selectBackup(sources, source.backupName ?? 'latest', source.providerNamespace);
    } catch (error) {
      // No backup to check yet (or the named one is gone: the next run says so).
      if (error instanceof ProviderError && error.reason !== 'ProviderUnavailable') return;
      throw error;
    }
    if (test.status?.preflight?.backupName === backup.name && test.status.preflight.result !== 'error') return;
    let outcome: PreflightOutcome | { result: 'error'; summary: string; problems: [] };
    try {
      const manifests = await provider.backupManifests!(backup.name, sources, source.providerNamespace);
      const facts = await this.deps.facts.read(test, manifests.kinds);
      outcome = preflight(manifests, facts, resolveSubset(source));
    } catch (error) {
      outcome = { result: 'error', summary: `error: could not read ${provider.name} backup ${backup.name}: ${(error as Error).message}`, problems: [] };
    }
    if (signal.aborted) return;
    const current = this.deps.getTest(test.metadata.namespace ?? '', test.metadata.name) ?? test;
    const status: PreflightStatus = {
      backupName: backup.name,
      ...(backup.completedAt ? { backupCompletedAt: backup.completedAt } : {}),
      checkedAt: this.deps.now().toISOString(),
      result: outcome.result,
      summary: clip(outcome.summary),
      ...(outcome.problems.length > 0 ? { problems: outcome.problems.map((problem) => ({ ...problem, message: clip(problem.message) })) } : {}),
    };
    const condition =
      outcome.result === 'passed'
        ? { type: 'PreflightPassed', status: 'True' as const, reason: 'Passed', message: clip(`backup ${backup.name}: ${outcome.summary}`) }
        : outcome.result === 'failed'
          ? { type: 'PreflightPassed', status: 'False' as const, reason: 'Failed', message: clip(`backup ${backup.name}: ${outcome.summary}`) }
          : { type: 'PreflightPassed', status: 'Unknown' as const, reason: 'Error', message: clip(outcome.summary) };
    await this.deps.writeStatus(current, {
      preflight: status,
      conditions: setCondition(current.status?.conditions, condition, this.deps.now()),
    });
    this.deps.metrics.preflightChecks.inc({ result: outcome.result });
    this.deps.record(
      current,
      outcome.result === 'passed' ? 'Normal' : 'Warning',
      outcome.result === 'passed' ? 'PreflightPassed' : outcome.result === 'failed' ? 'PreflightFailed' : 'PreflightError',
      clip(`backup ${backup.name}: ${outcome.summary}`),
    );
  }
}
