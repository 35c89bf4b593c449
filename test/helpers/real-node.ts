// The real node of the test cluster (test/cluster/node-up.sh: a kubelet with real containers), for
// the tests that need real containers: whether there is one (and why not), the images built for
// it, pod specs pinned to it, and exec / logs / in-pod TCP through the apiserver.
//
// Where the node comes from:
//   - local binaries (what CI here uses): global setup starts it with `up.sh --with-node` and
//     records the outcome in cluster.json (`node`);
//   - KUBECONFIG=<your cluster> (e.g. kind): a node labelled rehearsal.dev/real-node=true, with the
//     images of test/cluster/images/build-images.sh loaded into it
//     (`kind load image-archive <each path it prints>`); taint it or not, the pods tolerate it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { CoreV1Api, Exec, type KubeConfig, type V1PodSpec, type V1Status } from '@kubernetes/client-node';
import { clusterInfoFile, readClusterInfo } from './cluster-info.js';
import { waitFor } from './kube.js';

export const REAL_NODE_LABEL = 'rehearsal.dev/real-node';

/** Images built here by test/cluster/images/build-images.sh and imported into the node's runtime. */
export const REAL_NODE_IMAGES = {
  /** The shop's web server (/healthz 200 "ok", /broken 500, / 200 "shop"; logs each request) + busybox. */
  shop: 'rehearsal.local/shop:1',
  /** PostgreSQL 15 from Debian's packages; POSTGRES_PASSWORD / _USER / _DB like the official image. */
  postgres: 'rehearsal.local/postgres:15',
} as const;

export type RealNodeStatus =
  { available: true; nodeName: string } | { available: false; failed: boolean; reason: string };

interface RecordedNode {
  status?: string;
  reason?: string;
}

/**
 * Whether the cluster of this run has a real node. `failed` distinguishes "this host cannot run a
 * node" (the tests skip, saying why) from "it should have started and did not" (the tests fail).
 */
export async function realNodeStatus(kubeConfig: KubeConfig): Promise<RealNodeStatus> {
  const recorded = (JSON.parse(readFileSync(clusterInfoFile(), 'utf8')) as { node?: RecordedNode }).node;
  if (recorded && recorded.status !== 'ready') {
    return {
      available: false,
      failed: recorded.status === 'failed',
      reason: recorded.reason || String(recorded.status),
    };
  }
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const nodes = await core.listNode({ labelSelector: `${REAL_NODE_LABEL}=true` });
  const ready = nodes.items.find((node) =>
    (node.status?.conditions ?? []).some(
      (condition) => condition.type === 'Ready' && condition.status === 'True',
    ),
  );
  if (ready?.metadata?.name) return { available: true, nodeName: ready.metadata.name };
  return recorded
    ? {
        available: false,
        failed: true,
        reason: 'global setup started a real node, but no Ready node carries the label now',
      }
    : {
        available: false,
        failed: false,
        reason: `no Ready node labelled ${REAL_NODE_LABEL}=true in this cluster (label one and load the images of test/cluster/images/build-images.sh)`,
      };
}

/** Pins a pod to the real node: selects its label and tolerates its taint. */
export function onRealNode(spec: V1PodSpec): V1PodSpec {
  return {
    ...spec,
    nodeSelector: { ...spec.nodeSelector, [REAL_NODE_LABEL]: 'true' },
    tolerations: [...(spec.tolerations ?? []), { key: REAL_NODE_LABEL, operator: 'Exists' }],
  };
}

/** Waits for a pod's Ready condition and returns the pod. */
export async function waitForPodReady(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs = 90_000,
) {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return waitFor(
    async () => {
      const pod = await core.readNamespacedPod({ namespace, name });
      const ready = (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      return ready ? pod : undefined;
    },
    { timeoutMs, intervalMs: 500, description: `pod ${namespace}/${name} to be Ready` },
  );
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function collector(chunks: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
}

/**
 * Runs a command in a container through the apiserver (which dials the kubelet): the path
 * `kubectl exec` and Rehearsal's exec checks take. Resolves with the exit code and output.
 */
export async function execInPod(
  kubeConfig: KubeConfig,
  namespace: string,
  pod: string,
  container: string,
  command: string[],
  timeoutMs = 30_000,
): Promise<ExecResult> {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  return new Promise<ExecResult>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`exec ${command.join(' ')} in ${namespace}/${pod}: no answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onStatus = (status: V1Status): void => {
      clearTimeout(timer);
      let exitCode: number | undefined;
      if (status.status === 'Success') exitCode = 0;
      else if (status.reason === 'NonZeroExitCode') {
        exitCode = Number(status.details?.causes?.find((cause) => cause.reason === 'ExitCode')?.message);
      }
      if (exitCode === undefined || !Number.isInteger(exitCode)) {
        reject(
          new Error(
            `exec ${command.join(' ')} in ${namespace}/${pod} failed: ${status.message ?? JSON.stringify(status)}`,
          ),
        );
        return;
      }
      // The status arrives on its own channel; let the last output frames land first.
      setImmediate(() =>
        resolve({
          exitCode,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        }),
      );
    };
    new Exec(kubeConfig)
      .exec(namespace, pod, container, command, collector(stdout), collector(stderr), null, false, onStatus)
      .catch((error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
  });
}

/**
 * One HTTP/1.0 GET from inside a pod with busybox's nc (busybox's wget crashed in pods here):
 * the raw response, or undefined when no connection could be made within `seconds`. The
 * container defaults to the pod's name (the pods of real-node.test.ts are named so).
 */
export async function httpGetFromPod(
  kubeConfig: KubeConfig,
  namespace: string,
  pod: string,
  host: string,
  port: number,
  path: string,
  seconds = 3,
  container = pod,
): Promise<string | undefined> {
  const script = `printf 'GET ${path} HTTP/1.0\\r\\nHost: ${host}\\r\\n\\r\\n' | nc -w ${seconds} ${host} ${port}`;
  const result = await execInPod(
    kubeConfig,
    namespace,
    pod,
    container,
    ['sh', '-c', script],
    (seconds + 20) * 1000,
  );
  return result.exitCode === 0 && result.stdout.startsWith('HTTP/') ? result.stdout : undefined;
}

/**
 * Loads an image archive (an OCI layout in a tar, named by `io.containerd.image.name`) into the
 * local real node's containerd, as node-up.sh loads the node's own images: there is no registry.
 * Returns false where the node is not the local one (KUBECONFIG=<your cluster>): load the archive
 * yourself there (`kind load image-archive <path>`).
 */
export function importImageIntoNode(archive: string): boolean {
  const { workDir } = readClusterInfo();
  const env = workDir ? path.join(workDir, 'node/env') : '';
  if (!env || !existsSync(env)) return false;
  const socket = /^CONTAINERD_SOCK=(.+)$/m.exec(readFileSync(env, 'utf8'))?.[1];
  if (!socket) throw new Error(`${env} names no CONTAINERD_SOCK`);
  execFileSync('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'import', '--no-unpack', archive], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return true;
}
