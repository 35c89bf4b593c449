// Generic helpers for tests that talk to the test cluster: a KubeConfig for the cluster the
// integration global setup chose, unique RFC 1123 names, polling with a deadline, and throw-away
// namespaces. Nothing here is specific to one feature; keep it that way.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, type V1Namespace } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../server/kube/client.js';
import { readClusterInfo } from './cluster-info.js';

/** The cluster of this test run (KUBECONFIG, k3s or local binaries: see global-setup.ts). */
export function testKubeconfigPath(): string {
  return readClusterInfo().kubeconfigPath;
}

/**
 * A fresh KubeConfig for the test cluster (the admin identity), with the server's request deadline:
 * a lost response fails the request (and shows up) instead of stalling a helper such as the Velero
 * simulator for minutes.
 */
export function testKubeConfig(kubeconfigPath: string = testKubeconfigPath()): KubeConfig {
  return loadKubeConfig(kubeconfigPath);
}

/**
 * A KubeConfig aimed at a loopback port nobody listens on: every request fails with a connection
 * error (ECONNREFUSED), for "API unreachable" tests; get a port from closedLoopbackPort(). Never
 * points anywhere but 127.0.0.1.
 */
export function unreachableKubeConfig(port: number): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'unreachable', server: `https://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'nobody', token: 'unused' }],
    contexts: [{ name: 'unreachable', cluster: 'unreachable', user: 'nobody' }],
    currentContext: 'unreachable',
  });
  return kubeConfig;
}

/**
 * A name no other test (or earlier run) uses: `<prefix>-<8 random hex>`, lower-case, at most
 * `maxLength` characters (63 = an RFC 1123 label, the limit for namespaces and most names).
 */
export function uniqueName(prefix: string, maxLength = 63): string {
  const suffix = randomBytes(4).toString('hex');
  const cleaned = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const head = cleaned.slice(0, Math.max(1, maxLength - suffix.length - 1)).replace(/-+$/g, '') || 'x';
  return `${head}-${suffix}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitForOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** Names the condition in the timeout error. */
  description?: string;
}

/**
 * Polls `probe` until it returns something other than undefined/false/null and returns that value.
 * A probe that throws is retried (the last error is reported on timeout), so probes may simply
 * read objects that do not exist yet.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'}${reason}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** Creates a namespace (labels optional) and returns its name. */
export async function createNamespace(
  kubeConfig: KubeConfig,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const body: V1Namespace = { metadata: { name, labels } };
  await core.createNamespace({ body });
  return name;
}

/**
 * Deletes namespaces without waiting for their finalization (the controller-manager empties them
 * in the background). Missing namespaces are fine: this is for afterAll/afterEach.
 */
export async function deleteNamespaces(kubeConfig: KubeConfig, names: readonly string[]): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await Promise.all(
    names.map(async (name) => {
      try {
        await core.deleteNamespace({ name, propagationPolicy: 'Background' });
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
    }),
  );
}

/**
 * Waits until the namespaces are gone from the apiserver (their contents deleted by the namespace
 * controller). Suites call it for namespaces holding many objects, so the next suite does not start
 * while the control plane and every watching server are still busy with the cascade.
 */
export async function waitForNamespacesGone(
  kubeConfig: KubeConfig,
  names: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await waitFor(
    async () => {
      const remaining = await Promise.all(
        names.map(async (name) => {
          try {
            await core.readNamespace({ name });
            return true;
          } catch (error) {
            if ((error as { code?: number }).code === 404) return false;
            throw error;
          }
        }),
      );
      return remaining.every((exists) => !exists);
    },
    { timeoutMs, intervalMs: 1000, description: `namespaces ${names.join(', ')} to be deleted` },
  );
}

/** Whether a namespace exists (and is not being deleted). */
export async function namespaceExists(kubeConfig: KubeConfig, name: string): Promise<boolean> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  try {
    const namespace = await core.readNamespace({ name });
    return !namespace.metadata?.deletionTimestamp;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false;
    throw error;
  }
}

/** The HTTP status of a failed @kubernetes/client-node call, or undefined (no HTTP answer). */
export function apiStatusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** A loopback port that nothing listens on right now (bound, then released). */
export async function closedLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
