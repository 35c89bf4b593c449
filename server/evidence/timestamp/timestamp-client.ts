// Asks an RFC 3161 timestamp authority to time-stamp some data (groundwork for issue 33's anchors:
// not yet called by the engine). The authority's URL and CA certificate are configuration, never
// taken from a request; its answer is untrusted, so the exchange is bounded (time, body size) and
// the token is fully verified (protocol/evidence/timestamp/) before it is returned for storage.
import type { X509Certificate } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { buildTimestampRequest } from '../../../protocol/evidence/timestamp/timestamp-request.js';
import { readTimestampResponse } from '../../../protocol/evidence/timestamp/timestamp-response.js';
import { verifyTokenForImprint, type VerifiedTimestamp } from '../../../protocol/evidence/timestamp/timestamp-token.js';
import { TimestampError } from '../../../protocol/evidence/timestamp/timestamp-error.js';

export interface TimestampAuthority {
  /** http(s) URL of the authority (configuration). */
  url: URL;
  /** The CA certificate(s) the authority's signing certificate must chain to. */
  trusted: readonly X509Certificate[];
  /** A policy OID to ask for; the authority's default otherwise. */
  policy?: string;
  /** The whole exchange, connect to last byte. */
  timeoutMs?: number;
  /** The largest answer read; a token with its certificates is a few KB. */
  maxResponseBytes?: number;
  /** For tests and proxies; undici's global dispatcher otherwise. */
  dispatcher?: Dispatcher;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/** Time-stamps SHA-256(data) and returns the verified token. Throws TimestampError naming what failed. */
export async function requestTimestamp(data: Buffer, authority: TimestampAuthority): Promise<VerifiedTimestamp> {
  if (authority.url.protocol !== 'http:' && authority.url.protocol !== 'https:') {
    throw new TimestampError('transport', `timestamp authority URL ${authority.url.href} is not http(s)`);
  }
  const timestampRequest = buildTimestampRequest(data, authority.policy);
  const maxBytes = authority.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const answer = await post(authority, timestampRequest.der, maxBytes);
  const granted = readTimestampResponse(answer, { maxBytes, maxDepth: 24, maxNodes: 8192 });
  return verifyTokenForImprint(granted.token, timestampRequest.imprint, authority.trusted, { nonce: timestampRequest.nonce });
}

async function post(authority: TimestampAuthority, body: Buffer, maxBytes: number): Promise<Buffer> {
  const timeoutMs = authority.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const where = authority.url.origin;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await request(authority.url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(authority.dispatcher ? { dispatcher: authority.dispatcher } : {}),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new TimestampError('transport', `timestamp authority ${where} answered HTTP ${response.statusCode}`);
    }
    const contentType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/timestamp-reply') {
      await response.body.dump();
      throw new TimestampError('transport', `timestamp authority ${where} answered content type '${contentType}', not application/timestamp-reply`);
    }
    const declared = Number(response.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      await response.body.dump();
      throw new TimestampError('transport', `timestamp authority ${where} answered ${declared} bytes, more than the limit of ${maxBytes}`);
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of response.body) {
      received += (chunk as Buffer).length;
      if (received > maxBytes) {
        controller.abort();
        throw new TimestampError('transport', `timestamp authority ${where} answered more than the limit of ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch (error) {
    if (error instanceof TimestampError) throw error;
    const reason = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message;
    throw new TimestampError('transport', `timestamp authority ${where}: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}
