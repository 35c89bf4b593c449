// /metrics names every namespace and test: on the probe port, which every pod can reach, it answers
// only a token whose user may `get` the non-resource URL /metrics (TokenReview + SubjectAccessReview
// on the real apiserver, as kube-rbac-proxy asks), in every auth mode (issue 26). The kubelet's
// probe path /api/v1/health stays open. The shipped ClusterRole rehearsal-metrics-reader is what
// grants the right here, bound to a ServiceAccount standing in for Prometheus.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createServer } from 'node:net';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { kubectl } from '../helpers/install-crds.js';
import { createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const admin = testKubeConfig();
let namespace = '';
let binding = '';
let rehearsal: Rehearsal | undefined;
let probe = '';
let prometheusToken = '';
let podToken = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  kubectl(testKubeconfigPath(), ['apply', '-f', path.join(repoRoot, 'deploy/base/user-roles.yaml')]);
  namespace = await createNamespace(admin, uniqueName('metrics-access'));
  const core = admin.makeApiClient(CoreV1Api);
  for (const name of ['prometheus', 'some-pod']) {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  }
  binding = uniqueName('rehearsal-metrics-reader');
  await admin.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace }],
    },
  });
  // Cluster tokens, as Prometheus and any pod have them mounted.
  prometheusToken = await serviceAccountTokenFor(admin, namespace, 'prometheus', { rehearsalToo: false });
  podToken = await serviceAccountTokenFor(admin, namespace, 'some-pod', { rehearsalToo: false });
  const port = await freePort();
  // Auth mode none (the demo's): it relaxes port 8080 only, never the probe port.
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('metrics-access.kubeconfig'),
    extra: { REHEARSAL_PROBE_PORT: String(port), REHEARSAL_CONTROLLER: 'false' },
  });
  probe = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await admin.makeApiClient(RbacAuthorizationV1Api).deleteClusterRoleBinding({ name: binding }).catch(() => undefined);
  await deleteNamespaces(admin, [namespace]);
});

const scrape = (token?: string) => fetch(`${probe}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('/metrics on the probe port', () => {
  it('answers 401 without a token, and the kubelet\'s health probe still without one', async () => {
    const health = await fetch(`${probe}/api/v1/health`);
    expect(health.status).toBe(200);
    const anonymous = await scrape();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('rehearsal_');
    expect((await scrape('not-a-token')).status).toBe(401);
  });

  it('answers 403 to any pod\'s ServiceAccount token', async () => {
    const response = await scrape(podToken);
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('rehearsal_');
  });

  it('answers 200 to a token allowed to get /metrics (ClusterRole rehearsal-metrics-reader)', async () => {
    const response = await scrape(prometheusToken);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('rehearsal_');
  });
});
