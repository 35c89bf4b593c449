// Reads what a source namespace runs — its Deployments, StatefulSets, DaemonSets and Services —
// and reduces it to the facts a test draft is written from (domain/test-drafts/namespace-facts.ts).
// Lists only: no Secret, no Pod, no write. The server's ServiceAccount may list these kinds
// cluster-wide for this (deploy/base/rbac.yaml); whether the CALLER may see a namespace is
// reviewed before this runs (api/services/test-drafts.service.ts), never after.
import type { AppsV1Api, CoreV1Api, V1Container, V1PodTemplateSpec, V1Probe } from '@kubernetes/client-node';
import type {
  ContainerFacts,
  HttpProbeFacts,
  NamespaceFacts,
  ServiceFacts,
  WorkloadFacts,
  WorkloadKind,
} from '../domain/test-drafts/namespace-facts.js';
import { kubeCall } from '../kube/errors.js';

export interface WorkloadReaderClients {
  apps: Pick<AppsV1Api, 'listNamespacedDeployment' | 'listNamespacedStatefulSet' | 'listNamespacedDaemonSet'>;
  core: Pick<CoreV1Api, 'listNamespacedService'>;
}

function probeFacts(probe: V1Probe | undefined, kind: HttpProbeFacts['probe']): HttpProbeFacts[] {
  const httpGet = probe?.httpGet;
  if (!httpGet || httpGet.port === undefined) return [];
  return [
    {
      probe: kind,
      ...(httpGet.path ? { path: httpGet.path } : {}),
      port: httpGet.port as number | string,
      ...(httpGet.scheme === 'HTTPS' ? { scheme: 'HTTPS' as const } : {}),
    },
  ];
}

export function containerFacts(container: V1Container): ContainerFacts {
  return {
    name: container.name,
    image: container.image ?? '',
    ports: (container.ports ?? []).map((port) => ({ ...(port.name ? { name: port.name } : {}), containerPort: port.containerPort })),
    httpProbes: [...probeFacts(container.readinessProbe, 'readiness'), ...probeFacts(container.livenessProbe, 'liveness')],
    env: (container.env ?? []).map((variable) => ({
      name: variable.name,
      ...(variable.value !== undefined ? { value: variable.value } : {}),
      ...(variable.valueFrom?.secretKeyRef?.name
        ? { secretKeyRef: { name: variable.valueFrom.secretKeyRef.name, key: variable.valueFrom.secretKeyRef.key } }
        : {}),
    })),
    envFromSecrets: (container.envFrom ?? []).flatMap((source) => (source.secretRef?.name ? [source.secretRef.name] : [])),
  };
}

interface WorkloadObject {
  metadata?: { name?: string; deletionTimestamp?: Date };
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> }; template?: V1PodTemplateSpec };
}

export function workloadFacts(kind: WorkloadKind, item: WorkloadObject): WorkloadFacts | undefined {
  const name = item.metadata?.name;
  if (!name || item.metadata?.deletionTimestamp) return undefined;
  return {
    kind,
    name,
    ...(kind !== 'DaemonSet' ? { replicas: item.spec?.replicas ?? 1 } : {}),
    selector: { ...(item.spec?.selector?.matchLabels ?? {}) },
    podLabels: { ...(item.spec?.template?.metadata?.labels ?? {}) },
    containers: (item.spec?.template?.spec?.containers ?? []).map(containerFacts),
  };
}

export async function readNamespaceFacts(clients: WorkloadReaderClients, namespace: string): Promise<NamespaceFacts> {
  const [deployments, statefulSets, daemonSets, services] = await Promise.all([
    kubeCall(() => clients.apps.listNamespacedDeployment({ namespace })),
    kubeCall(() => clients.apps.listNamespacedStatefulSet({ namespace })),
    kubeCall(() => clients.apps.listNamespacedDaemonSet({ namespace })),
    kubeCall(() => clients.core.listNamespacedService({ namespace })),
  ]);
  const workloads = [
    ...deployments.items.map((item) => workloadFacts('Deployment', item)),
    ...statefulSets.items.map((item) => workloadFacts('StatefulSet', item)),
    ...daemonSets.items.map((item) => workloadFacts('DaemonSet', item)),
  ].filter((workload): workload is WorkloadFacts => workload !== undefined);
  const serviceFacts: ServiceFacts[] = services.items
    .filter((item) => item.metadata?.name && !item.metadata.deletionTimestamp)
    .map((item) => ({
      name: item.metadata!.name!,
      ...(item.spec?.type ? { type: item.spec.type } : {}),
      ...(item.spec?.selector ? { selector: { ...item.spec.selector } } : {}),
      ports: (item.spec?.ports ?? []).map((port) => ({
        ...(port.name ? { name: port.name } : {}),
        port: port.port,
        ...(port.targetPort !== undefined ? { targetPort: port.targetPort as number | string } : {}),
        ...(port.protocol ? { protocol: port.protocol } : {}),
      })),
    }));
  return { namespace, workloads, services: serviceFacts };
}
