// The chart's values for in-cluster access (issue 30: ingress, httpRoute, networkPolicy.routeFrom)
// against values.schema.json, as Helm checks them before rendering (draft-07; Helm uses a
// different validator, so the rendering and its refusals are tested with Helm itself in
// test/integration/ingress-route.test.ts). Here: the shipped defaults and the CI example are valid,
// and the mistakes the schema is meant to catch are refused naming the field.
import { describe, expect, it } from '@jest/globals';
import { chartYaml, mergeValues as merge, schemaProblems as problems, type Values } from '../../helpers/chart-values.js';

const defaults = chartYaml('values.yaml');
const routeExample = chartYaml('ci/ingress-route-values.yaml');

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
