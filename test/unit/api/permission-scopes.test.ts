// The RBAC scopes the evidence operations added: `server` (the installation's own objects, with a
// fixed name) and `collection` (a list in the request's namespace, never an object name); and the
// rules asked only on a server of one backup tool (issue 32).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  appliesTo,
  COVERAGE_KASTEN_POLICIES,
  COVERAGE_KASTEN_RESTORE_POINTS,
  COVERAGE_TRILIO_BACKUP_PLANS,
  COVERAGE_TRILIO_BACKUPS,
  COVERAGE_TRILIO_POLICIES,
  COVERAGE_VELERO_BACKUPS,
  COVERAGE_VELERO_SCHEDULES,
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

const defaults = { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const };
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

describe('rules of one backup tool (issue 32: coverage and test drafts read the configured tool)', () => {
  const TOOL_RULES = [
    COVERAGE_VELERO_SCHEDULES,
    COVERAGE_VELERO_BACKUPS,
    COVERAGE_KASTEN_POLICIES,
    COVERAGE_KASTEN_RESTORE_POINTS,
    COVERAGE_TRILIO_BACKUP_PLANS,
    COVERAGE_TRILIO_POLICIES,
    COVERAGE_TRILIO_BACKUPS,
  ] as RbacRule[];

  it.each([
    ['velero', ['schedules.velero.io', 'backups.velero.io']],
    ['kasten', ['policies.config.kio.kasten.io', 'restorepoints.apps.kio.kasten.io']],
    ['trilio', ['backupplans.triliovault.trilio.io', 'policies.triliovault.trilio.io', 'backups.triliovault.trilio.io']],
  ] as const)('a %s server asks only for its own tool’s lists', (backupTool, expected) => {
    const asked = TOOL_RULES.filter((rule) => appliesTo(rule, { backupTool })).map((rule) => `${rule.resource}.${rule.group}`);
    expect(asked).toEqual(expected);
    // A rule for no tool in particular is always asked.
    expect(appliesTo(LIST_TESTS as RbacRule, { backupTool })).toBe(true);
  });

  it('Kasten and Trilio lists are cluster-wide (their objects live in the application namespaces); Velero’s in its namespace', () => {
    const facts = { query: {}, params: {}, namespace: 'rehearsal-system' };
    expect(permissionFor(COVERAGE_KASTEN_POLICIES as RbacRule, facts, { ...defaults, backupTool: 'kasten' })).toEqual({
      verb: 'list',
      group: 'config.kio.kasten.io',
      resource: 'policies',
    });
    expect(permissionFor(COVERAGE_VELERO_BACKUPS as RbacRule, facts, defaults).namespace).toBe('velero');
  });

  it('the coverage and test-draft operations declare every tool’s rules; an unknown tool is refused', () => {
    for (const [path, method] of [['/api/v1/coverage', 'get'], ['/api/v1/test-drafts', 'get'], ['/api/v1/test-drafts/{sourceNamespace}', 'post']] as const) {
      expect(document.paths[path]![method]![RBAC_EXTENSION]).toEqual(expect.arrayContaining(TOOL_RULES));
    }
    const doc = {
      paths: { '/x': { get: { operationId: 'x', security: [{}], [RBAC_EXTENSION]: [{ ...LIST_TESTS, backupTool: 'stash' }] } } },
    };
    expect(() => new PermissionTable(doc)).toThrow('malformed x-rehearsal-rbac declaration');
  });
});
