// The chart's values for in-cluster access (issue 30: ingress, httpRoute, networkPolicy.routeFrom)
// against values.schema.json, as Helm checks them before rendering (draft-07; Helm uses a
// different validator, so the rendering and its refusals are tested with Helm itself in
// test/integration/ingress-route.test.ts). Here: the shipped defaults and the CI example are valid,
// and the mistakes the schema is meant to catch are refused naming the field.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse } from 'yaml';

const chart = path.resolve('deploy/helm/rehearsal');
// The file names draft-07 by its https address, which ajv does not know by that name; the keywords are draft-07's.
const { $schema: _draft, ...schema } = JSON.parse(readFileSync(path.join(chart, 'values.schema.json'), 'utf8')) as Record<string, unknown>;
const defaults = parse(readFileSync(path.join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const routeExample = parse(readFileSync(path.join(chart, 'ci/ingress-route-values.yaml'), 'utf8')) as Record<string, unknown>;

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

type Values = Record<string, unknown>;
const isObject = (value: unknown): value is Values => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Helm's merge of values: maps merge key by key, anything else replaces. */
function merge(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? merge(current, value) : value;
  }
  return out;
}

/** The schema's complaints, each as "path: message" (path as Helm names it, with dots). */
function problems(values: Values): string[] {
  if (validate(values)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => {
    const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = (error.params as { missingProperty?: string; additionalProperty?: string }).missingProperty;
    const extra = (error.params as { additionalProperty?: string }).additionalProperty;
    return `${where}: ${error.message ?? ''}${missing ? ` (${missing})` : ''}${extra ? ` (${extra})` : ''}`;
  });
}

const withRoutes = (override: Values): Values => merge(merge(defaults, routeExample), override);

describe('values.schema.json: ingress, httpRoute, networkPolicy.routeFrom', () => {
  it('accepts the defaults (both off) and the CI example with both on', () => {
    expect(problems(defaults)).toEqual([]);
    expect((defaults['ingress'] as Values)['enabled']).toBe(false);
    expect((defaults['httpRoute'] as Values)['enabled']).toBe(false);
    expect(problems(withRoutes({}))).toEqual([]);
  });

  it('refuses a Gateway parent without the listener it must use (sectionName)', () => {
    expect(problems(withRoutes({ httpRoute: { parentRefs: [{ name: 'shared-gateway' }] } }))).toContainEqual(
      expect.stringMatching(/^httpRoute\.parentRefs\.0: .*\(sectionName\)/),
    );
  });

  it('refuses hosts that are not DNS names, in both routes', () => {
    expect(problems(withRoutes({ ingress: { hosts: ['Not_A_Host'] } }))).toContainEqual(expect.stringMatching(/^ingress\.hosts\.0: /));
    expect(problems(withRoutes({ httpRoute: { hostnames: ['https://rehearsal.example.com'] } }))).toContainEqual(
      expect.stringMatching(/^httpRoute\.hostnames\.0: /),
    );
    expect(problems(withRoutes({ ingress: { hosts: ['*.example.com'] } }))).toEqual([]);
  });

  it('refuses a path that is not absolute, an unknown issuer kind, an empty peer and unknown keys', () => {
    expect(problems(withRoutes({ ingress: { path: 'api' } }))).toContainEqual(expect.stringMatching(/^ingress\.path: /));
    expect(problems(withRoutes({ ingress: { tls: { certManagerIssuer: { kind: 'Vault', name: 'x' } } } }))).toContainEqual(
      expect.stringMatching(/^ingress\.tls\.certManagerIssuer\.kind: /),
    );
    // An empty peer selects every pod of the namespace tree: the one way to open 8080 to all.
    expect(problems(withRoutes({ networkPolicy: { routeFrom: [{}] } }))).toContainEqual(
      expect.stringMatching(/^networkPolicy\.routeFrom\.0: /),
    );
    expect(problems(withRoutes({ ingress: { tlsSecret: 'x' } }))).toContainEqual(expect.stringMatching(/^ingress: .*\(tlsSecret\)/));
    expect(problems(withRoutes({ httpRoute: { allowPlainHttp: true } }))).toContainEqual(
      expect.stringMatching(/^httpRoute: .*\(allowPlainHttp\)/),
    );
  });

  it('refuses allowPlainHTTP that is not a boolean (a string "false" would be true to a template)', () => {
    expect(problems(withRoutes({ ingress: { allowPlainHTTP: 'false' } }))).toContainEqual(
      expect.stringMatching(/^ingress\.allowPlainHTTP: /),
    );
  });
});
