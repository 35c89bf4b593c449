// The workload reader of test drafts (issue 32): Kubernetes objects reduced to the facts the
// drafting reads — probes with named and numbered ports, env from Secrets, DaemonSets without
// replicas, terminating objects left out, Services with and without selectors.
import { describe, expect, it } from '@jest/globals';
import type { V1DaemonSet, V1Deployment, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { readNamespaceFacts, type WorkloadReaderClients } from '../../../server/inventory/workloads.kube.js';

function clients(items: { deployments?: V1Deployment[]; statefulSets?: V1StatefulSet[]; daemonSets?: V1DaemonSet[]; services?: V1Service[] }) {
  const asked: string[] = [];
  const list = <T>(kind: string, values: T[] | undefined) => async ({ namespace }: { namespace: string }) => {
    asked.push(`${kind}/${namespace}`);
    return { items: values ?? [] };
  };
  const fake = {
    apps: {
      listNamespacedDeployment: list('deployments', items.deployments),
      listNamespacedStatefulSet: list('statefulsets', items.statefulSets),
      listNamespacedDaemonSet: list('daemonsets', items.daemonSets),
    },
    core: { listNamespacedService: list('services', items.services) },
  } as unknown as WorkloadReaderClients;
  return { fake, asked };
}

describe('readNamespaceFacts', () => {
  it('reduces workloads and Services to the facts a draft needs, listing only in the namespace asked', async () => {
    const { fake, asked } = clients({
      deployments: [
        {
          metadata: { name: 'web' },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web', version: 'v2' } },
              spec: {
                containers: [
                  {
                    name: 'web',
                    image: 'example/web:2',
                    ports: [{ name: 'http', containerPort: 8080 }],
                    readinessProbe: { httpGet: { path: '/ready', port: 'http' as never } },
                    livenessProbe: { httpGet: { path: '/live', port: 8080 as never, scheme: 'HTTPS' } },
                    env: [
                      { name: 'MODE', value: 'prod' },
                      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-secrets', key: 'token' } } },
                    ],
                    envFrom: [{ secretRef: { name: 'web-env' } }, { configMapRef: { name: 'settings' } }],
                  },
                ],
              },
            },
          },
        },
        { metadata: { name: 'going', deletionTimestamp: new Date() }, spec: { selector: {}, template: {} } },
      ],
      daemonSets: [{ metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } }],
      services: [
        { metadata: { name: 'web' }, spec: { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' as never, protocol: 'TCP' }] } },
        { metadata: { name: 'external' }, spec: { type: 'ExternalName', ports: [] } },
      ],
    });
    const facts = await readNamespaceFacts(fake, 'shop');
    expect(asked.sort()).toEqual(['daemonsets/shop', 'deployments/shop', 'services/shop', 'statefulsets/shop']);
    expect(facts).toEqual({
      namespace: 'shop',
      workloads: [
        {
          kind: 'Deployment',
          name: 'web',
          replicas: 3,
          selector: { app: 'web' },
          podLabels: { app: 'web', version: 'v2' },
          containers: [
            {
              name: 'web',
              image: 'example/web:2',
              ports: [{ name: 'http', containerPort: 8080 }],
              httpProbes: [
                { probe: 'readiness', path: '/ready', port: 'http' },
                { probe: 'liveness', path: '/live', port: 8080, scheme: 'HTTPS' },
              ],
              env: [
                { name: 'MODE', value: 'prod' },
                { name: 'TOKEN', secretKeyRef: { name: 'web-secrets', key: 'token' } },
              ],
              envFromSecrets: ['web-env'],
            },
          ],
        },
        {
          kind: 'DaemonSet',
          name: 'agent',
          selector: { app: 'agent' },
          podLabels: {},
          containers: [{ name: 'a', image: 'x', ports: [], httpProbes: [], env: [], envFromSecrets: [] }],
        },
      ],
      services: [
        { name: 'web', type: 'ClusterIP', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
        { name: 'external', type: 'ExternalName', ports: [] },
      ],
    });
  });
});
