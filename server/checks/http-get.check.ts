// httpGet: GET scheme://<target>/path answers with the expected status (default 200) and, when
// bodyMatch is set, a body matching that regular expression.
//
// - The target comes from the TargetResolver (Service DNS name in a cluster, loopback in tests).
// - Redirects are not followed: a 301 is the answer, and it fails an expectedStatus of 200.
// - https: the certificate is not verified. The restored app's certificate names its production
//   host, never the sandbox Service name, so verification would fail every restore; the check
//   proves the restored app serves, not who it is. (The contract has no TLS options yet.)
// - bodyMatch is RE2 syntax matched in linear time (domain/test-spec/body-pattern.ts), never a backtracking
//   RegExp: a user-supplied pattern must not be able to freeze the leader's event loop.
// - At most 256 KiB of the body are read for bodyMatch: enough for health pages, and it bounds the
//   (synchronous, linear) matching work: a few hundred ms for the costliest 1 KiB pattern.
// - No answer at all (refused, DNS, TLS, timeout) is `error`: the assertion about the status could
//   not be evaluated. A wrong status or body is `fail`. Bodies are never copied into messages.

import { Client } from 'undici';
import type { CheckExecutor } from './check.js';
import { describeError, error, fail, isConnectionRefused, isOutcome, pass, requireBlock, timedOut } from './check.js';
import { formatHostPort, type ResolvedTarget } from './target-resolver.js';
import { compileBodyPattern, type BodyPattern } from '../domain/test-spec/body-pattern.js';

const MAX_BODY_BYTES = 256 * 1024;

function explainConnectError(thrown: unknown): string {
  const code = (thrown as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name not resolved (${code})`;
    case 'ECONNRESET':
      return 'connection reset by the server (ECONNRESET)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timed out (UND_ERR_CONNECT_TIMEOUT)';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'no response headers in time (UND_ERR_HEADERS_TIMEOUT)';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'response body stalled (UND_ERR_BODY_TIMEOUT)';
    case 'UND_ERR_SOCKET':
      return 'the server closed the connection (UND_ERR_SOCKET)';
    default:
      return describeError(thrown);
  }
}

async function readBodyPrefix(
  body: AsyncIterable<Buffer | Uint8Array | string>,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    chunks.push(buffer);
    size += buffer.length;
    if (size >= MAX_BODY_BYTES) {
      // Leaving the loop early destroys the stream; the client is destroyed right after anyway.
      return { text: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8'), truncated: true };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

export const runHttpGetCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'httpGet');
  if (isOutcome(spec)) return spec;
  const scheme = spec.scheme ?? 'http';
  if (scheme !== 'http' && scheme !== 'https')
    return error(`scheme must be http or https, got "${String(scheme)}"`);
  const path = spec.path ?? '/';
  if (!path.startsWith('/')) return error(`path must start with "/", got "${path}"`);
  const expectedStatus = spec.expectedStatus ?? 200;
  if (!Number.isInteger(expectedStatus) || expectedStatus < 100 || expectedStatus > 599) {
    return error(`expectedStatus must be an HTTP status code (100-599), got ${String(expectedStatus)}`);
  }
  let bodyPattern: BodyPattern | undefined;
  if (spec.bodyMatch !== undefined) {
    const compiled = compileBodyPattern(spec.bodyMatch);
    if (!compiled.ok) return error(`bodyMatch ${compiled.problem}`);
    bodyPattern = compiled.pattern;
  }

  let target: ResolvedTarget;
  try {
    target = context.targets.resolve({
      namespace: context.namespace,
      service: spec.service,
      port: spec.port,
    });
  } catch (thrown) {
    return error(`cannot resolve the probe target: ${describeError(thrown)}`);
  }
  const origin = `${scheme}://${formatHostPort(target)}`;
  const request = `GET ${origin}${path}`;

  const client = new Client(origin, {
    connect: { timeout: context.timeoutMs, rejectUnauthorized: false },
    headersTimeout: context.timeoutMs,
    bodyTimeout: context.timeoutMs,
  });
  try {
    const response = await client.request({
      method: 'GET',
      path,
      signal: context.signal,
      headers: { 'user-agent': 'rehearsal-health-check', accept: '*/*' },
    });
    if (response.statusCode !== expectedStatus) {
      await response.body.dump().catch(() => undefined);
      const location = response.headers.location;
      const redirect =
        response.statusCode >= 300 && response.statusCode < 400 && location
          ? ` (redirect to ${String(location)}, not followed)`
          : '';
      return fail(`${request} returned ${response.statusCode}, expected ${expectedStatus}${redirect}`);
    }
    if (!bodyPattern) {
      await response.body.dump().catch(() => undefined);
      return pass(`${request} returned ${response.statusCode}`);
    }
    const body = await readBodyPrefix(response.body);
    const scope = body.truncated
      ? `the first ${MAX_BODY_BYTES} bytes of the body`
      : `the body (${Buffer.byteLength(body.text)} bytes)`;
    if (bodyPattern.test(body.text)) {
      return pass(`${request} returned ${response.statusCode} and ${scope} matched /${spec.bodyMatch}/`);
    }
    return fail(`${request} returned ${response.statusCode} but ${scope} did not match /${spec.bodyMatch}/`);
  } catch (thrown) {
    if (context.signal.aborted) return error(`${request}: ${timedOut(context, 'no complete response')}`);
    const outcome = error(`${request} failed: ${explainConnectError(thrown)}`);
    return isConnectionRefused(thrown) ? { ...outcome, refused: true } : outcome;
  } finally {
    await client.destroy().catch(() => undefined);
  }
};
