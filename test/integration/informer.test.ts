// The cache must load every object: streamed by a watch list (the default), or across as many
// list pages as it takes (a relist that stopped after the first page once hid everything beyond
// 500 objects).
import { afterAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { createLogger } from '../../server/logger.js';
import { ResilientInformer } from '../../server/kube/informer.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName } from '../helpers/kube.js';

const admin = testKubeConfig();
const namespace = uniqueName('informer');

afterAll(async () => {
  await deleteNamespaces(admin, [namespace]);
});

describe('ResilientInformer', () => {
  it('loads every object across list pages', async () => {
    await createNamespace(admin, namespace);
    const custom = admin.makeApiClient(CustomObjectsApi);
    for (let index = 0; index < 7; index++) {
      await custom.createNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace,
        plural: 'healthcheckpolicies',
        body: {
          apiVersion: 'rehearsal.dev/v1alpha1',
          kind: 'HealthCheckPolicy',
          metadata: { name: `policy-${index}` },
          spec: { checks: [{ name: 'pods', kind: 'podsReady', podsReady: {} }] },
        },
      });
    }
    const informer = new ResilientInformer(
      admin,
      {
        name: 'paged',
        apiVersion: 'rehearsal.dev/v1alpha1',
        kind: 'HealthCheckPolicy',
        collectionPath: '/apis/rehearsal.dev/v1alpha1/healthcheckpolicies',
        project: (object) => object,
        pageSize: 2,
        watchList: false,
      },
      createLogger('silent'),
    );
    await informer.start();
    try {
      expect(informer.syncMethod).toBe('list');
      const ours = [...informer.values()].filter((object) => object.metadata?.namespace === namespace);
      expect(ours.map((object) => object.metadata?.name).sort()).toEqual(
        Array.from({ length: 7 }, (_, index) => `policy-${index}`),
      );
    } finally {
      informer.stop();
    }
  });

  it('streams the existing objects with a watch list, then follows changes on the same watch', async () => {
    const custom = admin.makeApiClient(CustomObjectsApi);
    const informer = new ResilientInformer(
      admin,
      {
        name: 'streamed',
        apiVersion: 'rehearsal.dev/v1alpha1',
        kind: 'HealthCheckPolicy',
        collectionPath: '/apis/rehearsal.dev/v1alpha1/healthcheckpolicies',
        project: (object) => object,
      },
      createLogger('silent'),
    );
    const names = () =>
      [...informer.values()]
        .filter((object) => object.metadata?.namespace === namespace)
        .map((object) => object.metadata!.name!)
        .sort();
    await informer.start();
    try {
      expect(informer.syncMethod).toBe('watch-list');
      expect(names()).toEqual(Array.from({ length: 7 }, (_, index) => `policy-${index}`));
      await custom.deleteNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace,
        plural: 'healthcheckpolicies',
        name: 'policy-0',
      });
      await custom.createNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace,
        plural: 'healthcheckpolicies',
        body: {
          apiVersion: 'rehearsal.dev/v1alpha1',
          kind: 'HealthCheckPolicy',
          metadata: { name: 'policy-new' },
          spec: { checks: [{ name: 'pods', kind: 'podsReady', podsReady: {} }] },
        },
      });
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && (names().includes('policy-0') || !names().includes('policy-new'))) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(names()).toEqual(
        [...Array.from({ length: 6 }, (_, index) => `policy-${index + 1}`), 'policy-new'].sort(),
      );
    } finally {
      informer.stop();
    }
  });
});
