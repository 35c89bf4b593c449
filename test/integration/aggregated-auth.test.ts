// Issue 26: the aggregation port reviews every caller in every auth mode. kube-apiserver names the
// caller there, so REHEARSAL_AUTH_MODE=none (the demo's mode) may relax port 8080 only. A user who
// holds nothing but the cluster-scoped entrance to api.rehearsal.dev (enough for kube-apiserver to
// proxy the request) is refused by Rehearsal's own SubjectAccessReview for a test in a namespace
// they have no rights in, for a read and a delete; port 8080 in mode none still answers.
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { makeServingCertificate, registerAggregatedApi, unregisterAggregatedApi } from '../helpers/aggregated-api.js';
import { kubectl } from '../helpers/install-crds.js';
import { closedLoopbackPort, createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const admin = testKubeConfig();
const adminPath = testKubeconfigPath();
const TEST = 'guarded';
let tenantNamespace = '';
let otherNamespace = '';
let entrance = '';
let tenantToken = '';
let rehearsal: Rehearsal | undefined;

/**
 * The tenant's request to kube-apiserver, which proxies it to the aggregation port: its status and
 * body (kubectl would print only "Forbidden"). Asynchronous: the server runs in this process.
 */
function asTenant(method: string, path: string): Promise<{ status: number; body: string }> {
  const cluster = admin.getCurrentCluster()!;
  const url = new URL(path, cluster.server);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      { method, headers: { authorization: `Bearer ${tenantToken}` }, ca: Buffer.from(cluster.caData!, 'base64') },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function testExists(): Promise<boolean> {
  try {
    await admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'rehearsal.dev', version: 'v1alpha1', plural: 'restoretests', namespace: otherNamespace, name: TEST,
    });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  tenantNamespace = await createNamespace(admin, uniqueName('agg-tenant', 30));
  otherNamespace = await createNamespace(admin, uniqueName('agg-other', 30));
  await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: tenantNamespace, body: { metadata: { name: 'entrant' } } });
  // Only the entrance: kube-apiserver lets every read and the delete of tests through to Rehearsal.
  entrance = `${tenantNamespace}-entrance`;
  kubectl(adminPath, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: entrance },
    rules: [{ apiGroups: ['api.rehearsal.dev'], resources: ['tests'], verbs: ['get', 'list', 'delete'] }],
  }));
  kubectl(adminPath, ['create', 'clusterrolebinding', entrance, '--clusterrole', entrance, '--serviceaccount', `${tenantNamespace}:entrant`]);
  tenantToken = await serviceAccountTokenFor(admin, tenantNamespace, 'entrant', { rehearsalToo: false });
  const dir = mkdtempSync(path.join(tmpdir(), 'rh-agg-auth-'));

  await admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'rehearsal.dev', version: 'v1alpha1', plural: 'restoretests', namespace: otherNamespace,
    body: {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: TEST, namespace: otherNamespace },
      spec: { provider: 'velero', backupSource: { namespaces: [{ name: otherNamespace }] }, schedule: { cron: '0 0 1 1 *', suspend: true } },
    },
  });

  const pki = makeServingCertificate(path.join(dir, 'pki'));
  const aggregationPort = await closedLoopbackPort();
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('aggregated-auth.kubeconfig'),
    extra: {
      REHEARSAL_AUTH_MODE: 'none',
      REHEARSAL_CONTROLLER: 'false',
      REHEARSAL_AGGREGATION_PORT: String(aggregationPort),
      REHEARSAL_TLS_CERT_FILE: pki.certFile,
      REHEARSAL_TLS_KEY_FILE: pki.keyFile,
    },
  });
  await registerAggregatedApi(adminPath, aggregationPort, pki.caPem);
}, 180_000);

afterAll(async () => {
  unregisterAggregatedApi(adminPath);
  await rehearsal?.stop();
  kubectl(adminPath, ['delete', 'clusterrolebinding', entrance, '--ignore-not-found']);
  kubectl(adminPath, ['delete', 'clusterrole', entrance, '--ignore-not-found']);
  await deleteNamespaces(admin, [tenantNamespace, otherNamespace]);
});

describe('auth mode none', () => {
  it("refuses a user with only the entrance another namespace's test on the aggregated port (GET and DELETE)", async () => {
    const user = `system:serviceaccount:${tenantNamespace}:entrant`;
    const path = `/apis/api.rehearsal.dev/v1/tests/${TEST}?namespace=${otherNamespace}`;
    const read = await asTenant('GET', path);
    expect(read.status).toBe(403);
    // Rehearsal's refusal (problem+json; kube-apiserver's own would be a Status naming tests.api.rehearsal.dev).
    expect(JSON.parse(read.body)).toMatchObject({
      status: 403,
      detail: `User "${user}" cannot get restoretests.rehearsal.dev "${TEST}" in namespace "${otherNamespace}".`,
    });

    const removal = await asTenant('DELETE', path);
    expect(removal.status).toBe(403);
    expect(JSON.parse(removal.body)).toMatchObject({
      detail: `User "${user}" cannot delete restoretests.rehearsal.dev "${TEST}" in namespace "${otherNamespace}".`,
    });
    expect(await testExists()).toBe(true);
  });

  it('still answers on port 8080, where none relaxes the checks', async () => {
    const answer = await fetch(`http://127.0.0.1:${rehearsal!.port()}/api/v1/tests/${TEST}?namespace=${otherNamespace}`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { name: string }).name).toBe(TEST);
  });
});
