// The pre-flight restorability check's decisions (server/domain/preflight/): each check on
// manifests shaped as Velero stores them, against cluster facts that lack exactly one thing.
import { describe, expect, it } from '@jest/globals';
import { imageReference, nodeImageNames } from '../../../server/domain/preflight/image-names.js';
import { podTemplates, type ManifestObject } from '../../../server/domain/preflight/pod-templates.js';
import { resolveSubset, subsetIncludesLabels } from '../../../server/domain/run/restore-subset.js';
import { MAX_PROBLEMS, preflight, type BackupManifests, type ClusterFacts } from '../../../server/domain/preflight/preflight-checks.js';

const NS = 'shop';

function deployment(name: string, pod: Record<string, unknown>, replicas = 1): ManifestObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS }, spec: { replicas, template: { spec: pod } } };
}

function claim(name: string, spec: Record<string, unknown>): ManifestObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: NS }, spec };
}

const web = deployment('web', {
  serviceAccountName: 'web',
  containers: [
    {
      name: 'web',
      image: 'nginx:1.27',
      envFrom: [{ secretRef: { name: 'web-env' } }, { configMapRef: { name: 'maybe', optional: true } }],
      env: [{ valueFrom: { configMapKeyRef: { name: 'web-config', key: 'mode' } } }],
      resources: { requests: { cpu: '250m', memory: '128Mi' } },
    },
  ],
  volumes: [{ persistentVolumeClaim: { claimName: 'data' } }, { projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } }],
}, 2);

function manifests(objects: ManifestObject[] = [web, claim('data', { storageClassName: 'fast', resources: { requests: { storage: '10Gi' } } })]): BackupManifests {
  return {
    kinds: [
      { apiVersion: 'apps/v1', kind: 'Deployment', sourceNamespace: NS, names: ['web'] },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', sourceNamespace: NS, names: ['data'] },
      { apiVersion: 'v1', kind: 'Secret', sourceNamespace: NS, names: ['web-env'] },
      { apiVersion: 'v1', kind: 'ConfigMap', sourceNamespace: NS, names: ['web-config', 'kube-root-ca.crt'] },
      { apiVersion: 'v1', kind: 'ServiceAccount', sourceNamespace: NS, names: ['default', 'web'] },
      { apiVersion: 'db.example.com/v1', kind: 'Database', sourceNamespace: NS, names: ['orders'] },
    ],
    objects,
  };
}

function facts(overrides: Partial<ClusterFacts> = {}): ClusterFacts {
  return {
    serves: () => true,
    storageClasses: new Set(['fast', 'standard']),
    defaultStorageClass: 'standard',
    nodeImages: nodeImageNames([{ names: ['docker.io/library/nginx:1.27', 'docker.io/library/nginx@sha256:aa'] }]),
    quota: { storage: '100Gi', claims: 20 },
    ...overrides,
  };
}

function without<T>(list: readonly T[], drop: (item: T) => boolean): T[] {
  return list.filter((item) => !drop(item));
}

describe('preflight', () => {
  it('passes a backup the cluster can take', () => {
    expect(preflight(manifests(), facts())).toEqual({ result: 'passed', summary: 'passed: 5 checks', problems: [] });
  });

  it('names a StorageClass that is gone, with the claims that need it', () => {
    const outcome = preflight(manifests(), facts({ storageClasses: new Set(['standard']) }));
    expect(outcome.result).toBe('failed');
    expect(outcome.summary).toBe('failed: StorageClass fast does not exist (claims shop/data)');
    expect(outcome.problems).toEqual([{ check: 'storageClasses', severity: 'error', message: 'StorageClass fast does not exist (claims shop/data)' }]);
  });

  it('gives a claim without a class the default one, and fails it without a default', () => {
    const unnamed = manifests([web, claim('data', { resources: { requests: { storage: '1Gi' } } })]);
    expect(preflight(unnamed, facts()).result).toBe('passed');
    const { defaultStorageClass: _default, ...noDefault } = facts();
    expect(preflight(unnamed, noDefault).problems).toEqual([
      { check: 'storageClasses', severity: 'error', message: 'claim shop/data names no StorageClass and the cluster has no default class' },
    ]);
    // "" asks for a pre-bound volume: no class needed.
    expect(preflight(manifests([web, claim('data', { storageClassName: '' })]), noDefault).result).toBe('passed');
  });

  it('names a kind the cluster no longer serves (a deleted CRD)', () => {
    const outcome = preflight(manifests(), facts({ serves: (apiVersion) => apiVersion !== 'db.example.com/v1' }));
    expect(outcome.problems).toEqual([
      {
        check: 'apiVersions',
        severity: 'error',
        message: 'Database (db.example.com/v1) is not served by the cluster: its CustomResourceDefinition or API version is gone',
      },
    ]);
  });

  it('names Secrets, ConfigMaps, claims and service accounts the pods need and the backup lacks', () => {
    const base = manifests();
    const lacking: BackupManifests = {
      ...base,
      kinds: base.kinds.map((kind) => ({ ...kind, names: without(kind.names, (name) => ['web-env', 'web-config', 'web', 'data'].includes(name) && kind.kind !== 'Deployment') })),
      objects: [web],
    };
    const messages = preflight(lacking, facts()).problems.map((problem) => `${problem.check} ${problem.severity}: ${problem.message}`);
    expect(messages).toEqual([
      'references error: Deployment shop/web needs ServiceAccount shop/web, which the backup does not hold',
      'references error: Deployment shop/web needs PersistentVolumeClaim shop/data, which the backup does not hold',
      'references error: Deployment shop/web needs Secret shop/web-env, which the backup does not hold',
      'references error: Deployment shop/web needs ConfigMap shop/web-config, which the backup does not hold',
    ]);
  });

  it('warns about an image on no node, and an image pull secret the backup lacks, without failing', () => {
    const pulled = deployment('api', { containers: [{ image: 'ghcr.io/acme/api:2.1' }], imagePullSecrets: [{ name: 'ghcr' }] });
    const outcome = preflight(manifests([web, pulled]), facts());
    expect(outcome.result).toBe('passed');
    expect(outcome.summary).toBe('passed: 5 checks, 2 warnings');
    expect(outcome.problems.map((problem) => [problem.check, problem.severity])).toEqual([
      ['references', 'warning'],
      ['images', 'warning'],
    ]);
    expect(outcome.problems[1]!.message).toBe(
      'image ghcr.io/acme/api:2.1 (Deployment shop/api) is on no node: the restore will pull it, which this check does not try',
    );
    // With the image check off, no image warning.
    const { nodeImages: _images, ...imagesOff } = facts();
    expect(preflight(manifests([web, pulled]), imagesOff).problems.map((problem) => problem.check)).toEqual(['references']);
  });

  it('fails when the pods or the claims exceed the sandbox quotas', () => {
    // web: 2 replicas × 250m / 128Mi; the claim 10Gi.
    const outcome = preflight(manifests(), facts({ quota: { storage: '5Gi', claims: 20, hard: { 'requests.cpu': '400m', memory: '1Gi', pods: '2' } } }));
    expect(outcome.problems).toEqual([
      { check: 'quota', severity: 'error', message: 'storage the claims request (10Gi) exceed requests.storage 5Gi of the sandbox storage quota' },
      { check: 'quota', severity: 'error', message: 'CPU requested (500m) exceed requests.cpu 400m of spec.sandbox.resourceQuota (or the cluster default)' },
    ]);
  });

  it('keeps at most MAX_PROBLEMS problems, errors first', () => {
    const many = Array.from({ length: 30 }, (_, index) => claim(`c${index}`, { storageClassName: `gone-${index}` }));
    const outcome = preflight(manifests([web, ...many]), facts({ nodeImages: new Set() }));
    expect(outcome.problems).toHaveLength(MAX_PROBLEMS);
    expect(outcome.problems.every((problem) => problem.severity === 'error')).toBe(true);
    expect(outcome.summary).toMatch(/^failed: StorageClass gone-\d+ does not exist .* \(\+\d+ more\)$/);
  });
});

describe('preflight of a subset restore', () => {
  const labelled = (object: ManifestObject, labels: Record<string, string>): ManifestObject => ({ ...object, metadata: { ...object.metadata, labels } });
  const api = deployment('api', { containers: [{ image: 'nginx:1.27', envFrom: [{ secretRef: { name: 'api-env' } }] }] });

  it('checks only the objects the labelSelector restores', () => {
    const objects = [labelled(web, { app: 'web' }), labelled(api, { app: 'api' }), labelled(claim('data', { storageClassName: 'fast' }), { app: 'web' })];
    // Without the subset, api's missing Secret is an error; restoring app=web only, it is not.
    expect(preflight(manifests(objects), facts()).problems.map((problem) => problem.message)).toEqual([
      'Deployment shop/api needs Secret shop/api-env, which the backup does not hold',
    ]);
    const subset = resolveSubset({ namespaces: [{ name: NS }], labelSelector: { matchLabels: { app: 'web' } } });
    expect(preflight(manifests(objects), facts(), subset)).toEqual({ result: 'passed', summary: 'passed: 5 checks', problems: [] });
  });

  it('names what the backup holds but the subset\'s types leave out, and skips claims it does not restore', () => {
    const subset = resolveSubset({ namespaces: [{ name: NS }], includedResources: [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }] });
    const outcome = preflight(manifests(), facts({ storageClasses: new Set() }), subset);
    expect(outcome.problems.map((problem) => problem.message)).toEqual([
      'Deployment shop/web needs ServiceAccount shop/web, which the restored subset leaves out (spec.backupSource.includedResources)',
      'Deployment shop/web needs PersistentVolumeClaim shop/data, which the restored subset leaves out (spec.backupSource.includedResources)',
      'Deployment shop/web needs Secret shop/web-env, which the restored subset leaves out (spec.backupSource.includedResources)',
      'Deployment shop/web needs ConfigMap shop/web-config, which the restored subset leaves out (spec.backupSource.includedResources)',
    ]);
    // The claim (StorageClass fast, absent here) is not restored: no storageClasses problem.
    expect(outcome.problems.some((problem) => problem.check === 'storageClasses')).toBe(false);
  });
});

describe('subsetIncludesLabels', () => {
  const subset = (labelSelector: NonNullable<Parameters<typeof resolveSubset>[0]>['labelSelector']) => resolveSubset({ namespaces: [{ name: NS }], labelSelector });
  it.each([
    [{ matchLabels: { app: 'web' } }, { app: 'web', tier: 'x' }, true],
    [{ matchLabels: { app: 'web' } }, { app: 'api' }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['a', 'b'] }] }, { tier: 'b' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['a'] }] }, {}, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn' as const, values: ['a'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn' as const, values: ['a'] }] }, { tier: 'a' }, false],
    [{ matchExpressions: [{ key: 'legacy', operator: 'Exists' as const }] }, { legacy: '' }, true],
    [{ matchExpressions: [{ key: 'legacy', operator: 'DoesNotExist' as const }] }, { legacy: '' }, false],
  ])('%j on %j → %p', (selector, labels, expected) => {
    expect(subsetIncludesLabels(subset(selector), labels)).toBe(expected);
  });
});

describe('podTemplates', () => {
  it('reads each workload kind, skips owned pods and replica sets, and counts no pods for jobs', () => {
    const objects: ManifestObject[] = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', namespace: NS }, spec: { containers: [{ image: 'a' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: NS, ownerReferences: [{}] }, spec: { containers: [{ image: 'a' }] } },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-x', namespace: NS, ownerReferences: [{}] }, spec: { template: { spec: {} } } },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: NS }, spec: { replicas: 3, template: { spec: {} } } },
      { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly', namespace: NS }, spec: { jobTemplate: { spec: { template: { spec: {} } } } } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: {} },
    ];
    expect(podTemplates(objects).map((template) => [template.owner.kind, template.owner.name, template.pods])).toEqual([
      ['Pod', 'solo', 1],
      ['StatefulSet', 'db', 3],
      ['CronJob', 'nightly', 0],
    ]);
  });
});

describe('imageReference', () => {
  it.each([
    ['nginx', ['docker.io/library/nginx:latest']],
    ['nginx:1.27', ['docker.io/library/nginx:1.27']],
    ['bitnami/postgresql:16', ['docker.io/bitnami/postgresql:16']],
    ['localhost:5000/app', ['localhost:5000/app:latest']],
    ['registry.local:5000/team/app:v2', ['registry.local:5000/team/app:v2']],
    ['ghcr.io/a/b:1@sha256:ff', ['ghcr.io/a/b@sha256:ff', 'ghcr.io/a/b:1']],
  ])('%s → %p', (image, expected) => {
    expect(imageReference(image)).toEqual(expected);
  });

  it('matches a pod image given by digest against the node listing it by digest', () => {
    const onNode = nodeImageNames([{ names: ['docker.io/library/postgres@sha256:abc', 'docker.io/library/postgres:16'] }]);
    expect(imageReference('postgres@sha256:abc').some((name) => onNode.has(name))).toBe(true);
    expect(imageReference('postgres:17').some((name) => onNode.has(name))).toBe(false);
  });
});
