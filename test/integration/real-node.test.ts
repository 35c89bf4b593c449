// Real containers on the real node (test/cluster/node-up.sh), through the test control plane:
//   - a pod from an image built here (test/cluster/images) becomes Ready through its HTTP
//     readiness probe, and one whose probe path answers 500 does not;
//   - exec and logs go through the apiserver to the kubelet;
//   - PostgreSQL assembled from Debian's packages initialises itself on first start (password,
//     database, init scripts from a ConfigMap) and answers SQL on the pod's IP;
//   - a Service answers from another pod by its ClusterIP (kube-proxy) and by its cluster-DNS name
//     (CoreDNS), and a name outside the cluster does not resolve (nothing is forwarded);
//   - NetworkPolicy is enforced (kube-router): a default-deny refuses, an allow rule lets exactly
//     the allowed namespace in, and an egress deny holds the client back again. Every step asserts
//     both outcomes, so without an enforcer (or with one that blocks everything) the test fails.
// Where this host cannot run a node the suite is skipped with the reason printed; where the node
// should have started and did not, it fails.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { CoreV1Api, NetworkingV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import pg from 'pg';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { execInPod, httpGetFromPod, onRealNode, REAL_NODE_IMAGES, realNodeStatus, waitForPodReady } from '../helpers/real-node.js';
import { describeOnRealNode } from '../helpers/real-node-suite.js';

const kubeConfig: KubeConfig = testKubeConfig();
const node = await realNodeStatus(kubeConfig);

/** A shop pod (the image's HTTP server on 8080) whose readiness probe GETs `probePath`. */
function shopPod(name: string, labels: Record<string, string>, probePath = '/healthz'): V1Pod {
  return {
    metadata: { name, labels },
    spec: onRealNode({
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name,
          image: REAL_NODE_IMAGES.shop,
          imagePullPolicy: 'Never',
          ports: [{ containerPort: 8080 }],
          readinessProbe: {
            httpGet: { path: probePath, port: 8080 as never },
            periodSeconds: 1,
            failureThreshold: 1,
          },
        },
      ],
    }),
  };
}

describeOnRealNode('test/integration/real-node.test.ts', node, 'a real node with real containers', () => {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const networking = kubeConfig.makeApiClient(NetworkingV1Api);
  const server = uniqueName('node-server');
  const client = uniqueName('node-client');
  const outsider = uniqueName('node-outsider');
  let clusterIP = '';
  const webHost = `web.${server}.svc.cluster.local`;
  /** Can the client pod in `namespace` GET /healthz from the server's Service (by its DNS name)? */
  const reaches = async (namespace: string): Promise<boolean> =>
    (await httpGetFromPod(kubeConfig, namespace, 'client', webHost, 80, '/healthz'))?.includes(
      '\r\n\r\nok',
    ) ?? false;
  /**
   * Polls until every client's reachability is as expected (policies take a moment to reach the
   * host's iptables, and kube-router rewrites its chains while it syncs), then asserts it still
   * holds a few seconds later: a settled state, not a moment.
   */
  const settles = async (expected: Record<string, boolean>, description: string): Promise<void> => {
    const matches = async () => {
      for (const [namespace, reachable] of Object.entries(expected))
        if ((await reaches(namespace)) !== reachable) return false;
      return true;
    };
    await waitFor(matches, { timeoutMs: 45_000, intervalMs: 1000, description });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const [namespace, reachable] of Object.entries(expected)) {
      expect({ namespace, reachable: await reaches(namespace) }).toEqual({ namespace, reachable });
    }
  };

  beforeAll(async () => {
    if (!node.available) throw new Error(`the real node should be running and is not: ${node.reason}`);
    for (const namespace of [server, client, outsider])
      await createNamespace(kubeConfig, namespace, { 'rehearsal.dev/test': 'real-node' });
    await core.createNamespacedPod({ namespace: server, body: shopPod('web', { app: 'web' }) });
    await core.createNamespacedPod({
      namespace: server,
      body: shopPod('broken', { app: 'broken' }, '/broken'),
    });
    await core.createNamespacedService({
      namespace: server,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 as never }] },
      },
    });
    for (const namespace of [client, outsider]) {
      await core.createNamespacedPod({ namespace, body: shopPod('client', { app: 'client' }) });
    }
    clusterIP = (await core.readNamespacedService({ namespace: server, name: 'web' })).spec?.clusterIP ?? '';
    await Promise.all([
      waitForPodReady(kubeConfig, server, 'web'),
      waitForPodReady(kubeConfig, client, 'client'),
      waitForPodReady(kubeConfig, outsider, 'client'),
    ]);
  });

  afterAll(async () => {
    await deleteNamespaces(kubeConfig, [server, client, outsider]);
  });

  test('a pod from an image built here runs on the real node and is Ready through its HTTP probe', async () => {
    const pod = await core.readNamespacedPod({ namespace: server, name: 'web' });
    expect(pod.spec?.nodeName).toBe(node.available ? node.nodeName : '');
    const status = pod.status?.containerStatuses?.[0];
    expect(status?.image).toBe(REAL_NODE_IMAGES.shop);
    expect(status?.ready).toBe(true);
    expect(status?.containerID).toMatch(/^containerd:\/\//);
    expect(pod.status?.podIP).toMatch(/^10\.244\.1\./);
    // The same image, probed on /broken (500), runs but is never Ready: the probe is real.
    const broken = await waitFor(
      async () => {
        const candidate = await core.readNamespacedPod({ namespace: server, name: 'broken' });
        return candidate.status?.containerStatuses?.[0]?.state?.running ? candidate : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the broken pod to run' },
    );
    await new Promise((resolve) => setTimeout(resolve, 3000)); // several probe periods
    const again = await core.readNamespacedPod({ namespace: server, name: 'broken' });
    expect(broken.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect(again.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect(again.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  test('exec and logs go through the apiserver to the kubelet', async () => {
    const result = await execInPod(kubeConfig, server, 'web', 'web', [
      'sh',
      '-c',
      'echo "answer $((6 * 7))"; id -u; hostname',
    ]);
    expect(result).toEqual({ exitCode: 0, stdout: 'answer 42\n65532\nweb\n', stderr: '' });
    const failing = await execInPod(kubeConfig, server, 'web', 'web', ['sh', '-c', 'echo oops >&2; exit 7']);
    expect(failing).toEqual({ exitCode: 7, stdout: '', stderr: 'oops\n' });
    // The server logs every request: its start line and the kubelet's probes are in the log.
    const log = await core.readNamespacedPodLog({ namespace: server, name: 'web', container: 'web' });
    expect(log).toMatch(/shop listening on :8080/);
    expect(log).toMatch(/GET \/healthz/);
  });

  test('a Service answers from another pod by its ClusterIP and by its cluster-DNS name', async () => {
    expect(clusterIP).toMatch(/^10\.0\.0\./);
    const byIP = await httpGetFromPod(kubeConfig, client, 'client', clusterIP, 80, '/healthz');
    expect(byIP).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
    expect(byIP).toMatch(/\r\n\r\nok$/);
    const broken = await httpGetFromPod(kubeConfig, client, 'client', clusterIP, 80, '/broken');
    expect(broken).toMatch(/^HTTP\/1\.[01] 500 /);
    const lookup = await execInPod(kubeConfig, client, 'client', 'client', ['nslookup', webHost]);
    expect(lookup.exitCode).toBe(0);
    expect(lookup.stdout).toContain(`Address: ${clusterIP}`);
    // The short name through the pod's search path, as applications use it.
    const short = await httpGetFromPod(kubeConfig, client, 'client', `web.${server}`, 80, '/healthz');
    expect(short).toMatch(/\r\n\r\nok$/);
    // CoreDNS forwards nothing: a name outside the cluster does not resolve.
    const outside = await execInPod(kubeConfig, client, 'client', 'client', ['nslookup', 'example.com']);
    expect(outside.exitCode).not.toBe(0);
  });

  test("PostgreSQL from Debian's packages initialises on first start and answers SQL on the pod's IP", async () => {
    await core.createNamespacedConfigMap({
      namespace: server,
      body: {
        metadata: { name: 'db-init' },
        data: {
          'orders.sql':
            'CREATE TABLE orders (id serial PRIMARY KEY, total numeric NOT NULL);\n' +
            'INSERT INTO orders (total) VALUES (19.90), (42.00), (7.50);\n',
        },
      },
    });
    await core.createNamespacedPod({
      namespace: server,
      body: {
        metadata: { name: 'db', labels: { app: 'db' } },
        spec: onRealNode({
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'db',
              image: REAL_NODE_IMAGES.postgres,
              imagePullPolicy: 'Never',
              env: [
                { name: 'POSTGRES_USER', value: 'shop_app' },
                { name: 'POSTGRES_PASSWORD', value: 'restore-me-0' },
                { name: 'POSTGRES_DB', value: 'shop' },
              ],
              ports: [{ containerPort: 5432 }],
              readinessProbe: { tcpSocket: { port: 5432 as never }, periodSeconds: 1 },
              volumeMounts: [
                { name: 'data', mountPath: '/var/lib/postgresql/data' },
                { name: 'init', mountPath: '/docker-entrypoint-initdb.d' },
              ],
            },
          ],
          volumes: [
            { name: 'data', emptyDir: {} },
            { name: 'init', configMap: { name: 'db-init' } },
          ],
        }),
      },
    });
    const pod = await waitForPodReady(kubeConfig, server, 'db', 120_000);
    // From the host, which reaches pod IPs on the bridge (the kubelet's probes take this path).
    const query = async (password: string) => {
      const db = new pg.Client({
        host: pod.status?.podIP,
        port: 5432,
        user: 'shop_app',
        password,
        database: 'shop',
        connectionTimeoutMillis: 10_000,
      });
      await db.connect();
      try {
        return (await db.query<{ count: string }>('SELECT count(*) FROM orders')).rows[0]?.count;
      } finally {
        await db.end();
      }
    };
    expect(
      await waitFor(() => query('restore-me-0'), {
        timeoutMs: 30_000,
        intervalMs: 1000,
        description: 'PostgreSQL to answer',
      }),
    ).toBe('3');
    await expect(query('wrong-password')).rejects.toThrow(/password authentication failed/);
    const log = await core.readNamespacedPodLog({ namespace: server, name: 'db', container: 'db' });
    expect(log).toContain('running /docker-entrypoint-initdb.d/orders.sql');
  });

  test('NetworkPolicy is enforced: default deny refuses, an allow rule lets exactly that namespace in', async () => {
    // No policy yet: both clients reach the server.
    await settles({ [client]: true, [outsider]: true }, 'both clients to reach the server without a policy');

    await networking.createNamespacedNetworkPolicy({
      namespace: server,
      body: { metadata: { name: 'default-deny' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } },
    });
    await settles({ [client]: false, [outsider]: false }, 'default-deny ingress to refuse both clients');

    await networking.createNamespacedNetworkPolicy({
      namespace: server,
      body: {
        metadata: { name: 'allow-client' },
        spec: {
          podSelector: { matchLabels: { app: 'web' } },
          policyTypes: ['Ingress'],
          ingress: [
            { _from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': client } } }] },
          ],
        },
      },
    });
    await settles(
      { [client]: true, [outsider]: false },
      'the allow rule to let the client in, and only the client',
    );

    // Egress, from the client's side: deny it all (DNS included), then allow DNS and the server.
    await networking.createNamespacedNetworkPolicy({
      namespace: client,
      body: { metadata: { name: 'deny-egress' }, spec: { podSelector: {}, policyTypes: ['Egress'] } },
    });
    await settles({ [client]: false }, 'default-deny egress to hold the client back');
    await networking.createNamespacedNetworkPolicy({
      namespace: client,
      body: {
        metadata: { name: 'allow-egress' },
        spec: {
          podSelector: {},
          policyTypes: ['Egress'],
          egress: [
            {
              to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
              ports: [{ port: 53, protocol: 'UDP' }],
            },
            {
              to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': server } } }],
              ports: [{ port: 8080 }],
            },
          ],
        },
      },
    });
    await settles({ [client]: true, [outsider]: false }, 'the egress allow rule to let the client out again');
  });
});
