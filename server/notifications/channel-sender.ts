// One HTTP attempt of one notification on one channel. Slack gets its message blocks, a webhook
// the RunNotification signed with HMAC-SHA256, a CloudEvents sink the event in structured mode.
// Every attempt has a deadline, so a receiver that never answers costs one timeout, not a stuck job.
// Every attempt goes only where the egress guard allows (egress-guard.ts), and what is recorded of
// it is an outcome class (http-5xx, timeout, refused-address, ...): the record is on the report,
// which every viewer of the test's namespace reads.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AttemptOutcome } from '../domain/notifications/deliveries.js';
import { outcomeOfStatus } from '../domain/notifications/deliveries.js';
import { cloudEvent, slackMessage, type RunNotification } from '../domain/notifications/run-notification.js';
import type { NotificationChannelType } from '../domain/resources/resources.js';
import { PRODUCT_VERSION } from '../product-version.js';
import { EgressRefusedError, type EgressGuard, type ResolvedAddress } from './egress-guard.js';

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

function requestOf(target: ChannelTarget, notification: RunNotification, now: Date): { body: string; headers: Record<string, string> } {
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

export interface SendOptions {
  timeoutMs: number;
  now: Date;
  /** Where a notification may go (egress-guard.ts). */
  guard: Pick<EgressGuard, 'addressesOf'>;
}

/**
 * POSTs the notification to exactly the address the guard checked: the guard's answer is the
 * socket's DNS answer (`lookup`), while TLS still verifies the certificate against the URL's host
 * name. The response's status is all that is read: the body is never read (the socket is closed
 * as soon as the status line and headers are in), and redirects are not followed (a 3xx is an
 * answer, rejected).
 */
function post(
  url: URL,
  address: ResolvedAddress,
  request: { body: string; headers: Record<string, string> },
  signal: AbortSignal,
): Promise<number> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup,
        signal,
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        response.destroy();
        outgoing.destroy();
        resolve(status);
      },
    );
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

/** A failed request as an outcome class: never the error's text (no port scanner's oracle). */
function failureClass(error: unknown): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO') return 'tls-failed';
  return 'connect-failed';
}

export async function sendToChannel(
  target: ChannelTarget,
  notification: RunNotification,
  options: SendOptions,
): Promise<AttemptOutcome> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return { kind: 'rejected', detail: 'bad-url' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'rejected', detail: 'bad-url' };
  let addresses: ResolvedAddress[];
  try {
    addresses = await options.guard.addressesOf(url.hostname);
  } catch (error) {
    if (error instanceof EgressRefusedError) {
      // A refused address does not change between attempts; a name that does not resolve may.
      return { kind: error.outcome === 'dns-failed' ? 'retryable' : 'rejected', detail: error.outcome };
    }
    throw error;
  }
  const request = requestOf(target, notification, options.now);
  try {
    const status = await post(url, addresses[0]!, request, AbortSignal.timeout(options.timeoutMs));
    return outcomeOfStatus(status);
  } catch (error) {
    return { kind: 'retryable', detail: failureClass(error) };
  }
}
