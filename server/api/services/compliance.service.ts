// Compliance evidence summaries (decision 0006): one framework, or the dashboard's overview of all.
import type { FrameworkId } from '../../domain/compliance/catalogue.js';
import {
  complianceOverviewSteps,
  evaluateCompliance,
  evaluateComplianceSteps,
  type ComplianceEvaluation,
  type ComplianceOverview,
  type MissingTail,
} from '../../domain/compliance/evaluation.js';
import type { RestoreTest } from '../../domain/resources/resources.js';
import type { ComplianceResponse } from '../../domain/read-models/views.js';
import type { ApiCache, EvidenceVerifier } from '../ports.js';
import { AsyncReadModelMemo, runSteps, testScopeFingerprint } from './read-model-memo.js';
import { TailProblemMemo } from './evidence-tails.js';
import { requireSynced } from './readiness.js';

/**
 * How long a JSON compliance answer is reused while the reports and the tests' scopes are unchanged
 * (a 90-day evaluation over 90,000 runs takes hundreds of milliseconds of the event loop). It bounds
 * how late the time-dependent parts (ages, runs leaving the period, pending exceptions) follow the
 * clock; the answer's generatedAt says when it was computed. PDFs are always evaluated afresh.
 * Five minutes: the periods are 30-90 days and freshness windows days long, so a few minutes of
 * lag changes nothing an auditor reads, while each re-evaluation stalls every other request for
 * its duration (0.5-0.9 s at 90,000 runs on the benchmark machine). A new report or a changed
 * scope still re-evaluates, within the bounds below (COMPLIANCE_MIN_REFRESH_MS, _MAX_STALE_MS).
 */
export const COMPLIANCE_MEMO_TTL_MS = 5 * 60_000;

/**
 * How long after its computation a JSON compliance answer is still served once the data changed,
 * while the new one is evaluated (AsyncReadModelMemo). With a run finishing every second at 1,000
 * tests, waiting for each re-evaluation (0.2-1 s at 90,000 runs) put every caller behind one. An
 * answer then lags the newest report by at most this (plus one evaluation); its generatedAt says
 * how old it is. Callers that need a change at once poll (the dashboard refreshes; tests waitFor).
 * 30 s: at least twice COMPLIANCE_MIN_REFRESH_MS, so a refresh started at that age finishes in time.
 */
export const COMPLIANCE_MAX_STALE_MS = 30_000;

/**
 * After a data change, an answer younger than this is served as it is: at most one re-evaluation
 * per 15 s per framework and period. With a run finishing every second, each evaluation ending
 * started the next one, and back-to-back evaluations of 90,000 runs took more CPU than the event
 * loop had; answers then aged past the bound above and callers queued. At 5 s, each evaluation
 * (~0.2 s of CPU, ~10 MB that outlives young collections) still set off a full collection of the
 * server's heap every ~10 s under bench:api, each stalling requests 100-160 ms (issue 17).
 */
export const COMPLIANCE_MIN_REFRESH_MS = 15_000;

/**
 * How long after its last request an answer is kept fresh in the background (re-evaluated, within
 * the bounds above, when the data changed): otherwise the first request after a quiet spell of more
 * than 10 s, while runs keep finishing, waits for a whole evaluation, and so does every request
 * arriving during it (at 200 req/s, a 0.3 s evaluation is 60 requests).
 */
export const COMPLIANCE_KEEP_WARM_MS = 10 * 60_000;

export class ComplianceService {
  private readonly frameworks = new AsyncReadModelMemo<ComplianceResponse>(
    COMPLIANCE_MEMO_TTL_MS,
    64,
    COMPLIANCE_MAX_STALE_MS,
    COMPLIANCE_MIN_REFRESH_MS,
  );
  private readonly overviews = new AsyncReadModelMemo<ComplianceOverview>(
    COMPLIANCE_MEMO_TTL_MS,
    64,
    COMPLIANCE_MAX_STALE_MS,
    COMPLIANCE_MIN_REFRESH_MS,
  );
  private readonly tails = new TailProblemMemo();
  /** Answers kept fresh in the background: key → when last requested and how to refresh it. */
  private readonly warm = new Map<string, { requestedAtMs: number; refresh: () => unknown }>();
  private warmTimer: NodeJS.Timeout | undefined;
  /** The scope fingerprint of the tests at a cache version (status writes change the version often). */
  private scope = { cacheVersion: '', fingerprint: '' };

  constructor(
    private readonly cache: ApiCache,
    private readonly now: () => Date,
    /** Absent: signatures are not checked (the domain says so in its detail). */
    private readonly verify?: EvidenceVerifier,
    /** Backed-up namespaces without a passing test (coverage), named as a gap; undefined = unknown. */
    private readonly untested: () => readonly string[] | undefined = () => undefined,
    /** Chains that disagree with an evidence anchor written before (issue 33), by "namespace/name". */
    private readonly anchorProblems: () => ReadonlyArray<{ test: string; problems: readonly string[] }> = () => [],
  ) {}

  private coverageGap(): { untestedBackedUp?: readonly string[] } {
    const untested = this.untested();
    return untested ? { untestedBackedUp: untested } : {};
  }

  /**
   * Evidence exceptions in every framework: tests whose newest reports were deleted (their
   * status.evidenceAnchor says so), and tests whose chain disagrees with an anchor in write-once
   * storage (rewritten, cut or deleted after it was anchored).
   */
  missingTails(tests: readonly RestoreTest[] = this.cache.listTests()): MissingTail[] {
    const found: MissingTail[] = this.tails.problems(this.cache, tests);
    const disagreeing = this.anchorProblems();
    if (disagreeing.length === 0) return found;
    const byKey = new Map(tests.map((test) => [`${test.metadata.namespace}/${test.metadata.name}`, test]));
    for (const { test: key, problems } of disagreeing) {
      const test = byKey.get(key);
      if (!test) continue;
      const sourceNamespaces = (test.spec.backupSource?.namespaces ?? []).map((source) => source.name);
      for (const problem of problems) found.push({ test: key, sourceNamespaces, problem: `${key}: ${problem}`, kind: 'anchor' });
    }
    return found;
  }

  /**
   * The JSON answer, evaluated cooperatively (in slices between other requests: 0.3-0.9 s of CPU at
   * 90,000 runs would otherwise stall every request behind it) and memoised.
   */
  async framework(framework: FrameworkId, periodDays: number): Promise<ComplianceResponse> {
    requireSynced(this.cache);
    this.keepWarm(`framework/${framework}/${periodDays}`, () => this.frameworkAnswer(framework, periodDays));
    return this.frameworkAnswer(framework, periodDays);
  }

  private frameworkAnswer(
    framework: FrameworkId,
    periodDays: number,
  ): ComplianceResponse | Promise<ComplianceResponse> {
    const now = this.now();
    return this.frameworks.get(`${framework}/${periodDays}`, this.dataVersion(), now.getTime(), async () => {
      const tests = this.cache.listTests();
      const evaluation = await runSteps(
        evaluateComplianceSteps({
          framework,
          periodDays,
          now,
          tests,
          reports: this.cache.reportIndex,
          ...(this.verify ? { verify: this.verify } : {}),
          ...this.coverageGap(),
          missingTails: this.missingTails(tests),
        }),
      );
      return evaluation.response;
    });
  }

  /** The response and the detail the PDF is built from, evaluated at `now`. */
  evaluate(
    framework: FrameworkId,
    periodDays: number,
    now: Date,
    missingTails: readonly MissingTail[] = this.missingTails(),
  ): ComplianceEvaluation {
    requireSynced(this.cache);
    return evaluateCompliance({
      framework,
      periodDays,
      now,
      tests: this.cache.listTests(),
      reports: this.cache.reportIndex,
      ...(this.verify ? { verify: this.verify } : {}),
      ...this.coverageGap(),
      missingTails,
    });
  }

  /** The dashboard's overview, evaluated cooperatively like framework(). */
  async overview(periodDays: number): Promise<ComplianceOverview> {
    requireSynced(this.cache);
    this.keepWarm(`overview/${periodDays}`, () => this.overviewAnswer(periodDays));
    return this.overviewAnswer(periodDays);
  }

  private overviewAnswer(periodDays: number): ComplianceOverview | Promise<ComplianceOverview> {
    const now = this.now();
    return this.overviews.get(String(periodDays), this.dataVersion(), now.getTime(), () => {
      const tests = this.cache.listTests();
      return runSteps(
        complianceOverviewSteps(
          periodDays,
          now,
          tests,
          this.cache.reportIndex,
          this.verify,
          this.coverageGap().untestedBackedUp,
          this.missingTails(tests),
        ),
      );
    });
  }

  /**
   * Asks for the answer again every half COMPLIANCE_MIN_REFRESH_MS while it was requested within
   * COMPLIANCE_KEEP_WARM_MS: the memo re-evaluates only if the data changed and the answer is old
   * enough, so a warm answer is replaced before it ages past the bound and no caller waits.
   */
  private keepWarm(key: string, refresh: () => unknown): void {
    this.warm.set(key, { requestedAtMs: this.now().getTime(), refresh });
    if (this.warmTimer) return;
    this.warmTimer = setInterval(() => {
      const nowMs = this.now().getTime();
      for (const [warmKey, entry] of this.warm) {
        if (nowMs - entry.requestedAtMs > COMPLIANCE_KEEP_WARM_MS) this.warm.delete(warmKey);
        else if (this.cache.synced) {
          // A failed refresh is not remembered; the next request tries again and sees the error.
          Promise.resolve()
            .then(entry.refresh)
            .catch(() => undefined);
        }
      }
      if (this.warm.size === 0) {
        clearInterval(this.warmTimer);
        this.warmTimer = undefined;
      }
    }, COMPLIANCE_MIN_REFRESH_MS / 2);
    this.warmTimer.unref();
  }

  /** Changes when a report is added, replaced or removed, or a test's scope changes (not its status). */
  private dataVersion(): string {
    // Sorting 1,000 tests' scopes per request cost ~1 ms each: computed once per cache version.
    if (this.scope.cacheVersion !== this.cache.version) {
      const tests: readonly RestoreTest[] = this.cache.listTests();
      this.scope = { cacheVersion: this.cache.version, fingerprint: testScopeFingerprint(tests) };
    }
    const anchors = this.anchorProblems().map(({ test, problems }) => `${test}:${problems.length}`).join(',');
    return `${this.cache.reportIndex.version}|${this.scope.fingerprint}|${(this.untested() ?? []).join(',')}|${anchors}`;
  }
}
