// networkIsolation: strict on the real apiserver: a run of two source namespaces, then the
// NetworkPolicies read back from its sandboxes. Their namespace peers select by
// kubernetes.io/metadata.name only, so a tenant cannot pull a namespace or pod into a sandbox's
// allowed set by labelling it (Rehearsal's sandbox labels on a namespace, k8s-app=kube-dns on a
// pod). These clusters run no CNI, so nothing enforces the policies: the test evaluates the written
// selectors against the real namespace and pod objects (test/helpers/network-policy-match.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  NetworkingV1Api,
  type V1NetworkPolicy,
  type V1NetworkPolicyPeer,
} from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { createBackup } from '../velero/simulator.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { createNamespace, deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { peerSelects, type LabelledObject } from '../helpers/network-policy-match.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let core: CoreV1Api;
const ledger = uniqueName('netpol-ledger');
const dnsNamespace = uniqueName('netpol-dns');
const tenant = uniqueName('netpol-tenant');
const cleanup: string[] = [ledger, dnsNamespace, tenant];
let report: RestoreReport;

function podBody(name: string, labels: Record<string, string>) {
  return { metadata: { name, labels }, spec: { containers: [{ name: 'main', image: 'example/dns:1' }] } };
}

beforeAll(async () => {
  fixture = await createEngineFixture('netpol');
  core = fixture.admin.makeApiClient(CoreV1Api);
  await createNamespace(fixture.admin, ledger);
  await core.createNamespacedConfigMap({
    namespace: ledger,
    body: { metadata: { name: 'ledger' }, data: { rows: '3' } },
  });
  // The cluster DNS of this test: its namespace is configured by name, its pods carry the usual label.
  await createNamespace(fixture.admin, dnsNamespace);
  await core.createNamespacedPod({
    namespace: dnsNamespace,
    body: podBody('coredns', { 'k8s-app': 'kube-dns' }),
  });
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('sandbox-network-policy.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_DNS_NAMESPACE: dnsNamespace },
  });
  const backup = uniqueName('netpol-both');
  await createBackup(fixture.admin, {
    name: backup,
    namespaces: [fixture.source, ledger],
    veleroNamespace: fixture.veleroNamespace,
  });
  const name = uniqueTestName('netpol');
  await createRestoreTest(
    fixture,
    restoreTestBody(fixture, name, {
      backupSource: {
        backupName: backup,
        namespaces: [{ name: fixture.source }, { name: ledger }],
        providerNamespace: fixture.veleroNamespace,
      },
      sandbox: { networkIsolation: 'strict' },
      // A check that fails: the run is partial, so its sandboxes stay (until ttl) to be read.
      healthChecks: {
        checks: [
          {
            name: 'absent',
            kind: 'resourceExists',
            resourceExists: { apiVersion: 'v1', kind: 'ConfigMap', name: 'no-such-map' },
          },
        ],
      },
    }),
  );
  await trigger(fixture, name);
  [report] = (await waitForReports(fixture, name, 1, 150_000)) as [RestoreReport];
  cleanup.push(...report.spec.sandboxNamespaces);
}, 240_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (fixture)
    await deleteNamespaces(fixture.admin, [
      fixture.source,
      fixture.testNamespace,
      fixture.veleroNamespace,
      ...cleanup,
    ]);
});

async function readNamespace(name: string): Promise<LabelledObject> {
  return core.readNamespace({ name });
}

describe('strict sandbox NetworkPolicy (read back from a run)', () => {
  it("selects the DNS namespace and the run's sandboxes by name; tenant look-alikes are not selected", async () => {
    expect(report.spec.result).not.toBe('pass'); // kept, not deleted at once
    const sandboxes = report.spec.sandboxNamespaces;
    expect(sandboxes).toHaveLength(2);
    const runId = report.spec.runId;

    // A tenant who may create and label namespaces and pods: Rehearsal's labels for this very run
    // on a namespace, and a pod labelled like the cluster DNS in it.
    await core.createNamespace({
      body: {
        metadata: {
          name: tenant,
          labels: {
            'rehearsal.dev/managed-by': 'rehearsal',
            'rehearsal.dev/run': runId,
            'rehearsal.dev/test': report.spec.testRef.name,
            'rehearsal.dev/test-namespace': fixture.testNamespace,
            // kube-apiserver overwrites this one with the real name.
            'kubernetes.io/metadata.name': sandboxes[0]!,
          },
        },
      },
    });
    await core.createNamespacedPod({
      namespace: tenant,
      body: podBody('fake-dns', { 'k8s-app': 'kube-dns' }),
    });
    const tenantNamespace = await readNamespace(tenant);
    expect(tenantNamespace.metadata?.labels?.['kubernetes.io/metadata.name']).toBe(tenant);
    const tenantPod = await core.readNamespacedPod({ namespace: tenant, name: 'fake-dns' });
    const dnsPod = await core.readNamespacedPod({ namespace: dnsNamespace, name: 'coredns' });
    const dnsNs = await readNamespace(dnsNamespace);

    const networking = fixture.admin.makeApiClient(NetworkingV1Api);
    for (const sandbox of sandboxes) {
      const policies = (await networking.listNamespacedNetworkPolicy({ namespace: sandbox })).items;
      expect(policies.map((policy) => policy.metadata?.name)).toEqual(['rehearsal-isolation']);
      const policy = policies[0] as V1NetworkPolicy;
      expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(policy.spec?.podSelector).toEqual({});
      const ingressPeers = policy.spec!.ingress!.flatMap((rule) => rule._from ?? []);
      const egressRules = policy.spec!.egress!;
      const egressPeers = egressRules.flatMap((rule) => rule.to ?? []);
      const dnsRule = egressRules.find((rule) => rule.ports?.some((port) => port.port === 53))!;
      const selects = (peers: V1NetworkPolicyPeer[], namespace: LabelledObject, pod: LabelledObject) =>
        peers.some((peer) => peerSelects(peer, sandbox, namespace, pod));

      // Every namespace peer names its namespaces (no label a tenant could set).
      for (const peer of [...ingressPeers, ...egressPeers]) {
        expect(peer.namespaceSelector?.matchLabels ?? {}).toEqual({});
        expect(peer.namespaceSelector?.matchExpressions).toEqual([
          { key: 'kubernetes.io/metadata.name', operator: 'In', values: expect.any(Array) },
        ]);
      }
      // DNS: only the configured namespace, by name, only its DNS pods, only on port 53.
      expect(dnsRule.to).toEqual([
        {
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'In', values: [dnsNamespace] },
            ],
          },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ]);
      expect(selects(dnsRule.to!, dnsNs, dnsPod)).toBe(true);
      expect(selects(egressPeers, tenantNamespace, tenantPod)).toBe(false);
      // The run's own sandboxes, both ways; the tenant namespace with the run's labels neither way.
      for (const other of sandboxes) {
        const sandboxNamespace = await readNamespace(other);
        expect(selects(egressPeers, sandboxNamespace, { metadata: { labels: { app: 'web' } } })).toBe(true);
        expect(selects(ingressPeers, sandboxNamespace, { metadata: { labels: { app: 'web' } } })).toBe(true);
      }
      expect(selects(ingressPeers, tenantNamespace, tenantPod)).toBe(false);
      // The selectors of before this change would have let both look-alikes in.
      const before: V1NetworkPolicyPeer[] = [
        {
          namespaceSelector: {
            matchLabels: { 'rehearsal.dev/run': runId, 'rehearsal.dev/managed-by': 'rehearsal' },
          },
        },
        { namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
      ];
      expect(before.map((peer) => peerSelects(peer, sandbox, tenantNamespace, tenantPod))).toEqual([
        true,
        true,
      ]);
    }
  });
});
