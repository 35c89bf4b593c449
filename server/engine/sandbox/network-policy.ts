// The NetworkPolicy of networkIsolation: strict (decision 0012). Every namespace peer selects by
// `kubernetes.io/metadata.name`, which kube-apiserver sets from the namespace's name and nobody
// can change: any other namespace label can be set by whoever may label (or create) a namespace,
// and a peer selected by such a label would let a tenant pull their namespace into the sandbox's
// allowed set — a path out for the restored copy of another team's data. Pod labels are trusted
// only inside namespaces named here (the cluster DNS's and the server's own).
import type { V1LabelSelector, V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';

/** Set by kube-apiserver on every namespace (Kubernetes ≥1.22): the namespace's name, unforgeable. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Where the cluster DNS runs: the only peer sandboxes may send to outside their run. */
export interface SandboxDns {
  namespace: string;
  /** Labels of the DNS pods in that namespace; empty = every pod there. */
  podLabels: Record<string, string>;
}

export const DEFAULT_SANDBOX_DNS: Readonly<SandboxDns> = Object.freeze({
  namespace: 'kube-system',
  podLabels: Object.freeze({ 'k8s-app': 'kube-dns' }),
});

export interface StrictPolicyInput {
  /** Every sandbox namespace of the run (the plan knows them all before the first is created). */
  sandboxes: string[];
  /** Namespace and pod labels of the Rehearsal API pods, whose probes must still get in. */
  proberNamespace: string;
  proberPodLabels: Record<string, string>;
  dns: SandboxDns;
  /** Labels of the policy object itself. */
  labels: Record<string, string>;
}

/** A selector of exactly these namespaces, by name. */
export function namespacesNamed(names: string[]): V1LabelSelector {
  return {
    matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...new Set(names)].sort() }],
  };
}

/**
 * Deny by default; allow traffic among the run's own sandboxes, DNS egress to the configured DNS
 * pods, and ingress from the Rehearsal API pods so probes still work.
 */
export function strictPolicies(input: StrictPolicyInput): V1NetworkPolicy[] {
  const sameRun: V1NetworkPolicyPeer = { namespaceSelector: namespacesNamed(input.sandboxes) };
  const prober: V1NetworkPolicyPeer = {
    namespaceSelector: namespacesNamed([input.proberNamespace]),
    podSelector: { matchLabels: { ...input.proberPodLabels } },
  };
  const dns: V1NetworkPolicyPeer = {
    namespaceSelector: namespacesNamed([input.dns.namespace]),
    podSelector: { matchLabels: { ...input.dns.podLabels } },
  };
  return [
    {
      metadata: { name: 'rehearsal-isolation', labels: input.labels },
      spec: {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ _from: [sameRun, prober] }],
        egress: [
          { to: [sameRun] },
          {
            to: [dns],
            ports: [
              { protocol: 'UDP', port: 53 as never },
              { protocol: 'TCP', port: 53 as never },
            ],
          },
        ],
      },
    },
  ];
}
