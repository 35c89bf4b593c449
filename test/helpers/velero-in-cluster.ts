// The parts of the REAL Velero that run as pods on the test cluster's real node, shaped as
// `velero install --use-node-agent --plugins velero/velero-plugin-for-aws` makes them:
//   - the node agent, DaemonSet `node-agent` (file-system backups: kopia reads the volumes under the
//     kubelet's pods directory), and
//   - optionally the server itself, Deployment `velero`: the AWS plugin copied in by an init
//     container, the object store's credentials from the Secret `cloud-credentials`.
// Both run from images built on this machine (test/cluster/images/velero.sh and
// velero-plugin-aws.sh) out of the same Velero build the out-of-cluster server runs, under the
// ServiceAccount `velero` that real-velero.ts creates.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { readClusterInfo, repoRoot } from './cluster-info.js';
import { testKubeconfigPath, waitFor } from './kube.js';
import { importImageIntoNode, onRealNode } from './real-node.js';

export interface NodeAgentOptions {
  nodeName: string;
  /**
   * Velero's data-mover pods (CSI data mover) go only to nodes with these labels: the node agent's
   * ConfigMap `loadAffinity` (`--node-agent-configmap`). Without it the scheduler may pick any node.
   */
  loadAffinity?: Record<string, string>;
}

/** Runs a create; an object that already exists (an earlier demo run) is fine. */
export async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

/** A pinned version of test/cluster/versions.env (VELERO_VERSION, VELERO_AWS_PLUGIN_VERSION). */
export function pinnedVersion(name: string): string {
  return execFileSync('bash', ['-c', `source "${path.join(repoRoot, 'test/cluster/versions.env')}" && echo "$${name}"`], {
    encoding: 'utf8',
  }).trim();
}

/** Builds (cached by content) one recipe of test/cluster/images and imports it into the real node. */
function nodeImage(recipe: string, reference: string): string {
  const archive = execFileSync('bash', [path.join(repoRoot, 'test/cluster/images/build-images.sh'), recipe], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1)!;
  if (!importImageIntoNode(archive)) throw new Error(`load ${archive} into your node: this is not the local real node`);
  return reference;
}

/** The image of test/cluster/images/velero.sh (the same Velero build), imported into the real node. */
export function veleroNodeImage(): string {
  return nodeImage('velero', `rehearsal.local/velero:${pinnedVersion('VELERO_VERSION')}`);
}

/** The AWS plugin's image (test/cluster/images/velero-plugin-aws.sh), imported into the real node. */
function awsPluginImage(): string {
  return nodeImage('velero-plugin-aws', `rehearsal.local/velero-plugin-for-aws:${pinnedVersion('VELERO_AWS_PLUGIN_VERSION')}`);
}

/** The object store's credentials as the pods read them, at /credentials/cloud. */
export async function ensureCloudCredentials(admin: KubeConfig, namespace: string, credentials: string): Promise<void> {
  await ensure(() =>
    admin
      .makeApiClient(CoreV1Api)
      .createNamespacedSecret({ namespace, body: { metadata: { name: 'cloud-credentials' }, stringData: { cloud: credentials } } }),
  );
}

/** What every Velero container reads from its environment (as `velero install` sets it). */
const VELERO_ENV = [
  { name: 'VELERO_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  { name: 'VELERO_SCRATCH_DIR', value: '/scratch' },
  { name: 'AWS_SHARED_CREDENTIALS_FILE', value: '/credentials/cloud' },
  // The AWS SDK's default adds checksums to every request; only where S3 requires them.
  { name: 'AWS_REQUEST_CHECKSUM_CALCULATION', value: 'when_required' },
  { name: 'AWS_RESPONSE_CHECKSUM_VALIDATION', value: 'when_required' },
];

/**
 * Velero's node agent as `velero install --use-node-agent` makes it: the DaemonSet `node-agent`
 * (pods labelled role=node-agent: Velero's server looks for one on the pod's node before it
 * backs a volume up), running as root with the kubelet's pods directory at /host_pods (the
 * DaemonSet's `host-pods` volume is also where Velero learns that directory's path on the host,
 * for the pods it starts per volume) and the object store's credentials at /credentials/cloud.
 * Pinned to the real node. Velero 1.18 moves each volume's data in a pod of its own that it makes
 * from this pod's spec (image, env, volumes) with the node's name set.
 */
export async function startNodeAgent(admin: KubeConfig, namespace: string, agent: NodeAgentOptions, image: string): Promise<void> {
  const { nodeName } = agent;
  const core = admin.makeApiClient(CoreV1Api);
  const { workDir } = readClusterInfo();
  if (!workDir) throw new Error('the node agent needs the local real node (cluster.json names no workDir)');
  if (agent.loadAffinity) {
    // Velero reads the one key of this ConfigMap as JSON (pkg/nodeagent GetConfigs).
    const config = { loadAffinity: [{ nodeSelector: { matchLabels: agent.loadAffinity } }] };
    await ensure(() =>
      core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'node-agent-config' }, data: { 'node-agent-config.json': JSON.stringify(config) } } }),
    );
  }
  const labels = { name: 'node-agent', role: 'node-agent', component: 'velero' };
  await ensure(() =>
    admin.makeApiClient(AppsV1Api).createNamespacedDaemonSet({
      namespace,
      body: {
        metadata: { name: 'node-agent', labels: { component: 'velero' } },
        spec: {
          selector: { matchLabels: { name: 'node-agent' } },
          template: {
            metadata: { labels },
            spec: onRealNode({
              serviceAccountName: 'velero',
              securityContext: { runAsUser: 0 },
              terminationGracePeriodSeconds: 5,
              containers: [
                {
                  name: 'node-agent',
                  image,
                  imagePullPolicy: 'Never',
                  command: ['/velero'],
                  args: ['node-agent', 'server', '--log-level', 'info', ...(agent.loadAffinity ? ['--node-agent-configmap=node-agent-config'] : [])],
                  env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }, ...VELERO_ENV],
                  volumeMounts: [
                    { name: 'host-pods', mountPath: '/host_pods', mountPropagation: 'HostToContainer' },
                    { name: 'cloud-credentials', mountPath: '/credentials' },
                    { name: 'scratch', mountPath: '/scratch' },
                  ],
                },
              ],
              volumes: [
                { name: 'host-pods', hostPath: { path: path.join(workDir, 'node/kubelet/pods') } },
                { name: 'cloud-credentials', secret: { secretName: 'cloud-credentials' } },
                { name: 'scratch', emptyDir: {} },
              ],
            }),
          },
        },
      },
    }),
  );
  await waitFor(
    async () => {
      const pods = await core.listNamespacedPod({ namespace, labelSelector: 'role=node-agent' });
      return pods.items.some(
        (pod) => pod.spec?.nodeName === nodeName && (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
    },
    { timeoutMs: 90_000, intervalMs: 500, description: `Velero's node agent Ready on ${nodeName}` },
  );
}

/**
 * The Deployment `velero`. Velero's restore reads it whether or not the server runs from it (the
 * pod-volume restore action takes the restore helper's image from it). With `serverArgs` it runs
 * the server, one replica on the real node, as `velero install` makes it: non-root, the AWS plugin
 * copied into the `plugins` volume by an init container, metrics on the pod's port 8085. Without,
 * it has no replicas: the server runs out of cluster and nothing runs from this object.
 */
export function veleroDeployment(image: string, serverArgs?: string[]): V1Deployment {
  const labels = { component: 'velero', deploy: 'velero' };
  const container = { name: 'velero', image, imagePullPolicy: 'Never' };
  if (!serverArgs) {
    return {
      metadata: { name: 'velero', labels: { component: 'velero' } },
      spec: { replicas: 0, selector: { matchLabels: { deploy: 'velero' } }, template: { metadata: { labels }, spec: { containers: [container] } } },
    };
  }
  return {
    metadata: { name: 'velero', labels: { component: 'velero' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { deploy: 'velero' } },
      template: {
        metadata: { labels },
        spec: onRealNode({
          serviceAccountName: 'velero',
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 },
          terminationGracePeriodSeconds: 5,
          initContainers: [
            {
              name: 'velero-plugin-for-aws',
              image: awsPluginImage(),
              imagePullPolicy: 'Never',
              volumeMounts: [{ name: 'plugins', mountPath: '/target' }],
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          containers: [
            {
              ...container,
              command: ['/velero'],
              args: ['server', '--plugin-dir', '/plugins', ...serverArgs],
              ports: [{ name: 'metrics', containerPort: 8085 }],
              env: [{ name: 'HOME', value: '/home/velero' }, ...VELERO_ENV],
              volumeMounts: [
                { name: 'plugins', mountPath: '/plugins' },
                { name: 'cloud-credentials', mountPath: '/credentials' },
                { name: 'scratch', mountPath: '/scratch' },
              ],
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [
            { name: 'plugins', emptyDir: {} },
            { name: 'cloud-credentials', secret: { secretName: 'cloud-credentials' } },
            { name: 'scratch', emptyDir: {} },
          ],
        }),
      },
    },
  };
}

/** The in-cluster server's last log lines (all containers of its pod), for failure messages. */
export function inClusterServerLog(namespace: string, lines: number): string[] {
  try {
    return execFileSync(
      'kubectl',
      ['--kubeconfig', testKubeconfigPath(), '-n', namespace, 'logs', 'deploy/velero', '--all-containers', `--tail=${lines}`],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 },
    )
      .split('\n')
      .filter((line) => line !== '');
  } catch (error) {
    return [`(no log of deploy/velero: ${(error as Error).message.split('\n')[0]})`];
  }
}
