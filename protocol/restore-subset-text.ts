// How a restored subset (spec.backupSource.labelSelector and includedResources, issue 32) reads to a
// person: "app=orders; kinds: Deployment, Service". One wording for the per-test PDF and the
// dashboard's test page, which share no code but this folder (the dashboard never imports server/).
// Structural types, so the CRD's, the API's and the generated client's shapes all fit.

export interface SubsetSelector {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] | null }[];
}

export interface SubsetType {
  group?: string;
  kind: string;
}

/** A selector in kubectl's syntax: app=a,tier in (front,back),!legacy. Labels sorted by key. */
export function selectorString(selector: SubsetSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {})
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`);
  const expressions = (selector.matchExpressions ?? []).map((requirement) => {
    switch (requirement.operator) {
      case 'In':
        return `${requirement.key} in (${(requirement.values ?? []).join(',')})`;
      case 'NotIn':
        return `${requirement.key} notin (${(requirement.values ?? []).join(',')})`;
      case 'DoesNotExist':
        return `!${requirement.key}`;
      default: // Exists
        return requirement.key;
    }
  });
  return [...labels, ...expressions].join(',');
}

/**
 * The kinds of the types, in the order the test lists them; a kind two groups share (Ingress in
 * networking.k8s.io and extensions) is qualified by its group, "core" for the core group.
 */
function kindNames(types: readonly SubsetType[]): string[] {
  const count = new Map<string, number>();
  for (const type of types) count.set(type.kind, (count.get(type.kind) ?? 0) + 1);
  return types.map((type) => ((count.get(type.kind) ?? 0) > 1 ? `${type.kind} (${type.group || 'core'})` : type.kind));
}

/**
 * What a test restores when it restores a subset: "app=orders; kinds: Deployment, Service", or
 * "kinds: Deployment" without a selector; undefined when it restores the whole namespaces (no
 * types, and no selector or an empty one, which selects everything).
 */
export function restoredSubsetText(labelSelector: SubsetSelector | undefined | null, includedResources: readonly SubsetType[] | undefined | null): string | undefined {
  const selector = labelSelector ? selectorString(labelSelector) : '';
  const kinds = kindNames(includedResources ?? []);
  const parts = [...(selector ? [selector] : []), ...(kinds.length > 0 ? [`kinds: ${kinds.join(', ')}`] : [])];
  return parts.length > 0 ? parts.join('; ') : undefined;
}
