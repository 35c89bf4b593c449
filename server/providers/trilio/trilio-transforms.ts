// The restore transforms (domain/run/restore-transforms.ts) in Trilio for Kubernetes' terms, as
// its Restore CRD declares them (triliovault.trilio.io/v1): spec.excludeResourceSelector
// ({gvkSelector: [{groupVersionKind, objects}], labelSelector: [LabelSelector]}) and
// spec.transformComponents.custom ([{transformName, resources: {groupVersionKind, objects},
// jsonPatches: [{op, path, value, from}]}]).
//
// What the CRD does not say, and this translation assumes (the simulator in test/trilio plays it
// so; not verified against a running TVK): `resources.objects` left out means every object of the
// kind, the transforms apply in order, and a failed JSON Patch `test` leaves that object
// untransformed (as Velero and Kasten do) rather than failing the restore. Plain JSON Patch has no
// "remove if present": a field is cleared with `add <path> null` where its parent always exists
// (spec), and what would need more (external-dns annotations, node ports by index) is not done —
// docs/restore-transforms.md says so. The test's own patches come first. Pure.
//
// A null `value` is never written: the CRD declares jsonPatches[].value without `nullable`, so the
// apiserver drops `value: null` before TVK sees it, and a Restore read back would then differ from
// the one Rehearsal asked for (adoption compares them). Written without it, an `add`/`replace`
// arrives exactly as TVK would have received it anyway; ASSUMED (not in the CRD): TVK applies
// patches the way Go's evanphx/json-patch (Kubernetes' own) does, where a missing value is null.
import type { DefaultTransformId, RestorePatch } from '../../domain/resources/resources.js';
import {
  CRONJOB,
  EXPOSED_SERVICE_FIELDS,
  EXPOSED_SERVICE_TYPES,
  JOB,
  JOB_POD_LABELS,
  SERVICE,
  type DefaultTransform,
  type ResourceType,
  type RestoreTransforms,
} from '../../domain/run/restore-transforms.js';

export interface TrilioGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface TrilioJsonPatch {
  op: 'test' | 'add' | 'remove' | 'replace' | 'copy' | 'move';
  path: string;
  from?: string;
  value?: unknown;
}

export interface TrilioCustomTransform {
  transformName: string;
  resources: { groupVersionKind: TrilioGroupVersionKind; objects?: string[] };
  jsonPatches: TrilioJsonPatch[];
}

export interface TrilioLabelSelector {
  matchExpressions: { key: string; operator: 'Exists' }[];
}

export interface TrilioTransforms {
  excludeResourceSelector?: {
    gvkSelector?: { groupVersionKind: TrilioGroupVersionKind }[];
    labelSelector?: TrilioLabelSelector[];
  };
  transformComponents?: { custom: TrilioCustomTransform[] };
}

function gvk(entry: Pick<ResourceType, 'group' | 'version' | 'kind'>): TrilioGroupVersionKind {
  return { group: entry.group, version: entry.version, kind: entry.kind };
}

interface Translation {
  excluded: ResourceType[];
  labels: string[];
  custom: TrilioCustomTransform[];
}

const none: Translation = { excluded: [], labels: [], custom: [] };
const exclude = (entry: DefaultTransform): Translation => ({ ...none, excluded: [...(entry.excludes ?? [])] });

/** The defaults this translation cannot express (the provider tells the report). */
export const TRILIO_TRANSFORMS_NOT_DONE: readonly DefaultTransformId[] = ['drop-external-dns-annotations', 'unbind-claims'];

const DEFAULTS: Readonly<Record<DefaultTransformId, (entry: DefaultTransform) => Translation>> = {
  'suspend-cronjobs': () => ({
    ...none,
    custom: [{ transformName: 'suspend-cronjobs', resources: { groupVersionKind: gvk(CRONJOB) }, jsonPatches: [{ op: 'add', path: '/spec/suspend', value: true }] }],
  }),
  // Trilio selects by label for exclusion: the Pods of a Job are simply not restored.
  'hold-jobs': () => ({ ...none, excluded: [JOB], labels: [...JOB_POD_LABELS] }),
  'services-cluster-ip': () => ({
    ...none,
    custom: EXPOSED_SERVICE_TYPES.map((serviceType) => ({
      transformName: `services-cluster-ip-${serviceType.toLowerCase()}`,
      resources: { groupVersionKind: gvk(SERVICE) },
      jsonPatches: [
        { op: 'test' as const, path: '/spec/type', value: serviceType },
        { op: 'replace' as const, path: '/spec/type', value: 'ClusterIP' },
        // `add` without a value: null (see the header).
        ...EXPOSED_SERVICE_FIELDS.map((field) => ({ op: 'add' as const, path: `/spec/${field}` })),
      ],
    })),
  }),
  'drop-external-dns-annotations': () => none,
  // Not done (docs/restore-transforms.md): removing spec.volumeName alone would leave a claim
  // with bind-completed, which the PV controller marks Lost.
  'unbind-claims': () => none,
  'exclude-host-routes': exclude,
  'exclude-external-callers': exclude,
  'exclude-gitops': exclude,
  'exclude-network-policies': exclude,
};

function patchTransform(patch: RestorePatch): TrilioCustomTransform {
  return {
    transformName: `patch-${patch.name}`,
    resources: {
      groupVersionKind: gvk({ group: patch.target.group ?? '', version: patch.target.version, kind: patch.target.kind }),
      ...(patch.target.name ? { objects: [patch.target.name] } : {}),
    },
    jsonPatches: [
      ...(patch.when ?? []).map((condition) => ({
        op: 'test' as const,
        path: condition.path,
        ...(condition.value != null ? { value: condition.value } : {}),
      })),
      ...patch.operations.map((operation) => ({
        op: operation.op,
        path: operation.path,
        ...(operation.from !== undefined ? { from: operation.from } : {}),
        // A null value is left out (see the header): for add and replace that still means null.
        ...((operation.op === 'add' || operation.op === 'replace') && operation.value != null ? { value: operation.value } : {}),
      })),
    ],
  };
}

export function trilioTransforms(transforms: RestoreTransforms): TrilioTransforms {
  const translated = transforms.defaults.map((entry) => DEFAULTS[entry.id](entry));
  const seen = new Set<string>();
  const excluded = [...translated.flatMap((entry) => entry.excluded), ...transforms.exclude].filter((entry) => {
    const key = `${entry.group}/${entry.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const labels = translated.flatMap((entry) => entry.labels);
  const custom = [...transforms.patches.map(patchTransform), ...translated.flatMap((entry) => entry.custom)];
  const selector = {
    ...(excluded.length > 0 ? { gvkSelector: excluded.map((entry) => ({ groupVersionKind: gvk(entry) })) } : {}),
    ...(labels.length > 0 ? { labelSelector: labels.map((key) => ({ matchExpressions: [{ key, operator: 'Exists' as const }] })) } : {}),
  };
  return {
    ...(Object.keys(selector).length > 0 ? { excludeResourceSelector: selector } : {}),
    ...(custom.length > 0 ? { transformComponents: { custom } } : {}),
  };
}
