// An in-memory SandboxReader for unit tests: Kubernetes reads come from plain data, and every call
// is recorded so tests can assert which namespace a check looked at.

import type {
  ClaimUser,
  EndpointSliceSummary,
  ProbePodManifest,
  ProbePodOutcome,
  ExecOutcome,
  PodCreateFailure,
  PodSummary,
  ResourceLookup,
  SandboxReader,
  SecretSummary,
  ServiceSummary,
} from '../../../server/checks/sandbox-reader.js';
import { SandboxReadError } from '../../../server/checks/sandbox-reader.js';
import type { CheckContext } from '../../../server/checks/check.js';
import { StaticTargetResolver, type TargetResolver } from '../../../server/checks/target-resolver.js';

export interface FakePod extends PodSummary {
  namespace: string;
  labels?: Record<string, string>;
}

export interface FakeCluster {
  pods?: FakePod[];
  services?: (ServiceSummary & { namespace: string })[];
  endpointSlices?: (EndpointSliceSummary & { namespace: string })[];
  secrets?: { namespace: string; name: string; data: Record<string, string> }[];
  /** FailedCreate Events, newest first. */
  podCreateFailures?: (PodCreateFailure & { namespace: string })[];
  /** Keyed by "apiVersion/kind/namespace/name". */
  resources?: Record<string, ResourceLookup>;
  exec?: (call: {
    namespace: string;
    pod: string;
    container: string;
    command: readonly string[];
    signal?: AbortSignal;
  }) => Promise<ExecOutcome>;
  /** The pods that mount each claim, keyed by "namespace/claim". */
  claimUsers?: Record<string, ClaimUser[]>;
  /** Runs a probe pod (file checks). */
  probe?: (pod: ProbePodManifest, signal: AbortSignal) => Promise<ProbePodOutcome>;
  /** Makes the named method throw this error. */
  failures?: Partial<Record<keyof SandboxReader, Error>>;
}

export interface RecordedCall {
  method: keyof SandboxReader;
  namespace: string;
  args: unknown[];
}

export class FakeSandboxReader implements SandboxReader {
  readonly calls: RecordedCall[] = [];

  constructor(private readonly cluster: FakeCluster = {}) {}

  private record(method: keyof SandboxReader, namespace: string, ...args: unknown[]): void {
    this.calls.push({ method, namespace, args });
    const failure = this.cluster.failures?.[method];
    if (failure) throw failure;
  }

  async listPods(namespace: string, selector?: Record<string, string>): Promise<PodSummary[]> {
    this.record('listPods', namespace, selector);
    return (this.cluster.pods ?? [])
      .filter((pod) => pod.namespace === namespace)
      .filter((pod) => Object.entries(selector ?? {}).every(([key, value]) => pod.labels?.[key] === value))
      .map(({ namespace: _namespace, labels: _labels, ...pod }) => pod);
  }

  async listPodCreateFailures(namespace: string): Promise<PodCreateFailure[]> {
    this.record('listPodCreateFailures', namespace);
    return (this.cluster.podCreateFailures ?? [])
      .filter((failure) => failure.namespace === namespace)
      .map(({ namespace: _namespace, ...failure }) => failure);
  }

  async listServices(namespace: string): Promise<ServiceSummary[]> {
    this.record('listServices', namespace);
    return (this.cluster.services ?? [])
      .filter((s) => s.namespace === namespace)
      .map(({ namespace: _n, ...s }) => s);
  }

  async listEndpointSlices(namespace: string): Promise<EndpointSliceSummary[]> {
    this.record('listEndpointSlices', namespace);
    return (this.cluster.endpointSlices ?? [])
      .filter((s) => s.namespace === namespace)
      .map(({ namespace: _n, ...s }) => s);
  }

  async getSecret(namespace: string, name: string): Promise<SecretSummary> {
    this.record('getSecret', namespace, name);
    const secret = (this.cluster.secrets ?? []).find((s) => s.namespace === namespace && s.name === name);
    if (!secret) throw new SandboxReadError('NotFound', `secrets "${name}" not found`, 404);
    return { name, data: { ...secret.data } };
  }

  async getResource(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ): Promise<ResourceLookup> {
    this.record('getResource', namespace, apiVersion, kind, name);
    return (
      this.cluster.resources?.[`${apiVersion}/${kind}/${namespace}/${name}`] ?? {
        state: 'not-found',
        message: `${kind.toLowerCase()}s "${name}" not found`,
      }
    );
  }

  async exec(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
    signal?: AbortSignal,
  ): Promise<ExecOutcome> {
    this.record('exec', namespace, pod, container, command);
    if (!this.cluster.exec) throw new Error('exec not configured in the fake');
    return this.cluster.exec({ namespace, pod, container, command, ...(signal ? { signal } : {}) });
  }

  async claimUsers(namespace: string, claim: string): Promise<ClaimUser[]> {
    this.record('claimUsers', namespace, claim);
    return this.cluster.claimUsers?.[`${namespace}/${claim}`] ?? [];
  }

  async runProbePod(pod: ProbePodManifest, signal: AbortSignal): Promise<ProbePodOutcome> {
    this.record('runProbePod', pod.metadata.namespace, pod);
    if (!this.cluster.probe) throw new Error('probe not configured in the fake');
    return this.cluster.probe(pod, signal);
  }
}

export function pod(namespace: string, name: string, overrides: Partial<FakePod> = {}): FakePod {
  return {
    namespace,
    name,
    phase: 'Running',
    ready: true,
    terminating: false,
    containers: ['app'],
    ...overrides,
  };
}

export const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A CheckContext for calling an executor directly (the runner builds these in production). */
export function checkContext(
  overrides: Partial<CheckContext> & { reader?: SandboxReader; targets?: TargetResolver } = {},
): CheckContext {
  return {
    reader: overrides.reader ?? new FakeSandboxReader(),
    targets: overrides.targets ?? new StaticTargetResolver({}),
    namespace: overrides.namespace ?? 'rehearsal-shop-abc12',
    sourceNamespace: overrides.sourceNamespace ?? 'shop',
    timeoutMs: overrides.timeoutMs ?? 5_000,
    signal: overrides.signal ?? new AbortController().signal,
    ...(overrides.fileCheckImage ? { fileCheckImage: overrides.fileCheckImage } : {}),
  };
}
