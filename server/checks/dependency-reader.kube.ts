// DependencyReader over @kubernetes/client-node. Inside a sandbox it reads with the per-sandbox
// reader binding; outside, only `get` of one Service and `list` of its EndpointSlices (by the
// kubernetes.io/service-name label), both granted cluster-wide in deploy/base/rbac.yaml: names and
// addresses, no data. Secrets are not scanned (a connection string in a Secret is not seen).
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  NetworkingV1Api,
  type KubeConfig,
  type V1ObjectMeta,
  type V1PodSpec,
} from '@kubernetes/client-node';
import type { ScannedObject, ServiceState } from '../domain/run/dependencies.js';
import { toKubeError } from '../kube/errors.js';
import type { DependencyReader } from './dependency-reader.js';
import { toSandboxReadError } from './sandbox-read-error.kube.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** Env values, commands and args of every container: where host names of dependencies sit. */
function podTexts(spec: V1PodSpec | undefined): string[] {
  const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  return containers.flatMap((container) => [
    ...(container.env ?? []).flatMap((variable) => (variable.value ? [variable.value] : [])),
    ...(container.command ?? []),
    ...(container.args ?? []),
  ]);
}

function owned(metadata: V1ObjectMeta | undefined): boolean {
  return (metadata?.ownerReferences ?? []).length > 0;
}

export class KubeDependencyReader implements DependencyReader {
  private readonly apps: AppsV1Api;
  private readonly batch: BatchV1Api;
  private readonly core: CoreV1Api;
  private readonly discovery: DiscoveryV1Api;
  private readonly networking: NetworkingV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.apps = kubeConfig.makeApiClient(AppsV1Api);
    this.batch = kubeConfig.makeApiClient(BatchV1Api);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
    this.networking = kubeConfig.makeApiClient(NetworkingV1Api);
  }

  async scanSandbox(sandbox: string): Promise<ScannedObject[]> {
    const namespace = { namespace: sandbox };
    try {
      const [services, configMaps, deployments, statefulSets, daemonSets, cronJobs, jobs, pods, ingresses] = await Promise.all([
        this.core.listNamespacedService(namespace),
        this.core.listNamespacedConfigMap(namespace),
        this.apps.listNamespacedDeployment(namespace),
        this.apps.listNamespacedStatefulSet(namespace),
        this.apps.listNamespacedDaemonSet(namespace),
        this.batch.listNamespacedCronJob(namespace),
        this.batch.listNamespacedJob(namespace),
        this.core.listNamespacedPod(namespace),
        this.networking.listNamespacedIngress(namespace),
      ]);
      const object = (kind: string, metadata: V1ObjectMeta | undefined, texts: string[]): ScannedObject => ({
        kind,
        name: metadata?.name ?? '',
        sandbox,
        texts,
      });
      return [
        ...services.items.flatMap((item) =>
          item.spec?.externalName ? [object('Service', item.metadata, [item.spec.externalName])] : [],
        ),
        // kube-root-ca.crt is put in every namespace by the cluster: a certificate, not the app's.
        ...configMaps.items
          .filter((item) => item.metadata?.name !== 'kube-root-ca.crt')
          .map((item) => object('ConfigMap', item.metadata, Object.values(item.data ?? {}))),
        ...deployments.items.map((item) => object('Deployment', item.metadata, podTexts(item.spec?.template.spec))),
        ...statefulSets.items.map((item) => object('StatefulSet', item.metadata, podTexts(item.spec?.template.spec))),
        ...daemonSets.items.map((item) => object('DaemonSet', item.metadata, podTexts(item.spec?.template.spec))),
        ...cronJobs.items.map((item) => object('CronJob', item.metadata, podTexts(item.spec?.jobTemplate.spec?.template.spec))),
        // Owned Jobs and Pods repeat their owner's template; only stand-alone ones add anything.
        ...jobs.items.filter((item) => !owned(item.metadata)).map((item) => object('Job', item.metadata, podTexts(item.spec?.template.spec))),
        ...pods.items.filter((item) => !owned(item.metadata)).map((item) => object('Pod', item.metadata, podTexts(item.spec))),
        ...ingresses.items.map((item) => object('Ingress', item.metadata, Object.values(item.metadata?.annotations ?? {}))),
      ];
    } catch (thrown) {
      throw toSandboxReadError(thrown, `read the restored objects in ${sandbox}`);
    }
  }

  async namespaceNames(): Promise<Set<string>> {
    try {
      const list = await this.core.listNamespace();
      return new Set(list.items.flatMap((item) => (item.metadata?.name ? [item.metadata.name] : [])));
    } catch (thrown) {
      throw toSandboxReadError(thrown, 'list namespaces');
    }
  }

  async serviceState(namespace: string, service: string): Promise<ServiceState> {
    try {
      const found = await this.core.readNamespacedService({ namespace, name: service });
      if (found.spec?.type === 'ExternalName') return { state: 'externalName', externalName: found.spec.externalName ?? '' };
      const slices = await this.discovery.listNamespacedEndpointSlice({
        namespace,
        labelSelector: `${SERVICE_NAME_LABEL}=${service}`,
      });
      // The API documents a nil `ready` as true.
      const ready = slices.items.some((slice) => (slice.endpoints ?? []).some((endpoint) => endpoint.conditions?.ready !== false));
      return ready ? { state: 'ready' } : { state: 'noEndpoints' };
    } catch (thrown) {
      const error = toKubeError(thrown);
      if (error.kind === 'NotFound') return { state: 'absent' };
      return { state: 'unknown', message: `${error.kind}: ${error.message}` };
    }
  }
}
