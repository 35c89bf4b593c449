// tsoa's authentication hook (tsoa.json "authenticationModule"), called for every operation
// marked @Security('kubernetes'). It delegates to the app's RequestAuthorizer, which knows the
// mode (none | kubernetes) and each operation's RBAC declaration (x-rehearsal-rbac).
import type { Request } from 'express';
import { apiContextOf } from '../context.js';
import type { ApiUser } from './authorizer.js';
import { frontProxyUserOf } from './front-proxy.js';
import { rememberNamespaceScope } from './namespace-scope.js';
import { rememberRequestNamespace, resolveRequestNamespace } from './request-namespace.js';

export const SECURITY_SCHEME = 'kubernetes';

export async function expressAuthentication(
  request: Request,
  securityName: string,
  _scopes?: string[],
): Promise<ApiUser> {
  if (securityName !== SECURITY_SCHEME) throw new Error(`unknown security scheme ${securityName}`);
  const { authorizer } = apiContextOf(request);
  const routePath: unknown = request.route?.path;
  const frontProxyUser = frontProxyUserOf(request);
  const path = typeof routePath === 'string' ? routePath : undefined;
  const query = request.query as Record<string, unknown>;
  // Resolved once here; the permission check below and the handler both use this value.
  const namespace = resolveRequestNamespace(
    { method: request.method, routePath: path, query, body: request.body as unknown },
    authorizer.serverNamespace,
  );
  rememberRequestNamespace(request, namespace);
  const { user, scope } = await authorizer.authorizeRequest({
    ...(frontProxyUser ? { frontProxyUser } : {}),
    method: request.method,
    routePath: path,
    authorization: request.headers.authorization,
    namespace,
    query,
    params: request.params as Record<string, unknown>,
  });
  // The namespaces a list may show (issue 30), read by the list controllers.
  rememberNamespaceScope(request, scope);
  return user;
}
