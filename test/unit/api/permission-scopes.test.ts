// The RBAC scopes the evidence operations added: `server` (the installation's own objects, with a
// fixed name) and `collection` (a list in the request's namespace, never an object name).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  GET_EVIDENCE_KEYS,
  GET_TEST,
  LIST_REPORTS,
  LIST_REPORTS_OF_TEST,
  LIST_TESTS,
  PermissionTable,
  RBAC_EXTENSION,
  permissionFor,
  type RbacRule,
} from '../../../server/api/auth/permissions.js';

const defaults = { namespace: 'rehearsal-system', veleroNamespace: 'velero' };
const document = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

describe('new scopes', () => {
  it('server: the server namespace and the rule’s fixed name, whatever the request says', () => {
    expect(
      permissionFor(
        GET_EVIDENCE_KEYS as RbacRule,
        { query: { namespace: 'team-a' }, params: { name: 'x' }, namespace: 'team-a' },
        defaults,
      ),
    ).toEqual({
      verb: 'get',
      group: '',
      resource: 'configmaps',
      namespace: 'rehearsal-system',
      name: 'rehearsal-evidence-public-keys',
    });
  });

  it('collection: the request namespace without the path name', () => {
    const facts = { query: { namespace: 'team-a' }, params: { name: 'payments' }, namespace: 'team-a' };
    expect(permissionFor(LIST_REPORTS_OF_TEST as RbacRule, facts, defaults)).toEqual({
      verb: 'list',
      group: 'rehearsal.dev',
      resource: 'restorereports',
      namespace: 'team-a',
    });
    expect(permissionFor(LIST_REPORTS_OF_TEST as RbacRule, { ...facts, query: {}, namespace: 'rehearsal-system' }, defaults).namespace).toBe(
      'rehearsal-system',
    );
  });

  it('a fixed name is only accepted on the server scope', () => {
    const doc = {
      paths: {
        '/x': { get: { operationId: 'x', security: [{}], [RBAC_EXTENSION]: [{ ...LIST_TESTS, name: 'n' }] } },
      },
    };
    expect(() => new PermissionTable(doc)).toThrow('malformed x-rehearsal-rbac declaration');
  });
});

describe('the committed document declares', () => {
  const rules = (path: string) => document.paths[path]!.get![RBAC_EXTENSION];
  it.each<[string, unknown[]]>([
    ['/api/v1/license', [LIST_TESTS]],
    ['/api/v1/evidence/keys', [GET_EVIDENCE_KEYS]],
    ['/api/v1/compliance/pdf', [LIST_TESTS, LIST_REPORTS]],
    ['/api/restore-tests/{name}/report.pdf', [GET_TEST, LIST_REPORTS_OF_TEST]],
  ])('%s', (path, expected) => {
    expect(rules(path)).toEqual(expected);
    expect(document.paths[path]!.get!.security).toEqual([{ kubernetes: [] }]);
  });

  it('the PDFs as application/pdf files with a required Content-Disposition, errors as problems', () => {
    for (const path of ['/api/v1/compliance/pdf', '/api/restore-tests/{name}/report.pdf']) {
      const responses = document.paths[path]!.get!.responses as Record<
        string,
        { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
      >;
      expect(responses['200']!.content).toEqual({
        'application/pdf': { schema: { type: 'string', format: 'binary' } },
      });
      expect(responses['200']!.headers!['Content-Disposition']!.required).toBe(true);
      for (const status of ['400', '402', '503']) {
        expect(Object.keys(responses[status]!.content!)).toEqual(['application/problem+json']);
      }
    }
  });
});
