// One HTTP attempt of one notification on one channel. Slack gets its message blocks, a webhook
// the RunNotification signed with HMAC-SHA256, a CloudEvents sink the event in structured mode.
// Every attempt has a deadline, so a receiver that never answers costs one timeout, not a stuck job.
import { createHmac } from 'node:crypto';
import type { AttemptOutcome } from '../domain/notifications/deliveries.js';
import { outcomeOfStatus } from '../domain/notifications/deliveries.js';
import { cloudEvent, slackMessage, type RunNotification } from '../domain/notifications/run-notification.js';
import type { NotificationChannelType } from '../domain/resources/resources.js';
import { PRODUCT_VERSION } from '../product-version.js';

export const SIGNATURE_HEADER = 'x-rehearsal-signature';

export interface ChannelTarget {
  type: NotificationChannelType;
  url: string;
  /** webhook channels: the HMAC-SHA256 key. */
  signingKey?: string;
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`: the timestamp is signed too, so a
 * receiver can refuse replays older than it tolerates (the scheme Stripe and others use).
 */
export function signatureHeader(body: string, key: string, now: Date): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  const mac = createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

function request(target: ChannelTarget, notification: RunNotification, now: Date): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'user-agent': `rehearsal/${PRODUCT_VERSION}` };
  if (target.type === 'slack') {
    return { body: JSON.stringify(slackMessage(notification)), headers: { ...headers, 'content-type': 'application/json' } };
  }
  if (target.type === 'cloudevents') {
    return {
      body: JSON.stringify(cloudEvent(notification)),
      headers: { ...headers, 'content-type': 'application/cloudevents+json; charset=utf-8' },
    };
  }
  const body = JSON.stringify(notification);
  if (!target.signingKey) throw new Error('a webhook channel needs its signing key');
  return {
    body,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'x-rehearsal-event': notification.type,
      'x-rehearsal-delivery': notification.id,
      [SIGNATURE_HEADER]: signatureHeader(body, target.signingKey, now),
    },
  };
}

export async function sendToChannel(
  target: ChannelTarget,
  notification: RunNotification,
  options: { timeoutMs: number; now: Date },
): Promise<AttemptOutcome> {
  const { body, headers } = request(target, notification, options.now);
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    // Drain the body so the connection can be reused; its content does not matter.
    await response.arrayBuffer().catch(() => undefined);
    return outcomeOfStatus(response.status);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return { kind: 'retryable', detail: `no answer within ${Math.round(options.timeoutMs / 1000)}s` };
    }
    // Connection refused, DNS, TLS: the message names the cause, never a secret (the URL is not in it).
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { kind: 'retryable', detail: `request failed${cause ? ` (${cause})` : ''}` };
  }
}
