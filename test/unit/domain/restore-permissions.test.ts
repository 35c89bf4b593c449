import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { renderAdmissionYaml } from '../../../deploy/admission/render.js';
import { restoreAdmissionPolicy } from '../../../server/domain/permissions/restore-admission-policy.js';
import {
  describeMissing,
  restoreRequirements,
  type RestoreAdmissionSettings,
} from '../../../server/domain/permissions/restore-permissions.js';
import { MAX_SOURCE_NAMESPACES } from '../../../server/domain/run/sandbox-names.js';
import type { RestoreSpec } from '../../../server/domain/resources/resources.js';

const settings: RestoreAdmissionSettings = { providerNamespace: 'velero', maxSandboxTtlSeconds: 168 * 3600 };

function spec(
  extra: { sources?: string[]; providerNamespace?: string; ttl?: string; networkIsolation?: 'strict' | 'none'; restore?: RestoreSpec } = {},
) {
  return {
    ...(extra.restore ? { restore: extra.restore } : {}),
    backupSource: {
      namespaces: (extra.sources ?? ['team-a']).map((name) => ({ name })),
      ...(extra.providerNamespace ? { providerNamespace: extra.providerNamespace } : {}),
    },
    sandbox: {
      ...(extra.ttl ? { ttl: extra.ttl } : {}),
      ...(extra.networkIsolation ? { networkIsolation: extra.networkIsolation } : {}),
    },
  };
}

const names = (outcome: ReturnType<typeof restoreRequirements>) =>
  outcome.permissions.map((permission) => `${permission.verb} ${permission.resource} ${permission.namespace}`);

describe('restoreRequirements (decision 0009)', () => {
  it('needs get secrets in every source namespace, nothing else for a plain test', () => {
    const outcome = restoreRequirements('team-a', spec({ sources: ['team-a', 'kube-system'] }), settings);
    expect(names(outcome)).toEqual(['get secrets team-a', 'get secrets kube-system']);
    expect(outcome.invalid).toEqual([]);
  });

  it.each([
    ['a foreign providerNamespace', { providerNamespace: 'other-velero' }, /providerNamespace "other-velero" is not the installation provider namespace "velero"/],
    ['networkIsolation none', { networkIsolation: 'none' as const }, /networkIsolation "none"/],
  ])('makes %s admin-only (administer restoretests in the test namespace)', (_name, extra, because) => {
    const outcome = restoreRequirements('team-a', spec(extra), settings);
    const admin = outcome.permissions.find((permission) => permission.verb === 'administer')!;
    expect(admin).toMatchObject({ group: 'rehearsal.dev', resource: 'restoretests', namespace: 'team-a' });
    expect(admin.because).toMatch(because);
  });

  const patchOn = (group: string, kind: string) => ({
    patches: [{ name: 'p', target: { group, version: 'v1', kind, resource: `${kind.toLowerCase()}s` }, operations: [{ op: 'remove' as const, path: '/x' }] }],
  });
  it.each([
    ['removing a default transform', { removeDefaults: ['suspend-cronjobs' as const] }, /removeDefaults "suspend-cronjobs" lets the restored copy act on the world/],
    ['lowering the Pod Security floor', { podSecurity: 'privileged' as const }, /podSecurity "privileged" is below the installation floor "baseline"/],
    ['a patch on Services (a default changes them)', patchOn('', 'Service'), /changes Services, which a default transform changes/],
    ['a patch on RoleBindings', patchOn('rbac.authorization.k8s.io', 'RoleBinding'), /RBAC objects/],
  ])('makes %s admin-only (issue 28)', (_name, restore, because) => {
    const admin = restoreRequirements('team-a', spec({ restore }), settings).permissions.find((permission) => permission.verb === 'administer');
    expect(admin?.because).toMatch(because);
  });

  it('lets anyone add exclusions and patches, or tighten the Pod Security floor', () => {
    const restore: RestoreSpec = {
      exclude: [{ version: 'v1', kind: 'ConfigMap', resource: 'configmaps' }],
      podSecurity: 'restricted',
      ...patchOn('apps', 'Deployment'),
    };
    expect(names(restoreRequirements('team-a', spec({ restore }), settings))).toEqual(['get secrets team-a']);
    // The floor is the installation's: with a restricted floor, baseline is a lowering.
    const strict = { ...settings, podSecurityFloor: 'restricted' as const };
    expect(names(restoreRequirements('team-a', spec({ restore: { podSecurity: 'baseline' } }), strict))).toContain(
      'administer restoretests team-a',
    );
  });

  it('asks for the admin verb once even for both reasons, and not for the installation namespace', () => {
    const both = restoreRequirements('t', spec({ providerNamespace: 'x', networkIsolation: 'none' }), settings);
    expect(both.permissions.filter((permission) => permission.verb === 'administer')).toHaveLength(1);
    expect(names(restoreRequirements('t', spec({ providerNamespace: 'velero' }), settings))).toEqual(['get secrets team-a']);
  });

  it.each([
    ['168h', true],
    ['167h60m', true],
    ['168h1s', false],
    ['1000h', false],
    [undefined, true],
  ])('caps ttl %s at 168h: allowed %s', (ttl, allowed) => {
    const outcome = restoreRequirements('t', spec(ttl ? { ttl } : {}), settings);
    expect(outcome.invalid.length === 0).toBe(allowed);
    if (!allowed) expect(outcome.invalid[0]).toEqual({ field: 'ttl', message: 'must be at most 168h (the installation cap)' });
  });

  it('names the namespace and the permission in its message', () => {
    const [permission] = restoreRequirements('a', spec({ sources: ['team-b'] }), settings).permissions;
    expect(describeMissing(permission!)).toBe(
      'cannot get secrets in namespace "team-b" (the restore copies namespace "team-b", its Secrets included)',
    );
  });
});

describe('the admission policy rendered from the rule', () => {
  const [policy] = restoreAdmissionPolicy({ namespace: 'rehearsal-system', serviceAccount: 'rehearsal' }) as {
    spec: { validations: { expression: string }[] };
  }[];

  it('checks get secrets for every source index up to the domain maximum', () => {
    const perSource = policy!.spec.validations.filter((validation) => validation.expression.includes("resource('secrets')"));
    expect(perSource).toHaveLength(MAX_SOURCE_NAMESPACES);
    perSource.forEach((validation, index) => {
      expect(validation.expression).toContain(`namespace(variables.sources[${index}]).check('get')`);
    });
  });

  it('is what deploy/base/restoretest-admission.yaml holds (npm run admission:generate)', () => {
    const committed = readFileSync(path.join(process.cwd(), 'deploy/base/restoretest-admission.yaml'), 'utf8');
    expect(committed).toBe(renderAdmissionYaml());
  });
});
