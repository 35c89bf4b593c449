// The restore transforms (domain/run/restore-transforms.ts) in Velero's terms: resource types to
// leave out (Restore spec.excludedResources, "<resource>.<group>") and a resource-modifier
// document (Velero v1.18 internal/resourcemodifiers: version v1, resourceModifierRules with
// conditions {groupResource, resourceNameRegex, labelSelector, matches} and one of patches (JSON
// Patch), mergePatches (JSON Merge Patch) or strategicPatches), which Velero reads from a ConfigMap
// in its namespace named by the Restore's spec.resourceModifier. Pure.
//
// How Velero applies them (resource_modifiers.go): every rule's conditions are matched against the
// object as restored (namespace still the source's), before any rule changed it; the matching
// rules' patches then apply in order. An error in any patch (a JSON Patch `remove` of an absent
// field, say) makes the restore PartiallyFailed, while a failed JSON Patch `test` skips that rule.
// So the defaults use merge patches (null removes a field, present or not), which also write the
// marker annotation naming the transform; only the node ports, items of a list, need JSON Patch,
// guarded by a `matches` condition on the same port (a missing port matches nothing).
// The test's own patches come first, the defaults last, so a test's patch cannot undo a default.
import type { DefaultTransformId, RestorePatch } from '../../domain/resources/resources.js';
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
  TRANSFORM_ANNOTATION_PREFIX,
  type DefaultTransform,
  type ResourceType,
  type RestoreTransforms,
} from '../../domain/run/restore-transforms.js';
import { describePatch, markerName } from '../../domain/run/transforms-report.js';

export const RESOURCE_MODIFIERS_VERSION = 'v1';
/** The ConfigMap's one data key (Velero reads whichever single key there is). */
export const RESOURCE_MODIFIERS_KEY = 'resource-modifiers.yaml';

export interface JsonPatchOperation {
  operation: string;
  path: string;
  from?: string;
  /** Velero parses this string: quoted = a string, else JSON (number, boolean, null, object, array). */
  value?: string;
}

export interface ResourceModifierRule {
  conditions: {
    groupResource: string;
    resourceNameRegex?: string;
    labelSelector?: { matchExpressions: { key: string; operator: 'Exists' }[] };
    matches?: { path: string; value: string }[];
  };
  patches?: JsonPatchOperation[];
  mergePatches?: { patchData: string }[];
}

export interface ResourceModifiers {
  version: typeof RESOURCE_MODIFIERS_VERSION;
  resourceModifierRules: ResourceModifierRule[];
}

export interface VeleroTransforms {
  excludedResources: string[];
  /** Absent when no rule is left (every modifying default removed, no patch). */
  modifiers?: ResourceModifiers;
}

/** "<resource>.<group>", or the resource alone for the core group (Velero's and kubectl's spelling). */
export function groupResource(entry: Pick<ResourceType, 'group' | 'resource'>): string {
  return entry.group ? `${entry.resource}.${entry.group}` : entry.resource;
}

/** A JSON value as Velero's JSONPatch.value string: strings quoted, everything else as JSON. */
export function veleroValue(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

function mergePatch(patch: Record<string, unknown>): { patchData: string } {
  return { patchData: JSON.stringify(patch) };
}

function marked(transform: DefaultTransformId, change: string, patch: Record<string, unknown> = {}): { patchData: string } {
  const metadata = (patch.metadata ?? {}) as Record<string, unknown>;
  const annotations = (metadata.annotations ?? {}) as Record<string, unknown>;
  return mergePatch({
    ...patch,
    metadata: { ...metadata, annotations: { ...annotations, [`${TRANSFORM_ANNOTATION_PREFIX}${markerName(transform)}`]: change } },
  });
}

interface Translation {
  excluded: ResourceType[];
  rules: ResourceModifierRule[];
}

const exclude = (entry: DefaultTransform): Translation => ({ excluded: [...(entry.excludes ?? [])], rules: [] });

/** Each default in Velero's terms; a new default does not compile until it is here. */
const DEFAULTS: Readonly<Record<DefaultTransformId, (entry: DefaultTransform) => Translation>> = {
  'suspend-cronjobs': () => ({
    excluded: [],
    rules: [
      {
        conditions: { groupResource: groupResource(CRONJOB) },
        mergePatches: [marked('suspend-cronjobs', 'spec.suspend set to true', { spec: { suspend: true } })],
      },
    ],
  }),
  'hold-jobs': () => ({
    excluded: [JOB],
    rules: JOB_POD_LABELS.map((key) => ({
      conditions: { groupResource: groupResource(POD), labelSelector: { matchExpressions: [{ key, operator: 'Exists' as const }] } },
      mergePatches: [
        marked('hold-jobs', `held by scheduling gate ${JOB_HOLD_GATE} (its Job is not restored)`, {
          spec: { schedulingGates: [{ name: JOB_HOLD_GATE }] },
        }),
      ],
    })),
  }),
  'services-cluster-ip': () => ({
    excluded: [],
    rules: [
      ...EXPOSED_SERVICE_TYPES.map((serviceType) => ({
        conditions: { groupResource: groupResource(SERVICE), matches: [{ path: '/spec/type', value: veleroValue(serviceType) }] },
        mergePatches: [
          marked('services-cluster-ip', `type ${serviceType} made ClusterIP; node ports, external IPs and load balancer fields dropped`, {
            spec: { type: 'ClusterIP', ...Object.fromEntries(EXPOSED_SERVICE_FIELDS.map((field) => [field, null])) },
          }),
        ],
      })),
      // Velero's own Service action drops the node ports it allocated; an explicit one would
      // make the ClusterIP Service invalid. One rule per port and protocol: a port that is not
      // there fails the condition, not the restore.
      ...Array.from({ length: MAX_NODE_PORT_INDEX }, (_unused, index) =>
        ['TCP', 'UDP', 'SCTP'].map((protocol) => ({
          conditions: {
            groupResource: groupResource(SERVICE),
            matches: [{ path: `/spec/ports/${index}/protocol`, value: veleroValue(protocol) }],
          },
          patches: [{ operation: 'add', path: `/spec/ports/${index}/nodePort`, value: veleroValue(null) }],
        })),
      ).flat(),
    ],
  }),
  'drop-external-dns-annotations': () => ({
    excluded: [],
    rules: [
      {
        conditions: { groupResource: groupResource(SERVICE) },
        mergePatches: [mergePatch({ metadata: { annotations: Object.fromEntries(EXTERNAL_DNS_ANNOTATIONS.map((key) => [key, null])) } })],
      },
    ],
  }),
  // Velero itself drops the binding annotations of a claim that names a volume, and drops the
  // volume only when it restores (re-provisions) that PersistentVolume, which a namespace-scoped
  // restore never does (restore.go, restoreItem). Merge-patch nulls are no-ops where absent; every
  // claim is marked, as the patch applies to each.
  'unbind-claims': () => ({
    excluded: [],
    rules: [
      {
        conditions: { groupResource: groupResource(PERSISTENT_VOLUME_CLAIM) },
        mergePatches: [
          marked('unbind-claims', 'spec.volumeName and binding annotations dropped: binds a new volume', {
            spec: { volumeName: null },
            metadata: { annotations: Object.fromEntries(CLAIM_BINDING_ANNOTATIONS.map((key) => [key, null])) },
          }),
        ],
      },
    ],
  }),
  'exclude-host-routes': exclude,
  'exclude-external-callers': exclude,
  'exclude-gitops': exclude,
  'exclude-network-policies': exclude,
};

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A test's patch: its operations, and a merge patch under the same conditions for the marker. */
function patchRules(patch: RestorePatch): ResourceModifierRule[] {
  const conditions: ResourceModifierRule['conditions'] = {
    groupResource: groupResource({ group: patch.target.group ?? '', resource: patch.target.resource }),
    ...(patch.target.name ? { resourceNameRegex: `^${escapeRegex(patch.target.name)}$` } : {}),
    ...(patch.when?.length ? { matches: patch.when.map((condition) => ({ path: condition.path, value: veleroValue(condition.value) })) } : {}),
  };
  return [
    {
      conditions,
      patches: patch.operations.map((operation) => ({
        operation: operation.op,
        path: operation.path,
        ...(operation.from !== undefined ? { from: operation.from } : {}),
        ...(operation.op === 'add' || operation.op === 'replace' ? { value: veleroValue(operation.value) } : {}),
      })),
    },
    {
      conditions,
      mergePatches: [
        mergePatch({ metadata: { annotations: { [`${TRANSFORM_ANNOTATION_PREFIX}${markerName({ patch: patch.name })}`]: describePatch(patch) } } }),
      ],
    },
  ];
}

export function veleroTransforms(transforms: RestoreTransforms): VeleroTransforms {
  const translated = transforms.defaults.map((entry) => DEFAULTS[entry.id](entry));
  const excluded = [...translated.flatMap((entry) => entry.excluded), ...transforms.exclude].map(groupResource);
  const rules = [...transforms.patches.flatMap(patchRules), ...translated.flatMap((entry) => entry.rules)];
  return {
    excludedResources: [...new Set(excluded)],
    ...(rules.length > 0 ? { modifiers: { version: RESOURCE_MODIFIERS_VERSION, resourceModifierRules: rules } } : {}),
  };
}

/** The ConfigMap data Velero reads (JSON is YAML; Velero decodes it strictly). */
export function resourceModifiersData(modifiers: ResourceModifiers): Record<string, string> {
  return { [RESOURCE_MODIFIERS_KEY]: JSON.stringify(modifiers) };
}
