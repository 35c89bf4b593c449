// The Kubernetes reads (and the one exec) that health checks need, behind a small port.
//
// Checks depend on this interface only; server/checks/sandbox-reader.kube.ts implements it with
// @kubernetes/client-node, and unit tests use in-memory fakes. The shapes below are our own,
// deliberately small: no Kubernetes client types leak into the checks.
//
// Every method is called with a sandbox namespace only; the check runner resolves source
// namespaces to sandboxes before any read, so a check can never look at (or exec into) a source
// namespace.

/**
 * Why a Kubernetes call failed. The real reader derives it from server/kube/errors.ts (the one
 * boundary that classifies API failures, by HTTP status code); 'Timeout' means our own deadline.
 */
export type SandboxReadFailure =
  | 'NotFound'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Conflict'
  | 'Invalid'
  | 'Gone'
  | 'Unavailable' // 429/5xx, or no HTTP answer at all (connection refused, TLS, DNS)
  | 'Timeout'
  | 'Other';

export class SandboxReadError extends Error {
  override readonly name = 'SandboxReadError';
  constructor(
    readonly reason: SandboxReadFailure,
    message: string,
    /** The HTTP status code, when the API server answered. */
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

export interface PodSummary {
  name: string;
  /** Pod phase: Pending, Running, Succeeded, Failed, Unknown. */
  phase: string;
  /** The Ready condition is True. */
  ready: boolean;
  /** The pod has a deletionTimestamp (terminating). */
  terminating: boolean;
  /** Container names in spec order. */
  containers: string[];
  /** The `kubectl.kubernetes.io/default-container` annotation, when set. */
  defaultContainer?: string;
  /**
   * Held on purpose by the restore transforms (a restored Pod of a Job, scheduling gate
   * rehearsal.dev/job-not-rerun): it exists and never starts, so it is not expected to be Ready.
   */
  held?: boolean;
  /**
   * The PersistentVolumeClaims the Pod mounts, by volume name (absent when it mounts none): which
   * claim a file-system volume restore filled (completeness counts a claim only with its data).
   */
  claims?: Record<string, string>;
}

/** A controller's failure to create Pods (Event reason FailedCreate), e.g. refused by Pod Security. */
export interface PodCreateFailure {
  /** Kind/name of the controller, e.g. ReplicaSet/web-5d8f. */
  object: string;
  message: string;
}

export interface ServiceSummary {
  name: string;
  /** ClusterIP, NodePort, LoadBalancer, ExternalName. */
  type: string;
  /** spec.selector; undefined when the Service has none (endpoints managed by hand). */
  selector?: Record<string, string>;
  ports: { name?: string; port: number; protocol?: string }[];
}

export interface EndpointSliceSummary {
  name: string;
  /** The `kubernetes.io/service-name` label: the Service the slice belongs to. */
  serviceName?: string;
  /** Endpoints whose `conditions.ready` is true (nil counts as ready, as the API documents). */
  readyEndpoints: number;
  totalEndpoints: number;
}

export interface SecretSummary {
  name: string;
  /** Secret data exactly as the API returns it: base64-encoded values. */
  data: Record<string, string>;
}

export type ResourceLookup =
  | { state: 'exists' }
  | { state: 'not-found'; message: string }
  /** The apiVersion/kind is not served by this cluster (no such API group, version or kind). */
  | { state: 'unknown-kind'; message: string }
  | { state: 'error'; reason: SandboxReadFailure; message: string };

export interface ExecOutcome {
  exitCode: number;
  /**
   * The command's standard output, at most EXEC_STDOUT_LIMIT bytes (the rest is dropped; a
   * character cut at the limit is dropped whole, never turned into U+FFFD).
   */
  stdout?: string;
  /** The output was longer than EXEC_STDOUT_LIMIT bytes and was cut. */
  stdoutTruncated?: boolean;
}

/** How much of a command's standard output an exec check keeps (a freshness check reads a timestamp). */
export const EXEC_STDOUT_LIMIT = 4096;

/** The security settings a file check's pod inherits from the restored pod that mounts the claim. */
export interface InheritedSecurity {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  /** The restored pod's fsGroup (the file check pod gets it as a supplemental group, no fsGroup). */
  fsGroup?: number;
  supplementalGroups?: number[];
}

/** A restored pod that mounts a claim (the file check runs beside it, decision 0020). */
export interface ClaimUser {
  pod: string;
  phase: string;
  /** spec.nodeName; absent while the pod is not scheduled. */
  nodeName?: string;
  terminating: boolean;
  /** Pod-level settings, overridden by those of the first container that mounts the claim. */
  security: InheritedSecurity;
}

/**
 * A short-lived pod as the file check builds it: a plain Pod manifest (apiVersion v1, kind Pod)
 * that the real reader sends as is. Kept as data so that the checks stay free of client types.
 */
export interface ProbePodManifest {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

/** How a probe pod ended. */
export interface ProbePodOutcome {
  /** Succeeded or Failed: the pod ran; Stuck: it could not start (image, config, scheduling). */
  phase: 'Succeeded' | 'Failed' | 'Stuck';
  /** The container's exit code, when it terminated. */
  exitCode?: number;
  /** Why it failed or is stuck (DeadlineExceeded, ErrImagePull, CreateContainerConfigError, ...). */
  reason?: string;
  /** Its log (standard output and error), at most PROBE_LOG_LIMIT bytes. */
  log: string;
}

/** How much of a probe pod's log is read (pods/log limitBytes): the file check's output is a few lines. */
export const PROBE_LOG_LIMIT = 4096;

export interface SandboxReader {
  /** Pods in a namespace, optionally filtered by a matchLabels selector. */
  listPods(namespace: string, selector?: Record<string, string>): Promise<PodSummary[]>;
  listServices(namespace: string): Promise<ServiceSummary[]>;
  /** EndpointSlices (discovery.k8s.io/v1) in a namespace. */
  listEndpointSlices(namespace: string): Promise<EndpointSliceSummary[]>;
  /** A Secret; throws SandboxReadError('NotFound') when it does not exist. */
  getSecret(namespace: string, name: string): Promise<SecretSummary>;
  /** The sandbox's FailedCreate Events, newest first (optional: in-memory readers may leave it out). */
  listPodCreateFailures?(namespace: string): Promise<PodCreateFailure[]>;
  /** Whether a namespaced object of any kind exists; never throws. */
  getResource(apiVersion: string, kind: string, namespace: string, name: string): Promise<ResourceLookup>;
  /**
   * Runs a command in a container and resolves with its exit code. Aborting the signal closes the
   * stream. Throws SandboxReadError when the exec cannot be started or ends without a status.
   */
  exec(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
    signal?: AbortSignal,
  ): Promise<ExecOutcome>;
  /** The pods in a namespace whose volumes name the claim (optional: file checks need it). */
  claimUsers?(namespace: string, claim: string): Promise<ClaimUser[]>;
  /**
   * Runs a short-lived pod to its end and returns how it ended and its log. A pod of the same name
   * left from an earlier attempt (a server restart) is deleted first; the pod is deleted afterwards
   * in every case (also on abort or error). Throws SandboxReadError when it cannot be created.
   */
  runProbePod?(pod: ProbePodManifest, signal: AbortSignal): Promise<ProbePodOutcome>;
}

/** A matchLabels selector as a Kubernetes label selector string ("a=b,c=d"); "" selects all. */
export function toLabelSelector(selector: Record<string, string> | undefined): string {
  if (!selector) return '';
  return Object.entries(selector)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}
