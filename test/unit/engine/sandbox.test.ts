// The sandbox manager never adopts a namespace (decision 0009): an existing namespace of a
// sandbox's name is Rehearsal's only when its UID is the one the run recorded, the one this
// process created, or when it carries this run's claim signed by the installation's key (another
// replica created it and died before recording it). (The real-apiserver cases, a namespace
// pre-created by someone else and one a killed leader left, are in
// test/integration/sandbox-safety.test.ts.)
import { describe, expect, it } from '@jest/globals';
import {
  SandboxManager,
  SandboxQuotaNotSyncedError,
  SandboxTakenError,
  type SandboxPlan,
} from '../../../server/engine/sandbox/sandbox.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';
import { BUILT_IN_CLUSTER_DEFAULTS, type ClusterDefaults } from '../../../server/domain/run/cluster-defaults.js';
import { claimMessage, type SandboxClaimKeys } from '../../../server/engine/sandbox/sandbox-claim.js';
import { generateSigningKey, type SigningKey } from '../../../server/evidence/signing-key.js';

const alreadyExists = { code: 409, body: { reason: 'AlreadyExists', message: 'exists' } };

interface FakeQuota {
  namespace: string;
  body: { metadata: { name: string; labels?: Record<string, string> }; spec: { hard: Record<string, string> } };
}

/**
 * `syncAfterReads`: how many reads of a quota see no status before kube-controller-manager's sync
 * (Infinity: never). `readFailures`: errors the first reads throw instead (a fresh RoleBinding).
 */
function fakeCluster(
  existing: Record<string, string>,
  quotas: { syncAfterReads?: number; readFailures?: unknown[] } = {},
  clusterDefaults?: () => ClusterDefaults,
  claims?: SandboxClaimKeys,
) {
  const namespaces = new Map(Object.entries(existing));
  const createdQuotas: FakeQuota[] = [];
  /** Every write, in order: `<kind> <namespace>`. */
  const writes: string[] = [];
  const quotaReads = new Map<string, number>();
  const readFailures = [...(quotas.readFailures ?? [])];
  const sleeps: number[] = [];
  let clock = 0;
  const createdLabels = new Map<string, Record<string, string>>();
  const createdAnnotations = new Map<string, Record<string, string>>();
  const bindings: string[] = [];
  const deletes: { name: string; uid?: string }[] = [];
  let next = 1;
  const core = {
    createNamespace: async ({ body }: { body: { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> } } }) => {
      if (namespaces.has(body.metadata.name)) throw alreadyExists;
      createdLabels.set(body.metadata.name, body.metadata.labels ?? {});
      createdAnnotations.set(body.metadata.name, body.metadata.annotations ?? {});
      writes.push(`namespace ${body.metadata.name}`);
      const uid = `uid-${next++}`;
      namespaces.set(body.metadata.name, uid);
      return { metadata: { name: body.metadata.name, uid } };
    },
    readNamespace: async ({ name }: { name: string }) => ({
      metadata: {
        name,
        uid: namespaces.get(name),
        labels: createdLabels.get(name) ?? { 'rehearsal.dev/managed-by': 'rehearsal' },
        annotations: createdAnnotations.get(name) ?? {},
      },
    }),
    createNamespacedResourceQuota: async (request: FakeQuota) => {
      if (createdQuotas.some((quota) => quota.namespace === request.namespace && quota.body.metadata.name === request.body.metadata.name)) {
        throw alreadyExists;
      }
      createdQuotas.push(request);
      writes.push(`resourcequota ${request.namespace}`);
      return request.body;
    },
    readNamespacedResourceQuota: async ({ name, namespace }: { name: string; namespace: string }) => {
      const failure = readFailures.shift();
      if (failure) throw failure;
      const quota = createdQuotas.find((entry) => entry.namespace === namespace && entry.body.metadata.name === name);
      if (!quota) throw { code: 404, body: { reason: 'NotFound', message: 'not found' } };
      const reads = (quotaReads.get(namespace) ?? 0) + 1;
      quotaReads.set(namespace, reads);
      const synced = reads > (quotas.syncAfterReads ?? 0);
      const zero = Object.fromEntries(Object.keys(quota.body.spec.hard).map((key) => [key, '0']));
      return { ...quota.body, ...(synced ? { status: { hard: quota.body.spec.hard, used: zero } } : {}) };
    },
    deleteNamespace: async ({ name, body }: { name: string; body?: { preconditions?: { uid?: string } } }) => {
      deletes.push({ name, ...(body?.preconditions?.uid ? { uid: body.preconditions.uid } : {}) });
      return {};
    },
  };
  /** null: a replica without claim keys. */
  const replica = (keys: SandboxClaimKeys | null | undefined = claims) => new SandboxManager({
    ...(keys ? { claims: keys } : {}),
    core: core as never,
    networking: { createNamespacedNetworkPolicy: async () => ({}) } as never,
    rbac: {
      createNamespacedRoleBinding: (async ({ namespace }: { namespace: string }) => {
        bindings.push(namespace);
        writes.push(`rolebinding ${namespace}`);
        return {};
      }) as never,
    },
    serviceAccount: { namespace: 'rehearsal-system', name: 'rehearsal' },
    storageQuota: { storage: '5Gi', claims: 3 },
    ...(clusterDefaults ? { clusterDefaults } : {}),
    quotaSync: { timeoutMs: 1000, intervalMs: 100 },
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  });
  const manager = replica();
  /** Another process over the same cluster: it knows only what the cluster and the plan say. */
  const anotherReplica = replica;
  return { manager, anotherReplica, namespaces, createdLabels, createdAnnotations, bindings, deletes, createdQuotas, writes, sleeps };
}

const test: RestoreTest = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreTest',
  metadata: { name: 'shop', namespace: 'team-a' },
  spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }, { name: 'db' }] }, schedule: { cron: '0 3 * * *' } },
};

function plan(extra: Partial<SandboxPlan> = {}): SandboxPlan {
  return {
    test,
    runId: 'abcde',
    entries: [
      { source: 'shop', sandbox: 'rehearsal-shop-abcde' },
      { source: 'db', sandbox: 'rehearsal-shop-abcde-1' },
    ],
    expiresAt: new Date('2026-11-25T12:00:00Z'),
    proberNamespace: 'rehearsal-system',
    proberPodLabels: { app: 'rehearsal' },
    podSecurity: { 'rehearsal-shop-abcde': 'restricted', 'rehearsal-shop-abcde-1': 'baseline' },
    ...extra,
  };
}

describe('SandboxManager.create', () => {
  it('creates every sandbox with its reader RoleBinding and returns the UIDs to record', async () => {
    const cluster = fakeCluster({});
    await expect(cluster.manager.create(plan())).resolves.toEqual([
      { source: 'shop', sandbox: 'rehearsal-shop-abcde', uid: 'uid-1' },
      { source: 'db', sandbox: 'rehearsal-shop-abcde-1', uid: 'uid-2' },
    ]);
    expect(cluster.bindings).toEqual(['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1']);
  });

  it('creates each sandbox with its Pod Security labels (enforce, audit, warn at the latest version)', async () => {
    const cluster = fakeCluster({});
    await cluster.manager.create(plan());
    const podSecurity = (name: string) =>
      Object.fromEntries(Object.entries(cluster.createdLabels.get(name) ?? {}).filter(([key]) => key.startsWith('pod-security.kubernetes.io/')));
    expect(podSecurity('rehearsal-shop-abcde')).toEqual({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
      'pod-security.kubernetes.io/audit': 'restricted',
      'pod-security.kubernetes.io/audit-version': 'latest',
      'pod-security.kubernetes.io/warn': 'restricted',
      'pod-security.kubernetes.io/warn-version': 'latest',
    });
    expect(podSecurity('rehearsal-shop-abcde-1')['pod-security.kubernetes.io/enforce']).toBe('baseline');
  });

  it('refuses to create a sandbox without a planned Pod Security level', async () => {
    const cluster = fakeCluster({});
    await expect(cluster.manager.create(plan({ podSecurity: { 'rehearsal-shop-abcde': 'baseline' } }))).rejects.toThrow(
      'no Pod Security level planned for sandbox rehearsal-shop-abcde-1',
    );
    expect(cluster.namespaces.size).toBe(0); // nothing created: the plan is checked first
  });

  it('repeats the step over its own namespaces: created by this process, or recorded in the status', async () => {
    const cluster = fakeCluster({});
    const first = await cluster.manager.create(plan());
    await expect(cluster.manager.create(plan())).resolves.toEqual(first);
    const restarted = fakeCluster({ 'rehearsal-shop-abcde': 'u-a', 'rehearsal-shop-abcde-1': 'u-b' });
    const recordedUids = { 'rehearsal-shop-abcde': 'u-a', 'rehearsal-shop-abcde-1': 'u-b' };
    await expect(restarted.manager.create(plan({ recordedUids }))).resolves.toHaveLength(2);
  });

  it('refuses a namespace someone else created, even with our labels, and says which sandboxes are ours', async () => {
    const cluster = fakeCluster({ 'rehearsal-shop-abcde-1': 'theirs' });
    const failure = await cluster.manager.create(plan({ recordedUids: { 'rehearsal-shop-abcde-1': 'other' } })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SandboxTakenError);
    expect((failure as SandboxTakenError).reason).toBe('SandboxNamespaceTaken');
    expect((failure as SandboxTakenError).message).toContain('namespace "rehearsal-shop-abcde-1" already exists and Rehearsal did not create it for run abcde (uid theirs)');
    expect((failure as SandboxTakenError).created).toEqual([{ source: 'shop', sandbox: 'rehearsal-shop-abcde', uid: 'uid-1' }]);
    expect(cluster.bindings).toEqual(['rehearsal-shop-abcde']); // nothing granted in theirs
  });
});

describe('SandboxManager.create: the storage quota (issue 27)', () => {
  it('creates rehearsal-sandbox-storage in every sandbox, first, labelled as Rehearsal\'s, with the installation\'s limits', async () => {
    const cluster = fakeCluster({});
    await cluster.manager.create(plan());
    expect(cluster.createdQuotas).toEqual(
      ['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1'].map((namespace) => ({
        namespace,
        body: {
          metadata: {
            name: 'rehearsal-sandbox-storage',
            labels: {
              'rehearsal.dev/managed-by': 'rehearsal',
              'rehearsal.dev/test': 'shop',
              'rehearsal.dev/test-namespace': 'team-a',
              'rehearsal.dev/run': 'abcde',
            },
          },
          spec: { hard: { 'requests.storage': '5Gi', persistentvolumeclaims: '3' } },
        },
      })),
    );
    expect(cluster.writes.slice(0, 3)).toEqual([
      'namespace rehearsal-shop-abcde',
      'resourcequota rehearsal-shop-abcde',
      'rolebinding rehearsal-shop-abcde',
    ]);
  });

  // Issue 30: the cluster-wide defaults (ConfigMap rehearsal-cluster-defaults), read at each create.
  describe('with cluster defaults', () => {
    const hardOf = (cluster: ReturnType<typeof fakeCluster>, name: string): Record<string, string>[] =>
      cluster.createdQuotas.filter((quota) => quota.body.metadata.name === name).map((quota) => quota.body.spec.hard);

    it('without any (built-in defaults) creates no rehearsal-sandbox quota, as before', async () => {
      const cluster = fakeCluster({}, {}, () => BUILT_IN_CLUSTER_DEFAULTS);
      await cluster.manager.create(plan());
      expect(hardOf(cluster, 'rehearsal-sandbox')).toEqual([]);
      expect(hardOf(cluster, 'rehearsal-sandbox-storage')[0]).toEqual({ 'requests.storage': '5Gi', persistentvolumeclaims: '3' });
    });

    it("gives every sandbox the cluster's CPU, memory and pod quota, and its storage over the installation's", async () => {
      const defaults: ClusterDefaults = { ...BUILT_IN_CLUSTER_DEFAULTS, quotaCpu: '4', quotaMemory: '8Gi', quotaPods: 30, quotaStorage: '50Gi' };
      const cluster = fakeCluster({}, {}, () => defaults);
      await cluster.manager.create(plan());
      expect(hardOf(cluster, 'rehearsal-sandbox')).toEqual([
        { 'requests.cpu': '4', 'requests.memory': '8Gi', pods: '30' },
        { 'requests.cpu': '4', 'requests.memory': '8Gi', pods: '30' },
      ]);
      expect(hardOf(cluster, 'rehearsal-sandbox-storage')[0]).toEqual({ 'requests.storage': '50Gi', persistentvolumeclaims: '3' });
    });

    it("lets the test's own resourceQuota win key by key", async () => {
      const defaults: ClusterDefaults = { ...BUILT_IN_CLUSTER_DEFAULTS, quotaCpu: '4', quotaPods: 30 };
      const cluster = fakeCluster({}, {}, () => defaults);
      const own: RestoreTest = { ...test, spec: { ...test.spec, sandbox: { resourceQuota: { hard: { pods: '5', 'limits.memory': '1Gi' } } } } };
      await cluster.manager.create(plan({ test: own }));
      expect(hardOf(cluster, 'rehearsal-sandbox')[0]).toEqual({ 'requests.cpu': '4', pods: '5', 'limits.memory': '1Gi' });
    });

    it('reads the defaults at each create: a change applies to the next run', async () => {
      let defaults: ClusterDefaults = { ...BUILT_IN_CLUSTER_DEFAULTS, quotaPods: 30 };
      const cluster = fakeCluster({}, {}, () => defaults);
      await cluster.manager.create(plan());
      defaults = { ...BUILT_IN_CLUSTER_DEFAULTS, quotaPods: 10 };
      await cluster.manager.create(
        plan({
          runId: 'fghij',
          entries: [{ source: 'shop', sandbox: 'rehearsal-shop-fghij' }],
          podSecurity: { 'rehearsal-shop-fghij': 'baseline' },
        }),
      );
      expect(hardOf(cluster, 'rehearsal-sandbox')).toEqual([{ pods: '30' }, { pods: '30' }, { pods: '10' }]);
    });
  });

  it.each([
    ['synced at once', { syncAfterReads: 0 }, []],
    ['synced on the third read of each', { syncAfterReads: 2 }, [100, 100, 100, 100]],
    ['first Forbidden (the reader binding not yet authorized), then NotFound', { readFailures: [{ code: 403, body: { reason: 'Forbidden', message: 'forbidden' } }, { code: 404, body: { reason: 'NotFound', message: 'nf' } }] }, [100, 100]],
  ])('returns once every quota is synced: %s', async (_name, quotas, sleeps) => {
    const cluster = fakeCluster({}, quotas);
    await expect(cluster.manager.create(plan())).resolves.toHaveLength(2);
    expect(cluster.sleeps).toEqual(sleeps);
  });

  it('a quota never synced → SandboxQuotaNotSyncedError after the bound, naming the quota, with every sandbox to clean up', async () => {
    const cluster = fakeCluster({}, { syncAfterReads: Infinity });
    const failure = await cluster.manager.create(plan()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SandboxQuotaNotSyncedError);
    expect((failure as SandboxQuotaNotSyncedError).reason).toBe('SandboxQuotaNotSynced');
    expect((failure as Error).message).toContain('the storage quota rehearsal-sandbox-storage of sandbox rehearsal-shop-abcde was not synced within 1 s');
    expect((failure as Error).message).toContain('kube-controller-manager');
    expect((failure as SandboxQuotaNotSyncedError).created.map((entry) => entry.sandbox)).toEqual(['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1']);
    expect(cluster.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(1000);
  });

  it('another read failure is not waited out', async () => {
    const cluster = fakeCluster({}, { readFailures: [{ code: 500, body: { reason: 'InternalError', message: 'etcd down' } }] });
    await expect(cluster.manager.create(plan())).rejects.not.toBeInstanceOf(SandboxQuotaNotSyncedError);
    expect(cluster.sleeps).toEqual([]);
  });

  it('a repeated step finds its quota (AlreadyExists) and goes on', async () => {
    const cluster = fakeCluster({});
    const first = await cluster.manager.create(plan());
    await expect(cluster.manager.create(plan())).resolves.toEqual(first);
    expect(cluster.createdQuotas).toHaveLength(2);
  });
});

describe('SandboxManager.delete', () => {
  it('deletes with the UID as a precondition and refuses another UID', async () => {
    const cluster = fakeCluster({ 'rehearsal-shop-abcde': 'u-a' });
    await cluster.manager.delete('rehearsal-shop-abcde', 'u-a');
    expect(cluster.deletes).toEqual([{ name: 'rehearsal-shop-abcde', uid: 'u-a' }]);
    await expect(cluster.manager.delete('rehearsal-shop-abcde', 'u-other')).rejects.toThrow('is not the recorded u-other');
  });
});

describe('SandboxManager.create: a sandbox a killed leader created before recording it (signed claims)', () => {
  const keysOf = (...keys: SigningKey[]): SandboxClaimKeys => ({
    signer: () => keys[0],
    keyRing: () => new Map(keys.map((key) => [key.keyId, key.publicKey])),
  });
  const installation = generateSigningKey();
  const testWithUid: RestoreTest = { ...test, metadata: { ...test.metadata, uid: 'test-uid-1' } };
  const claimed = (extra: Partial<SandboxPlan> = {}) => plan({ test: testWithUid, ...extra });

  it('signs each new sandbox: name, run and test UID, with the current key', async () => {
    const cluster = fakeCluster({}, {}, undefined, keysOf(installation));
    await cluster.manager.create(claimed());
    const claim = cluster.createdAnnotations.get('rehearsal-shop-abcde-1')!['rehearsal.dev/sandbox-claim']!;
    expect(claim.startsWith(`${installation.keyId}:`)).toBe(true);
    expect(claim.slice(installation.keyId.length + 1)).toBe(
      installation.sign(claimMessage({ sandbox: 'rehearsal-shop-abcde-1', runId: 'abcde', testNamespace: 'team-a', testName: 'shop', testUid: 'test-uid-1' })),
    );
  });

  it('the next leader recognises them and goes on, even after a key rotation', async () => {
    const cluster = fakeCluster({}, {}, undefined, keysOf(installation));
    const first = await cluster.manager.create(claimed());
    const rotated = keysOf(generateSigningKey(), installation);
    await expect(cluster.anotherReplica(rotated).create(claimed())).resolves.toEqual(first);
  });

  it('creates the sandboxes the killed leader had not reached, and recognises the one it had', async () => {
    const cluster = fakeCluster({}, {}, undefined, keysOf(installation));
    await cluster.manager.create(claimed({ entries: [{ source: 'shop', sandbox: 'rehearsal-shop-abcde' }] }));
    const created = await cluster.anotherReplica().create(claimed());
    expect(created.map((entry) => entry.uid)).toEqual(['uid-1', 'uid-2']);
  });

  it.each([
    ['no claim keys in the next replica', () => null, claimed()],
    ['a key the installation never published', () => keysOf(generateSigningKey()), claimed()],
    ['another run of the same test', () => keysOf(installation), claimed({ runId: 'fghij', entries: plan().entries })],
    ['the test deleted and created again (another UID)', () => keysOf(installation), claimed({ test: { ...testWithUid, metadata: { ...testWithUid.metadata, uid: 'test-uid-2' } } })],
  ])('refuses it with %s', async (_label, nextKeys, nextPlan) => {
    const cluster = fakeCluster({}, {}, undefined, keysOf(installation));
    await cluster.manager.create(claimed());
    const failure = await cluster.anotherReplica(nextKeys()).create(nextPlan).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SandboxTakenError);
  });

  it("refuses a claim copied onto another namespace, and labels that do not name the claim's run", async () => {
    const cluster = fakeCluster({}, {}, undefined, keysOf(installation));
    await cluster.manager.create(claimed());
    // The first sandbox's claim on the second's name: the signature binds the name.
    const copied = cluster.createdAnnotations.get('rehearsal-shop-abcde')!;
    cluster.createdAnnotations.set('rehearsal-shop-abcde-1', { ...copied });
    await expect(cluster.anotherReplica().create(claimed())).rejects.toBeInstanceOf(SandboxTakenError);
    // A valid claim, but the labels were changed since: the janitor would not see the run's.
    const relabelled = fakeCluster({}, {}, undefined, keysOf(installation));
    await relabelled.manager.create(claimed());
    relabelled.createdLabels.set('rehearsal-shop-abcde', { ...relabelled.createdLabels.get('rehearsal-shop-abcde')!, 'rehearsal.dev/run': 'zzzzz' });
    await expect(relabelled.anotherReplica().create(claimed())).rejects.toBeInstanceOf(SandboxTakenError);
  });
});
