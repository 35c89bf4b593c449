// The default restore transforms in each tool's terms (issue 28): one table per tool, each default
// checked by what the tool will do with it, and the test's own additions placed before the
// defaults (a patch cannot undo one). Velero's shapes are v1.18's (internal/resourcemodifiers);
// Kasten's and Trilio's are their documented APIs.
import { describe, expect, it } from '@jest/globals';
import type { DefaultTransformId, RestorePatch } from '../../../server/domain/resources/resources.js';
import { DEFAULT_TRANSFORM_IDS, resolveTransforms, type RestoreTransforms } from '../../../server/domain/run/restore-transforms.js';
import {
  resourceModifiersData,
  veleroTransforms,
  veleroValue,
  type ResourceModifierRule,
} from '../../../server/providers/velero/velero-transforms.js';
import { kastenTransforms, type KastenTransform } from '../../../server/providers/kasten/kasten-transforms.js';
import { trilioTransforms } from '../../../server/providers/trilio/trilio-transforms.js';

/** Only this default (every other removed). */
function only(id: DefaultTransformId): RestoreTransforms {
  return resolveTransforms({ removeDefaults: DEFAULT_TRANSFORM_IDS.filter((other) => other !== id) });
}

const patch: RestorePatch = {
  name: 'one-replica',
  target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', name: 'web.v2' },
  when: [{ path: '/spec/replicas', value: 3 }],
  operations: [
    { op: 'replace', path: '/spec/replicas', value: 1 },
    { op: 'add', path: '/metadata/labels/tier', value: 'sandbox' },
    { op: 'remove', path: '/spec/paused' },
  ],
};

describe('Velero: excludedResources and resource modifiers', () => {
  const rules = (id: DefaultTransformId): ResourceModifierRule[] => veleroTransforms(only(id)).modifiers?.resourceModifierRules ?? [];

  it('encodes values the way Velero parses JSONPatch.value: strings quoted, the rest as JSON', () => {
    expect([veleroValue('ClusterIP'), veleroValue('3'), veleroValue(3), veleroValue(true), veleroValue(null), veleroValue(undefined)]).toEqual([
      '"ClusterIP"',
      '"3"',
      '3',
      'true',
      'null',
      'null',
    ]);
    expect(veleroValue({ a: [1] })).toBe('{"a":[1]}');
  });

  it('suspends CronJobs with a merge patch that marks them', () => {
    expect(rules('suspend-cronjobs')).toEqual([
      {
        conditions: { groupResource: 'cronjobs.batch' },
        mergePatches: [
          { patchData: JSON.stringify({ spec: { suspend: true }, metadata: { annotations: { 'transforms.rehearsal.dev/suspend-cronjobs': 'spec.suspend set to true' } } }) },
        ],
      },
    ]);
  });

  it('leaves Jobs out and holds the Pods of a Job by either label', () => {
    const translated = veleroTransforms(only('hold-jobs'));
    expect(translated.excludedResources).toEqual(['jobs.batch']);
    expect(translated.modifiers?.resourceModifierRules.map((rule) => rule.conditions)).toEqual([
      { groupResource: 'pods', labelSelector: { matchExpressions: [{ key: 'batch.kubernetes.io/job-name', operator: 'Exists' }] } },
      { groupResource: 'pods', labelSelector: { matchExpressions: [{ key: 'job-name', operator: 'Exists' }] } },
    ]);
    const merge = JSON.parse(translated.modifiers!.resourceModifierRules[0]!.mergePatches![0]!.patchData) as { spec: unknown };
    expect(merge.spec).toEqual({ schedulingGates: [{ name: 'rehearsal.dev/job-not-rerun' }] });
  });

  it('makes LoadBalancer and NodePort Services ClusterIP, dropping what only an exposed Service has, and every explicit node port', () => {
    const all = rules('services-cluster-ip');
    const byType = all.filter((rule) => rule.mergePatches);
    expect(byType.map((rule) => rule.conditions)).toEqual([
      { groupResource: 'services', matches: [{ path: '/spec/type', value: '"LoadBalancer"' }] },
      { groupResource: 'services', matches: [{ path: '/spec/type', value: '"NodePort"' }] },
    ]);
    const merge = JSON.parse(byType[0]!.mergePatches![0]!.patchData) as { spec: Record<string, unknown>; metadata: { annotations: Record<string, string> } };
    expect(merge.spec).toEqual({
      type: 'ClusterIP',
      externalIPs: null,
      loadBalancerIP: null,
      loadBalancerClass: null,
      loadBalancerSourceRanges: null,
      allocateLoadBalancerNodePorts: null,
      externalTrafficPolicy: null,
      healthCheckNodePort: null,
    });
    expect(merge.metadata.annotations['transforms.rehearsal.dev/services-cluster-ip']).toMatch(/^type LoadBalancer made ClusterIP/);
    // A JSON patch per port index and protocol, guarded by a condition on that very port.
    const perPort = all.filter((rule) => rule.patches);
    expect(perPort).toHaveLength(8 * 3);
    expect(perPort[0]).toEqual({
      conditions: { groupResource: 'services', matches: [{ path: '/spec/ports/0/protocol', value: '"TCP"' }] },
      patches: [{ operation: 'add', path: '/spec/ports/0/nodePort', value: 'null' }],
    });
  });

  it('nulls the external-dns annotations', () => {
    const [rule] = rules('drop-external-dns-annotations');
    const annotations = (JSON.parse(rule!.mergePatches![0]!.patchData) as { metadata: { annotations: Record<string, null> } }).metadata.annotations;
    expect(annotations['external-dns.alpha.kubernetes.io/hostname']).toBeNull();
    expect(annotations['external-dns.alpha.kubernetes.io/target']).toBeNull();
  });

  it('unbinds every claim: spec.volumeName and the binding annotations nulled, the claim marked', () => {
    const [rule] = rules('unbind-claims');
    expect(rule!.conditions).toEqual({ groupResource: 'persistentvolumeclaims' });
    const merge = JSON.parse(rule!.mergePatches![0]!.patchData) as { spec: Record<string, null>; metadata: { annotations: Record<string, string | null> } };
    expect(merge.spec).toEqual({ volumeName: null });
    expect(merge.metadata.annotations).toEqual({
      'pv.kubernetes.io/bind-completed': null,
      'pv.kubernetes.io/bound-by-controller': null,
      'volume.kubernetes.io/selected-node': null,
      'transforms.rehearsal.dev/unbind-claims': expect.stringContaining('spec.volumeName'),
    });
  });

  it.each([
    ['exclude-host-routes', ['ingresses.networking.k8s.io', 'gateways.gateway.networking.k8s.io', 'httproutes.gateway.networking.k8s.io', 'grpcroutes.gateway.networking.k8s.io', 'tlsroutes.gateway.networking.k8s.io', 'routes.route.openshift.io', 'virtualservices.networking.istio.io']],
    ['exclude-external-callers', ['certificates.cert-manager.io', 'certificaterequests.cert-manager.io', 'issuers.cert-manager.io', 'orders.acme.cert-manager.io', 'challenges.acme.cert-manager.io', 'dnsendpoints.externaldns.k8s.io', 'externalsecrets.external-secrets.io']],
    ['exclude-gitops', ['applications.argoproj.io', 'kustomizations.kustomize.toolkit.fluxcd.io', 'helmreleases.helm.toolkit.fluxcd.io']],
    ['exclude-network-policies', ['networkpolicies.networking.k8s.io', 'ciliumnetworkpolicies.cilium.io', 'networkpolicies.crd.projectcalico.org']],
  ] as const)('%s: excludedResources, no modifier', (id, expected) => {
    const translated = veleroTransforms(only(id));
    expect(translated.excludedResources).toEqual(expect.arrayContaining([...expected]));
    expect(translated.modifiers).toBeUndefined();
  });

  it('puts the test own patches first (with a marker rule under the same conditions) and its exclusions beside the defaults', () => {
    const transforms = resolveTransforms({ patches: [patch], exclude: [{ version: 'v1', kind: 'ConfigMap', resource: 'configmaps' }] });
    const translated = veleroTransforms(transforms);
    expect(translated.excludedResources).toContain('configmaps');
    const [operations, marker, firstDefault] = translated.modifiers!.resourceModifierRules;
    expect(operations).toEqual({
      conditions: { groupResource: 'deployments.apps', resourceNameRegex: '^web\\.v2$', matches: [{ path: '/spec/replicas', value: '3' }] },
      patches: [
        { operation: 'replace', path: '/spec/replicas', value: '1' },
        { operation: 'add', path: '/metadata/labels/tier', value: '"sandbox"' },
        { operation: 'remove', path: '/spec/paused' },
      ],
    });
    expect(marker!.conditions).toEqual(operations!.conditions);
    expect(JSON.parse(marker!.mergePatches![0]!.patchData)).toEqual({
      metadata: { annotations: { 'transforms.rehearsal.dev/patch.one-replica': 'replace /spec/replicas, add /metadata/labels/tier, remove /spec/paused' } },
    });
    expect(firstDefault!.conditions.groupResource).toBe('cronjobs.batch');
  });

  it('writes nothing when every default is removed and nothing is added', () => {
    expect(veleroTransforms(resolveTransforms({ removeDefaults: [...DEFAULT_TRANSFORM_IDS] }))).toEqual({ excludedResources: [] });
  });

  it('stores the document as the one data key of the ConfigMap, in a form Velero decodes strictly (version v1, known fields only)', () => {
    const data = resourceModifiersData(veleroTransforms(resolveTransforms(undefined)).modifiers!);
    expect(Object.keys(data)).toEqual(['resource-modifiers.yaml']);
    const document = JSON.parse(data['resource-modifiers.yaml']!) as { version: string; resourceModifierRules: Record<string, unknown>[] };
    expect(document.version).toBe('v1');
    for (const rule of document.resourceModifierRules) {
      expect(Object.keys(rule).every((key) => ['conditions', 'patches', 'mergePatches'].includes(key))).toBe(true);
      expect(Boolean(rule.patches) !== Boolean(rule.mergePatches)).toBe(true); // one kind of patch per rule
    }
  });
});

describe('Kasten: filters.excludeResources and transforms', () => {
  const named = (transforms: KastenTransform[] | undefined, prefix: string) => (transforms ?? []).filter((entry) => entry.name.startsWith(prefix));

  it('leaves the excluded types out and guards every removal with a presence test', () => {
    const translated = kastenTransforms(resolveTransforms(undefined));
    expect(translated.filters?.excludeResources).toEqual(
      expect.arrayContaining([
        { group: 'batch', resource: 'jobs' },
        { group: 'networking.k8s.io', resource: 'ingresses' },
        { group: 'networking.k8s.io', resource: 'networkpolicies' },
        { group: 'cert-manager.io', resource: 'certificates' },
      ]),
    );
    expect(named(translated.transforms, 'suspend-cronjobs')).toEqual([
      { subject: { group: 'batch', resource: 'cronjobs' }, name: 'suspend-cronjobs', json: [{ op: 'add', path: '/spec/suspend', value: true }] },
    ]);
    expect(named(translated.transforms, 'services-cluster-ip-loadbalancer')[0]!.json).toEqual([
      { op: 'test', path: '/spec/type', value: 'LoadBalancer' },
      { op: 'replace', path: '/spec/type', value: 'ClusterIP' },
    ]);
    for (const removal of (translated.transforms ?? []).filter((entry) => entry.json.some((command) => command.op === 'remove'))) {
      expect(removal.json).toEqual([{ op: 'test', path: removal.json[1]!.path }, { op: 'remove', path: removal.json[1]!.path }]);
    }
    expect(named(translated.transforms, 'hold-jobs')[0]!.json[0]).toEqual({ op: 'test', path: '/metadata/labels/batch.kubernetes.io~1job-name' });
    expect(named(translated.transforms, 'drop-external-dns-annotations')[0]!.json[1]!.path).toBe(
      '/metadata/annotations/external-dns.alpha.kubernetes.io~1hostname',
    );
    expect(named(translated.transforms, 'unbind-claims').map((entry) => [entry.subject.resource, entry.json[1]!.path])).toEqual([
      ['persistentvolumeclaims', '/spec/volumeName'],
      ['persistentvolumeclaims', '/metadata/annotations/pv.kubernetes.io~1bind-completed'],
      ['persistentvolumeclaims', '/metadata/annotations/pv.kubernetes.io~1bound-by-controller'],
      ['persistentvolumeclaims', '/metadata/annotations/volume.kubernetes.io~1selected-node'],
    ]);
  });

  it('puts the test own patch first: its conditions as value tests, then its operations', () => {
    const translated = kastenTransforms(resolveTransforms({ patches: [patch] }));
    expect(translated.transforms![0]).toEqual({
      subject: { group: 'apps', resource: 'deployments', name: 'web.v2' },
      name: 'patch-one-replica',
      json: [
        { op: 'test', path: '/spec/replicas', value: 3 },
        { op: 'replace', path: '/spec/replicas', value: 1 },
        { op: 'add', path: '/metadata/labels/tier', value: 'sandbox' },
        { op: 'remove', path: '/spec/paused' },
      ],
    });
  });

  it('writes no null value for a patch of null (the apiserver would drop it) and keeps every other value', () => {
    const nulls: RestorePatch = {
      name: 'clear',
      target: { version: 'v1', kind: 'Service', resource: 'services' },
      when: [{ path: '/spec/sessionAffinityConfig', value: null }],
      operations: [
        { op: 'add', path: '/spec/loadBalancerClass', value: null },
        { op: 'replace', path: '/spec/ports/0/name', value: '' },
        { op: 'replace', path: '/spec/publishNotReadyAddresses', value: false },
      ],
    };
    const custom = trilioTransforms(resolveTransforms({ patches: [nulls], removeDefaults: [...DEFAULT_TRANSFORM_IDS] })).transformComponents!.custom;
    expect(custom[0]!.jsonPatches).toEqual([
      { op: 'test', path: '/spec/sessionAffinityConfig' },
      { op: 'add', path: '/spec/loadBalancerClass' },
      { op: 'replace', path: '/spec/ports/0/name', value: '' },
      { op: 'replace', path: '/spec/publishNotReadyAddresses', value: false },
    ]);
  });

  it('asks for nothing when every default is removed', () => {
    expect(kastenTransforms(resolveTransforms({ removeDefaults: [...DEFAULT_TRANSFORM_IDS] }))).toEqual({});
  });
});

describe('Trilio: excludeResourceSelector and transformComponents', () => {
  it('excludes by group, version and kind, and the Pods of Jobs by label', () => {
    const translated = trilioTransforms(resolveTransforms(undefined));
    expect(translated.excludeResourceSelector?.gvkSelector).toEqual(
      expect.arrayContaining([
        { groupVersionKind: { group: 'batch', version: 'v1', kind: 'Job' } },
        { groupVersionKind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' } },
        { groupVersionKind: { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' } },
      ]),
    );
    expect(translated.excludeResourceSelector?.labelSelector).toEqual([
      { matchExpressions: [{ key: 'batch.kubernetes.io/job-name', operator: 'Exists' }] },
      { matchExpressions: [{ key: 'job-name', operator: 'Exists' }] },
    ]);
    const custom = translated.transformComponents!.custom;
    expect(custom.find((entry) => entry.transformName === 'suspend-cronjobs')).toEqual({
      transformName: 'suspend-cronjobs',
      resources: { groupVersionKind: { group: 'batch', version: 'v1', kind: 'CronJob' } },
      jsonPatches: [{ op: 'add', path: '/spec/suspend', value: true }],
    });
    const loadBalancer = custom.find((entry) => entry.transformName === 'services-cluster-ip-loadbalancer')!;
    expect(loadBalancer.jsonPatches.slice(0, 3)).toEqual([
      { op: 'test', path: '/spec/type', value: 'LoadBalancer' },
      { op: 'replace', path: '/spec/type', value: 'ClusterIP' },
      // Cleared by an add without a value: the CRD's value is not nullable, so the apiserver would
      // drop `value: null` anyway (trilio-transforms.ts).
      { op: 'add', path: '/spec/externalIPs' },
    ]);
    expect(JSON.stringify(custom)).not.toContain('null');
    // No "remove if present" in plain JSON Patch: the external-dns default is not expressed.
    expect(custom.some((entry) => entry.transformName.startsWith('drop-external-dns'))).toBe(false);
    // Nor are claims unbound (volumeName removed with bind-completed kept would make a claim Lost).
    expect(custom.some((entry) => entry.transformName.startsWith('unbind-claims'))).toBe(false);
  });

  it('puts the test own patch first, naming its object when it names one', () => {
    const custom = trilioTransforms(resolveTransforms({ patches: [patch] })).transformComponents!.custom;
    expect(custom[0]).toEqual({
      transformName: 'patch-one-replica',
      resources: { groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, objects: ['web.v2'] },
      jsonPatches: [
        { op: 'test', path: '/spec/replicas', value: 3 },
        { op: 'replace', path: '/spec/replicas', value: 1 },
        { op: 'add', path: '/metadata/labels/tier', value: 'sandbox' },
        { op: 'remove', path: '/spec/paused' },
      ],
    });
  });

  it('writes no null value for a patch of null (the apiserver would drop it) and keeps every other value', () => {
    const nulls: RestorePatch = {
      name: 'clear',
      target: { version: 'v1', kind: 'Service', resource: 'services' },
      when: [{ path: '/spec/sessionAffinityConfig', value: null }],
      operations: [
        { op: 'add', path: '/spec/loadBalancerClass', value: null },
        { op: 'replace', path: '/spec/ports/0/name', value: '' },
        { op: 'replace', path: '/spec/publishNotReadyAddresses', value: false },
      ],
    };
    const custom = trilioTransforms(resolveTransforms({ patches: [nulls], removeDefaults: [...DEFAULT_TRANSFORM_IDS] })).transformComponents!.custom;
    expect(custom[0]!.jsonPatches).toEqual([
      { op: 'test', path: '/spec/sessionAffinityConfig' },
      { op: 'add', path: '/spec/loadBalancerClass' },
      { op: 'replace', path: '/spec/ports/0/name', value: '' },
      { op: 'replace', path: '/spec/publishNotReadyAddresses', value: false },
    ]);
  });

  it('asks for nothing when every default is removed (no empty lists: the CRD wants at least one item)', () => {
    expect(trilioTransforms(resolveTransforms({ removeDefaults: [...DEFAULT_TRANSFORM_IDS] }))).toEqual({});
  });
});
