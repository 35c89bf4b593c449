// Delivery records of a run's notifications, kept in one annotation on its RestoreReport, and the
// decision what to do next with each delivery. Why the report and not the RestoreTest's status:
// the report is written once and never changes afterwards (its spec is immutable and signed, the
// annotation is outside the signed content), it is owned by the test and garbage-collected with
// it, and one report is one run, so "at most once per run and event" is a per-object fact. The
// test's status, by contrast, is rewritten by the engine on every step; a second writer there
// would fight the engine for every update. The annotation is written with the report's
// resourceVersion as a precondition, so two replicas (or an old and a new leader) cannot both
// claim a delivery: one of them gets a Conflict.
//
// A delivery goes: (none) → sending → delivered | retrying → sending → … | failed. A delivery
// found in `sending` by a process that did not start it was interrupted mid-request (a crash or a
// leader change): the receiver may or may not have it, and sending it again could make two, so it
// becomes `abandoned` (at most once). Receivers that want at-least-once dedupe on the stable id.

export const ANNOTATION_NOTIFICATIONS = 'rehearsal.dev/notifications';

export type DeliveryState = 'sending' | 'retrying' | 'delivered' | 'failed' | 'abandoned';

export interface DeliveryRecord {
  state: DeliveryState;
  attempts: number;
  /** When the state was recorded (RFC 3339). */
  at: string;
  /** retrying: when the next attempt is due. */
  nextAt?: string;
  /**
   * The last attempt's outcome class, e.g. "http-5xx", "timeout", "refused-address": never an
   * address, a status text or an error message (the report is readable by every viewer).
   */
  detail?: string;
}

export type DeliveryRecords = Record<string, DeliveryRecord>;

export interface RetryPolicy {
  maxAttempts: number;
  /** Delay before the second attempt; doubles for each further one. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, backoffBaseMs: 2_000, backoffMaxMs: 60_000 };

const STATES = new Set<DeliveryState>(['sending', 'retrying', 'delivered', 'failed', 'abandoned']);

/** The records in an annotation value; anything unreadable counts as no record. */
export function parseDeliveryRecords(text: string | undefined): DeliveryRecords {
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const records: DeliveryRecords = {};
    for (const [key, value] of Object.entries(parsed as Record<string, Partial<DeliveryRecord>>)) {
      if (value && STATES.has(value.state as DeliveryState) && typeof value.attempts === 'number' && typeof value.at === 'string') {
        records[key] = value as DeliveryRecord;
      }
    }
    return records;
  } catch {
    return {};
  }
}

export function isFinal(record: DeliveryRecord | undefined): boolean {
  return record !== undefined && (record.state === 'delivered' || record.state === 'failed' || record.state === 'abandoned');
}

export type DeliveryStep =
  | { action: 'send'; attempt: number }
  | { action: 'wait'; untilMs: number }
  | { action: 'abandon' }
  | { action: 'done' };

/**
 * What to do with one delivery now. A job settles every `sending` record it writes before it
 * reads the records again, so a `sending` record seen here was left by another process.
 */
export function nextDeliveryStep(record: DeliveryRecord | undefined, nowMs: number): DeliveryStep {
  if (!record) return { action: 'send', attempt: 1 };
  if (isFinal(record)) return { action: 'done' };
  if (record.state === 'sending') return { action: 'abandon' };
  const dueMs = record.nextAt ? Date.parse(record.nextAt) : nowMs;
  if (Number.isFinite(dueMs) && dueMs > nowMs) return { action: 'wait', untilMs: dueMs };
  return { action: 'send', attempt: record.attempts + 1 };
}

export type AttemptOutcome =
  | { kind: 'delivered'; detail: string }
  | { kind: 'retryable'; detail: string }
  | { kind: 'rejected'; detail: string };

/** An HTTP status as an outcome: 2xx delivered; 408, 425, 429 and 5xx worth retrying; else rejected. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  const detail = status >= 100 && status < 600 ? `http-${Math.floor(status / 100)}xx` : 'http-invalid';
  if (status >= 200 && status < 300) return { kind: 'delivered', detail };
  if (status === 408 || status === 425 || status === 429 || status >= 500) return { kind: 'retryable', detail };
  return { kind: 'rejected', detail };
}

/** The record after an attempt. */
export function recordAttempt(
  attempt: number,
  outcome: AttemptOutcome,
  now: Date,
  policy: RetryPolicy,
): DeliveryRecord {
  const at = now.toISOString();
  if (outcome.kind === 'delivered') return { state: 'delivered', attempts: attempt, at, detail: outcome.detail };
  if (outcome.kind === 'rejected' || attempt >= policy.maxAttempts) {
    return { state: 'failed', attempts: attempt, at, detail: outcome.detail };
  }
  const delay = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (attempt - 1));
  return {
    state: 'retrying',
    attempts: attempt,
    at,
    nextAt: new Date(now.getTime() + delay).toISOString(),
    detail: outcome.detail,
  };
}
