// Words for the API's RFC 9457 problems (decision 0008): a headline per problem type or status, and
// a permission as kubectl would name it. Pure, so test/unit/web can check them without a browser.

export interface PermissionLike {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
}

/** "list deployments.apps in shop", "get restoretests.rehearsal.dev/status", "list services in shop". */
export function permissionText(permission: PermissionLike): string {
  const resource = permission.group ? `${permission.resource}.${permission.group}` : permission.resource;
  return `${permission.verb} ${resource}${permission.subresource ? `/${permission.subresource}` : ''}${permission.namespace ? ` in ${permission.namespace}` : ''}`;
}

// A status shared by problems that need different actions gets a headline per problem type: a 503
// because Velero is missing is not fixed by waiting for the caches.
const TYPE_HEADLINES: Record<string, string> = {
  'backup-tool-unavailable': 'The backup tool is not available',
};

const STATUS_HEADLINES: Record<number, string> = {
  400: 'The request was not accepted',
  401: 'Sign-in needed',
  402: 'Not included in your license',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  503: 'The server is not ready',
};

/** The headline of an error answer: by problem type (its URI's last segment), else by status. */
export function problemHeadline(status: number, problem?: { type?: string; title?: string }): string {
  const slug = problem?.type?.split('/').pop() ?? '';
  return TYPE_HEADLINES[slug] ?? STATUS_HEADLINES[status] ?? problem?.title ?? `Error ${status}`;
}
