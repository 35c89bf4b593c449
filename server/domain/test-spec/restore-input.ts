// CreateTestInput.restore → spec.restore (docs/restore-transforms.md), validated to the limits the
// RestoreTest CRD stores (crds/rehearsal.dev_restoretests.yaml spec.restore), every offending field
// named with its path (restore.patches[0].operations[1].from). Who may ask for what (administer for
// removing a default, a lower Pod Security floor, a patch on a kind a default changes) is not a
// question of shape: domain/permissions/restore-permissions.ts decides it.
import {
  POD_SECURITY_LEVELS,
  type DefaultTransformId,
  type PodSecurityLevel,
  type RestorePatch,
  type RestorePatchOperation,
  type RestoreSpec,
  type ResourceTypeRef,
} from '../resources/resources.js';
import { DEFAULT_TRANSFORM_IDS } from '../run/restore-transforms.js';

/** One offending field (the shape of test-input.ts's FieldError, which collects these). */
export interface RestoreFieldError {
  field: string;
  message: string;
}
type FieldError = RestoreFieldError;

const RESTORE_LIMITS = { exclude: 32, patches: 16, when: 8, operations: 16, removeDefaults: 8, patchName: 50, path: 256 } as const;
const OPERATIONS: readonly RestorePatchOperation['op'][] = ['add', 'replace', 'remove', 'copy', 'move'];

const GROUP = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$/;
const VERSION = /^v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Checker {
  readonly errors: FieldError[] = [];

  fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  object(field: string, value: unknown, known: readonly string[], required: readonly string[]): value is Record<string, unknown> {
    if (!isPlainObject(value)) {
      this.fail(field, 'must be an object');
      return false;
    }
    for (const key of Object.keys(value)) if (!known.includes(key)) this.fail(`${field}.${key}`, 'is not a known field');
    for (const key of required) if (value[key] === undefined) this.fail(`${field}.${key}`, 'is required');
    return true;
  }

  string(field: string, value: unknown, pattern: RegExp, maxLength: number, rule: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.fail(field, 'must be a string');
      return undefined;
    }
    if (value.length > maxLength || !pattern.test(value)) {
      this.fail(field, `${rule} of at most ${maxLength} characters`);
      return undefined;
    }
    return value;
  }

  array(field: string, value: unknown, maxItems: number, minItems = 0): unknown[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.fail(field, 'must be an array');
      return undefined;
    }
    if (value.length > maxItems) this.fail(field, `must list at most ${maxItems} items`);
    else if (value.length < minItems) this.fail(field, `must list at least ${minItems}`);
    return value;
  }

  pointer(field: string, value: unknown): string | undefined {
    return this.string(field, value, /^\//, RESTORE_LIMITS.path, 'must be a JSON Pointer (starting with /)');
  }

  resourceType(field: string, value: unknown, withName: boolean): (ResourceTypeRef & { name?: string }) | undefined {
    const known = ['group', 'version', 'kind', 'resource', ...(withName ? ['name'] : [])];
    if (!this.object(field, value, known, ['version', 'kind', 'resource'])) return undefined;
    const before = this.errors.length;
    const group = this.string(`${field}.group`, value.group, GROUP, 253, 'must be an API group (a DNS subdomain, or empty)');
    const version = this.string(`${field}.version`, value.version, VERSION, 20, 'must be an API version such as v1 or v1beta1');
    const kind = this.string(`${field}.kind`, value.kind, KIND, 63, 'must be a Kind such as Ingress');
    const resource = this.string(`${field}.resource`, value.resource, LABEL, 63, 'must be a plural resource name such as ingresses');
    const name = withName ? this.string(`${field}.name`, value.name, SUBDOMAIN, 253, 'must be an object name') : undefined;
    if (this.errors.length > before || !version || !kind || !resource) return undefined;
    return { ...(group ? { group } : {}), version, kind, resource, ...(name ? { name } : {}) };
  }

  operation(field: string, value: unknown): RestorePatchOperation | undefined {
    if (!this.object(field, value, ['op', 'path', 'from', 'value'], ['op', 'path'])) return undefined;
    const before = this.errors.length;
    if (value.op !== undefined && !(OPERATIONS as readonly unknown[]).includes(value.op)) this.fail(`${field}.op`, `must be one of ${OPERATIONS.join(', ')}`);
    const path = this.pointer(`${field}.path`, value.path);
    const from = this.pointer(`${field}.from`, value.from);
    const moves = value.op === 'copy' || value.op === 'move';
    if (moves && value.from === undefined) this.fail(`${field}.from`, `is required for ${String(value.op)}`);
    if (!moves && value.from !== undefined) this.fail(`${field}.from`, 'is only for copy and move');
    if (this.errors.length > before || !path) return undefined;
    return {
      op: value.op as RestorePatchOperation['op'],
      path,
      ...(from !== undefined ? { from } : {}),
      ...(value.value !== undefined ? { value: value.value } : {}),
    };
  }

  patch(field: string, value: unknown): RestorePatch | undefined {
    if (!this.object(field, value, ['name', 'target', 'when', 'operations'], ['name', 'target', 'operations'])) return undefined;
    const before = this.errors.length;
    const name = this.string(`${field}.name`, value.name, LABEL, RESTORE_LIMITS.patchName, 'must be an RFC 1123 label');
    const target = value.target === undefined ? undefined : this.resourceType(`${field}.target`, value.target, true);
    const when = (this.array(`${field}.when`, value.when, RESTORE_LIMITS.when) ?? []).flatMap((condition, index) => {
      const at = `${field}.when[${index}]`;
      if (!this.object(at, condition, ['path', 'value'], ['path', 'value'])) return [];
      const path = this.pointer(`${at}.path`, condition.path);
      // The apiserver prunes a null it stores in an untyped field: the condition would lose its value.
      if (condition.value === null) this.fail(`${at}.value`, 'must not be null (a condition compares with a value)');
      return path && condition.value !== null ? [{ path, value: condition.value }] : [];
    });
    const operations = (this.array(`${field}.operations`, value.operations, RESTORE_LIMITS.operations, 1) ?? []).flatMap((operation, index) => {
      const checked = this.operation(`${field}.operations[${index}]`, operation);
      return checked ? [checked] : [];
    });
    if (this.errors.length > before || !name || !target) return undefined;
    return { name, target, ...(value.when !== undefined ? { when } : {}), operations };
  }
}

/** spec.restore from CreateTestInput.restore (absent or {} = none), or the errors. */
export function validateRestoreInput(value: unknown): { spec?: RestoreSpec; errors: FieldError[] } {
  if (value === undefined) return { errors: [] };
  const check = new Checker();
  if (!check.object('restore', value, ['exclude', 'patches', 'removeDefaults', 'podSecurity'], [])) return { errors: check.errors };
  const exclude = (check.array('restore.exclude', value.exclude, RESTORE_LIMITS.exclude) ?? []).flatMap((entry, index) => {
    const type = check.resourceType(`restore.exclude[${index}]`, entry, false);
    return type ? [type] : [];
  });
  const patches = (check.array('restore.patches', value.patches, RESTORE_LIMITS.patches) ?? []).flatMap((entry, index) => {
    const patch = check.patch(`restore.patches[${index}]`, entry);
    return patch ? [patch] : [];
  });
  const seen = new Map<string, number>();
  patches.forEach((patch, index) => {
    const first = seen.get(patch.name);
    if (first !== undefined) check.fail(`restore.patches[${index}].name`, `duplicates restore.patches[${first}].name`);
    else seen.set(patch.name, index);
  });
  const removeDefaults: DefaultTransformId[] = [];
  (check.array('restore.removeDefaults', value.removeDefaults, RESTORE_LIMITS.removeDefaults) ?? []).forEach((id, index) => {
    const field = `restore.removeDefaults[${index}]`;
    if (!(DEFAULT_TRANSFORM_IDS as readonly unknown[]).includes(id)) check.fail(field, `must be one of ${DEFAULT_TRANSFORM_IDS.join(', ')}`);
    // A set: a repeat says nothing more (and the CRD stores each once).
    else if (!removeDefaults.includes(id as DefaultTransformId)) removeDefaults.push(id as DefaultTransformId);
  });
  let podSecurity: PodSecurityLevel | undefined;
  if (value.podSecurity !== undefined) {
    if (!(POD_SECURITY_LEVELS as readonly unknown[]).includes(value.podSecurity)) check.fail('restore.podSecurity', `must be one of ${POD_SECURITY_LEVELS.join(', ')}`);
    else podSecurity = value.podSecurity as PodSecurityLevel;
  }
  if (check.errors.length > 0) return { errors: check.errors };
  const spec: RestoreSpec = {
    ...(exclude.length > 0 ? { exclude } : {}),
    ...(patches.length > 0 ? { patches } : {}),
    ...(removeDefaults.length > 0 ? { removeDefaults } : {}),
    ...(podSecurity ? { podSecurity } : {}),
  };
  return { ...(Object.keys(spec).length > 0 ? { spec } : {}), errors: [] };
}
