// SandboxReader over @kubernetes/client-node 2.x: CoreV1Api (pods, services, secrets),
// DiscoveryV1Api (EndpointSlices), KubernetesObjectApi (any kind, for resourceExists) and Exec.
//
// Errors are classified by server/kube/errors.ts (the project's one boundary: HTTP status code,
// ApiException.code, never message text) and re-expressed as the checks' SandboxReadError; the
// API server's Status message is only carried along for humans. No HTTP answer at all
// (connection refused, TLS, DNS) is 'Unavailable'.
//
// Exec runs against the real node of the test cluster (test/integration/real-node-checks.test.ts);
// KWOK's pods have no kubelet and are never exec'd into.

import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  Exec,
  type KubeConfig,
  type V1APIResource,
  type V1Pod,
  type V1Status,
} from '@kubernetes/client-node';
import {
  EXEC_STDOUT_LIMIT,
  type ClaimUser,
  type InheritedSecurity,
  type ProbePodManifest,
  type ProbePodOutcome,
  SandboxReadError,
  toLabelSelector,
  type EndpointSliceSummary,
  type ExecOutcome,
  type PodCreateFailure,
  type PodSummary,
  type ResourceLookup,
  type SandboxReader,
  type SecretSummary,
  type ServiceSummary,
} from './sandbox-reader.js';
import { isFileCheckPod } from './file-check-pod.js';
import { toSandboxReadError } from './sandbox-read-error.kube.js';
import { runProbePod } from './probe-pod.kube.js';
import { DiscoveringObjectApi } from '../kube/discovering-object-api.js';
import { JOB_HOLD_GATE } from '../domain/run/restore-transforms.js';

const PAGE_SIZE = 500;
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

/** The exit code in an exec Status: Success → 0; NonZeroExitCode → causes[reason=ExitCode]. */
export function exitCodeFromStatus(status: V1Status): number | undefined {
  if (status.status === 'Success') return 0;
  if (status.reason !== 'NonZeroExitCode') return undefined;
  const cause = status.details?.causes?.find((candidate) => candidate.reason === 'ExitCode');
  const exitCode = Number(cause?.message);
  return Number.isInteger(exitCode) ? exitCode : undefined;
}

/**
 * Keeps the first `limit` bytes written to it (a command's standard output), drops the rest. A
 * UTF-8 character the limit cuts through is dropped whole: decoding its first bytes would give
 * U+FFFD, and a size counted on that text would exceed the limit.
 */
function boundedCollector(limit: number): { stream: Writable; text(): string; truncated(): boolean } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const bytes = Buffer.from(chunk);
      if (kept + bytes.length > limit) cut = true;
      if (kept < limit) {
        const part = bytes.subarray(0, limit - kept);
        chunks.push(part);
        kept += part.length;
      }
      callback();
    },
  });
  const text = (): string => {
    const decoder = new StringDecoder('utf8');
    // write() holds back an incomplete trailing character; end() would flush it as U+FFFD.
    const complete = decoder.write(Buffer.concat(chunks));
    return cut ? complete : complete + decoder.end();
  };
  return { stream, text, truncated: () => cut };
}


/** The restored pod's user and groups: pod-level settings, overridden by the container's. */
function inheritedSecurity(pod: V1Pod, volumeName: string): InheritedSecurity {
  const podLevel = pod.spec?.securityContext ?? {};
  const container = (pod.spec?.containers ?? []).find((candidate) =>
    (candidate.volumeMounts ?? []).some((mount) => mount.name === volumeName),
  );
  const own = container?.securityContext ?? {};
  const runAsUser = own.runAsUser ?? podLevel.runAsUser;
  const runAsGroup = own.runAsGroup ?? podLevel.runAsGroup;
  const runAsNonRoot = own.runAsNonRoot ?? podLevel.runAsNonRoot;
  return {
    ...(runAsUser !== undefined ? { runAsUser } : {}),
    ...(runAsGroup !== undefined ? { runAsGroup } : {}),
    ...(runAsNonRoot !== undefined ? { runAsNonRoot } : {}),
    ...(podLevel.fsGroup !== undefined ? { fsGroup: podLevel.fsGroup } : {}),
    ...(podLevel.supplementalGroups?.length ? { supplementalGroups: [...podLevel.supplementalGroups] } : {}),
  };
}

function discard(): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
}

export class KubeSandboxReader implements SandboxReader {
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly discovery: DiscoveryV1Api;
  private readonly objects: DiscoveringObjectApi;
  private readonly execApi: Exec;

  constructor(kubeConfig: KubeConfig) {
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
    this.objects = kubeConfig.makeApiClient(DiscoveringObjectApi);
    this.execApi = new Exec(kubeConfig);
  }

  async listPods(namespace: string, selector?: Record<string, string>): Promise<PodSummary[]> {
    const labelSelector = toLabelSelector(selector);
    const pods: PodSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.core
        .listNamespacedPod({
          namespace,
          limit: PAGE_SIZE,
          ...(labelSelector ? { labelSelector } : {}),
          ...(token ? { _continue: token } : {}),
        })
        .catch((thrown: unknown) => {
          throw toSandboxReadError(thrown, `list pods in ${namespace}`);
        });
      for (const pod of page.items) {
        if (isFileCheckPod(pod.metadata)) continue;
        const containers = (pod.spec?.containers ?? []).map((container) => container.name);
        const defaultContainer = pod.metadata?.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
        const claims = Object.fromEntries(
          (pod.spec?.volumes ?? []).flatMap((volume) =>
            volume.persistentVolumeClaim?.claimName ? [[volume.name, volume.persistentVolumeClaim.claimName]] : [],
          ),
        );
        pods.push({
          name: pod.metadata?.name ?? '',
          phase: pod.status?.phase ?? 'Unknown',
          ready: (pod.status?.conditions ?? []).some(
            (condition) => condition.type === 'Ready' && condition.status === 'True',
          ),
          terminating: Boolean(pod.metadata?.deletionTimestamp),
          containers,
          ...(defaultContainer ? { defaultContainer } : {}),
          ...((pod.spec?.schedulingGates ?? []).some((gate) => gate.name === JOB_HOLD_GATE) ? { held: true } : {}),
          ...(Object.keys(claims).length > 0 ? { claims } : {}),
        });
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    return pods;
  }

  /**
   * Names of the objects of one kind in a sandbox, not terminating (for completeness per kind).
   * Throws SandboxReadError; a kind the cluster does not serve is an empty list.
   */
  async listNames(apiVersion: string, kind: string, namespace: string): Promise<string[]> {
    // One unpaged list: KubernetesObjectApi.list drops the list's `continue` token (it reads the
    // metadata as ObjectMeta), so paging through it would silently stop after the first page. The
    // kinds asked for are those a backup held, in one sandbox.
    let list;
    try {
      list = await this.objects.list(apiVersion, kind, namespace);
    } catch (thrown) {
      const mapped = toSandboxReadError(thrown, `list ${apiVersion} ${kind} in ${namespace}`);
      if (mapped.reason === 'NotFound') return [];
      throw mapped;
    }
    const ownPod = (metadata: (typeof list.items)[number]['metadata']): boolean =>
      apiVersion === 'v1' && kind === 'Pod' && isFileCheckPod(metadata);
    return list.items.flatMap((item) =>
      item.metadata?.name && !item.metadata.deletionTimestamp && !ownPod(item.metadata) ? [item.metadata.name] : [],
    );
  }

  /**
   * The annotations of each object of one kind whose key starts with `prefix` (the restore
   * transforms' markers), for the objects that have any. Throws SandboxReadError; a kind the
   * cluster does not serve is an empty list.
   */
  async listAnnotated(
    apiVersion: string,
    kind: string,
    namespace: string,
    prefix: string,
  ): Promise<{ name: string; annotations: Record<string, string> }[]> {
    let list;
    try {
      list = await this.objects.list(apiVersion, kind, namespace);
    } catch (thrown) {
      const mapped = toSandboxReadError(thrown, `list ${apiVersion} ${kind} in ${namespace}`);
      if (mapped.reason === 'NotFound') return [];
      throw mapped;
    }
    return list.items.flatMap((item) => {
      const annotations = Object.fromEntries(
        Object.entries(item.metadata?.annotations ?? {}).filter(([key]) => key.startsWith(prefix)),
      );
      return item.metadata?.name && Object.keys(annotations).length > 0 ? [{ name: item.metadata.name, annotations }] : [];
    });
  }

  async listPodCreateFailures(namespace: string): Promise<PodCreateFailure[]> {
    const events = await this.core
      .listNamespacedEvent({ namespace, fieldSelector: 'reason=FailedCreate', limit: PAGE_SIZE })
      .catch((thrown: unknown) => {
        throw toSandboxReadError(thrown, `list FailedCreate events in ${namespace}`);
      });
    const time = (value: Date | string | undefined): number => (value ? new Date(value).getTime() : 0);
    return [...events.items]
      .sort(
        (left, right) =>
          time(right.lastTimestamp ?? right.eventTime ?? right.metadata?.creationTimestamp) -
          time(left.lastTimestamp ?? left.eventTime ?? left.metadata?.creationTimestamp),
      )
      .map((event) => ({
        object: `${event.involvedObject?.kind ?? ''}/${event.involvedObject?.name ?? ''}`,
        message: event.message ?? '',
      }));
  }

  /** Pods the sandbox's Deployments and StatefulSets ask for (the engine's "pods expected"). */
  async desiredPods(namespace: string): Promise<number> {
    const action = `list workloads in ${namespace}`;
    try {
      const [deployments, statefulSets] = await Promise.all([
        this.apps.listNamespacedDeployment({ namespace }),
        this.apps.listNamespacedStatefulSet({ namespace }),
      ]);
      return [...deployments.items, ...statefulSets.items].reduce((sum, item) => sum + (item.spec?.replicas ?? 1), 0);
    } catch (thrown) {
      throw toSandboxReadError(thrown, action);
    }
  }

  async listServices(namespace: string): Promise<ServiceSummary[]> {
    const services: ServiceSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.core
        .listNamespacedService({ namespace, limit: PAGE_SIZE, ...(token ? { _continue: token } : {}) })
        .catch((thrown: unknown) => {
          throw toSandboxReadError(thrown, `list Services in ${namespace}`);
        });
      for (const service of page.items) {
        const selector = service.spec?.selector;
        services.push({
          name: service.metadata?.name ?? '',
          type: service.spec?.type ?? 'ClusterIP',
          ...(selector && Object.keys(selector).length > 0 ? { selector } : {}),
          ports: (service.spec?.ports ?? []).map((port) => ({
            port: port.port,
            ...(port.name ? { name: port.name } : {}),
            ...(port.protocol ? { protocol: port.protocol } : {}),
          })),
        });
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    return services;
  }

  async listEndpointSlices(namespace: string): Promise<EndpointSliceSummary[]> {
    const slices: EndpointSliceSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.discovery
        .listNamespacedEndpointSlice({ namespace, limit: PAGE_SIZE, ...(token ? { _continue: token } : {}) })
        .catch((thrown: unknown) => {
          throw toSandboxReadError(thrown, `list EndpointSlices in ${namespace}`);
        });
      for (const slice of page.items) {
        const endpoints = slice.endpoints ?? [];
        const serviceName = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
        slices.push({
          name: slice.metadata?.name ?? '',
          ...(serviceName ? { serviceName } : {}),
          // The API documents a nil `ready` as true.
          readyEndpoints: endpoints.filter((endpoint) => endpoint.conditions?.ready !== false).length,
          totalEndpoints: endpoints.length,
        });
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    return slices;
  }

  async getSecret(namespace: string, name: string): Promise<SecretSummary> {
    const secret = await this.core.readNamespacedSecret({ namespace, name }).catch((thrown: unknown) => {
      throw toSandboxReadError(thrown, `read Secret ${namespace}/${name}`);
    });
    return { name, data: { ...(secret.data ?? {}) } };
  }

  async getResource(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ): Promise<ResourceLookup> {
    const subject = `${apiVersion} ${kind} ${namespace}/${name}`;
    let resource: V1APIResource | undefined;
    try {
      resource = await this.objects.findResource(apiVersion, kind);
    } catch (thrown) {
      const mapped = toSandboxReadError(thrown, `discover ${apiVersion}`);
      // Discovery answers 404 when the group/version is not served at all.
      if (mapped.reason === 'NotFound')
        return { state: 'unknown-kind', message: `the cluster does not serve ${apiVersion}` };
      return { state: 'error', reason: mapped.reason, message: mapped.message };
    }
    if (!resource)
      return { state: 'unknown-kind', message: `the cluster serves ${apiVersion} but has no kind ${kind}` };
    if (!resource.namespaced) {
      return {
        state: 'error',
        reason: 'Invalid',
        message: `${kind} is cluster-scoped; only namespaced kinds live in a sandbox`,
      };
    }
    try {
      await this.objects.read({ apiVersion, kind, metadata: { name, namespace } });
      return { state: 'exists' };
    } catch (thrown) {
      const mapped = toSandboxReadError(thrown, `read ${subject}`);
      if (mapped.reason === 'NotFound') return { state: 'not-found', message: mapped.message };
      return { state: 'error', reason: mapped.reason, message: mapped.message };
    }
  }

  exec(
    namespace: string,
    pod: string,
    container: string,
    command: readonly string[],
    signal?: AbortSignal,
  ): Promise<ExecOutcome> {
    const action = `exec in ${namespace}/${pod} container ${container}`;
    const stdout = boundedCollector(EXEC_STDOUT_LIMIT);
    return new Promise<ExecOutcome>((resolve, reject) => {
      let settled = false;
      let socket: { close(): void } | undefined;
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        socket?.close();
        finish();
      };
      const onAbort = (): void => settle(() => reject(new SandboxReadError('Timeout', `${action}: aborted`)));
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });

      const onStatus = (status: V1Status): void => {
        const exitCode = exitCodeFromStatus(status);
        if (exitCode !== undefined) {
          // The status comes on its own channel: let output frames still in flight land first.
          setImmediate(() =>
            settle(() => resolve({ exitCode, stdout: stdout.text(), ...(stdout.truncated() ? { stdoutTruncated: true } : {}) })),
          );
          return;
        }
        // A Failure without an exit code: the command could not start (no such container,
        // executable not found, ...). Classified by its code; the message is for humans.
        settle(() => reject(toSandboxReadError({ code: status.code ?? 500, body: status }, action)));
      };

      this.execApi
        .exec(namespace, pod, container, [...command], stdout.stream, discard(), null, false, onStatus)
        .then(
          (webSocket) => {
            socket = webSocket;
            if (settled) {
              webSocket.close();
              return;
            }
            webSocket.on('close', () =>
              settle(() =>
                reject(
                  new SandboxReadError('Unavailable', `${action}: the stream closed without an exit status`),
                ),
              ),
            );
          },
          (thrown: unknown) => settle(() => reject(toSandboxReadError(thrown, action))),
        );
    });
  }

  /** The restored pods that mount the claim (a file check's own pods are never among them). */
  async claimUsers(namespace: string, claim: string): Promise<ClaimUser[]> {
    const users: ClaimUser[] = [];
    let token: string | undefined;
    do {
      const page = await this.core
        .listNamespacedPod({ namespace, limit: PAGE_SIZE, ...(token ? { _continue: token } : {}) })
        .catch((thrown: unknown) => {
          throw toSandboxReadError(thrown, `list pods in ${namespace}`);
        });
      for (const pod of page.items) {
        const volume = (pod.spec?.volumes ?? []).find((candidate) => candidate.persistentVolumeClaim?.claimName === claim);
        if (!volume || isFileCheckPod(pod.metadata)) continue;
        users.push({
          pod: pod.metadata?.name ?? '',
          phase: pod.status?.phase ?? 'Unknown',
          ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
          terminating: Boolean(pod.metadata?.deletionTimestamp),
          security: inheritedSecurity(pod, volume.name),
        });
      }
      token = page.metadata?._continue || undefined;
    } while (token);
    return users;
  }

  async runProbePod(manifest: ProbePodManifest, signal: AbortSignal): Promise<ProbePodOutcome> {
    return runProbePod(this.core, manifest, signal);
  }
}
