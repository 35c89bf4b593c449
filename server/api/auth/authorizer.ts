// Per-request authentication and authorization (decision 0008, REHEARSAL_AUTH_MODE):
// - none: every request on port 8080 is allowed as "system:anonymous" (local development, demos,
//   tests). It never relaxes the aggregation port (issue 26): there kube-apiserver names the caller,
//   so their reviews run in every mode, and without a reviewer the port refuses (503);
// - kubernetes: "Authorization: Bearer <token>" → TokenReview (who) → one SubjectAccessReview per
//   permission the operation declares (may they). Through the aggregation layer kube-apiserver has
//   already authenticated the caller (front-proxy.ts): no TokenReview, the same reviews. Answers are cached briefly, keyed by a SHA-256
//   of the token (the token itself is never stored), so a dashboard polling several endpoints
//   costs the apiserver a few reviews per TTL, not a few per request.
// 401 = no or rejected token; 403 = a permission is missing, named in the problem.
// Lists (scope readable) are the exception (issue 30): without a named namespace they answer with
// the namespaces the caller may read (readable-namespaces.ts) instead of a 403.
import { createHash } from 'node:crypto';
import { ProblemError, describePermission, type PermissionDescriptor } from '../problem.js';
import type { AccessDecision, AccessReviewer, ReviewedUser } from './access-review.js';
import { ALL_NAMESPACES, singleNamespace, type NamespaceScope } from './namespace-scope.js';
import { appliesTo, namesNamespace, permissionFor, type PermissionTable, type RbacRule, type RequestFacts, type ScopeDefaults } from './permissions.js';
import { ReadableNamespaces, type ReadableNamespacesOptions } from './readable-namespaces.js';
import { TtlCache } from './ttl-cache.js';

export type AuthMode = 'none' | 'kubernetes';

export interface ApiUser {
  username: string;
  groups: string[];
  /** What TokenReview or the front proxy said besides the name, for SubjectAccessReviews on the caller's behalf. */
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The caller of every request on port 8080 in auth mode none: nobody was reviewed. */
export const ANONYMOUS_USER: Readonly<ApiUser> = Object.freeze({ username: 'system:anonymous', groups: [] });

/**
 * The caller whose further permissions (restore rights, reading restored data) a service must
 * review, or undefined for auth mode none on port 8080, where nobody is reviewed.
 */
export function reviewedCaller(user: ApiUser | undefined): ApiUser | undefined {
  return user === ANONYMOUS_USER ? undefined : user;
}

export interface AuthRequest extends RequestFacts {
  method: string;
  /** The matched route's path as Express knows it, e.g. /api/v1/tests/:name. */
  routePath: string | undefined;
  authorization: string | undefined;
  /** The user kube-apiserver vouched for (aggregation listener, front-proxy certificate checked). */
  frontProxyUser?: ReviewedUser;
}

export interface AuthorizerOptions {
  mode: AuthMode;
  /** Required in kubernetes mode. */
  reviewer?: AccessReviewer;
  permissions: PermissionTable;
  defaults: ScopeDefaults;
  /** How long an accepted token's identity is reused (default 30 s). */
  tokenTtlMs?: number;
  /** How long an allowed permission is reused (default 30 s). */
  allowedTtlMs?: number;
  /** How long a rejection (token or permission) is reused; short, so a fresh grant works soon (default 5 s). */
  deniedTtlMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
  /**
   * How lists without a named namespace find the namespaces a caller may read (issue 30). Without
   * candidates, a caller who may not list cluster-wide gets an empty list.
   */
  readable?: Omit<ReadableNamespacesOptions, 'now'>;
}

/** An authorized request: its caller, and the namespaces a list answer may show. */
export interface AuthorizedRequest {
  user: ApiUser;
  /** Every namespace for operations that are not readable lists (their rules were checked whole). */
  scope: NamespaceScope;
}

const REALM = 'Bearer realm="rehearsal"';

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class RequestAuthorizer {
  private readonly users: TtlCache<ReviewedUser | null>;
  private readonly decisions: TtlCache<AccessDecision>;
  private readonly tokenTtlMs: number;
  private readonly allowedTtlMs: number;
  private readonly deniedTtlMs: number;
  private readonly readable: ReadableNamespaces;

  constructor(private readonly options: AuthorizerOptions) {
    if (options.mode === 'kubernetes' && !options.reviewer) {
      throw new Error('authentication mode "kubernetes" needs an access reviewer');
    }
    const maxEntries = options.maxCacheEntries ?? 10_000;
    this.users = new TtlCache(maxEntries, options.now);
    this.decisions = new TtlCache(maxEntries, options.now);
    this.tokenTtlMs = options.tokenTtlMs ?? 30_000;
    this.allowedTtlMs = options.allowedTtlMs ?? 30_000;
    this.deniedTtlMs = options.deniedTtlMs ?? 5_000;
    this.readable = new ReadableNamespaces({
      candidates: () => [],
      ...options.readable,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  get mode(): AuthMode {
    return this.options.mode;
  }

  /** The namespace a request without `namespace` acts in. */
  get serverNamespace(): string {
    return this.options.defaults.namespace;
  }

  /** The caller, or a ProblemError (401, 403; 503 when the apiserver cannot answer). */
  async authorize(request: AuthRequest): Promise<ApiUser> {
    return (await this.authorizeRequest(request)).user;
  }

  /** The caller and the namespaces a list may show, or a ProblemError as authorize(). */
  async authorizeRequest(request: AuthRequest): Promise<AuthorizedRequest> {
    if (this.options.mode === 'none' && !request.frontProxyUser) {
      // Nobody is reviewed; a list that names its namespace still shows that one alone.
      const operation = request.routePath ? this.options.permissions.lookup(request.method, request.routePath) : undefined;
      const isReadableList = operation?.rules.some((rule) => rule.scope === 'readable') ?? false;
      return { user: ANONYMOUS_USER, scope: isReadableList && namesNamespace(request) ? singleNamespace(request.namespace) : ALL_NAMESPACES };
    }
    const reviewer = this.options.reviewer;
    if (!reviewer) {
      throw new ProblemError('kubernetes-unavailable', 'This server has no Kubernetes client to review the caller\'s permissions.');
    }

    const operation = request.routePath
      ? this.options.permissions.lookup(request.method, request.routePath)
      : undefined;
    if (!operation || operation.rules.length === 0) {
      // A secured route without a declaration is a bug: refuse rather than guess.
      throw new Error(
        `no RBAC declaration for ${request.method} ${request.routePath ?? '(unknown route)'}; refusing`,
      );
    }

    const { user, cacheKey } = request.frontProxyUser
      ? { user: request.frontProxyUser, cacheKey: `user:${sha256(JSON.stringify(request.frontProxyUser))}` }
      : await this.tokenUser(reviewer, request.authorization);

    const review = (permission: PermissionDescriptor): Promise<AccessDecision> =>
      this.decisions.getOrLoad(
        `${cacheKey}\n${JSON.stringify(permission)}`,
        () => reviewer.reviewAccess(user, permission),
        (decision) => (decision.allowed ? this.allowedTtlMs : this.deniedTtlMs),
      );
    // A readable list without a named namespace is resolved to namespaces below, never refused.
    const resolvesNamespaces = (rule: RbacRule): boolean => rule.scope === 'readable' && !namesNamespace(request);
    const rules = operation.rules.filter((rule) => appliesTo(rule, this.options.defaults));
    const permissions = rules
      .filter((rule) => !resolvesNamespaces(rule))
      .map((rule) => permissionFor(rule, request, this.options.defaults));
    const answers = await Promise.all(permissions.map(review));
    const missing: PermissionDescriptor[] = permissions.filter(
      (_permission, index) => !answers[index]!.allowed,
    );
    if (missing.length > 0) {
      throw new ProblemError(
        'forbidden',
        `User "${user.username}" cannot ${missing.map(describePermission).join(', nor ')}.`,
        { missingPermissions: missing },
      );
    }
    const listPermissions = rules
      .filter(resolvesNamespaces)
      .map((rule) => permissionFor(rule, request, this.options.defaults));
    let scope: NamespaceScope = ALL_NAMESPACES;
    if (listPermissions.length > 0) scope = await this.readable.resolve(cacheKey, listPermissions, review);
    else if (rules.some((rule) => rule.scope === 'readable')) scope = singleNamespace(request.namespace);
    return {
      user: {
        username: user.username,
        groups: user.groups,
        ...(user.uid ? { uid: user.uid } : {}),
        ...(user.extra ? { extra: user.extra } : {}),
      },
      scope,
    };
  }

  private async tokenUser(reviewer: AccessReviewer, authorization: string | undefined): Promise<{ user: ReviewedUser; cacheKey: string }> {
    const token = bearerToken(authorization);
    if (!token) {
      throw new ProblemError(
        'unauthenticated',
        'Send a Kubernetes bearer token: "Authorization: Bearer <token>" (for example from `kubectl create token`).',
        { headers: { 'WWW-Authenticate': REALM } },
      );
    }
    const tokenHash = sha256(token);
    const user = await this.users.getOrLoad(
      tokenHash,
      () => reviewer.reviewToken(token),
      (reviewed) => (reviewed ? this.tokenTtlMs : this.deniedTtlMs),
    );
    if (!user) {
      throw new ProblemError('unauthenticated', 'The Kubernetes API did not accept the bearer token.', {
        headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token"` },
      });
    }
    return { user, cacheKey: tokenHash };
  }

  clearCaches(): void {
    this.users.clear();
    this.decisions.clear();
    this.readable.clear();
  }
}
