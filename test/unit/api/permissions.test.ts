// RBAC declarations: how a rule becomes a concrete permission per request, and that the committed
// OpenAPI document declares one for every secured operation (the authorizer refuses the rest).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  CREATE_TEST,
  GET_TEST,
  LIST_REPORTS_READABLE,
  LIST_TESTS,
  LIST_VELERO_SCHEDULES,
  PermissionTable,
  RBAC_EXTENSION,
  TRIGGER_TEST,
  expressPath,
  permissionFor,
  type RbacRule,
  type RequestFacts,
} from '../../../server/api/auth/permissions.js';

const defaults = { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const };
// The resolved namespace as the authentication hook computes it for requests without a body.
const facts = (partial: Partial<RequestFacts>): RequestFacts => ({
  query: {},
  params: {},
  namespace: typeof partial.query?.namespace === 'string' ? partial.query.namespace : 'rehearsal-system',
  ...partial,
});
const document = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

describe('permissionFor', () => {
  it.each<[string, RbacRule, Partial<RequestFacts>, Record<string, string>]>([
    ['cluster scope ignores the namespace', LIST_TESTS as RbacRule, { query: { namespace: 'team-a' } }, {}],
    [
      'named test in the default namespace',
      GET_TEST as RbacRule,
      { params: { name: 'payments' } },
      { namespace: 'rehearsal-system', name: 'payments' },
    ],
    [
      'named test in the query namespace',
      GET_TEST as RbacRule,
      { params: { name: 'shop' }, query: { namespace: 'team-a' } },
      { namespace: 'team-a', name: 'shop' },
    ],
    [
      'create in the resolved namespace (request-namespace.ts)',
      CREATE_TEST as RbacRule,
      { namespace: 'team-b' },
      { namespace: 'team-b' },
    ],
    ['create without a namespace', CREATE_TEST as RbacRule, {}, { namespace: 'rehearsal-system' }],
    [
      'trigger names the subresource and the test',
      TRIGGER_TEST as RbacRule,
      { params: { name: 'payments' } },
      { subresource: 'trigger', namespace: 'rehearsal-system', name: 'payments' },
    ],
    [
      'readable scope without a namespace asks cluster-wide first',
      LIST_REPORTS_READABLE as RbacRule,
      { query: { days: '3' } },
      {},
    ],
    [
      'readable scope with test',
      LIST_REPORTS_READABLE as RbacRule,
      { query: { test: 'payments' } },
      { namespace: 'rehearsal-system' },
    ],
    [
      'readable scope with namespace',
      LIST_REPORTS_READABLE as RbacRule,
      { query: { namespace: 'team-a' } },
      { namespace: 'team-a' },
    ],
    [
      'velero scope',
      LIST_VELERO_SCHEDULES as RbacRule,
      { query: { namespace: 'x' } },
      { namespace: 'velero' },
    ],
  ])('%s', (_name, rule, request, expected) => {
    const permission = permissionFor(rule, facts(request), defaults);
    expect(permission).toEqual({
      verb: rule.verb,
      group: rule.group,
      resource: rule.resource,
      ...(rule.subresource ? { subresource: rule.subresource } : {}),
      ...expected,
    });
  });
});

describe('PermissionTable', () => {
  const table = new PermissionTable(document);

  it('finds every operation by method and Express path; HEAD uses GET', () => {
    expect(expressPath('/api/v1/tests/{name}/trigger')).toBe('/api/v1/tests/:name/trigger');
    expect(table.lookup('POST', '/api/v1/tests/:name/trigger')!.operationId).toBe('triggerTest');
    expect(table.lookup('HEAD', '/api/v1/summary')!.operationId).toBe('getSummary');
    expect(table.lookup('PATCH', '/api/v1/tests/:name')).toBeUndefined();
  });

  it('has an RBAC declaration for every secured operation of the committed document', () => {
    const operations = table.operations();
    expect(operations.length).toBe(26);
    const undeclared = operations.filter((operation) => operation.secured && operation.rules.length === 0);
    expect(undeclared).toEqual([]);
    expect(
      operations.filter((operation) => !operation.secured).map((operation) => operation.operationId),
    ).toEqual(['getHealth']);
  });

  it('refuses a malformed declaration', () => {
    const broken = {
      paths: {
        '/x': {
          get: { operationId: 'x', security: [{ kubernetes: [] }], [RBAC_EXTENSION]: [{ verb: 'get' }] },
        },
      },
    };
    expect(() => new PermissionTable(broken)).toThrow('malformed x-rehearsal-rbac');
  });
});
