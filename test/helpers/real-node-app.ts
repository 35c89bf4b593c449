// Workloads for source namespaces whose restored copies must run on the real node
// (test/cluster/node-up.sh): every pod template is pinned to the node (onRealNode), so the copy a
// backup tool restores into a sandbox keeps the pin and runs in real containers too. All of them
// use the shop image built here (its HTTP server on 8080, and busybox for sh, nc and cat).
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1Container,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { waitFor } from './kube.js';
import { onRealNode, REAL_NODE_IMAGES } from './real-node.js';

export interface RealNodeDeploymentOptions {
  /** Replaces the image's entrypoint (the shop's HTTP server) when set. */
  command?: string[];
  privileged?: boolean;
  /** Extra pod labels (the Deployment selects on `app: <name>`). */
  labels?: Record<string, string>;
  /** A ConfigMap mounted read-only at /etc/<configMap>. */
  configMap?: string;
}

function shopContainer(name: string, options: RealNodeDeploymentOptions): V1Container {
  return {
    name,
    image: REAL_NODE_IMAGES.shop,
    imagePullPolicy: 'Never',
    ...(options.command ? { command: options.command } : {}),
    ports: [{ containerPort: 8080 }],
    // Always probed: a container without a probe is Ready the moment it starts, so a crash-looping
    // one (whose command serves nothing) would look Ready between its crashes.
    readinessProbe: { httpGet: { path: '/healthz', port: 8080 as never }, periodSeconds: 1 },
    ...(options.privileged ? { securityContext: { privileged: true } } : {}),
    ...(options.configMap ? { volumeMounts: [{ name: 'config', mountPath: `/etc/${options.configMap}`, readOnly: true }] } : {}),
  };
}

/** One replica of the shop image on the real node, labelled `app: <name>`. */
function realNodeDeployment(name: string, options: RealNodeDeploymentOptions = {}): V1Deployment {
  const labels = { app: name, ...options.labels };
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: onRealNode({
          terminationGracePeriodSeconds: 1,
          containers: [shopContainer(name, options)],
          ...(options.configMap ? { volumes: [{ name: 'config', configMap: { name: options.configMap } }] } : {}),
        }),
      },
    },
  };
}

/** Creates the Deployment and, unless it is only a client, a Service `<name>` on port 80. */
export async function addRealNodeWorkload(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
  options: RealNodeDeploymentOptions & { service?: boolean } = {},
): Promise<void> {
  await kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: realNodeDeployment(name, options) });
  if (options.service === false) return;
  await kubeConfig.makeApiClient(CoreV1Api).createNamespacedService({
    namespace,
    body: { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 as never }] } },
  });
}

/** A CronJob due every minute whose pods run on the real node and say so in their log. */
export async function addEveryMinuteCronJob(kubeConfig: KubeConfig, namespace: string, name: string): Promise<void> {
  await kubeConfig.makeApiClient(BatchV1Api).createNamespacedCronJob({
    namespace,
    body: {
      metadata: { name },
      spec: {
        schedule: '* * * * *',
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 10,
        jobTemplate: {
          metadata: { labels: { cronjob: name } },
          spec: {
            backoffLimit: 0,
            template: {
              metadata: { labels: { cronjob: name } },
              spec: onRealNode({
                restartPolicy: 'Never',
                terminationGracePeriodSeconds: 1,
                containers: [{ name, image: REAL_NODE_IMAGES.shop, imagePullPolicy: 'Never', command: ['sh', '-c', 'echo charged customers'] }],
              }),
            },
          },
        },
      },
    },
  });
}

/** The Ready, running pod of `app: <app>` in the namespace (waits for it). */
export async function readyPodOf(kubeConfig: KubeConfig, namespace: string, app: string, timeoutMs = 90_000): Promise<V1Pod> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return waitFor(
    async () =>
      (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items.find(
        (pod) =>
          !pod.metadata?.deletionTimestamp &&
          (pod.status?.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True'),
      ),
    { timeoutMs, intervalMs: 500, description: `a Ready pod of ${app} in ${namespace}` },
  );
}
