// Decision 0018 as tables: who may change the checks that read a restored namespace, which
// policies a test may use, and whether a run may start (fail closed, first refusal wins).
import { describe, expect, it } from '@jest/globals';
import {
  foreignSources,
  policyRequirements,
  uncoveredSources,
} from '../../../server/domain/permissions/health-check-policy-permissions.js';
import { decideRunPermission, decideWithoutAuthor, recordedAuthor, type RunPermissionFacts } from '../../../server/domain/permissions/run-permission.js';

const spec = (...names: string[]) => ({ backupSource: { namespaces: names.map((name) => ({ name })) } });
const getSecrets = (namespace: string) => ({ verb: 'get', group: '', resource: 'secrets', namespace, because: 'x' });

describe('HealthCheckPolicy rule', () => {
  it('asks get secrets in every listed namespace, nothing for a policy that lists none', () => {
    expect(policyRequirements({ sourceNamespaces: ['team-b', 'team-c'] }).map((p) => [p.verb, p.resource, p.namespace])).toEqual([
      ['get', 'secrets', 'team-b'],
      ['get', 'secrets', 'team-c'],
    ]);
    expect(policyRequirements({})).toEqual([]);
  });

  it.each([
    ['own namespace only', ['team-a'], undefined, []],
    ['another team, not listed', ['team-a', 'team-b'], undefined, ['team-b']],
    ['another team, listed', ['team-b'], ['team-b'], []],
    ['two teams, one listed', ['team-b', 'team-c'], ['team-c'], ['team-b']],
  ] as const)('%s → uncovered %p', (_label, sources, listed, uncovered) => {
    expect(uncoveredSources('team-a', spec(...sources), listed ? { sourceNamespaces: [...listed] } : {})).toEqual(uncovered);
  });

  it('foreign sources are the distinct ones other than the test namespace', () => {
    expect(foreignSources('team-a', spec('team-a', 'team-b', 'team-b'))).toEqual(['team-b']);
  });
});

describe('recordedAuthor', () => {
  it.each([
    [undefined, undefined],
    [{}, undefined],
    [{ 'rehearsal.dev/author': '' }, undefined],
    [{ 'rehearsal.dev/author': 'alice' }, { username: 'alice', groups: [] }],
    [{ 'rehearsal.dev/author': 'alice', 'rehearsal.dev/author-groups': 'devs, ops,,' }, { username: 'alice', groups: ['devs', 'ops'] }],
  ] as const)('%p → %p', (annotations, author) => {
    expect(recordedAuthor(annotations)).toEqual(author);
  });
});

describe('decideRunPermission', () => {
  const allowedFacts: RunPermissionFacts = {
    foreignSources: ['team-b'],
    missingAdmission: [],
    author: { state: 'reviewed', username: 'bob', missing: [] },
  };
  it.each([
    ['own namespace only: no check at all', { foreignSources: [], missingAdmission: ['rehearsal-restoretest-author'] }, true, 'SourcesInOwnNamespace'],
    ['author holds the rights', {}, true, 'AuthorAllowed'],
    ['admission policy binding missing', { missingAdmission: ['ValidatingAdmissionPolicyBinding/rehearsal-restoretest-author'] }, false, 'AdmissionPoliciesMissing'],
    ['policy does not list the source', { policy: { name: 'checks', uncovered: ['team-b'] } }, false, 'HealthCheckPolicyNotAllowed'],
    ['policy lists the source', { policy: { name: 'checks', uncovered: [] } }, true, 'AuthorAllowed'],
    ['no recorded author', { author: { state: 'not-recorded' } }, false, 'NoRecordedAuthor'],
    ['author facts never gathered (fail closed)', { author: undefined }, false, 'NoRecordedAuthor'],
    ['author lost get secrets', { author: { state: 'reviewed', username: 'bob', missing: [getSecrets('team-b')] } }, false, 'AuthorLacksRights'],
    ['reviews failed', { author: { state: 'unavailable', message: 'apiserver down' } }, false, 'AuthorCheckFailed'],
    ['missing admission wins over a bad author', { missingAdmission: ['x'], author: { state: 'not-recorded' } }, false, 'AdmissionPoliciesMissing'],
  ] as const)('%s → allowed %p, %s', (_label, change, allowed, reason) => {
    const decision = decideRunPermission({ ...allowedFacts, ...(change as Partial<RunPermissionFacts>) });
    expect([decision.allowed, decision.reason]).toEqual([allowed, reason]);
  });

  it('names the author, the namespace and the permission when rights were lost', () => {
    const decision = decideRunPermission({ ...allowedFacts, author: { state: 'reviewed', username: 'bob', missing: [getSecrets('team-b')] } });
    expect(decision.message).toBe('the author "bob" cannot get secrets in namespace "team-b" (x)');
  });

  it('decides without the author only when something else already decides', () => {
    expect(decideWithoutAuthor({ foreignSources: ['team-b'], missingAdmission: [] })).toBeUndefined();
    expect(decideWithoutAuthor({ foreignSources: [], missingAdmission: [] })?.allowed).toBe(true);
  });
});
