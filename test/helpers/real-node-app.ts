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
  /** An init container `init-<name>` of the same image that runs this command first. */
  initCommand?: string[];
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
          ...(options.initCommand
            ? { initContainers: [{ name: `init-${name}`, image: REAL_NODE_IMAGES.shop, imagePullPolicy: 'Never', command: options.initCommand }] }
            : {}),
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

/**
 * PostgreSQL as a StatefulSet on the real node (`app: <name>`, pod `<name>-0`), its data on a
 * claim of `storageClass` made from the StatefulSet's claim template (`data-<name>-0`), user `app`
 * and database `shop`. Before a backup Velero runs the pod's pre-backup hook, a CHECKPOINT, so the
 * files the node agent copies hold every committed row (what Velero's docs advise for databases).
 */
export async function addRealNodePostgres(kubeConfig: KubeConfig, namespace: string, name: string, storageClass: string): Promise<void> {
  const psql = 'psql -h /run/postgresql -U app -d shop -v ON_ERROR_STOP=1';
  await kubeConfig.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: { name, labels: { app: name } },
      spec: {
        serviceName: name,
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: {
            labels: { app: name },
            annotations: {
              'pre.hook.backup.velero.io/container': 'postgres',
              'pre.hook.backup.velero.io/command': JSON.stringify(['sh', '-c', `${psql} -c CHECKPOINT`]),
            },
          },
          spec: onRealNode({
            terminationGracePeriodSeconds: 5,
            containers: [
              {
                name: 'postgres',
                image: REAL_NODE_IMAGES.postgres,
                imagePullPolicy: 'Never',
                env: [
                  { name: 'POSTGRES_USER', value: 'app' },
                  { name: 'POSTGRES_PASSWORD', value: 'rehearsal-test' },
                  { name: 'POSTGRES_DB', value: 'shop' },
                  { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
                ],
                ports: [{ containerPort: 5432 }],
                readinessProbe: { exec: { command: ['sh', '-c', `${psql} -tAc 'select 1'`] }, periodSeconds: 2 },
                volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
              },
            ],
          }),
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: storageClass, resources: { requests: { storage: '256Mi' } } },
          },
        ],
      },
    },
  });
}

/** Runs SQL in the PostgreSQL of addRealNodePostgres (as its user `app`, in `shop`): the unaligned output. */
export function psqlCommand(sql: string): string[] {
  return ['psql', '-h', '/run/postgresql', '-U', 'app', '-d', 'shop', '-v', 'ON_ERROR_STOP=1', '-tAc', sql];
}
