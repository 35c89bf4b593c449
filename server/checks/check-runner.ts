// Runs a run's health checks and returns one CheckResult per check, in the order given.
//
// - Each check gets its own timeout (its `timeout`, else the default "30s"; at most 10m; parsed by
//   domain/common/duration.ts, so whole h/m/s as everywhere in the API). When it
//   elapses the check's AbortSignal fires; the executor gets a short grace period to stop its I/O
//   and report in its own words (e.g. tcpSocket: "no connection within ..."), after which the
//   runner reports `error` "timed out after ...".
// - A check never throws: anything thrown becomes `error` with the thrown reason.
// - Checks run with small concurrency (default 2, at most 8): probes are cheap, but a run with
//   many checks should not take the sum of their timeouts, and a sandbox should not be hammered.
// - CheckResult.duration is the measured time in seconds with one decimal ("1.2s"; see duration.ts).
// - Namespaces: a check names a *source* namespace (`resourceExists.sourceNamespace`, else the
//   check's `sourceNamespace`, else the run's first source); the runner maps it to that source's
//   sandbox. Checks only ever see sandbox namespaces.

import type { CheckKind, CheckResult } from '../domain/resources/resources.js';
import { CHECK_KINDS } from '../domain/resources/resources.js';
import type { CheckContext, CheckExecutor, CheckOutcome, NamespaceMapping, RunnableCheck } from './check.js';
import { abortableSleep, describeError, error, truncate } from './check.js';
import { runServiceEndpointsCheck } from './default-checks.js';
import { describeDuration, formatCheckDuration, parseDuration } from '../domain/common/duration.js';
import { runExecCheck } from './exec.check.js';
import { runFileCheck } from './file.check.js';
import { runHttpGetCheck } from './http-get.check.js';
import { runPodsReadyCheck } from './pods-ready.check.js';
import { runResourceExistsCheck } from './resource-exists.check.js';
import type { SandboxReader } from './sandbox-reader.js';
import { runSqlQueryCheck } from './sql-query.check.js';
import { runTcpSocketCheck } from './tcp-socket.check.js';
import type { TargetResolver } from './target-resolver.js';

export const DEFAULT_CHECK_TIMEOUT = '30s';
export const MAX_CHECK_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_CONCURRENCY = 2;
const MAX_CONCURRENCY = 8;
const MAX_MESSAGE_LENGTH = 500;
/** How long an aborted executor may take to report on its own before the runner reports for it. */
export const TIMEOUT_GRACE_MS = 500;
/**
 * How long a check whose target refused the connection is tried again (every REFUSED_RETRY_MS,
 * within its timeout): a restored Service refuses for a moment after its pod turns Ready, until
 * kube-proxy programs the new endpoint (seen on the real node under load). A refusal that lasts
 * longer is the check's result.
 */
export const REFUSED_SETTLE_MS = 10_000;
export const REFUSED_RETRY_MS = 1_000;

export type ExecutorKey = CheckKind | 'serviceEndpoints';

export const EXECUTORS: Readonly<Record<ExecutorKey, CheckExecutor>> = {
  podsReady: runPodsReadyCheck,
  httpGet: runHttpGetCheck,
  tcpSocket: runTcpSocketCheck,
  sqlQuery: runSqlQueryCheck,
  resourceExists: runResourceExistsCheck,
  exec: runExecCheck,
  file: runFileCheck,
  serviceEndpoints: runServiceEndpointsCheck,
};

export interface RunChecksOptions {
  reader: SandboxReader;
  targets: TargetResolver;
  /** The run's source → sandbox namespaces, in the order of the test's source namespaces. */
  namespaces: readonly NamespaceMapping[];
  /** Timeout for checks without one (duration string); default "30s". */
  defaultTimeout?: string;
  /** How many checks may run at once; default 2, clamped to 1-8. */
  concurrency?: number;
  /** Cancels the whole run: running checks are aborted, unstarted ones report `error`. */
  signal?: AbortSignal;
  /** Monotonic clock in milliseconds, for durations; default performance.now. */
  clock?: () => number;
  /** The image of the file checks' pods (config REHEARSAL_FILE_CHECK_IMAGE). */
  fileCheckImage?: string;
  /** Replaces executors by kind; a test seam, production uses the built-in ones. */
  executors?: Partial<Record<ExecutorKey, CheckExecutor>>;
}

function resolveNamespace(
  check: RunnableCheck,
  namespaces: readonly NamespaceMapping[],
): NamespaceMapping | CheckOutcome {
  const wanted =
    (check.kind === 'resourceExists' ? check.resourceExists?.sourceNamespace : undefined) ??
    check.sourceNamespace;
  if (namespaces.length === 0) return error('the run has no sandbox namespaces to check');
  if (wanted === undefined || wanted === '') return namespaces[0] as NamespaceMapping;
  const mapping = namespaces.find((candidate) => candidate.source === wanted);
  if (mapping) return mapping;
  return error(
    `sourceNamespace "${wanted}" is not restored by this run (sources: ${namespaces.map((n) => n.source).join(', ')})`,
  );
}

function resolveTimeout(check: RunnableCheck, defaultTimeout: string): number | CheckOutcome {
  const text = check.timeout ?? defaultTimeout;
  const seconds = parseDuration(text);
  if (seconds === null || seconds <= 0)
    return error(`timeout "${text}" is not a positive duration like 30s or 1m30s`);
  const milliseconds = seconds * 1000;
  if (milliseconds > MAX_CHECK_TIMEOUT_MS)
    return error(`timeout "${text}" exceeds the maximum of ${describeDuration(MAX_CHECK_TIMEOUT_MS)}`);
  return milliseconds;
}

function isOutcomeValue(value: unknown): value is CheckOutcome {
  return typeof value === 'object' && value !== null && 'status' in value;
}

function pickExecutor(
  check: RunnableCheck,
  overrides: RunChecksOptions['executors'],
): CheckExecutor | CheckOutcome {
  const key: ExecutorKey | undefined =
    check.serviceEndpoints !== undefined
      ? 'serviceEndpoints'
      : CHECK_KINDS.includes(check.kind)
        ? check.kind
        : undefined;
  if (key === undefined)
    return error(`unknown check kind "${String(check.kind)}" (known: ${CHECK_KINDS.join(', ')})`);
  return overrides?.[key] ?? EXECUTORS[key];
}

async function executeWithTimeout(
  executor: CheckExecutor,
  check: RunnableCheck,
  base: Omit<CheckContext, 'signal'>,
  runSignal: AbortSignal | undefined,
): Promise<CheckOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), base.timeoutMs);
  const onRunAbort = (): void => controller.abort();
  runSignal?.addEventListener('abort', onRunAbort, { once: true });
  let graceTimer: NodeJS.Timeout | undefined;
  let startGrace: (() => void) | undefined;
  const context: CheckContext = { ...base, signal: controller.signal };

  // The deadline listens before the executor starts: an abort during its synchronous start
  // (run cancelled) must still end the check.
  const deadline = new Promise<CheckOutcome>((resolve) => {
    startGrace = (): void => {
      graceTimer = setTimeout(() => {
        resolve(
          runSignal?.aborted
            ? error('cancelled: the run was stopped')
            : error(`timed out after ${describeDuration(base.timeoutMs)}`),
        );
      }, TIMEOUT_GRACE_MS);
    };
    if (controller.signal.aborted) startGrace();
    else controller.signal.addEventListener('abort', startGrace, { once: true });
  });
  const execution = (async (): Promise<CheckOutcome> => {
    try {
      const started = Date.now();
      for (;;) {
        const outcome = await executor(check, context);
        if (!isOutcomeValue(outcome)) return error('the check returned no result');
        const settling = outcome.refused === true && Date.now() - started + REFUSED_RETRY_MS <= REFUSED_SETTLE_MS;
        if (!settling || !(await abortableSleep(REFUSED_RETRY_MS, controller.signal))) {
          const { refused: _refused, ...result } = outcome;
          return result;
        }
      }
    } catch (thrown) {
      return error(`the check failed unexpectedly: ${describeError(thrown)}`);
    }
  })();
  try {
    return await Promise.race([execution, deadline]);
  } finally {
    clearTimeout(timer);
    if (startGrace) controller.signal.removeEventListener('abort', startGrace);
    if (graceTimer) clearTimeout(graceTimer);
    runSignal?.removeEventListener('abort', onRunAbort);
    // Stop whatever the executor still does (it returned, or lost the race).
    controller.abort();
  }
}

/** Runs one check; never throws. */
export async function runCheck(check: RunnableCheck, options: RunChecksOptions): Promise<CheckResult> {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const outcome = await (async (): Promise<CheckOutcome> => {
    try {
      if (options.signal?.aborted) return error('not run: the run was stopped');
      const mapping = resolveNamespace(check, options.namespaces);
      if (isOutcomeValue(mapping)) return mapping;
      const timeoutMs = resolveTimeout(check, options.defaultTimeout ?? DEFAULT_CHECK_TIMEOUT);
      if (isOutcomeValue(timeoutMs)) return timeoutMs;
      const executor = pickExecutor(check, options.executors);
      if (isOutcomeValue(executor)) return executor;
      return await executeWithTimeout(
        executor,
        check,
        {
          reader: options.reader,
          targets: options.targets,
          namespace: mapping.sandbox,
          sourceNamespace: mapping.source,
          timeoutMs,
          ...(options.fileCheckImage ? { fileCheckImage: options.fileCheckImage } : {}),
        },
        options.signal,
      );
    } catch (thrown) {
      return error(`the check failed unexpectedly: ${describeError(thrown)}`);
    }
  })();
  return {
    name: check.name,
    kind: check.kind,
    status: outcome.status,
    message: truncate(outcome.message, MAX_MESSAGE_LENGTH),
    duration: formatCheckDuration(clock() - started),
    ...(outcome.status === 'pass' && outcome.newestData ? { newestData: outcome.newestData } : {}),
  };
}

/** Runs every check (with small concurrency) and returns their results in the given order. */
export async function runChecks(
  checks: readonly RunnableCheck[],
  options: RunChecksOptions,
): Promise<CheckResult[]> {
  const requested = options.concurrency ?? DEFAULT_CONCURRENCY;
  const concurrency = Math.min(
    MAX_CONCURRENCY,
    Math.max(1, Number.isInteger(requested) ? requested : DEFAULT_CONCURRENCY),
  );
  const results: CheckResult[] = new Array<CheckResult>(checks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < checks.length) {
      const index = next++;
      results[index] = await runCheck(checks[index] as RunnableCheck, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, checks.length) }, worker));
  return results;
}
