// A typed client for the Rehearsal API, for the kubectl plugin (cmd/) and the server's tests.
// Types come from openapi/generated/rehearsal-api.d.ts (generated from openapi/openapi.json), so a
// call that does not match the contract fails to compile. Errors are RFC 9457 problems.
//
//   import { createRehearsalClient } from '../../openapi/client.js';
//   const api = createRehearsalClient({ baseUrl: 'http://localhost:8080', token: () => readToken() });
//   const { data, error, response } = await api.POST('/api/v1/tests/{name}/trigger', {
//     params: { path: { name: 'payments' }, query: { namespace: 'rehearsal-system' } },
//   });
//   if (error) console.error(`error: ${error.detail}`); // error is ProblemDetails
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/rehearsal-api.js';

export type { components, operations, paths } from './generated/rehearsal-api.js';

export type ProblemDetails = components['schemas']['ProblemDetails'];
export type TestResponse = components['schemas']['TestResponse'];
export type CreateTestInput = components['schemas']['CreateTestInput'];
export type RestoreReportResource = components['schemas']['RestoreReportResource'];
export type RehearsalApiClient = Client<paths>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface RehearsalClientOptions {
  /** e.g. http://localhost:8080 (kubectl port-forward svc/rehearsal-api 8080 -n rehearsal-system). */
  baseUrl: string;
  /**
   * Bearer token for REHEARSAL_AUTH_MODE=kubernetes. A function is called for every request, so
   * rotating tokens (exec credential plugins, projected service account tokens) stay fresh.
   */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** Replaces globalThis.fetch (tests, proxies). */
  fetch?: (input: Request) => Promise<Response>;
  headers?: Record<string, string>;
}

export function createRehearsalClient(options: RehearsalClientOptions): RehearsalApiClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const token = options.token;
  if (token !== undefined) {
    const bearer: Middleware = {
      async onRequest({ request }) {
        const value = typeof token === 'function' ? await token() : token;
        if (value) request.headers.set('Authorization', `Bearer ${value}`);
        return request;
      },
    };
    client.use(bearer);
  }
  return client;
}

/** Whether a value is an RFC 9457 problem body as the API sends it. */
export function isProblemDetails(value: unknown): value is ProblemDetails {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.type === 'string' &&
    typeof candidate.title === 'string' &&
    typeof candidate.status === 'number' &&
    typeof candidate.detail === 'string'
  );
}
