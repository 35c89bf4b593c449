// The dashboard's only way to the API: the client generated from openapi/openapi.json. Where the
// page was loaded from decides the base: at /apis/api.rehearsal.dev/v1/dashboard/ (kubectl proxy,
// `kubectl restoretest dashboard`) requests go through the aggregated API with the caller's own
// identity; anywhere else to the same origin, with a bearer token the user typed when the server
// asks for one (REHEARSAL_AUTH_MODE=kubernetes). The token lives in sessionStorage, never in a URL.
import { createRehearsalClient, isProblemDetails, type ProblemDetails } from '../../openapi/client.js';
import { noteOmitted } from './omitted.js';
import { permissionText, problemHeadline } from './problem-text.js';

export type { components } from '../../openapi/client.js';

const AGGREGATED = '/apis/api.rehearsal.dev/v1';
const TOKEN_KEY = 'rehearsal-token';

/** The aggregated prefix when the page is served through kube-apiserver, else ''. */
export function aggregatedPrefix(pathname = location.pathname): string {
  const at = pathname.indexOf(`${AGGREGATED}/dashboard`);
  return at >= 0 ? pathname.slice(0, at) + AGGREGATED : '';
}

/** The aggregated path of an API path (localPathOf in server/api/aggregation.ts, reversed). */
export function aggregatedPath(path: string): string {
  if (path === '/api/compliance') return '/compliance/overview';
  if (path.startsWith('/api/v1/')) return path.slice('/api/v1'.length);
  if (path.startsWith('/api/')) return path.slice('/api'.length);
  return path;
}

export const viaAggregation = aggregatedPrefix() !== '';

export function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function rewriteForAggregation(request: Request): Request {
  const url = new URL(request.url);
  url.pathname = aggregatedPrefix() + aggregatedPath(url.pathname);
  return new Request(url, request);
}

export const api = createRehearsalClient({
  baseUrl: location.origin,
  token: () => (viaAggregation ? undefined : storedToken()),
  fetch: async (request) => {
    const response = await globalThis.fetch(viaAggregation ? rewriteForAggregation(request) : request);
    noteOmitted(response);
    return response;
  },
});

/** A URL for a download link (PDFs), through the same route the client takes. */
export function downloadUrl(path: string, query: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return `${viaAggregation ? aggregatedPrefix() + aggregatedPath(path) : path}?${search}`;
}

/** Listeners told when the server answers 401 (the app shows the token prompt). */
const unauthenticated = new Set<() => void>();
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticated.add(listener);
  return () => unauthenticated.delete(listener);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemDetails | undefined,
  ) {
    super(problem?.detail ?? `HTTP ${status}`);
  }
}

/** Unwraps an openapi-fetch answer: the data, or an ApiError carrying the RFC 9457 problem. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  return fail(result);
}

/** For answers without a body (204): throws the ApiError of a failed one. */
export function expectOk(result: { error?: unknown; response: Response }): void {
  if (!result.response.ok) fail(result);
}

function fail(result: { error?: unknown; response: Response }): never {
  const problem = isProblemDetails(result.error) ? result.error : undefined;
  if (result.response.status === 401) for (const listener of unauthenticated) listener();
  throw new ApiError(result.response.status, problem);
}

/** A headline and an explanation a person can act on, for any error. */
export function describeError(error: unknown): {
  headline: string;
  detail: string;
  problem?: ProblemDetails;
} {
  if (error instanceof ApiError) {
    const headline = problemHeadline(error.status, error.problem);
    let detail = error.problem?.detail ?? `The server answered HTTP ${error.status}.`;
    const missing = error.problem?.missingPermissions ?? [];
    if (error.status === 403 && missing.length > 0) detail += ` Missing: ${missing.map(permissionText).join(', ')}.`;
    return { headline, detail, ...(error.problem ? { problem: error.problem } : {}) };
  }
  return { headline: 'Cannot reach the API', detail: error instanceof Error ? error.message : String(error) };
}
