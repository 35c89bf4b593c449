// The checks' one mapping of a Kubernetes client failure to a SandboxReadError, classified by
// server/kube/errors.ts (HTTP status code, never message text); no HTTP answer is 'Unavailable'.
import { toKubeError, type KubeErrorKind } from '../kube/errors.js';
import { SandboxReadError, type SandboxReadFailure } from './sandbox-reader.js';

const FAILURE_BY_KIND: Record<KubeErrorKind, SandboxReadFailure> = {
  NotFound: 'NotFound',
  AlreadyExists: 'Conflict',
  Conflict: 'Conflict',
  Invalid: 'Invalid',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  Gone: 'Gone',
  Unavailable: 'Unavailable',
  Other: 'Other',
};

/** Any failure from the client as a SandboxReadError, classified by server/kube/errors.ts. */
export function toSandboxReadError(thrown: unknown, action: string): SandboxReadError {
  if (thrown instanceof SandboxReadError) return thrown;
  const kubeError = toKubeError(thrown);
  return new SandboxReadError(
    FAILURE_BY_KIND[kubeError.kind],
    `${action}: ${kubeError.message}`,
    kubeError.status > 0 ? kubeError.status : undefined,
  );
}
