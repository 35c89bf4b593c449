// The strict sandbox NetworkPolicy selects namespaces only by kubernetes.io/metadata.name (set by
// kube-apiserver, not forgeable): a tenant's namespace carrying Rehearsal's labels, or a tenant's
// pod labelled k8s-app=kube-dns, is not a peer. The real-apiserver case (policies read back from a
// run's sandboxes) is test/integration/sandbox-network-policy.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { loadConfig } from '../../../server/config.js';
import { SandboxManager } from '../../../server/engine/sandbox/sandbox.js';
import {
  DEFAULT_SANDBOX_DNS,
  strictPolicies,
  type StrictPolicyInput,
} from '../../../server/engine/sandbox/network-policy.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';
import { peerSelects, selectorMatches, type LabelledObject } from '../../helpers/network-policy-match.js';

const input: StrictPolicyInput = {
  sandboxes: ['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1'],
  proberNamespace: 'rehearsal-system',
  proberPodLabels: { 'app.kubernetes.io/name': 'rehearsal' },
  dns: { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } },
  labels: { 'rehearsal.dev/run': 'abcde' },
};

/** A namespace as kube-apiserver stores it: its name label is always set, whatever else is. */
function namespace(name: string, labels: Record<string, string> = {}): LabelledObject {
  return { metadata: { name, labels: { ...labels, 'kubernetes.io/metadata.name': name } } };
}
const pod = (labels: Record<string, string> = {}): LabelledObject => ({ metadata: { name: 'p', labels } });

/** Rehearsal's sandbox labels for run abcde: anyone who may label a namespace can set them. */
const forgedSandboxLabels = {
  'rehearsal.dev/managed-by': 'rehearsal',
  'rehearsal.dev/run': 'abcde',
  'rehearsal.dev/test': 'shop',
  'rehearsal.dev/test-namespace': 'team-a',
};

function peers(policy: V1NetworkPolicy) {
  const [sameRunEgress, dnsEgress] = policy.spec!.egress!;
  const [ingress] = policy.spec!.ingress!;
  return {
    sameRunIn: ingress!._from![0]!,
    prober: ingress!._from![1]!,
    sameRunOut: sameRunEgress!.to![0]!,
    dns: dnsEgress!.to![0]!,
  };
}

const selects = (peer: V1NetworkPolicyPeer, ns: LabelledObject, target: LabelledObject = pod()) =>
  peerSelects(peer, 'rehearsal-shop-abcde', ns, target);

describe('strictPolicies', () => {
  it('selects every namespace peer by its apiserver-set name', () => {
    const [policy, ...others] = strictPolicies(input);
    expect(others).toEqual([]);
    const byName = (names: string[]) => ({
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: names }],
    });
    expect(policy!.spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          _from: [
            { namespaceSelector: byName(['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1']) },
            {
              namespaceSelector: byName(['rehearsal-system']),
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'rehearsal' } },
            },
          ],
        },
      ],
      egress: [
        { to: [{ namespaceSelector: byName(['rehearsal-shop-abcde', 'rehearsal-shop-abcde-1']) }] },
        {
          to: [
            {
              namespaceSelector: byName(['kube-system']),
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
      ],
    });
    expect(policy!.metadata).toEqual({ name: 'rehearsal-isolation', labels: input.labels });
  });

  it("the run's own sandboxes are peers; a namespace labelled as the run's sandbox is not", () => {
    const { sameRunIn, sameRunOut } = peers(strictPolicies(input)[0]!);
    for (const peer of [sameRunIn, sameRunOut]) {
      expect(selects(peer, namespace('rehearsal-shop-abcde', forgedSandboxLabels))).toBe(true);
      expect(selects(peer, namespace('rehearsal-shop-abcde-1'))).toBe(true);
      expect(selects(peer, namespace('team-x', forgedSandboxLabels))).toBe(false);
      // Even a namespace that claims another's name in a label: kube-apiserver overwrites that one.
      expect(
        selects(peer, namespace('team-x', { 'kubernetes.io/metadata.name': 'rehearsal-shop-abcde' })),
      ).toBe(false);
      expect(
        selects(
          peer,
          namespace('rehearsal-shop-fghij', { ...forgedSandboxLabels, 'rehearsal.dev/run': 'fghij' }),
        ),
      ).toBe(false);
    }
  });

  it('DNS egress reaches only the DNS pods of the configured namespace, not a tenant pod labelled kube-dns', () => {
    const { dns } = peers(strictPolicies(input)[0]!);
    expect(selects(dns, namespace('kube-system'), pod({ 'k8s-app': 'kube-dns' }))).toBe(true);
    expect(selects(dns, namespace('kube-system'), pod({ 'k8s-app': 'other' }))).toBe(false);
    expect(selects(dns, namespace('team-x'), pod({ 'k8s-app': 'kube-dns' }))).toBe(false);
    expect(
      selects(
        dns,
        namespace('team-x', { 'kubernetes.io/metadata.name': 'kube-system' }),
        pod({ 'k8s-app': 'kube-dns' }),
      ),
    ).toBe(false);
  });

  it('DNS elsewhere: the configured namespace and labels', () => {
    const { dns } = peers(
      strictPolicies({ ...input, dns: { namespace: 'dns-system', podLabels: { app: 'coredns' } } })[0]!,
    );
    expect(selects(dns, namespace('dns-system'), pod({ app: 'coredns' }))).toBe(true);
    expect(selects(dns, namespace('kube-system'), pod({ 'k8s-app': 'kube-dns' }))).toBe(false);
  });

  it('probes get in only from the Rehearsal pods of the server namespace', () => {
    const { prober } = peers(strictPolicies(input)[0]!);
    expect(
      selects(prober, namespace('rehearsal-system'), pod({ 'app.kubernetes.io/name': 'rehearsal' })),
    ).toBe(true);
    expect(selects(prober, namespace('team-x'), pod({ 'app.kubernetes.io/name': 'rehearsal' }))).toBe(false);
  });
});

describe('the matcher used by these tests', () => {
  it('follows the label-selector operators', () => {
    const labels = { a: '1', b: '2' };
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { a: '1' } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { a: '2' } }, labels)).toBe(false);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '3'] }] }, labels),
    ).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'c', operator: 'In', values: ['1'] }] }, labels)).toBe(
      false,
    );
    expect(
      selectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels),
    ).toBe(false);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['1'] }] }, labels),
    ).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'b', operator: 'Exists' }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, labels)).toBe(
      false,
    );
  });

  it('an empty namespaceSelector selects every namespace (the old DNS rule)', () => {
    const old: V1NetworkPolicyPeer = {
      namespaceSelector: {},
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    };
    expect(selects(old, namespace('team-x'), pod({ 'k8s-app': 'kube-dns' }))).toBe(true);
    expect(selects({ podSelector: {} }, namespace('team-x'))).toBe(false); // podSelector alone: the policy's namespace
    expect(selects({ podSelector: {} }, namespace('rehearsal-shop-abcde'))).toBe(true);
  });
});

describe('configuration', () => {
  it('defaults to kube-system and k8s-app=kube-dns, and takes another DNS', () => {
    expect(loadConfig({}).sandboxDns).toEqual(DEFAULT_SANDBOX_DNS);
    expect(
      loadConfig({ REHEARSAL_DNS_NAMESPACE: 'dns-system', REHEARSAL_DNS_POD_LABELS: 'app=coredns,tier=dns' })
        .sandboxDns,
    ).toEqual({
      namespace: 'dns-system',
      podLabels: { app: 'coredns', tier: 'dns' },
    });
  });

  it('names the bad variable', () => {
    expect(() => loadConfig({ REHEARSAL_DNS_NAMESPACE: 'Kube System' })).toThrow(
      /REHEARSAL_DNS_NAMESPACE: a namespace name/,
    );
    expect(() => loadConfig({ REHEARSAL_DNS_POD_LABELS: 'k8s-app' })).toThrow(
      'REHEARSAL_DNS_POD_LABELS: "k8s-app" is not key=value',
    );
  });
});

describe('SandboxManager', () => {
  it("writes the strict policy into every sandbox with all of the run's sandbox names and the configured DNS", async () => {
    const written: { namespace: string; body: V1NetworkPolicy }[] = [];
    let uid = 0;
    const manager = new SandboxManager({
      core: {
        createNamespace: async () => ({ metadata: { uid: `u${++uid}` } }),
        // The storage quota (issue 27), synced at once.
        createNamespacedResourceQuota: async () => ({}),
        readNamespacedResourceQuota: async () => ({
          spec: { hard: { 'requests.storage': '100Gi', persistentvolumeclaims: '20' } },
          status: {
            hard: { 'requests.storage': '100Gi', persistentvolumeclaims: '20' },
            used: { 'requests.storage': '0', persistentvolumeclaims: '0' },
          },
        }),
      } as never,
      networking: {
        createNamespacedNetworkPolicy: async (request: { namespace: string; body: V1NetworkPolicy }) => {
          written.push(request);
          return {};
        },
      } as never,
      rbac: { createNamespacedRoleBinding: (async () => ({})) as never },
      serviceAccount: { namespace: 'rehearsal-system', name: 'rehearsal' },
      dns: { namespace: 'dns-system', podLabels: { app: 'coredns' } },
    });
    const test: RestoreTest = {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: 'shop', namespace: 'team-a' },
      spec: {
        provider: 'velero',
        backupSource: { namespaces: [{ name: 'shop' }, { name: 'db' }] },
        schedule: { cron: '0 3 * * *' },
      },
    };
    await manager.create({
      test,
      runId: 'abcde',
      entries: [
        { source: 'shop', sandbox: 'rehearsal-shop-abcde' },
        { source: 'db', sandbox: 'rehearsal-shop-abcde-1' },
      ],
      expiresAt: new Date('2026-11-25T12:00:00Z'),
      proberNamespace: 'rehearsal-system',
      proberPodLabels: { 'app.kubernetes.io/name': 'rehearsal' },
      podSecurity: { 'rehearsal-shop-abcde': 'baseline', 'rehearsal-shop-abcde-1': 'baseline' },
    });
    expect(written.map((entry) => entry.namespace)).toEqual([
      'rehearsal-shop-abcde',
      'rehearsal-shop-abcde-1',
    ]);
    const expected = strictPolicies({
      ...input,
      dns: { namespace: 'dns-system', podLabels: { app: 'coredns' } },
      labels: written[0]!.body.metadata!.labels!,
    });
    for (const entry of written) expect(entry.body).toEqual(expected[0]);
  });
});
