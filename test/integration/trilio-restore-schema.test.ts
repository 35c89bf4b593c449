// The Trilio provider's Restore on a real apiserver with TVK's own Restore CRD installed
// (test/trilio/crds, the vendor's schema without descriptions): what the apiserver keeps of it is
// exactly what the provider wrote, and a second start of the same run (a server restarted between
// creating the Restore and recording it) adopts the Restore it finds, defaults and the test's
// own patches included; a Restore for another backup is still refused. No simulator: nothing
// needs to act on the Restore. test/unit/providers/trilio-crd-schema.test.ts makes the same
// checks without an apiserver; this one proves the schema walk agrees with the real pruning.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { resolveTransforms } from '../../server/domain/run/restore-transforms.js';
import { buildNamespaceMapping, type RestoreRequest } from '../../server/providers/provider.js';
import { trilioRestoreBody } from '../../server/providers/trilio/trilio-restore-request.js';
import { TrilioProvider } from '../../server/providers/trilio/trilio.provider.js';
import { createNamespace, deleteNamespaces, testKubeConfig, uniqueName } from '../helpers/kube.js';

// The integration project's testTimeout is not applied per project by Jest 30; set it here.
jest.setTimeout(120_000);

const kubeConfig = testKubeConfig();
const custom = kubeConfig.makeApiClient(CustomObjectsApi);
const namespaces: string[] = [];

afterAll(async () => {
  await deleteNamespaces(kubeConfig, namespaces);
});

const transforms = resolveTransforms({
  exclude: [
    { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets' },
  ],
  patches: [
    {
      name: 'one-replica',
      target: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', name: 'web' },
      when: [{ path: '/spec/replicas', value: 3 }],
      operations: [
        { op: 'replace', path: '/spec/replicas', value: 1 },
        { op: 'add', path: '/spec/minReadySeconds', value: null },
        { op: 'add', path: '/metadata/labels', value: { tier: 'sandbox' } },
      ],
    },
  ],
});

describe('a Trilio Restore on TVK’s own CRD', () => {
  it('is stored as written, and adopted by a second start of the same run; not for another backup', async () => {
    const source = await createNamespace(kubeConfig, uniqueName('trilio-src', 40));
    const sandbox = await createNamespace(kubeConfig, uniqueName('trilio-sbx', 40));
    namespaces.push(source, sandbox);
    const first: RestoreRequest = {
      name: uniqueName('trilio-restore', 40),
      backup: { name: 'nightly', includedNamespaces: [source] },
      mapping: buildNamespaceMapping([source], () => sandbox),
      labels: { 'rehearsal.dev/run': 'abcde' },
      transforms,
    };
    const provider = new TrilioProvider(kubeConfig);
    const ref = await provider.startRestore(first);
    expect(ref).toEqual({ namespace: sandbox, name: first.name });

    const stored = (await custom.getNamespacedCustomObject({
      group: 'triliovault.trilio.io',
      version: 'v1',
      plural: 'restores',
      namespace: sandbox,
      name: first.name,
    })) as { spec: unknown };
    const written = trilioRestoreBody({
      name: first.name,
      labels: first.labels,
      backup: 'nightly',
      source,
      sandbox,
      transforms,
    });
    expect(stored.spec).toEqual(written.spec);

    await expect(provider.startRestore(first)).resolves.toEqual(ref);
    await expect(
      provider.startRestore({ ...first, backup: { ...first.backup, name: 'weekly' } }),
    ).rejects.toMatchObject({
      reason: 'RestoreRejected',
    });
  });
});
