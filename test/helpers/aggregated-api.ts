// Registers a Rehearsal server running on the host as the aggregated API api.rehearsal.dev/v1 of
// the test cluster: a serving certificate made with openssl (SAN rehearsal-api.rehearsal-system.svc,
// the name kube-apiserver verifies), an ExternalName Service rehearsal-api → localhost (the
// aggregator resolves ExternalName Services to <externalName>:<APIService port>, so it dials
// 127.0.0.1 and nothing else), and the APIService with the CA in caBundle. Mirrors
// deploy/base/apiservice.yaml; only the Service differs (no Pods here).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './cluster-info.js';
import { kubectl } from './install-crds.js';
import { waitFor } from './kube.js';
import { REHEARSAL_NAMESPACE } from './rehearsal-identity.js';

export const API_SERVICE = 'v1.api.rehearsal.dev';

export interface ServingCertificate {
  certFile: string;
  keyFile: string;
  caPem: string;
}

/** A private CA and a serving certificate for rehearsal-api.<namespace>.svc, valid for a day. */
export function makeServingCertificate(dir: string, namespace = REHEARSAL_NAMESPACE): ServingCertificate {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
  openssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=rehearsal-api-test-ca', '-days', '1', '-out', 'ca.crt',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tls.key');
  openssl('req', '-new', '-key', 'tls.key', '-subj', `/CN=rehearsal-api.${namespace}.svc`, '-out', 'tls.csr');
  writeFileSync(
    path.join(dir, 'tls.ext'),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:rehearsal-api.${namespace}.svc\n`,
  );
  openssl('x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', 'tls.crt', '-extfile', 'tls.ext');
  return { certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), caPem: readFileSync(path.join(dir, 'ca.crt'), 'utf8') };
}

interface ApiServiceObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** The APIService's Available condition, e.g. "True Passed: all checks passed". */
export function availability(adminPath: string): string {
  const object = JSON.parse(kubectl(adminPath, ['get', 'apiservice', API_SERVICE, '-o', 'json'])) as ApiServiceObject;
  const condition = object.status?.conditions?.find((item) => item.type === 'Available');
  return condition ? `${condition.status} ${condition.reason ?? ''}: ${condition.message ?? ''}` : 'no Available condition';
}

/** Creates the Service and APIService and waits for Available=True (returns how long it took). */
export async function registerAggregatedApi(adminPath: string, port: number, caPem: string): Promise<number> {
  const started = Date.now();
  kubectl(adminPath, ['apply', '-f', path.join(repoRoot, 'deploy/base/namespace.yaml')]);
  kubectl(adminPath, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'rehearsal-api', namespace: REHEARSAL_NAMESPACE },
        spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'aggregated', port }] },
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: API_SERVICE },
        spec: {
          group: 'api.rehearsal.dev',
          version: 'v1',
          groupPriorityMinimum: 1000,
          versionPriority: 15,
          service: { namespace: REHEARSAL_NAMESPACE, name: 'rehearsal-api', port },
          caBundle: Buffer.from(caPem).toString('base64'),
        },
      },
    ],
  }));
  let last = '';
  await waitFor(
    () => {
      last = availability(adminPath);
      return last.startsWith('True ');
    },
    { timeoutMs: 60_000, intervalMs: 250, description: `APIService ${API_SERVICE} to become Available (last: ${last})` },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last condition: ${last}`);
  });
  return Date.now() - started;
}

export function unregisterAggregatedApi(adminPath: string): void {
  for (const args of [
    ['delete', 'apiservice', API_SERVICE, '--ignore-not-found'],
    ['delete', 'service', 'rehearsal-api', '-n', REHEARSAL_NAMESPACE, '--ignore-not-found'],
  ]) {
    try {
      kubectl(adminPath, args);
    } catch {
      // best effort
    }
  }
}
