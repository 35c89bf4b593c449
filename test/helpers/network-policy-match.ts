// Which pods a NetworkPolicy peer selects, by the rules of the NetworkPolicy API
// (networking.k8s.io/v1): the test clusters run no CNI, so nothing enforces the policies Rehearsal
// writes; tests evaluate the written selectors against real namespace and pod objects instead.
import type { V1LabelSelector, V1NetworkPolicyPeer } from '@kubernetes/client-node';

/** A label selector's verdict on a set of labels (matchLabels AND every matchExpression). */
export function selectorMatches(selector: V1LabelSelector, labels: Record<string, string> = {}): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(labels, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        if (!present || !values.includes(labels[expression.key]!)) return false;
        break;
      case 'NotIn':
        if (present && values.includes(labels[expression.key]!)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
      default:
        throw new Error(`unknown selector operator ${expression.operator}`);
    }
  }
  return true;
}

export interface LabelledObject {
  metadata?: { name?: string; labels?: Record<string, string> };
}

/**
 * Whether a peer of a policy in `policyNamespace` selects `pod` in `namespace`: a namespaceSelector
 * picks namespaces (with a podSelector, only those pods in them); a podSelector alone picks pods of
 * the policy's own namespace. ipBlock peers select no pod here.
 */
export function peerSelects(
  peer: V1NetworkPolicyPeer,
  policyNamespace: string,
  namespace: LabelledObject,
  pod: LabelledObject,
): boolean {
  if (peer.ipBlock) return false;
  if (!peer.namespaceSelector && !peer.podSelector) return false;
  const namespaceOk = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, namespace.metadata?.labels)
    : namespace.metadata?.name === policyNamespace;
  const podOk = peer.podSelector ? selectorMatches(peer.podSelector, pod.metadata?.labels) : true;
  return namespaceOk && podOk;
}
