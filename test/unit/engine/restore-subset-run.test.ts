// A run that restores a subset (issue 32) is judged on the subset: objects of a type outside
// includedResources are not "missing" from the sandbox; with a label selector the tool's list
// (names, no labels) cannot tell which objects were selected, so the per-kind comparison is
// unavailable and says why; the default service-endpoints check is not planned for a subset that
// makes no Pods; the report names the subset.
import { describe, expect, it } from '@jest/globals';
import { checksForRun, defaultChecks } from '../../../server/checks/default-checks.js';
import type { CurrentRun, RestoreTest, RestoreTestSpec } from '../../../server/domain/resources/resources.js';
import { buildReportSpec } from '../../../server/domain/run/report-builder.js';
import { describeSubset, resolveSubset, selectorString, subsetIncludesType } from '../../../server/domain/run/restore-subset.js';
import { resolveTransforms } from '../../../server/domain/run/restore-transforms.js';
import { observeKinds } from '../../../server/engine/run/kind-completeness.js';
import type { BackedUpKind, BackupProvider } from '../../../server/providers/provider.js';

const deployments = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' };
const services = { version: 'v1', kind: 'Service', resource: 'services' };

function testWith(backupSource: Partial<RestoreTestSpec['backupSource']>): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name: 'shop', namespace: 'rehearsal-system', uid: 'uid-1' },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }], ...backupSource }, schedule: { cron: '@daily' } },
  };
}

const run: CurrentRun = {
  id: 'a1b2c',
  trigger: 'schedule',
  scheduledAt: '2026-11-22T02:00:00.000Z',
  queuedAt: '2026-11-22T02:00:00.000Z',
  startedAt: '2026-11-22T02:00:00.100Z',
  stage: 'Finalizing',
  backup: { name: 'nightly', totalItems: 6 },
  sandboxNamespaces: [{ source: 'shop', sandbox: 'sb-shop' }],
  restore: { namespace: 'velero', name: 'shop-a1b2c' },
  restoreRequestedAt: '2026-11-22T02:00:01.000Z',
};

// The backup holds app a and app b; the sandbox holds what a subset of Deployments and Services brought back.
const backedUp: BackedUpKind[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', sourceNamespace: 'shop', names: ['a', 'b'] },
  { apiVersion: 'v1', kind: 'Service', sourceNamespace: 'shop', names: ['a'] },
  { apiVersion: 'v1', kind: 'ConfigMap', sourceNamespace: 'shop', names: ['a-config', 'b-config'] },
];
const provider = { backedUpObjects: async () => backedUp } as unknown as BackupProvider;
const present: Record<string, string[]> = { Deployment: ['a', 'b'], Service: ['a'] };
const reader = {
  listNames: async (_apiVersion: string, kind: string) => present[kind] ?? [],
  listAnnotated: async () => [],
  listPods: async () => [],
};

describe('completeness of a subset restore', () => {
  it('does not expect objects of types outside includedResources', async () => {
    const observed = await observeKinds(provider, reader, testWith({ includedResources: [deployments, services] }), run, resolveTransforms(undefined));
    expect(observed.kinds).toEqual({
      completeness: [
        { kind: 'Deployment', backedUp: 2, restored: 2 },
        { kind: 'Service', backedUp: 1, restored: 1 },
      ],
    });
  });

  it('without a subset the ConfigMaps not in the sandbox are missing (the comparison can fail)', async () => {
    const observed = await observeKinds(provider, reader, testWith({}), run, resolveTransforms(undefined));
    const completeness = observed.kinds && 'completeness' in observed.kinds ? observed.kinds.completeness : [];
    expect(completeness.find((entry) => entry.kind === 'ConfigMap')).toMatchObject({ backedUp: 2, restored: 0 });
  });

  it('with a label selector: unavailable, naming the subset (the restore’s own count stands in)', async () => {
    const observed = await observeKinds(provider, reader, testWith({ labelSelector: { matchLabels: { app: 'a' } } }), run, resolveTransforms(undefined));
    expect(observed.kinds).toEqual({
      unavailable: "a subset was restored (labels app=a); the backup's object list has no labels to compare with",
    });
  });
});

describe('default checks of a subset restore', () => {
  const namespaces = [{ source: 'shop', sandbox: 'sb-shop' }];
  const names = (subset: Parameters<typeof defaultChecks>[1]) => defaultChecks(namespaces, subset).map((check) => check.name);

  it('keeps both rules when the subset can make Pods (or is only a label selector)', () => {
    expect(names(undefined)).toEqual(['default/pods-ready/shop', 'default/service-endpoints/shop']);
    expect(names(resolveSubset({ namespaces: [], labelSelector: { matchLabels: { app: 'a' } } }))).toEqual([
      'default/pods-ready/shop',
      'default/service-endpoints/shop',
    ]);
    expect(names(resolveSubset({ namespaces: [], includedResources: [deployments, services] }))).toEqual([
      'default/pods-ready/shop',
      'default/service-endpoints/shop',
    ]);
  });

  it('drops service-endpoints when the subset restores Services but nothing that makes Pods', () => {
    const subset = resolveSubset({ namespaces: [], includedResources: [services, { version: 'v1', kind: 'ConfigMap', resource: 'configmaps' }] });
    expect(names(subset)).toEqual(['default/pods-ready/shop']);
    expect(checksForRun(undefined, namespaces, subset).map((check) => check.name)).toEqual(['default/pods-ready/shop']);
  });
});

describe('the report of a subset restore', () => {
  const observe = (test: RestoreTest) =>
    buildReportSpec(
      {
        test,
        run,
        completedAt: new Date('2026-11-22T02:06:00.000Z'),
        restore: { phase: 'Completed', succeeded: true, partiallyFailed: false, warnings: 0, errors: 0, itemsRestored: 3, totalItems: 3 },
        pods: { expected: 1, ready: 1 },
        checks: [],
        checksCompletedAt: new Date('2026-11-22T02:05:00.000Z'),
        dependencies: [],
      },
      'velero',
    );

  it('names the subset in restore.subset, and says nothing without one', () => {
    const subset = testWith({
      labelSelector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }, { key: 'legacy', operator: 'DoesNotExist' }] },
      includedResources: [deployments, services],
    });
    expect(observe(subset).restore?.subset).toBe('labels app=a,tier in (web,api),!legacy; types deployments.apps, services');
    expect(observe(testWith({})).restore).not.toHaveProperty('subset');
  });

  it('bounds the text as the RestoreReport CRD stores it (512)', () => {
    const labels = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`example.com/key-${index}-${'k'.repeat(40)}`, 'v'.repeat(63)]));
    const text = observe(testWith({ labelSelector: { matchLabels: labels } })).restore?.subset ?? '';
    expect(text.length).toBe(512);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('restore-subset helpers', () => {
  it('selectorString writes kubectl syntax; subsetIncludesType compares group and kind', () => {
    expect(selectorString({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }, { key: 'b', operator: 'Exists' }] })).toBe('a notin (x),b');
    const subset = resolveSubset({ namespaces: [], includedResources: [deployments] })!;
    expect(subsetIncludesType(subset, 'apps/v1', 'Deployment')).toBe(true);
    expect(subsetIncludesType(subset, 'extensions/v1beta1', 'Deployment')).toBe(false);
    expect(subsetIncludesType(subset, 'v1', 'Service')).toBe(false);
    expect(subsetIncludesType(undefined, 'v1', 'Service')).toBe(true);
    expect(describeSubset(subset)).toBe('types deployments.apps');
  });
});
