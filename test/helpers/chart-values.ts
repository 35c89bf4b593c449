// The chart's values as Helm sees them before rendering, for tests of values.schema.json: the
// shipped defaults, Helm's merge of value files, and the schema's complaints (draft-07 via Ajv;
// Helm validates with another library, so refusals that matter are also checked with Helm itself).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { repoRoot } from './cluster-info.js';

export type Values = Record<string, unknown>;

export const chartPath = path.join(repoRoot, 'deploy/helm/rehearsal');

/** A YAML file of the chart (values.yaml, ci/*.yaml), parsed. */
export function chartYaml(file: string): Values {
  return parse(readFileSync(path.join(chartPath, file), 'utf8')) as Values;
}

// The file names draft-07 by its https address, which Ajv does not know by that name; the keywords are draft-07's.
const { $schema: _draft, ...schema } = JSON.parse(readFileSync(path.join(chartPath, 'values.schema.json'), 'utf8')) as Values;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

const isObject = (value: unknown): value is Values => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Helm's merge of values: maps merge key by key, anything else replaces. */
export function mergeValues(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeValues(current, value) : value;
  }
  return out;
}

/** The schema's complaints, each as "path: message" (path as Helm names it, with dots), [] when valid. */
export function schemaProblems(values: Values): string[] {
  if (validate(values)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => {
    const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    return `${where}: ${error.message ?? ''}${params.missingProperty ? ` (${params.missingProperty})` : ''}${params.additionalProperty ? ` (${params.additionalProperty})` : ''}`;
  });
}
