// Objects that would act on the world if restored as backed up (issue 28), added to a source
// namespace beside the shop: a CronJob due every minute, a suspended Job (not completed: Velero
// would restore it), a running Pod of a Job (the Job controller's label, no owner: what Velero
// restores of a Job that was running), a LoadBalancer Service with an explicit node port, a load
// balancer class, external IPs and external-dns annotations, a NodePort Service, an Ingress
// claiming a host, and a NetworkPolicy allowing all egress.
import {
  BatchV1Api,
  CoreV1Api,
  NetworkingV1Api,
  type KubeConfig,
  type V1Service,
} from '@kubernetes/client-node';

/** A random node port (30000–32767); the apiserver answers 422 for a taken one, and the caller retries. */
function randomNodePort(): number {
  return 30000 + Math.floor(Math.random() * 2700);
}

export const SIDE_EFFECTS = {
  cronJob: 'billing',
  job: 'migrate',
  jobPod: 'migrate-x7k2p',
  loadBalancer: 'public',
  nodePort: 'admin',
  ingress: 'storefront',
  networkPolicy: 'allow-all-egress',
  host: 'shop.example.com',
} as const;

export async function addSideEffects(kubeConfig: KubeConfig, namespace: string): Promise<{ nodePort: number }> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const networking = kubeConfig.makeApiClient(NetworkingV1Api);
  const container = { name: 'job', image: 'example/job:1', command: ['charge-customers'] };
  await batch.createNamespacedCronJob({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.cronJob },
      spec: {
        schedule: '* * * * *',
        concurrencyPolicy: 'Forbid',
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } },
      },
    },
  });
  await batch.createNamespacedJob({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.job },
      spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [container] } } },
    },
  });
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.jobPod, labels: { 'batch.kubernetes.io/job-name': 'migrate-previous', 'job-name': 'migrate-previous' } },
      spec: { restartPolicy: 'Never', containers: [container] },
    },
  });
  let nodePort = 0;
  for (let attempt = 0; attempt < 10 && nodePort === 0; attempt += 1) {
    const candidate = randomNodePort();
    const service: V1Service = {
      metadata: {
        name: SIDE_EFFECTS.loadBalancer,
        annotations: {
          'external-dns.alpha.kubernetes.io/hostname': SIDE_EFFECTS.host,
          'external-dns.alpha.kubernetes.io/ttl': '60',
          'example.com/kept': 'yes',
        },
      },
      spec: {
        type: 'LoadBalancer',
        loadBalancerClass: 'example.com/lb',
        externalTrafficPolicy: 'Local',
        externalIPs: ['192.0.2.10'],
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, targetPort: 8080 as never, nodePort: candidate }],
      },
    };
    try {
      await core.createNamespacedService({ namespace, body: service });
      nodePort = candidate;
    } catch (error) {
      if ((error as { code?: number }).code !== 422) throw error;
    }
  }
  if (nodePort === 0) throw new Error('no free node port for the LoadBalancer Service');
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.nodePort },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'admin', port: 9090, protocol: 'TCP' }, { name: 'stats', port: 9091, protocol: 'UDP' }] },
    },
  });
  await networking.createNamespacedIngress({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.ingress },
      spec: {
        rules: [{ host: SIDE_EFFECTS.host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
      },
    },
  });
  await networking.createNamespacedNetworkPolicy({
    namespace,
    body: {
      metadata: { name: SIDE_EFFECTS.networkPolicy },
      spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
    },
  });
  return { nodePort };
}

