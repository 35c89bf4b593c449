// Sandbox namespaces: where a run's restore lands. The only cluster-scoped objects Rehearsal ever
// writes are these namespaces, always labelled as its own; everything else it creates lives inside
// them. Creation is idempotent so a restarted engine can repeat a step.
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type NetworkingV1Api, type V1NetworkPolicy } from '@kubernetes/client-node';
import { isKind, kubeCall } from '../kube/errors.js';
import {
  ANNOTATION_EXPIRES_AT,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  LABEL_SOURCE_NAMESPACE,
  LABEL_TEST,
  LABEL_TEST_NAMESPACE,
  MANAGED_BY_VALUE,
  type RestoreTest,
} from '../domain/resources.js';

export interface SandboxPlan {
  test: RestoreTest;
  runId: string;
  entries: { source: string; sandbox: string }[];
  expiresAt: Date;
  /** Labels of the Rehearsal API pods: strict policies must still admit their probes. */
  proberPodLabels: Record<string, string>;
  /** Namespace of the Rehearsal API pods. */
  proberNamespace: string;
}

export function sandboxLabels(test: RestoreTest, runId: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
    [LABEL_TEST]: test.metadata.name,
    [LABEL_TEST_NAMESPACE]: test.metadata.namespace ?? '',
    [LABEL_RUN]: runId,
  };
}

export class SandboxManager {
  constructor(
    private readonly core: CoreV1Api,
    private readonly networking: NetworkingV1Api,
  ) {}

  async create(plan: SandboxPlan): Promise<void> {
    const labels = sandboxLabels(plan.test, plan.runId);
    const spec = plan.test.spec.sandbox ?? {};
    for (const { source, sandbox } of plan.entries) {
      await this.ignoreExisting(() =>
        this.core.createNamespace({
          body: {
            metadata: {
              name: sandbox,
              labels: { ...labels, [LABEL_SOURCE_NAMESPACE]: source },
              annotations: { [ANNOTATION_EXPIRES_AT]: plan.expiresAt.toISOString() },
            },
          },
        }),
      );
      if ((spec.networkIsolation ?? 'strict') === 'strict') {
        for (const policy of strictPolicies(plan, labels)) {
          await this.ignoreExisting(() =>
            this.networking.createNamespacedNetworkPolicy({ namespace: sandbox, body: policy }),
          );
        }
      }
      if (spec.resourceQuota?.hard) {
        await this.ignoreExisting(() =>
          this.core.createNamespacedResourceQuota({
            namespace: sandbox,
            body: { metadata: { name: 'rehearsal-sandbox', labels }, spec: { hard: spec.resourceQuota!.hard } },
          }),
        );
      }
      if (spec.limitRange?.limits?.length) {
        await this.ignoreExisting(() =>
          this.core.createNamespacedLimitRange({
            namespace: sandbox,
            body: {
              metadata: { name: 'rehearsal-sandbox', labels },
              spec: { limits: spec.limitRange!.limits as never },
            },
          }),
        );
      }
    }
  }

  /** Marks when the janitor may remove a kept sandbox (after a partial or failed run). */
  async keepUntil(sandbox: string, expiresAt: Date): Promise<void> {
    try {
      await kubeCall(() =>
        this.core.patchNamespace(
          {
            name: sandbox,
            body: { metadata: { annotations: { [ANNOTATION_EXPIRES_AT]: expiresAt.toISOString() } } },
          },
          mergePatch,
        ),
      );
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }

  async delete(sandbox: string): Promise<void> {
    try {
      // Refuse to delete anything that is not visibly ours, whatever the caller believes.
      const namespace = await kubeCall(() => this.core.readNamespace({ name: sandbox }));
      if (namespace.metadata?.labels?.[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE) {
        throw new Error(`refusing to delete namespace ${sandbox}: it is not a Rehearsal sandbox`);
      }
      if (namespace.metadata?.deletionTimestamp) return;
      await kubeCall(() => this.core.deleteNamespace({ name: sandbox, propagationPolicy: 'Background' }));
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }

  private async ignoreExisting(call: () => Promise<unknown>): Promise<void> {
    try {
      await kubeCall(call);
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
    }
  }
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * networkIsolation: strict (decisions §3): deny by default; allow traffic among the run's own
 * sandboxes, DNS egress, and ingress from the Rehearsal API pods so probes still work.
 */
function strictPolicies(plan: SandboxPlan, labels: Record<string, string>): V1NetworkPolicy[] {
  const sameRun = { namespaceSelector: { matchLabels: { [LABEL_RUN]: plan.runId, [LABEL_MANAGED_BY]: MANAGED_BY_VALUE } } };
  const prober = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': plan.proberNamespace } },
    podSelector: { matchLabels: plan.proberPodLabels },
  };
  return [
    {
      metadata: { name: 'rehearsal-isolation', labels },
      spec: {
        podSelector: {},
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ _from: [sameRun, prober] }],
        egress: [
          { to: [sameRun] },
          {
            to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
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
