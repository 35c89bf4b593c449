// What a run's restore transforms changed, for its report (issue 28): the objects a default or a
// test's exclusion kept out of the sandbox and the restored objects a tool marked as changed
// (transforms.rehearsal.dev/<transform>), or "every object of the kind" where the tool does not say.
// Bounded to what the RestoreReport CRD allows. Pure.
import type { AppliedTransform, DefaultTransformId, RestorePatch, RestoreTransformsReport } from '../resources/resources.js';
import { exclusionOf, TRANSFORM_ANNOTATION_PREFIX, type ResourceType, type RestoreTransforms } from './restore-transforms.js';

/** Entries a report keeps (reports live in etcd; the rest is counted). */
export const MAX_REPORTED_TRANSFORMS = 25;

export interface ExcludedObject {
  apiVersion: string;
  kind: string;
  /** Source namespace. */
  namespace: string;
  name: string;
}

export interface MarkedObject {
  kind: string;
  /** Source namespace. */
  namespace: string;
  name: string;
  annotations: Readonly<Record<string, string>>;
}

export interface TransformObservation {
  transforms: RestoreTransforms;
  /**
   * Objects of the backup whose type a transform excludes (the tool's resource list); undefined
   * when the tool does not say, and each exclusion is reported once for every object ("*").
   */
  excluded?: readonly ExcludedObject[];
  /**
   * Restored objects with their marker annotations (transforms.rehearsal.dev/<transform>);
   * undefined when the tool does not mark what it changed, and each change is reported once ("*").
   */
  marked?: readonly MarkedObject[];
  /** Defaults the tool cannot express: kept in the run's transforms, never reported as applied. */
  notDone?: readonly DefaultTransformId[];
}

const EVERY_OBJECT = '*';
const NOT_RESTORED = 'not restored';

/** The CRD's bounds of an entry's kind and change (crds/rehearsal.dev_restorereports.yaml). */
const MAX_KIND_TEXT = 120;
const MAX_CHANGE_TEXT = 200;

function describeKinds(types: readonly Pick<ResourceType, 'kind'>[]): string {
  return truncate([...new Set(types.map((entry) => entry.kind))].join(', '), MAX_KIND_TEXT);
}

/** Transforms a tool does not mark objects for: reported once, for every object they matched. */
const UNMARKED: ReadonlySet<DefaultTransformId> = new Set(['drop-external-dns-annotations']);

function everyObject(transform: string, kinds: string, change: string): AppliedTransform {
  return { transform, kind: kinds, namespace: EVERY_OBJECT, name: EVERY_OBJECT, change: truncate(change, MAX_CHANGE_TEXT) };
}

/** What the transforms of a run changed, for its report. */
export function reportTransforms(observed: TransformObservation): RestoreTransformsReport {
  const { transforms } = observed;
  const done = (entry: { id: DefaultTransformId }): boolean => !observed.notDone?.includes(entry.id);
  const entries: AppliedTransform[] = [];
  if (observed.excluded) {
    for (const object of observed.excluded) {
      const transform = exclusionOf(transforms, object.apiVersion, object.kind);
      if (transform) entries.push({ transform, kind: object.kind, namespace: object.namespace, name: object.name, change: NOT_RESTORED });
    }
  } else {
    for (const entry of transforms.defaults.filter((candidate) => candidate.excludes?.length)) {
      entries.push(everyObject(entry.id, describeKinds(entry.excludes ?? []), NOT_RESTORED));
    }
    if (transforms.exclude.length > 0) entries.push(everyObject('exclude', describeKinds(transforms.exclude), NOT_RESTORED));
  }
  if (observed.marked) {
    for (const object of observed.marked) {
      for (const [key, change] of Object.entries(object.annotations)) {
        if (!key.startsWith(TRANSFORM_ANNOTATION_PREFIX)) continue;
        const transform = transformOfMarker(key.slice(TRANSFORM_ANNOTATION_PREFIX.length));
        entries.push({ transform, kind: object.kind, namespace: object.namespace, name: object.name, change: truncate(change, MAX_CHANGE_TEXT) });
      }
    }
    for (const entry of transforms.defaults.filter((candidate) => UNMARKED.has(candidate.id) && done(candidate))) {
      entries.push(everyObject(entry.id, describeKinds(entry.changes ?? []), entry.what));
    }
  } else {
    for (const entry of transforms.defaults.filter((candidate) => candidate.changes?.length && done(candidate))) {
      entries.push(everyObject(entry.id, describeKinds(entry.changes ?? []), entry.what));
    }
    for (const patch of transforms.patches) {
      entries.push({ transform: `patch/${patch.name}`, kind: patch.target.kind, namespace: EVERY_OBJECT, name: patch.target.name ?? EVERY_OBJECT, change: describePatch(patch) });
    }
  }
  const sorted = entries.sort(
    (left, right) =>
      compare(left.transform, right.transform) ||
      compare(left.kind, right.kind) ||
      compare(left.namespace, right.namespace) ||
      compare(left.name, right.name),
  );
  const report: RestoreTransformsReport = { applied: sorted.slice(0, MAX_REPORTED_TRANSFORMS) };
  if (sorted.length > MAX_REPORTED_TRANSFORMS) report.more = sorted.length - MAX_REPORTED_TRANSFORMS;
  if (transforms.removed.length > 0) report.removedDefaults = [...transforms.removed];
  return report;
}

/** The marker annotation's name part of a transform: its id, or `patch.<name>` for a test's patch. */
export function markerName(transform: DefaultTransformId | { patch: string }): string {
  return typeof transform === 'string' ? transform : `${PATCH_MARKER}${transform.patch}`;
}

const PATCH_MARKER = 'patch.';

function transformOfMarker(name: string): string {
  return name.startsWith(PATCH_MARKER) ? `patch/${name.slice(PATCH_MARKER.length)}` : name;
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** "replace /spec/replicas, remove /metadata/labels/tier": the report's words for a patch. */
export function describePatch(patch: Pick<RestorePatch, 'operations'>): string {
  return truncate(patch.operations.map((operation) => `${operation.op} ${operation.path}`).join(', '), 200);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
