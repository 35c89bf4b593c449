// A CRD's structural schema applied the way the apiserver applies it, without an apiserver: what
// it would refuse (schemaProblems) and what it would keep (asStored: unknown fields pruned, nulls
// of non-nullable fields dropped — apiextensions-apiserver's pruning and
// PruneNonNullableNullsWithoutDefaults). For unit tests that pin objects Rehearsal writes to a
// vendor's CRD (test/unit/providers/trilio-crd-schema.test.ts); the integration tests install the
// same CRDs in a real apiserver. Covers the schema keywords the vendor CRDs use; CEL rules
// (x-kubernetes-validations) are not evaluated — a CRD that has them needs the real apiserver.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  allOf?: Schema[];
  anyOf?: Schema[];
  nullable?: boolean;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: unknown[];
}

/** The openAPIV3Schema of a CRD file's storage version. */
export function crdSchema(file: string): Schema {
  const crd = parse(readFileSync(file, 'utf8')) as {
    spec: { versions: { name: string; storage?: boolean; schema: { openAPIV3Schema: Schema } }[] };
  };
  const version = crd.spec.versions.find((entry) => entry.storage) ?? crd.spec.versions[0];
  if (!version) throw new Error(`${file}: no version`);
  return version.schema.openAPIV3Schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema of field `key` of an object of `schema`, or undefined when the apiserver would prune it. */
function fieldSchema(schema: Schema, key: string): Schema | 'kept' | undefined {
  const known = schema.properties?.[key];
  if (known) return known;
  if (isObject(schema.additionalProperties)) return schema.additionalProperties;
  if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields']) return 'kept';
  return undefined;
}

// RFC 3339 as Kubernetes' date-time format accepts it.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function typeProblem(value: unknown, schema: Schema): string | undefined {
  if (schema['x-kubernetes-int-or-string']) {
    return Number.isInteger(value) || typeof value === 'string'
      ? undefined
      : 'is neither an integer nor a string';
  }
  switch (schema.type) {
    case 'object':
      return isObject(value) ? undefined : 'is not an object';
    case 'array':
      return Array.isArray(value) ? undefined : 'is not an array';
    case 'string':
      return typeof value === 'string' ? undefined : 'is not a string';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'is not an integer';
    case 'number':
      return typeof value === 'number' ? undefined : 'is not a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'is not a boolean';
    default:
      return undefined; // no type: anything (x-kubernetes-preserve-unknown-fields)
  }
}

function valueProblems(value: unknown, schema: Schema): string[] {
  const problems: string[] = [];
  for (const rule of [schema, ...(schema.allOf ?? [])]) {
    if (rule.enum && !rule.enum.some((allowed) => allowed === value))
      problems.push(`is ${JSON.stringify(value)}, not one of ${rule.enum.join(', ')}`);
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value))
      problems.push(`does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && !DATE_TIME.test(value))
      problems.push('is not an RFC 3339 date-time');
    if (schema.minLength !== undefined && value.length < schema.minLength)
      problems.push(`is shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      problems.push(`is longer than ${schema.maxLength}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`is below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`is above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      problems.push(`has fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      problems.push(`has more than ${schema.maxItems} items`);
  }
  return problems;
}

/**
 * Every way `value` departs from `schema`, one line each ("spec.restoreNamespace: not in the
 * schema (pruned)"): fields the apiserver would drop, nulls it would drop, and values it would
 * refuse. Empty when the apiserver would store `value` exactly as given. At the root, metadata is
 * the apiserver's own (ObjectMeta) and is not walked.
 */
export function schemaProblems(value: unknown, schema: Schema, path = ''): string[] {
  const at = (key: string | number) =>
    typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  if (value === null)
    return schema.nullable ? [] : [`${path}: null where the schema is not nullable (pruned)`];
  const wrongType = typeProblem(value, schema);
  if (wrongType) return [`${path}: ${wrongType}`];
  const problems = valueProblems(value, schema).map((problem) => `${path}: ${problem}`);
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => problems.push(...schemaProblems(item, schema.items!, at(index))));
  }
  if (isObject(value) && schema.type === 'object') {
    for (const key of schema.required ?? [])
      if (!(key in value)) problems.push(`${at(key)}: required but missing`);
    for (const [key, field] of Object.entries(value)) {
      if (path === '' && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
      const child = fieldSchema(schema, key);
      if (child === undefined) problems.push(`${at(key)}: not in the schema (pruned)`);
      else if (child !== 'kept') problems.push(...schemaProblems(field, child, at(key)));
    }
  }
  return problems;
}

/** `value` as the apiserver stores it: unknown fields and nulls of non-nullable fields removed. */
export function asStored<T>(value: T, schema: Schema, root = true): T {
  if (Array.isArray(value))
    return (schema.items ? value.map((item) => asStored(item, schema.items!, false)) : value) as T;
  if (!isObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (root && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) {
      kept[key] = field;
      continue;
    }
    const child = fieldSchema(schema, key);
    if (child === undefined) continue;
    if (child === 'kept') kept[key] = field;
    else if (field === null && !child.nullable) continue;
    else kept[key] = asStored(field, child, false);
  }
  return kept as T;
}

/** Whether a dotted path ("status.condition[].reason") is declared by the schema. */
export function declares(schema: Schema, path: string): boolean {
  let node: Schema | undefined = schema;
  for (const part of path.split('.')) {
    const name = part.replace(/\[\]$/, '');
    node = node?.properties?.[name];
    if (part.endsWith('[]')) node = node?.type === 'array' ? node.items : undefined;
    if (!node) return false;
  }
  return true;
}
