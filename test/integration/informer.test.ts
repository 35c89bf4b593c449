// The cache must load every object, across as many list pages as it takes (a relist that stopped
// after the first page once hid everything beyond 500 objects).
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
      },
      createLogger('silent'),
    );
    await informer.start();
    try {
      const ours = [...informer.values()].filter((object) => object.metadata?.namespace === namespace);
      expect(ours.map((object) => object.metadata?.name).sort()).toEqual(
        Array.from({ length: 7 }, (_, index) => `policy-${index}`),
      );
    } finally {
      informer.stop();
    }
  });
});
