// The one boundary where Kubernetes API failures become typed errors. Decided by HTTP status
// code (and the Status reason for 409/422), never by message text.

export type KubeErrorKind =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Gone'
  | 'Unavailable'
  | 'Other';

export class KubeError extends Error {
  constructor(
    readonly kind: KubeErrorKind,
    readonly status: number,
    message: string,
    readonly causes: { field?: string; message?: string }[] = [],
  ) {
    super(message);
    this.name = 'KubeError';
  }
}

interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

function statusBody(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return {};
    }
  }
  return (body ?? {}) as StatusBody;
}

export function toKubeError(error: unknown): KubeError {
  if (error instanceof KubeError) return error;
  const candidate = error as { code?: unknown; body?: unknown; message?: string } | undefined;
  // Only an HTTP status counts (ApiException.code); DOMException codes (e.g. 23, TimeoutError) do not.
  const status = typeof candidate?.code === 'number' && candidate.code >= 100 && candidate.code < 600 ? candidate.code : 0;
  if (status === 0) {
    return new KubeError('Unavailable', 0, `Kubernetes API unreachable: ${candidate?.message ?? String(error)}`);
  }
  const body = statusBody(candidate?.body);
  const message = body.message ?? `Kubernetes API answered ${status}`;
  const causes = body.details?.causes ?? [];
  switch (status) {
    case 404:
      return new KubeError('NotFound', status, message);
    case 409:
      return new KubeError(body.reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict', status, message);
    case 422:
      return new KubeError('Invalid', status, message, causes);
    case 400:
      return new KubeError('Invalid', status, message, causes);
    case 403:
      return new KubeError('Forbidden', status, message);
    case 401:
      return new KubeError('Unauthorized', status, message);
    case 410:
      return new KubeError('Gone', status, message);
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return new KubeError('Unavailable', status, message);
    default:
      return new KubeError('Other', status, message);
  }
}

/** Awaits a Kubernetes call and rethrows its failure as a KubeError. */
export async function kubeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toKubeError(error);
  }
}

export function isKind(error: unknown, ...kinds: KubeErrorKind[]): boolean {
  return error instanceof KubeError && kinds.includes(error.kind);
}
