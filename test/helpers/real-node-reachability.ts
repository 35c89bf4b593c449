// Which connections between real pods the node lets through, judged as a settled table rather
// than a moment: NetworkPolicies take a while to reach the host's iptables, and kube-router
// rewrites its chains while it syncs, so a test polls until every connection is as it expects and
// then reads the whole table again a few seconds later. The test asserts that second reading, so
// a table that never settles, or flips back, fails with the connections that differ.
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { sleep, waitFor } from './kube.js';
import { httpGetFromPod } from './real-node.js';

/** A pod to dial from: namespace, pod name and the container with busybox's nc. */
export interface Dialer {
  namespace: string;
  pod: string;
  container: string;
}

export function dialerOf(pod: V1Pod): Dialer {
  return {
    namespace: pod.metadata?.namespace ?? '',
    pod: pod.metadata?.name ?? '',
    container: pod.spec?.containers[0]?.name ?? '',
  };
}

export interface Connection {
  /** Names the row in a failure (e.g. "outsider → sandbox web"). */
  name: string;
  from: Dialer;
  /** A shop Service: `<service>.<namespace>.svc.cluster.local`, port 80, path /healthz. */
  to: { service: string; namespace: string };
  reachable: boolean;
}

/** Whether the pod gets the shop's "ok" from the Service, through cluster DNS and kube-proxy. */
export async function reaches(kubeConfig: KubeConfig, from: Dialer, to: Connection['to']): Promise<boolean> {
  const host = `${to.service}.${to.namespace}.svc.cluster.local`;
  const answer = await httpGetFromPod(kubeConfig, from.namespace, from.pod, host, 80, '/healthz', 3, from.container);
  return answer?.includes('\r\n\r\nok') ?? false;
}

async function readTable(kubeConfig: KubeConfig, connections: readonly Connection[]): Promise<Record<string, boolean>> {
  const table: Record<string, boolean> = {};
  // One at a time: each is an exec through the apiserver, and the machine has two cores.
  for (const connection of connections) table[connection.name] = await reaches(kubeConfig, connection.from, connection.to);
  return table;
}

/**
 * Waits (up to `timeoutMs`) until every connection is as expected, pauses, and returns a second
 * reading of the whole table for the test to compare with `expectedTable(connections)`.
 */
export async function settledReachability(
  kubeConfig: KubeConfig,
  connections: readonly Connection[],
  timeoutMs = 60_000,
): Promise<Record<string, boolean>> {
  const wanted = expectedTable(connections);
  let last: Record<string, boolean> = {};
  try {
    await waitFor(
      async () => {
        last = await readTable(kubeConfig, connections);
        return Object.entries(wanted).every(([name, reachable]) => last[name] === reachable);
      },
      { timeoutMs, intervalMs: 1000, description: 'the connections to be as expected' },
    );
  } catch {
    return last; // the test's comparison names the rows that differ
  }
  await sleep(3000);
  return readTable(kubeConfig, connections);
}

export function expectedTable(connections: readonly Connection[]): Record<string, boolean> {
  return Object.fromEntries(connections.map((connection) => [connection.name, connection.reachable]));
}
