// What every check executor receives and returns, plus small helpers for clear messages.
//
// Status meanings (the same for every kind):
//   pass  — the check's assertion was evaluated and holds.
//   fail  — the assertion was evaluated and does not hold: the restored app answered wrongly,
//           too few pods are Ready, a resource is missing, the exit code differs, a TCP port
//           refuses connections (for tcpSocket, connecting IS the assertion).
//   error — the assertion could not be evaluated: bad configuration, the Kubernetes API refused a
//           read, credentials were rejected, no HTTP/SQL answer at all (refused, timeout, DNS).
//   skip  — nothing to assert (used by default checks, e.g. a sandbox without Services).
// Executors may throw; the runner turns anything thrown into `error`, so a check never throws to
// its caller.

import type { CheckStatus, HealthCheck } from '../domain/resources/resources.js';
import type { SandboxReader } from './sandbox-reader.js';
import { SandboxReadError } from './sandbox-reader.js';
import type { TargetResolver } from './target-resolver.js';
import { describeDuration } from '../domain/common/duration.js';
import { parseDataTimestamp } from '../domain/run/rpo.js';
import { truncateText } from '../../protocol/text.js';

export interface NamespaceMapping {
  source: string;
  sandbox: string;
}

/**
 * A check as the runner executes it: a configured HealthCheck, or one of the default checks
 * (`origin: 'default'`), which may carry the `serviceEndpoints` block that has no CheckKind of
 * its own in the contract and is therefore reported as kind podsReady.
 */
export interface RunnableCheck extends HealthCheck {
  origin?: 'configured' | 'default';
  /** Default check: every Service in the sandbox has at least one ready endpoint. */
  serviceEndpoints?: Record<string, never>;
}

export interface CheckContext {
  reader: SandboxReader;
  targets: TargetResolver;
  /** The sandbox namespace this check targets (resolved from its source namespace). */
  namespace: string;
  /** The source namespace that sandbox was restored from (for messages). */
  sourceNamespace: string;
  timeoutMs: number;
  /** Aborted when the check's timeout elapses or the run is cancelled; executors stop I/O then. */
  signal: AbortSignal;
  /** The image of the file checks' pods (REHEARSAL_FILE_CHECK_IMAGE); default file-check-pod.ts's. */
  fileCheckImage?: string;
}

export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  /** A passing freshness check's finding: the newest data in the restored copy (RFC 3339). */
  newestData?: string;
  /**
   * The target refused the connection. A just-restored Service can do that for a few seconds
   * after its pod is Ready (kube-proxy has not yet programmed the new endpoint), so the runner
   * tries such a check again for a short while (check-runner.ts, REFUSED_SETTLE_MS).
   */
  refused?: boolean;
}

/** Waits `ms`; false when `signal` aborts first (the check's deadline or the run's stop). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether a connect error is a refused connection (its code, or its cause's). */
export function isConnectionRefused(thrown: unknown): boolean {
  const value = thrown as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return value?.code === 'ECONNREFUSED' || value?.cause?.code === 'ECONNREFUSED';
}

export type CheckExecutor = (check: RunnableCheck, context: CheckContext) => Promise<CheckOutcome>;

export const pass = (message: string): CheckOutcome => ({ status: 'pass', message });

/**
 * A freshness check (issue 27) that otherwise passed: its value must be a time (domain/run/rpo.ts),
 * which becomes the check's newestData; anything else fails it, saying what was expected (the value
 * itself is restored data and stays out of the message).
 */
export function freshnessOutcome(passedMessage: string, value: string): CheckOutcome {
  const at = parseDataTimestamp(value);
  if (!at) return fail(`${passedMessage}, but its value (${Buffer.byteLength(value.trim())} bytes) is not a timestamp or Unix time: no RPO measured`);
  return { status: 'pass', message: `${passedMessage}; newest data ${at.toISOString()}`, newestData: at.toISOString() };
}
export const fail = (message: string): CheckOutcome => ({ status: 'fail', message });
export const error = (message: string): CheckOutcome => ({ status: 'error', message });
export const skip = (message: string): CheckOutcome => ({ status: 'skip', message });

/** The kind-specific block of a check, or an `error` outcome naming the missing block. */
export function requireBlock<
  K extends 'podsReady' | 'httpGet' | 'tcpSocket' | 'sqlQuery' | 'resourceExists' | 'exec' | 'file',
>(check: HealthCheck, key: K): NonNullable<HealthCheck[K]> | CheckOutcome {
  const block = check[key];
  if (block === undefined || block === null)
    return error(`check of kind ${check.kind} has no "${key}" block`);
  return block as NonNullable<HealthCheck[K]>;
}

export function isOutcome(value: unknown): value is CheckOutcome {
  return typeof value === 'object' && value !== null && 'status' in value && 'message' in value;
}

/** A short, human-readable reason for a thrown value (error code first when there is one). */
export function describeError(thrown: unknown): string {
  if (thrown instanceof SandboxReadError) {
    return thrown.statusCode === undefined
      ? `${thrown.reason}: ${thrown.message}`
      : `${thrown.reason} (HTTP ${thrown.statusCode}): ${thrown.message}`;
  }
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    const text = thrown.message || thrown.name;
    return typeof code === 'string' && code !== '' && !text.includes(code) ? `${text} (${code})` : text;
  }
  return String(thrown);
}

/** Removes every occurrence of the given secret strings from a message. */
export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let result = message;
  for (const secret of secrets) {
    if (secret && secret.length > 0) result = result.split(secret).join('***');
  }
  return result;
}

/** The message for work cut short by the check's timeout. */
export function timedOut(context: Pick<CheckContext, 'timeoutMs'>, what: string): string {
  return `${what} within the ${describeDuration(context.timeoutMs)} timeout`;
}

/** Ends with "…" when longer than max code points; keeps reports small (and signable). */
export function truncate(text: string, max = 300): string {
  return truncateText(text, max);
}
