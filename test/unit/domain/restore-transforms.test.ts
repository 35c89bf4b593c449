// The default restore transforms (issue 28) as a list: complete, documented, resolved from a
// test's spec.restore, and reported. The per-tool translations have their own tables
// (test/unit/providers/restore-transforms-per-tool.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { PROVIDERS, type DefaultTransformId } from '../../../server/domain/resources/resources.js';
import {
  DEFAULT_TRANSFORMS,
  DEFAULT_TRANSFORM_IDS,
  exclusionOf,
  patchNeedsAdmin,
  resolveTransforms,
} from '../../../server/domain/run/restore-transforms.js';
import { MAX_REPORTED_TRANSFORMS, reportTransforms } from '../../../server/domain/run/transforms-report.js';
import {
  enforcedLevel,
  isLooser,
  podSecurityFloor,
  podSecurityLabels,
  sandboxLevel,
  stricterLevel,
} from '../../../server/domain/run/pod-security.js';

// The union, complete by construction: tsc fails here when an id is added to DefaultTransformId.
const ALL_IDS: Record<DefaultTransformId, true> = {
  'suspend-cronjobs': true,
  'hold-jobs': true,
  'services-cluster-ip': true,
  'drop-external-dns-annotations': true,
  'unbind-claims': true,
  'exclude-host-routes': true,
  'exclude-external-callers': true,
  'exclude-gitops': true,
  'exclude-network-policies': true,
};

describe('the default transforms', () => {
  it('list every id once, each with what, why and how for every tool', () => {
    expect([...DEFAULT_TRANSFORM_IDS].sort()).toEqual(Object.keys(ALL_IDS).sort());
    for (const entry of DEFAULT_TRANSFORMS) {
      expect([entry.id, entry.what.length > 10, entry.why.length > 10]).toEqual([entry.id, true, true]);
      expect(Object.keys(entry.how).sort()).toEqual([...PROVIDERS].sort());
      expect(Boolean(entry.excludes?.length) || Boolean(entry.changes?.length)).toBe(true);
    }
  });

  it('cover what the issue names', () => {
    const excluded = DEFAULT_TRANSFORMS.flatMap((entry) => (entry.excludes ?? []).map((type) => `${type.group}/${type.kind}`));
    expect(excluded).toEqual(
      expect.arrayContaining([
        'batch/Job',
        'networking.k8s.io/Ingress',
        'gateway.networking.k8s.io/Gateway',
        'gateway.networking.k8s.io/HTTPRoute',
        'gateway.networking.k8s.io/GRPCRoute',
        'gateway.networking.k8s.io/TLSRoute',
        'cert-manager.io/Certificate',
        'cert-manager.io/Issuer',
        'cert-manager.io/CertificateRequest',
        'acme.cert-manager.io/Order',
        'acme.cert-manager.io/Challenge',
        'networking.k8s.io/NetworkPolicy',
      ]),
    );
    const changed = DEFAULT_TRANSFORMS.flatMap((entry) => (entry.changes ?? []).map((type) => type.kind));
    expect(new Set(changed)).toEqual(new Set(['CronJob', 'Pod', 'Service', 'PersistentVolumeClaim']));
  });

  it('are each on the docs page (docs/restore-transforms.md), in its table', () => {
    const page = readFileSync(new URL('../../../docs/restore-transforms.md', import.meta.url), 'utf8');
    for (const id of DEFAULT_TRANSFORM_IDS) expect({ id, documented: page.includes(`| \`${id}\` |`) }).toEqual({ id, documented: true });
  });
});

describe('resolveTransforms', () => {
  it('applies every default when the test says nothing', () => {
    const transforms = resolveTransforms(undefined);
    expect(transforms.defaults.map((entry) => entry.id)).toEqual(DEFAULT_TRANSFORM_IDS);
    expect([transforms.removed, transforms.exclude, transforms.patches]).toEqual([[], [], []]);
  });

  it('drops the removed defaults and adds the test own exclusions and patches', () => {
    const patch = {
      name: 'one',
      target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
      operations: [{ op: 'replace' as const, path: '/spec/replicas', value: 1 }],
    };
    const transforms = resolveTransforms({
      removeDefaults: ['exclude-gitops', 'suspend-cronjobs'],
      exclude: [{ version: 'v1', kind: 'ConfigMap', resource: 'configmaps' }],
      patches: [patch],
    });
    expect(transforms.removed).toEqual(['suspend-cronjobs', 'exclude-gitops']);
    expect(transforms.defaults.map((entry) => entry.id)).not.toContain('exclude-gitops');
    expect(transforms.exclude).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps' }]);
    expect(transforms.patches).toEqual([patch]);
  });

  it('knows which transform keeps a type out', () => {
    const transforms = resolveTransforms({ exclude: [{ group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets' }] });
    expect(exclusionOf(transforms, 'networking.k8s.io/v1', 'Ingress')).toBe('exclude-host-routes');
    expect(exclusionOf(transforms, 'networking.k8s.io/v1', 'NetworkPolicy')).toBe('exclude-network-policies');
    expect(exclusionOf(transforms, 'batch/v1', 'Job')).toBe('hold-jobs');
    expect(exclusionOf(transforms, 'example.com/v1', 'Widget')).toBe('exclude');
    expect(exclusionOf(transforms, 'apps/v1', 'Deployment')).toBeUndefined();
    expect(exclusionOf(resolveTransforms({ removeDefaults: ['exclude-network-policies'] }), 'networking.k8s.io/v1', 'NetworkPolicy')).toBeUndefined();
  });
});

describe('patchNeedsAdmin', () => {
  const target = (group: string, kind: string) => ({ group, version: 'v1', kind, resource: `${kind.toLowerCase()}s` });
  it.each([
    ['a Service (a default changes Services)', target('', 'Service'), /changes Services, which a default transform changes/],
    ['a CronJob', target('batch', 'CronJob'), /changes CronJobs/],
    ['a Pod', target('', 'Pod'), /changes Pods/],
    ['a RoleBinding', target('rbac.authorization.k8s.io', 'RoleBinding'), /RBAC objects/],
  ])('is needed for a patch on %s', (_name, patchTarget, because) => {
    expect(patchNeedsAdmin({ name: 'p', target: patchTarget })).toMatch(because);
  });

  it('is not needed for a patch on a Deployment or a ConfigMap', () => {
    expect(patchNeedsAdmin({ name: 'p', target: target('apps', 'Deployment') })).toBeUndefined();
    expect(patchNeedsAdmin({ name: 'p', target: target('', 'ConfigMap') })).toBeUndefined();
  });
});

describe('reportTransforms', () => {
  const transforms = resolveTransforms({
    removeDefaults: ['exclude-gitops'],
    patches: [{ name: 'one', target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }, operations: [{ op: 'remove', path: '/spec/x' }] }],
  });

  it('lists each object when the tool says which (Velero): exclusions and marked changes', () => {
    const report = reportTransforms({
      transforms,
      excluded: [
        { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web' },
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'shop', name: 'allow-all' },
      ],
      marked: [
        { kind: 'CronJob', namespace: 'shop', name: 'billing', annotations: { 'transforms.rehearsal.dev/suspend-cronjobs': 'spec.suspend set to true' } },
        { kind: 'Deployment', namespace: 'shop', name: 'web', annotations: { 'transforms.rehearsal.dev/patch.one': 'remove /spec/x' } },
      ],
    });
    expect(report).toEqual({
      applied: [
        { transform: 'drop-external-dns-annotations', kind: 'Service', namespace: '*', name: '*', change: expect.stringContaining('external-dns annotations') },
        { transform: 'exclude-host-routes', kind: 'Ingress', namespace: 'shop', name: 'web', change: 'not restored' },
        { transform: 'exclude-network-policies', kind: 'NetworkPolicy', namespace: 'shop', name: 'allow-all', change: 'not restored' },
        { transform: 'patch/one', kind: 'Deployment', namespace: 'shop', name: 'web', change: 'remove /spec/x' },
        { transform: 'suspend-cronjobs', kind: 'CronJob', namespace: 'shop', name: 'billing', change: 'spec.suspend set to true' },
      ],
      removedDefaults: ['exclude-gitops'],
    });
  });

  it('lists each transform once for every object it matched when the tool does not say (Kasten, Trilio)', () => {
    const report = reportTransforms({ transforms });
    expect(report.applied.map((entry) => [entry.transform, entry.name])).toEqual([
      ['drop-external-dns-annotations', '*'],
      ['exclude-external-callers', '*'],
      ['exclude-host-routes', '*'],
      ['exclude-network-policies', '*'],
      ['hold-jobs', '*'],
      ['hold-jobs', '*'],
      ['patch/one', '*'],
      ['services-cluster-ip', '*'],
      ['suspend-cronjobs', '*'],
      ['unbind-claims', '*'],
    ]);
    expect(report.applied.find((entry) => entry.transform === 'exclude-host-routes')?.kind).toMatch(/^Ingress, Gateway, HTTPRoute/);
  });

  it('never lists a default the tool cannot do as applied (Trilio: external-dns annotations, claims)', () => {
    const report = reportTransforms({ transforms, notDone: ['drop-external-dns-annotations', 'unbind-claims'] });
    const listed = report.applied.map((entry) => entry.transform);
    expect(listed).toContain('services-cluster-ip');
    expect(listed).not.toContain('drop-external-dns-annotations');
    expect(listed).not.toContain('unbind-claims');
    // With markers (Velero), the unmarked external-dns entry is left out the same way.
    const marked = reportTransforms({ transforms, marked: [], notDone: ['drop-external-dns-annotations'] });
    expect(marked.applied.map((entry) => entry.transform)).not.toContain('drop-external-dns-annotations');
  });

  it(`keeps at most ${MAX_REPORTED_TRANSFORMS} entries and counts the rest`, () => {
    const excluded = Array.from({ length: 40 }, (_unused, index) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: 'shop',
      name: `route-${String(index).padStart(2, '0')}`,
    }));
    const report = reportTransforms({ transforms: resolveTransforms(undefined), excluded, marked: [] });
    expect(report.applied).toHaveLength(MAX_REPORTED_TRANSFORMS);
    expect(report.more).toBe(40 + 1 - MAX_REPORTED_TRANSFORMS);
  });
});

describe('Pod Security levels', () => {
  it('read a namespace the way the admission plugin does: absent, valid, invalid (= restricted)', () => {
    expect(enforcedLevel(undefined)).toBeUndefined();
    expect(enforcedLevel({ other: 'x' })).toBeUndefined();
    expect(enforcedLevel({ 'pod-security.kubernetes.io/enforce': 'baseline' })).toBe('baseline');
    expect(enforcedLevel({ 'pod-security.kubernetes.io/enforce': 'Privileged' })).toBe('restricted');
  });

  it.each([
    [undefined, 'baseline', 'baseline'],
    ['privileged', 'baseline', 'baseline'],
    ['restricted', 'baseline', 'restricted'],
    ['baseline', 'restricted', 'restricted'],
    ['privileged', 'privileged', 'privileged'],
  ] as const)('a source at %s with floor %s gives a sandbox at %s', (source, floor, expected) => {
    expect(sandboxLevel(source, floor)).toBe(expected);
  });

  it('rank the levels, take the test floor over the installation floor, and label enforce, audit and warn', () => {
    expect(stricterLevel('baseline', 'restricted')).toBe('restricted');
    expect([isLooser('privileged', 'baseline'), isLooser('restricted', 'baseline'), isLooser('baseline', 'baseline')]).toEqual([true, false, false]);
    expect([podSecurityFloor(undefined, 'baseline'), podSecurityFloor('privileged', 'baseline')]).toEqual(['baseline', 'privileged']);
    expect(podSecurityLabels('baseline')).toEqual({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/enforce-version': 'latest',
      'pod-security.kubernetes.io/audit': 'baseline',
      'pod-security.kubernetes.io/audit-version': 'latest',
      'pod-security.kubernetes.io/warn': 'baseline',
      'pod-security.kubernetes.io/warn-version': 'latest',
    });
  });
});
