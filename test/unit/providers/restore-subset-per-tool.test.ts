// A subset restore (issue 32, spec.backupSource.labelSelector / includedResources) at each tool's
// own fields: Velero Restore spec.labelSelector and includedResources, Kasten RestoreAction
// spec.filters.includeResources, Trilio Restore spec.resourceSelector. The objects are checked
// against the Velero CRD (test/fixtures/velero/crds) and Trilio's own CRD (test/trilio/crds), so
// a field the apiserver would prune fails here; adoption after a restart compares the subset too.
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveSubset, type RestoreSubset } from '../../../server/domain/run/restore-subset.js';
import { buildNamespaceMapping, ProviderError, type RestoreRequest } from '../../../server/providers/provider.js';
import { buildRestoreObject, restoreMatchesRequest } from '../../../server/providers/velero/velero-restore.js';
import { kastenTool } from '../../../server/providers/kasten/kasten.provider.js';
import type { ProviderCustomObjectsApi } from '../../../server/providers/custom-resources.js';
import { sameTrilioRequest, trilioRestoreBody } from '../../../server/providers/trilio/trilio-restore-request.js';
import { crdSchema, schemaProblems } from '../../helpers/structural-schema.js';
import { DEFAULT_TRANSFORMS_ONLY, NO_TRANSFORMS } from '../../helpers/transforms.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const VELERO_RESTORE = crdSchema(path.join(here, '../../fixtures/velero/crds/restores.velero.io.yaml'));
const TRILIO_RESTORE = crdSchema(path.join(here, '../../trilio/crds/restores.triliovault.trilio.io.yaml'));

const byLabels = resolveSubset({
  namespaces: [{ name: 'shop' }],
  labelSelector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['batch'] }] },
})!;
const byTypes = resolveSubset({
  namespaces: [{ name: 'shop' }],
  includedResources: [
    { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
    { version: 'v1', kind: 'Service', resource: 'services' },
  ],
})!;
const both: RestoreSubset = { labelSelector: byLabels.labelSelector!, includedResources: byTypes.includedResources };

const mapping = buildNamespaceMapping(['shop'], () => 'rehearsal-shop-abc12');
function veleroRequest(subset: RestoreSubset | undefined): RestoreRequest {
  return {
    name: 'shop-abc12',
    backup: { name: 'nightly', includedNamespaces: ['shop'] },
    mapping,
    labels: { 'rehearsal.dev/test': 'shop' },
    transforms: DEFAULT_TRANSFORMS_ONLY,
    ...(subset ? { subset } : {}),
  };
}

describe('resolveSubset', () => {
  it('is undefined for the whole namespaces, an empty selector included', () => {
    expect(resolveSubset({ namespaces: [{ name: 'shop' }] })).toBeUndefined();
    expect(resolveSubset({ namespaces: [{ name: 'shop' }], labelSelector: {}, includedResources: [] })).toBeUndefined();
  });
});

describe('Velero: Restore spec.labelSelector and spec.includedResources', () => {
  it('passes the selector as it is and the types as resource.group names', () => {
    const restore = buildRestoreObject(veleroRequest(both), 'velero');
    expect(restore.spec?.labelSelector).toEqual({
      matchLabels: { app: 'a' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['batch'] }],
    });
    expect(restore.spec?.includedResources).toEqual(['deployments.apps', 'services']);
    // The namespace safety is unchanged by a subset.
    expect(restore.spec?.includedNamespaces).toEqual(['shop']);
    expect(restore.spec?.includeClusterResources).toBe(false);
    expect(schemaProblems(restore, VELERO_RESTORE)).toEqual([]);
  });

  it('writes neither field without a subset', () => {
    const spec = buildRestoreObject(veleroRequest(undefined), 'velero').spec!;
    expect('labelSelector' in spec).toBe(false);
    expect('includedResources' in spec).toBe(false);
  });

  it('adopts a Restore only when it restores the same subset', () => {
    const wanted = buildRestoreObject(veleroRequest(both), 'velero');
    const reordered = { ...wanted, spec: { ...wanted.spec, includedResources: ['services', 'deployments.apps'], labelSelector: { matchExpressions: wanted.spec!.labelSelector!.matchExpressions, matchLabels: { app: 'a' } } } };
    expect(restoreMatchesRequest(reordered, wanted)).toBe(true);
    expect(restoreMatchesRequest(buildRestoreObject(veleroRequest(undefined), 'velero'), wanted)).toBe(false);
    expect(restoreMatchesRequest(buildRestoreObject(veleroRequest(byLabels), 'velero'), wanted)).toBe(false);
    expect(restoreMatchesRequest(wanted, buildRestoreObject(veleroRequest(undefined), 'velero'))).toBe(false);
    const otherLabel = { ...wanted, spec: { ...wanted.spec, labelSelector: { matchLabels: { app: 'b' } } } };
    expect(restoreMatchesRequest(otherLabel, wanted)).toBe(false);
  });
});

describe('Kasten: RestoreAction spec.filters.includeResources', () => {
  const tool = kastenTool({} as ProviderCustomObjectsApi);
  const body = (subset: RestoreSubset | undefined) =>
    tool.restoreBody({
      name: 'shop-abc12',
      labels: {},
      backup: 'nightly',
      source: 'shop',
      sandbox: 'rehearsal-shop-abc12',
      transforms: NO_TRANSFORMS,
      ...(subset ? { subset } : {}),
    });

  it('a selector alone: one entry of label requirements (a label = value is In [value])', () => {
    expect(body(byLabels).spec?.filters).toEqual({
      includeResources: [
        {
          matchExpressions: [
            { key: 'app', operator: 'In', values: ['a'] },
            { key: 'tier', operator: 'NotIn', values: ['batch'] },
          ],
        },
      ],
    });
  });

  it('types and a selector: one entry per type, each with the requirements (entries are ORed, fields ANDed)', () => {
    const expressions = [
      { key: 'app', operator: 'In', values: ['a'] },
      { key: 'tier', operator: 'NotIn', values: ['batch'] },
    ];
    expect(body(both).spec?.filters?.includeResources).toEqual([
      { group: 'apps', resource: 'deployments', matchExpressions: expressions },
      { resource: 'services', matchExpressions: expressions },
    ]);
    expect(body(byTypes).spec?.filters?.includeResources).toEqual([{ group: 'apps', resource: 'deployments' }, { resource: 'services' }]);
  });

  it('keeps the transforms exclusions next to the inclusions, and adoption tells subsets apart', () => {
    const withDefaults = tool.restoreBody({
      name: 'shop-abc12',
      labels: {},
      backup: 'nightly',
      source: 'shop',
      sandbox: 'rehearsal-shop-abc12',
      transforms: DEFAULT_TRANSFORMS_ONLY,
      subset: byLabels,
    });
    expect(withDefaults.spec?.filters?.excludeResources?.length).toBeGreaterThan(0);
    expect(withDefaults.spec?.filters?.includeResources).toHaveLength(1);
    expect(body(undefined).spec?.filters).toBeUndefined();
    expect(tool.sameRequest(body(both), body(both))).toBe(true);
    expect(tool.sameRequest(body(undefined), body(both))).toBe(false);
    expect(tool.sameRequest(body(byTypes), body(both))).toBe(false);
  });
});

describe('Trilio: Restore spec.resourceSelector', () => {
  const body = (subset: RestoreSubset | undefined) =>
    trilioRestoreBody({
      name: 'shop-abc12',
      labels: {},
      backup: 'nightly',
      source: 'shop',
      sandbox: 'rehearsal-shop-abc12',
      transforms: DEFAULT_TRANSFORMS_ONLY,
      ...(subset ? { subset } : {}),
    });

  it('a selector as its one labelSelector, types as gvkSelector entries, both stored as written', () => {
    expect(body(byLabels).spec?.resourceSelector).toEqual({
      labelSelector: [{ matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['batch'] }] }],
    });
    expect(body(byTypes).spec?.resourceSelector).toEqual({
      gvkSelector: [
        { groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' } },
        { groupVersionKind: { group: '', version: 'v1', kind: 'Service' } },
      ],
    });
    expect(schemaProblems(body(byLabels), TRILIO_RESTORE)).toEqual([]);
    expect(schemaProblems(body(byTypes), TRILIO_RESTORE)).toEqual([]);
    expect(body(undefined).spec?.resourceSelector).toBeUndefined();
  });

  it('refuses labels and types together (its selectors are a union: it would restore more)', () => {
    expect(() => body(both)).toThrow(ProviderError);
    expect(() => body(both)).toThrow(/labelSelector and includedResources cannot be combined for Trilio/);
  });

  it('adopts a Restore only when it selects the same subset', () => {
    expect(sameTrilioRequest(body(byLabels), body(byLabels))).toBe(true);
    expect(sameTrilioRequest(body(undefined), body(byLabels))).toBe(false);
    expect(sameTrilioRequest(body(byTypes), body(byLabels))).toBe(false);
  });
});
