// One namespace per request (decision 0009): the namespace a request acts in is resolved once, by
// the authentication hook, and the permission check and the handler both read that one value.
// It comes from the query (`namespace`), else the server's namespace; only for POST
// /api/v1/tests, whose body names the object it creates, may the body's `namespace` supply it when
// the query does not. A body namespace that disagrees with the resolved one is never a second
// opinion: the body check (TestsService.checkBody) answers 400 for it, listing it with every other
// offending field, and nothing reads the body's namespace after this.
import type { Request } from 'express';

const resolved = new WeakMap<Request, string>();

export interface NamespaceFacts {
  method: string;
  routePath: string | undefined;
  query: Record<string, unknown>;
  body: unknown;
}

/** The only operation whose body may supply the namespace (it names the object it creates). */
const BODY_MAY_SUPPLY_NAMESPACE = 'POST /api/v1/tests';

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function bodyNamespace(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>).namespace
    : undefined;
}

/** The request's namespace: query, else (create only) body, else the server's. */
export function resolveRequestNamespace(facts: NamespaceFacts, serverNamespace: string): string {
  const route = `${facts.method.toUpperCase()} ${facts.routePath ?? ''}`;
  const fromBody = route === BODY_MAY_SUPPLY_NAMESPACE ? nonEmptyString(bodyNamespace(facts.body)) : undefined;
  return nonEmptyString(facts.query.namespace) ?? fromBody ?? serverNamespace;
}

export function rememberRequestNamespace(request: Request, namespace: string): void {
  resolved.set(request, namespace);
}

/** The namespace resolved for this request; throws (500, fail closed) if none was resolved. */
export function requestNamespaceOf(request: Request): string {
  const namespace = resolved.get(request);
  if (namespace === undefined) throw new Error('no namespace was resolved for this request');
  return namespace;
}
