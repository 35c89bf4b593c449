// The namespaces a caller may list, for list answers without a `namespace` (issue 30): what
// `kubectl get -A` users expect. Everything when the caller may list cluster-wide; otherwise each
// namespace that holds Rehearsal objects (known from the informer caches: a namespace without any
// has nothing to show) is asked about with SubjectAccessReviews for the operation's list
// permissions, and the answer shows those where every one is allowed.
//
// Cost is bounded three ways: only namespaces holding Rehearsal objects are candidates; at most
// `maxReviewed` of them are reviewed for one resolution (the rest are left out and reported, the
// caller can still name one with `namespace`); and a resolved scope is reused per caller for
// `scopeTtlMs` while the candidates stay the same, so a polling dashboard costs a tenant's
// reviews once per TTL, not once per request. At most `concurrency` reviews run at a time.
import { createHash } from 'node:crypto';
import type { PermissionDescriptor } from '../problem.js';
import type { AccessDecision } from './access-review.js';
import { ALL_NAMESPACES, type NamespaceScope } from './namespace-scope.js';
import { TtlCache } from './ttl-cache.js';

/** Reviews one permission for the caller being resolved (through the authorizer's decision cache). */
export type ReviewPermission = (permission: PermissionDescriptor) => Promise<AccessDecision>;

export interface ReadableNamespacesOptions {
  /** Namespaces that hold RestoreTests or RestoreReports, from the informer caches. */
  candidates: () => Iterable<string>;
  /** Most namespaces reviewed for one resolution (default 250). */
  maxReviewed?: number;
  /** Reviews in flight at once for one resolution (default 10). */
  concurrency?: number;
  /** How long a resolved scope is reused for the same caller and candidates (default 15 s). */
  scopeTtlMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
}

export const DEFAULT_MAX_REVIEWED_NAMESPACES = 250;

/** `list namespaces` cluster-wide: who holds it may learn the names of omitted namespaces. */
export const LIST_NAMESPACES: PermissionDescriptor = { verb: 'list', group: '', resource: 'namespaces' };

function sorted(namespaces: Iterable<string>): string[] {
  return [...new Set(namespaces)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Runs `task` for each item, at most `limit` at a time; resolves to the results in item order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const position = next++;
      results[position] = await task(items[position]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export class ReadableNamespaces {
  private readonly scopes: TtlCache<NamespaceScope>;
  private readonly maxReviewed: number;
  private readonly concurrency: number;
  private readonly scopeTtlMs: number;

  constructor(private readonly options: ReadableNamespacesOptions) {
    this.scopes = new TtlCache(options.maxCacheEntries ?? 1_000, options.now);
    this.maxReviewed = options.maxReviewed ?? DEFAULT_MAX_REVIEWED_NAMESPACES;
    this.concurrency = options.concurrency ?? 10;
    this.scopeTtlMs = options.scopeTtlMs ?? 15_000;
  }

  /**
   * The namespaces `caller` may read with `permissions` (cluster-wide descriptors, no namespace).
   * @param callerKey identifies the caller (a hash of the token or of the vouched-for user).
   */
  async resolve(
    callerKey: string,
    permissions: readonly PermissionDescriptor[],
    review: ReviewPermission,
  ): Promise<NamespaceScope> {
    const clusterWide = await Promise.all(permissions.map((permission) => review(permission)));
    if (clusterWide.every((decision) => decision.allowed)) return ALL_NAMESPACES;
    const candidates = sorted(this.options.candidates());
    const key = [
      callerKey,
      JSON.stringify(permissions),
      createHash('sha256').update(candidates.join('\n')).digest('hex'),
    ].join('\n');
    return this.scopes.getOrLoad(key, () => this.review(candidates, permissions, review), () => this.scopeTtlMs);
  }

  private async review(
    candidates: readonly string[],
    permissions: readonly PermissionDescriptor[],
    review: ReviewPermission,
  ): Promise<NamespaceScope> {
    const reviewed = candidates.slice(0, this.maxReviewed);
    const readable = await mapLimited(reviewed, this.concurrency, async (namespace) => {
      for (const permission of permissions) {
        // One denial settles the namespace: no need to ask the others.
        if (!(await review({ ...permission, namespace })).allowed) return false;
      }
      return true;
    });
    const namespaces = new Set(reviewed.filter((_namespace, position) => readable[position]));
    const omitted = candidates.filter((namespace) => !namespaces.has(namespace));
    const omittedNamesVisible = omitted.length > 0 && (await review(LIST_NAMESPACES)).allowed;
    return { kind: 'some', namespaces, omitted, omittedNamesVisible };
  }

  clear(): void {
    this.scopes.clear();
  }
}
