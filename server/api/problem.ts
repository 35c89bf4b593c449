// RFC 9457 problem details: the body of every 4xx/5xx answer (decision 0008). A problem type is a
// stable identifier a client can branch on; the catalogue below is the complete list, and the
// OpenAPI document describes the body as ProblemDetails on every operation.

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const PROBLEM_TYPE_BASE = 'https://rehearsal.dev/problems/';

/** One offending input (a body field such as sourceNamespaces[1], or a query parameter). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A Kubernetes RBAC permission, as a SubjectAccessReview asks it. */
export interface PermissionDescriptor {
  verb: string;
  /** API group; "" is the core group. */
  group: string;
  resource: string;
  subresource?: string;
  /** Absent for a cluster-wide permission. */
  namespace?: string;
  name?: string;
}

/**
 * An error response (RFC 9457, application/problem+json).
 * @example {
 *   "type": "https://rehearsal.dev/problems/invalid-request",
 *   "title": "Invalid request",
 *   "status": 400,
 *   "detail": "2 fields are invalid",
 *   "instance": "/api/v1/tests",
 *   "errors": [
 *     { "field": "cron", "message": "is required" },
 *     { "field": "sourceNamespaces", "message": "is required" }
 *   ]
 * }
 */
export interface ProblemDetails {
  /** URI identifying the problem type (https://rehearsal.dev/problems/<slug>). */
  type: string;
  /** Short summary of the problem type; the same for every occurrence. */
  title: string;
  /**
   * The HTTP status code.
   * @isInt
   */
  status: number;
  /** What went wrong in this occurrence, for a human. */
  detail: string;
  /** The request path this problem occurred on. */
  instance: string;
  /** Every offending field (validation problems only). */
  errors?: FieldProblem[];
  /** The RBAC permissions the caller lacks (forbidden only). */
  missingPermissions?: PermissionDescriptor[];
}

export const PROBLEM_TYPES = {
  'invalid-request': { status: 400, title: 'Invalid request' },
  'malformed-body': { status: 400, title: 'Malformed request body' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  'license-required': { status: 402, title: 'License required' },
  forbidden: { status: 403, title: 'Permission denied' },
  'not-found': { status: 404, title: 'Not found' },
  'no-such-route': { status: 404, title: 'No such route' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'already-exists': { status: 409, title: 'Already exists' },
  conflict: { status: 409, title: 'Conflict' },
  'run-in-progress': { status: 409, title: 'A run is already in progress' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'backup-tool-unavailable': { status: 503, title: 'Backup tool unavailable' },
  'kubernetes-unavailable': { status: 503, title: 'Kubernetes API unavailable' },
  'not-ready': { status: 503, title: 'Not ready' },
  'signing-key-unavailable': { status: 503, title: 'Evidence signing key unavailable' },
  'pdf-busy': { status: 503, title: 'Too many PDFs being rendered' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

/** Thrown anywhere in the API; the error handler writes it out unchanged. */
export class ProblemError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly extras: {
      errors?: FieldProblem[];
      missingPermissions?: PermissionDescriptor[];
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.status = PROBLEM_TYPES[slug].status;
    this.title = PROBLEM_TYPES[slug].title;
  }

  toProblem(instance: string): ProblemDetails {
    const problem: ProblemDetails = {
      type: PROBLEM_TYPE_BASE + this.slug,
      title: this.title,
      status: this.status,
      detail: this.detail,
      instance,
    };
    if (this.extras.errors && this.extras.errors.length > 0) problem.errors = this.extras.errors;
    if (this.extras.missingPermissions && this.extras.missingPermissions.length > 0) {
      problem.missingPermissions = this.extras.missingPermissions;
    }
    return problem;
  }
}

/** A 400 listing every offending field; the detail counts them so a log line says enough. */
export function invalidRequest(errors: FieldProblem[], detail?: string): ProblemError {
  const summary =
    detail ??
    (errors.length === 1
      ? `${errors[0]!.field} ${errors[0]!.message}`
      : `${errors.length} fields are invalid: ${errors.map((error) => error.field).join(', ')}`);
  return new ProblemError('invalid-request', summary, { errors });
}

/** "restoretests.rehearsal.dev in namespace x" — how kubectl names a permission. */
export function describePermission(permission: PermissionDescriptor): string {
  const resource = permission.subresource
    ? `${permission.resource}/${permission.subresource}`
    : permission.resource;
  const qualified = permission.group ? `${resource}.${permission.group}` : resource;
  const named = permission.name ? ` "${permission.name}"` : '';
  const where = permission.namespace ? ` in namespace "${permission.namespace}"` : ' cluster-wide';
  return `${permission.verb} ${qualified}${named}${where}`;
}
