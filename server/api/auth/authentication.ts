// tsoa's authentication hook (tsoa.json "authenticationModule"), called for every operation
// marked @Security('kubernetes'). It delegates to the app's RequestAuthorizer, which knows the
// mode (none | kubernetes) and each operation's RBAC declaration (x-rehearsal-rbac).
import type { Request } from 'express';
import { apiContextOf } from '../context.js';
import type { ApiUser } from './authorizer.js';
import { frontProxyUserOf } from './front-proxy.js';

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
  return authorizer.authorize({
    ...(frontProxyUser ? { frontProxyUser } : {}),
    method: request.method,
    routePath: typeof routePath === 'string' ? routePath : undefined,
    authorization: request.headers.authorization,
    query: request.query as Record<string, unknown>,
    params: request.params as Record<string, unknown>,
    body: request.body as unknown,
  });
}
