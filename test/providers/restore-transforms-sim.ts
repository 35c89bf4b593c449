// ============================================================================================
//  RESTORE TRANSFORMS AS THE SIMULATORS PLAY THEM — for Rehearsal's tests only. NOT A VENDOR TOOL.
// ============================================================================================
// How each tool changes (or leaves out) an object of a backup on its way into the target namespace,
// as its documentation or code says — so that the simulators restore what the real tool would:
//  - Velero (v1.18 internal/resourcemodifiers, read from its code): Restore spec.excludedResources
//    ("<resource>.<group>"); resource-modifier rules whose conditions (groupResource glob,
//    resourceNameRegex, labelSelector, matches = JSON Patch tests; a missing path matches nothing)
//    are matched against the object before any rule changed it, then the matching rules' JSON
//    patches / merge patches apply in order. A failed JSON Patch `test` skips that rule; any other
//    patch error is a restore error (the object is still restored, as Velero does).
//  - Kasten (docs "Transforms", "RestoreAction"): spec.filters.excludeResources ({group, resource,
//    name}); spec.transforms applied in order, each on its subject ({group, resource, name}); a
//    `test` without a value checks presence; a failed test ends that transform, keeping what it
//    changed before; any other error fails the restore.
//  - Trilio (Restore CRD): spec.excludeResourceSelector (gvkSelector {groupVersionKind, objects},
//    labelSelector: any matching selector excludes); spec.transformComponents.custom applied in
//    order to objects of their groupVersionKind (and names, when `objects` is given). ASSUMED where
//    the CRD is silent (so is the provider): a failed `test` leaves that object untransformed, and
//    `objects` left out means every object of the kind.
// ============================================================================================

type Json = unknown;
type Doc = Record<string, unknown>;

export class TestFailed extends Error {}
export class PatchError extends Error {}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function segments(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer ${path}`);
  return path.slice(1).split('/').map(unescape);
}

function isObject(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parent container and last key of a path; throws PatchError when the parent is missing. */
function locate(document: Json, path: string): { parent: Doc | Json[]; key: string } {
  const parts = segments(path);
  if (parts.length === 0) throw new PatchError('the root cannot be patched');
  let node: Json = document;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else node = undefined;
    if (node === undefined) throw new PatchError(`missing path ${path}`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new PatchError(`missing path ${path}`);
  return { parent: node as Doc | Json[], key: parts[parts.length - 1]! };
}

function read(document: Json, path: string): { found: boolean; value?: Json } {
  let node: Json = document;
  for (const part of segments(path)) {
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(part) || Number(part) >= node.length) return { found: false };
      node = node[Number(part)];
    } else if (isObject(node) && part in node) node = node[part];
    else return { found: false };
  }
  return { found: true, value: node };
}

function write(document: Json, path: string, value: Json, insert: boolean): void {
  const { parent, key } = locate(document, path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new PatchError(`bad index in ${path}`);
    if (insert) parent.splice(index, 0, value);
    else if (index < parent.length) parent[index] = value;
    else throw new PatchError(`missing path ${path}`);
  } else {
    if (!insert && !(key in parent)) throw new PatchError(`missing path ${path}`);
    parent[key] = value;
  }
}

function remove(document: Json, path: string): Json {
  const { parent, key } = locate(document, path);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!(index >= 0 && index < parent.length)) throw new PatchError(`missing path ${path}`);
    return parent.splice(index, 1)[0];
  }
  if (!(key in parent)) throw new PatchError(`missing path ${path}`);
  const value = parent[key];
  delete parent[key];
  return value;
}

export interface PatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

/**
 * Applies JSON Patch operations in place. `presenceTests`: a `test` without a value checks that the
 * path is there (Kasten's extension). Throws TestFailed or PatchError.
 */
export function applyJsonPatch(document: Json, operations: readonly PatchOperation[], presenceTests = false): void {
  for (const operation of operations) {
    switch (operation.op) {
      case 'test': {
        const found = read(document, operation.path);
        if (presenceTests && !('value' in operation)) {
          if (!found.found) throw new TestFailed(`${operation.path} is not present`);
        } else if (!found.found || JSON.stringify(found.value ?? null) !== JSON.stringify(operation.value ?? null)) {
          throw new TestFailed(`${operation.path} is not ${JSON.stringify(operation.value)}`);
        }
        break;
      }
      case 'add':
        write(document, operation.path, structuredClone(operation.value ?? null), true);
        break;
      case 'replace':
        write(document, operation.path, structuredClone(operation.value ?? null), false);
        break;
      case 'remove':
        remove(document, operation.path);
        break;
      case 'copy':
      case 'move': {
        const source = read(document, operation.from ?? '');
        if (!source.found) throw new PatchError(`missing path ${operation.from}`);
        if (operation.op === 'move') remove(document, operation.from ?? '');
        write(document, operation.path, structuredClone(source.value), true);
        break;
      }
      default:
        throw new PatchError(`unsupported operation ${operation.op}`);
    }
  }
}

/** JSON Merge Patch (RFC 7396). */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Doc = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Objects that JSON (and the apiserver) carry as "absent": null fields dropped, as a create would. */
export function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dropNulls) as T;
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null).map(([key, field]) => [key, dropNulls(field)])) as T;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const has = expression.key in labels;
    const value = labels[expression.key];
    const ok =
      expression.operator === 'Exists'
        ? has
        : expression.operator === 'DoesNotExist'
          ? !has
          : expression.operator === 'In'
            ? has && (expression.values ?? []).includes(value!)
            : !has || !(expression.values ?? []).includes(value!);
    if (!ok) return false;
  }
  return true;
}

export interface TransformableItem {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

// ------------------------------------------------------------------ Velero

interface VeleroRule {
  conditions: {
    groupResource: string;
    resourceNameRegex?: string;
    labelSelector?: LabelSelector;
    matches?: { path: string; value: string }[];
  };
  patches?: { operation: string; path: string; from?: string; value?: string }[];
  mergePatches?: { patchData: string }[];
}

/** Velero's JSONPatch.value string → JSON (quoted = string; null, booleans, numbers, {…}, […] = JSON; else a string). */
function veleroValue(value: string | undefined): Json {
  if (value === undefined || value === '') return '';
  if (value.startsWith('"') && value.endsWith('"')) return JSON.parse(value);
  if (value === 'null' || /^(true|false)$/i.test(value) || value.startsWith('{') || value.startsWith('[') || !Number.isNaN(Number(value))) {
    return JSON.parse(value.toLowerCase() === 'true' || value.toLowerCase() === 'false' ? value.toLowerCase() : value);
  }
  return value;
}

function globMatches(pattern: string, value: string): boolean {
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*');
  return new RegExp(`^${source}$`).test(value);
}

function veleroRuleMatches(rule: VeleroRule, item: TransformableItem, groupResource: string): boolean {
  if (!globMatches(rule.conditions.groupResource, groupResource)) return false;
  if (rule.conditions.resourceNameRegex && !new RegExp(rule.conditions.resourceNameRegex).test(item.metadata.name)) return false;
  if (rule.conditions.labelSelector && !selects(rule.conditions.labelSelector, item.metadata.labels ?? {})) return false;
  try {
    applyJsonPatch(structuredClone(item), (rule.conditions.matches ?? []).map((match) => ({ op: 'test', path: match.path, value: veleroValue(match.value) })));
  } catch {
    return false;
  }
  return true;
}

export function veleroExcludes(excludedResources: readonly string[] | undefined, groupResource: string): boolean {
  return (excludedResources ?? []).includes(groupResource);
}

/** The object after Velero's resource modifiers, and the errors Velero would count. */
export function applyVeleroModifiers<T extends TransformableItem>(
  item: T,
  groupResource: string,
  document: { resourceModifierRules?: VeleroRule[] } | undefined,
): { item: T; errors: string[] } {
  const rules = document?.resourceModifierRules ?? [];
  const origin = structuredClone(item);
  let current: Json = structuredClone(item);
  const errors: string[] = [];
  for (const rule of rules) {
    if (!veleroRuleMatches(rule, origin, groupResource)) continue;
    if (rule.patches?.length) {
      const candidate = structuredClone(current);
      try {
        applyJsonPatch(
          candidate,
          rule.patches.map((patch) => ({
            op: patch.operation,
            path: patch.path,
            ...(patch.from ? { from: patch.from } : {}),
            value: veleroValue(patch.value),
          })),
        );
        current = candidate;
      } catch (error) {
        if (!(error instanceof TestFailed)) errors.push(`error in applying JSON Patch ${(error as Error).message}`);
      }
    } else {
      for (const patch of rule.mergePatches ?? []) current = mergePatch(current, JSON.parse(patch.patchData));
    }
  }
  return { item: dropNulls(current) as T, errors };
}

// ------------------------------------------------------------------ Kasten

interface KastenSelector {
  group?: string;
  resource: string;
  name?: string;
}

interface KastenTransform {
  subject: KastenSelector;
  name: string;
  json: PatchOperation[];
}

function kastenSelects(selector: KastenSelector, item: TransformableItem, resource: string): boolean {
  return (selector.group ?? '') === groupOf(item.apiVersion) && selector.resource === resource && (!selector.name || selector.name === item.metadata.name);
}

export function kastenExcludes(filters: { excludeResources?: KastenSelector[] } | undefined, item: TransformableItem, resource: string): boolean {
  return (filters?.excludeResources ?? []).some((selector) => kastenSelects(selector, item, resource));
}

/** The object after Kasten's transforms; throws (the restore fails) on an error that is not a test failure. */
export function applyKastenTransforms<T extends TransformableItem>(item: T, resource: string, transforms: readonly KastenTransform[] | undefined): T {
  const current = structuredClone(item) as Json;
  for (const transform of transforms ?? []) {
    if (!kastenSelects(transform.subject, item, resource)) continue;
    try {
      applyJsonPatch(current, transform.json, true);
    } catch (error) {
      if (error instanceof TestFailed) continue;
      throw new Error(`transform ${transform.name} on ${item.kind} ${item.metadata.name}: ${(error as Error).message}`);
    }
  }
  return dropNulls(current) as T;
}

// ------------------------------------------------------------------ Trilio

interface TrilioGvk {
  group?: string;
  version?: string;
  kind?: string;
}

function trilioSelects(gvk: TrilioGvk, objects: string[] | undefined, item: TransformableItem): boolean {
  const [group, version] = item.apiVersion.includes('/') ? item.apiVersion.split('/') : ['', item.apiVersion];
  return (
    (gvk.group ?? '') === group &&
    (!gvk.version || gvk.version === version) &&
    gvk.kind === item.kind &&
    (!objects?.length || objects.includes(item.metadata.name))
  );
}

export function trilioExcludes(
  selector: { gvkSelector?: { groupVersionKind: TrilioGvk; objects?: string[] }[]; labelSelector?: LabelSelector[] } | undefined,
  item: TransformableItem,
): boolean {
  if ((selector?.gvkSelector ?? []).some((entry) => trilioSelects(entry.groupVersionKind, entry.objects, item))) return true;
  return (selector?.labelSelector ?? []).some((entry) => selects(entry, item.metadata.labels ?? {}));
}

export function applyTrilioTransforms<T extends TransformableItem>(
  item: T,
  components: { custom?: { transformName: string; resources: { groupVersionKind: TrilioGvk; objects?: string[] }; jsonPatches: PatchOperation[] }[] } | undefined,
): T {
  let current = structuredClone(item) as Json;
  for (const transform of components?.custom ?? []) {
    if (!trilioSelects(transform.resources.groupVersionKind, transform.resources.objects, item)) continue;
    const candidate = structuredClone(current);
    try {
      applyJsonPatch(candidate, transform.jsonPatches);
      current = candidate;
    } catch (error) {
      if (error instanceof TestFailed) continue;
      throw new Error(`transform ${transform.transformName} on ${item.kind} ${item.metadata.name}: ${(error as Error).message}`);
    }
  }
  return dropNulls(current) as T;
}
