// Which namespaces one list answer may show (issue 30, decision 0009 "Lists a tenant may read").
// A list operation is authorized for a set of namespaces, not yes or no: the namespace the request
// names, or else every namespace (the caller may list cluster-wide), or else the namespaces holding
// Rehearsal objects where the caller may list them. The set is resolved once by the authentication
// hook (readable-namespaces.ts) and remembered for the request, like its one namespace
// (request-namespace.ts); services filter the informer caches by it, and the controller tells the
// client what was left out in response headers.
import type { Request, Response } from 'express';

export type NamespaceScope =
  | { readonly kind: 'all' }
  | {
      readonly kind: 'some';
      /** The namespaces the answer may show. */
      readonly namespaces: ReadonlySet<string>;
      /** Namespaces holding Rehearsal objects that the answer leaves out, sorted. */
      readonly omitted: readonly string[];
      /**
       * Whether the caller may learn the omitted namespaces' names: only who may `list namespaces`
       * cluster-wide (they could read them anyway). Others are told how many, never which.
       */
      readonly omittedNamesVisible: boolean;
    };

export const ALL_NAMESPACES: NamespaceScope = Object.freeze({ kind: 'all' });

/** The scope of a request that names its one namespace: that namespace, nothing left out. */
export function singleNamespace(namespace: string): NamespaceScope {
  return { kind: 'some', namespaces: new Set([namespace]), omitted: [], omittedNamesVisible: false };
}

export function inScope(scope: NamespaceScope, namespace: string | undefined): boolean {
  return scope.kind === 'all' || (namespace !== undefined && scope.namespaces.has(namespace));
}

/** The namespace of an object key "namespace/name". */
export function namespaceOfKey(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/**
 * What distinguishes this scope's answers in a cache key: '' for every namespace, else the sorted
 * namespaces shown. The omitted ones are not in the body, so answers that differ only there share it.
 */
export function scopeKey(scope: NamespaceScope): string {
  return scope.kind === 'all' ? '' : `|ns=${[...scope.namespaces].sort().join(',')}`;
}

/** Response headers: how many namespaces the answer left out, and (to who may list namespaces) which. */
export const OMITTED_NAMESPACES_HEADER = 'Rehearsal-Omitted-Namespaces';
export const OMITTED_NAMESPACE_NAMES_HEADER = 'Rehearsal-Omitted-Namespace-Names';

export function setOmittedNamespaceHeaders(response: Response, scope: NamespaceScope): void {
  if (scope.kind === 'all' || scope.omitted.length === 0) return;
  response.setHeader(OMITTED_NAMESPACES_HEADER, String(scope.omitted.length));
  if (scope.omittedNamesVisible) response.setHeader(OMITTED_NAMESPACE_NAMES_HEADER, scope.omitted.join(', '));
}

const scopes = new WeakMap<Request, NamespaceScope>();

export function rememberNamespaceScope(request: Request, scope: NamespaceScope): void {
  scopes.set(request, scope);
}

/**
 * The namespaces this request's answer may show. A list route whose scope was never resolved is a
 * bug: fail closed (500) rather than answer for every namespace.
 */
export function namespaceScopeOf(request: Request): NamespaceScope {
  const scope = scopes.get(request);
  if (!scope) throw new Error('no namespace scope was resolved for this request');
  return scope;
}

/**
 * For a list controller: the scope of its answer, with the omitted-namespace headers already set.
 * The `namespace` query parameter is declared for the OpenAPI document; it is where the scope came
 * from, never a second opinion (fail closed if they disagree).
 */
export function listScopeOf(request: Request, namespace: string | undefined): NamespaceScope {
  const scope = namespaceScopeOf(request);
  if (namespace && !(scope.kind === 'some' && scope.namespaces.size === 1 && scope.namespaces.has(namespace))) {
    throw new Error('the query namespace differs from the resolved scope');
  }
  setOmittedNamespaceHeaders(request.res!, scope);
  return scope;
}
