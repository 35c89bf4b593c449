// The restore transforms (domain/run/restore-transforms.ts) in Kasten K10's terms, as its API
// documentation describes them ("Transforms", "Actions: RestoreAction"): resource types left out
// with spec.filters.excludeResources ({group, version, resource}), and spec.transforms — each a
// document {subject: {group, resource, name}, name, json: [commands]} whose commands follow JSON
// Patch (op, path, value, from). Kasten's semantics the translation relies on (documented): the
// documents apply in order; a `test` without a value checks that the path is present; a failed
// `test` skips the rest of its document, any other error fails the restore. So every removal is
// its own document guarded by a presence test. The test's own patches come first. Pure.
import type { DefaultTransformId, LabelSelector, LabelSelectorOperator, RestorePatch } from '../../domain/resources/resources.js';
import type { RestoreSubset } from '../../domain/run/restore-subset.js';
import {
  CLAIM_BINDING_ANNOTATIONS,
  CRONJOB,
  EXPOSED_SERVICE_FIELDS,
  EXPOSED_SERVICE_TYPES,
  EXTERNAL_DNS_ANNOTATIONS,
  JOB,
  JOB_HOLD_GATE,
  JOB_POD_LABELS,
  MAX_NODE_PORT_INDEX,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  SERVICE,
  pointerSegment,
  type DefaultTransform,
  type ResourceType,
  type RestoreTransforms,
} from '../../domain/run/restore-transforms.js';

export interface KastenResourceSelector {
  group?: string;
  version?: string;
  resource?: string;
  name?: string;
  /** Label requirements the object must all meet (Kubernetes LabelSelectorRequirements). */
  matchExpressions?: { key: string; operator: LabelSelectorOperator; values?: string[] }[];
}

export interface KastenTransformCommand {
  op: 'test' | 'add' | 'remove' | 'replace' | 'copy' | 'move';
  path: string;
  from?: string;
  value?: unknown;
}

export interface KastenTransform {
  subject: KastenResourceSelector;
  name: string;
  json: KastenTransformCommand[];
}

export interface KastenTransforms {
  filters?: { includeResources?: KastenResourceSelector[]; excludeResources?: KastenResourceSelector[] };
  transforms?: KastenTransform[];
}

function selector(entry: Pick<ResourceType, 'group' | 'resource'>): KastenResourceSelector {
  return { ...(entry.group ? { group: entry.group } : {}), resource: entry.resource };
}

/** Removes a field only where it is present (a failed presence test ends just this document). */
function removeIfPresent(subject: ResourceType, name: string, path: string): KastenTransform {
  return { subject: selector(subject), name, json: [{ op: 'test', path }, { op: 'remove', path }] };
}

interface Translation {
  excluded: ResourceType[];
  transforms: KastenTransform[];
}

const exclude = (entry: DefaultTransform): Translation => ({ excluded: [...(entry.excludes ?? [])], transforms: [] });

const DEFAULTS: Readonly<Record<DefaultTransformId, (entry: DefaultTransform) => Translation>> = {
  'suspend-cronjobs': () => ({
    excluded: [],
    transforms: [{ subject: selector(CRONJOB), name: 'suspend-cronjobs', json: [{ op: 'add', path: '/spec/suspend', value: true }] }],
  }),
  'hold-jobs': () => ({
    excluded: [JOB],
    transforms: JOB_POD_LABELS.map((label, index) => ({
      subject: selector(POD),
      name: `hold-jobs-${index}`,
      json: [
        { op: 'test', path: `/metadata/labels/${pointerSegment(label)}` },
        { op: 'add', path: '/spec/schedulingGates', value: [{ name: JOB_HOLD_GATE }] },
      ],
    })),
  }),
  'services-cluster-ip': () => ({
    excluded: [],
    transforms: [
      ...EXPOSED_SERVICE_TYPES.map((serviceType) => ({
        subject: selector(SERVICE),
        name: `services-cluster-ip-${serviceType.toLowerCase()}`,
        json: [
          { op: 'test' as const, path: '/spec/type', value: serviceType },
          { op: 'replace' as const, path: '/spec/type', value: 'ClusterIP' },
        ],
      })),
      ...EXPOSED_SERVICE_FIELDS.map((field) => removeIfPresent(SERVICE, `services-cluster-ip-${field.toLowerCase()}`, `/spec/${field}`)),
      ...Array.from({ length: MAX_NODE_PORT_INDEX }, (_unused, index) =>
        removeIfPresent(SERVICE, `services-cluster-ip-nodeport-${index}`, `/spec/ports/${index}/nodePort`),
      ),
    ],
  }),
  'drop-external-dns-annotations': () => ({
    excluded: [],
    transforms: EXTERNAL_DNS_ANNOTATIONS.map((annotation, index) =>
      removeIfPresent(SERVICE, `drop-external-dns-annotations-${index}`, `/metadata/annotations/${pointerSegment(annotation)}`),
    ),
  }),
  'unbind-claims': () => ({
    excluded: [],
    transforms: [
      removeIfPresent(PERSISTENT_VOLUME_CLAIM, 'unbind-claims-volumename', '/spec/volumeName'),
      ...CLAIM_BINDING_ANNOTATIONS.map((annotation, index) =>
        removeIfPresent(PERSISTENT_VOLUME_CLAIM, `unbind-claims-${index}`, `/metadata/annotations/${pointerSegment(annotation)}`),
      ),
    ],
  }),
  'exclude-host-routes': exclude,
  'exclude-external-callers': exclude,
  'exclude-gitops': exclude,
  'exclude-network-policies': exclude,
};

function patchTransform(patch: RestorePatch): KastenTransform {
  return {
    subject: {
      ...selector({ group: patch.target.group ?? '', resource: patch.target.resource }),
      ...(patch.target.name ? { name: patch.target.name } : {}),
    },
    name: `patch-${patch.name}`,
    json: [
      ...(patch.when ?? []).map((condition) => ({ op: 'test' as const, path: condition.path, value: condition.value })),
      ...patch.operations.map((operation) => ({
        op: operation.op,
        path: operation.path,
        ...(operation.from !== undefined ? { from: operation.from } : {}),
        ...(operation.op === 'add' || operation.op === 'replace' ? { value: operation.value ?? null } : {}),
      })),
    ],
  };
}

/** A label selector as Kasten's filters take it: matchExpressions only (a label = value is In [value]). */
function kastenExpressions(selector: LabelSelector): NonNullable<KastenResourceSelector['matchExpressions']> {
  return [
    ...Object.entries(selector.matchLabels ?? {})
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([key, value]) => ({ key, operator: 'In' as const, values: [value] })),
    ...(selector.matchExpressions ?? []).map((requirement) => ({
      key: requirement.key,
      operator: requirement.operator,
      ...(requirement.values && requirement.values.length > 0 ? { values: [...requirement.values] } : {}),
    })),
  ];
}

/**
 * A subset (issue 32) as spec.filters.includeResources: Kasten restores an object that matches
 * any entry, and an entry's fields must all match. So each included type is one entry carrying
 * the label requirements, and a selector alone is one entry of requirements only.
 */
export function kastenIncludeResources(subset: RestoreSubset | undefined): KastenResourceSelector[] {
  if (!subset) return [];
  const expressions = subset.labelSelector ? kastenExpressions(subset.labelSelector) : [];
  const withLabels = expressions.length > 0 ? { matchExpressions: expressions } : {};
  if (subset.includedResources.length === 0) return expressions.length > 0 ? [withLabels] : [];
  return subset.includedResources.map((type) => ({ ...selector(type), ...withLabels }));
}

export function kastenTransforms(transforms: RestoreTransforms, subset?: RestoreSubset): KastenTransforms {
  const translated = transforms.defaults.map((entry) => DEFAULTS[entry.id](entry));
  const seen = new Set<string>();
  const excluded = [...translated.flatMap((entry) => entry.excluded), ...transforms.exclude]
    .filter((entry) => {
      const key = `${entry.group}/${entry.resource}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map(selector);
  const all = [...transforms.patches.map(patchTransform), ...translated.flatMap((entry) => entry.transforms)];
  const included = kastenIncludeResources(subset);
  const filters = {
    ...(included.length > 0 ? { includeResources: included } : {}),
    ...(excluded.length > 0 ? { excludeResources: excluded } : {}),
  };
  return {
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    ...(all.length > 0 ? { transforms: all } : {}),
  };
}
