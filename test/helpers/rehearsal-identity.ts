// Runs Rehearsal in tests under its production identity: the rehearsal ServiceAccount with the
// RBAC of deploy/base/rbac.yaml, authenticated by a bound token. Besides testing the RBAC, this is
// what lets the audit log tell Rehearsal's writes apart from the test harness's.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { repoRoot } from './cluster-info.js';
import { kubectl } from './install-crds.js';
import { testKubeConfig, testKubeconfigPath } from './kube.js';

export const REHEARSAL_NAMESPACE = 'rehearsal-system';
export const REHEARSAL_USER = `system:serviceaccount:${REHEARSAL_NAMESPACE}:rehearsal`;

/** Applies namespace + RBAC, mints a token, writes a kubeconfig for it and returns its path. */
export async function rehearsalKubeconfig(file = 'rehearsal.kubeconfig'): Promise<string> {
  const adminPath = testKubeconfigPath();
  kubectl(adminPath, ['apply', '-f', path.join(repoRoot, 'deploy/base/namespace.yaml')]);
  // rbac.yaml binds the Velero role in the installation's provider namespace, "velero".
  kubectl(adminPath, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'velero' } }));
  kubectl(adminPath, ['apply', '-f', path.join(repoRoot, 'deploy/base/rbac.yaml')]);
  const admin: KubeConfig = testKubeConfig();
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    namespace: REHEARSAL_NAMESPACE,
    name: 'rehearsal',
    body: { spec: { audiences: [], expirationSeconds: 24 * 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error('TokenRequest returned no token');
  const cluster = admin.getCurrentCluster()!;
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': caData(admin) } }],
    users: [{ name: 'rehearsal', user: { token } }],
    contexts: [{ name: 'rehearsal', context: { cluster: 'test', user: 'rehearsal', namespace: REHEARSAL_NAMESPACE } }],
    'current-context': 'rehearsal',
  };
  const out = path.join(repoRoot, 'test/.tmp', file);
  writeFileSync(out, JSON.stringify(kubeconfig), { mode: 0o600 });
  return out;
}

function caData(kubeConfig: KubeConfig): string {
  const cluster = kubeConfig.getCurrentCluster()!;
  if (cluster.caData) return cluster.caData;
  throw new Error('the test cluster kubeconfig has no inline CA data');
}

/** The audience a bearer token for Rehearsal's port 8080 must carry (REHEARSAL_TOKEN_AUDIENCES default). */
export const REHEARSAL_TOKEN_AUDIENCE = 'rehearsal.dev';

/**
 * A bound ServiceAccount token valid for Rehearsal's port 8080 and, unless `clusterToo` is false,
 * for kube-apiserver as well (its own audiences, read from a default token's `aud` claim).
 */
export async function serviceAccountTokenFor(
  admin: KubeConfig,
  namespace: string,
  name: string,
  options: { clusterToo?: boolean; rehearsalToo?: boolean } = {},
): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  const mint = async (audiences: string[]) => {
    const request = await core.createNamespacedServiceAccountToken({
      namespace,
      name,
      body: { spec: { audiences, expirationSeconds: 3600 } },
    });
    const token = request.status?.token;
    if (!token) throw new Error('TokenRequest returned no token');
    return token;
  };
  const clusterToken = await mint([]);
  if (options.rehearsalToo === false) return clusterToken;
  const payload = JSON.parse(Buffer.from(clusterToken.split('.')[1]!, 'base64url').toString('utf8')) as { aud?: string[] | string };
  const clusterAudiences = options.clusterToo === false ? [] : [payload.aud ?? []].flat();
  return mint([...clusterAudiences, REHEARSAL_TOKEN_AUDIENCE]);
}
