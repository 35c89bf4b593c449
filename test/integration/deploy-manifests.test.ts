// The install manifests: the Helm chart passes `helm lint`, renders with its defaults and with
// every option on, agrees with kustomize on every object both ship, and every rendered object (chart
// defaults, chart everything-on, deploy/base, deploy/overlays/full) is accepted by the real
// kube-apiserver with --dry-run=server (CRDs installed first: ours and the real third-party CRDs of
// cert-manager and the Prometheus Operator, from their Go modules).
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/cluster-info.js';
import { testKubeconfigPath } from '../helpers/kube.js';
import {
  chartDir,
  helm,
  helmBinary,
  keyOf,
  renderChart,
  renderKustomize,
  withoutChartLabels,
  type K8sObject,
} from '../helpers/manifests.js';

const everythingOn = path.join(chartDir, 'ci/everything-on-values.yaml');
const kubeconfig = testKubeconfigPath();

function kubectl(args: string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

function byKey(objects: K8sObject[]): Map<string, K8sObject> {
  return new Map(objects.map((object) => [keyOf(object), object]));
}

/** Server-side dry run of every object; returns kubectl's per-object lines. */
function dryRun(objects: K8sObject[]): string {
  const input = objects.map((object) => JSON.stringify(object)).join('\n');
  try {
    return kubectl(
      [
        'apply',
        '--dry-run=server',
        '--server-side',
        '--force-conflicts',
        '--field-manager=dry-run-test',
        '-f',
        '-',
      ],
      input,
    );
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string };
    throw new Error(`dry-run rejected objects:\n${failure.stderr ?? ''}\n${failure.stdout ?? ''}`);
  }
}

let chartDefault: K8sObject[] = [];
let chartFull: K8sObject[] = [];
let base: K8sObject[] = [];
let full: K8sObject[] = [];

beforeAll(() => {
  helmBinary();
  chartDefault = renderChart();
  chartFull = renderChart([everythingOn]);
  base = renderKustomize('deploy/base');
  full = renderKustomize('deploy/overlays/full');
}, 900_000);

describe('Helm chart deploy/helm/rehearsal', () => {
  it('passes helm lint --strict with the default and the everything-on values', () => {
    expect(helm(['lint', '--strict', chartDir])).toContain('0 chart(s) failed');
    expect(helm(['lint', '--strict', chartDir, '--values', everythingOn])).toContain('0 chart(s) failed');
  });

  it('refuses values its schema does not allow, naming the field', () => {
    expect(() => helm(['template', 'x', chartDir, '--set', 'replicaCount=0'])).toThrow(/replicaCount/);
    expect(() => helm(['template', 'x', chartDir, '--set', 'servingCert.mode=manual'])).toThrow(
      /servingCert/,
    );
    expect(() => helm(['template', 'x', chartDir, '--set', 'unknownValue=1'])).toThrow(/unknownValue/);
  });

  it('ships with its defaults every object of deploy/base but the Namespace, identical to kustomize', () => {
    const chart = byKey(chartDefault);
    const kustomize = byKey(base);
    const missing = [...kustomize.keys()].filter((key) => !chart.has(key) && !key.startsWith('Namespace/'));
    expect(missing).toEqual([]);
    const extra = [...chart.keys()].filter((key) => !kustomize.has(key));
    expect(extra).toEqual([]);
    for (const [key, object] of chart) {
      expect({ key, object: withoutChartLabels(object) }).toEqual({ key, object: kustomize.get(key) });
    }
    const kinds = [...new Set(chartDefault.map((object) => object.kind))].sort();
    console.log(`chart defaults: ${chartDefault.length} objects (${kinds.join(', ')})`);
  });

  it('with everything on agrees with deploy/overlays/full on every object both ship', () => {
    const chart = byKey(chartFull);
    const kustomize = byKey(full);
    const shared = [...chart.keys()].filter((key) => kustomize.has(key));
    // The Deployment carries the everything-on values (image, replicas, keys...): compared below.
    for (const key of shared.filter((key) => !key.startsWith('Deployment/'))) {
      const expected = structuredClone(kustomize.get(key)!);
      const actual = withoutChartLabels(chart.get(key)!);
      // The chart's extra labels for the Prometheus Operator's selector (values).
      if (key.startsWith('ServiceMonitor/') || key.startsWith('PrometheusRule/')) {
        expect(actual.metadata.labels?.release).toBe('kube-prometheus-stack');
        delete actual.metadata.labels!.release;
      }
      expect({ key, object: actual }).toEqual({ key, object: expected });
    }
    for (const kind of ['Certificate', 'Issuer', 'ServiceMonitor', 'PrometheusRule', 'ConfigMap']) {
      expect(shared.some((key) => key.startsWith(`${kind}/`))).toBe(true);
    }
    // Objects only values can describe: the extra license keys, the binding of Prometheus's
    // ServiceAccount (named in values) to rehearsal-metrics-reader, and egress the shipped
    // NetworkPolicy lacks (an apiserver on another port).
    expect([...chart.keys()].filter((key) => !kustomize.has(key)).sort()).toEqual([
      'ClusterRoleBinding//rehearsal-metrics-reader',
      'ConfigMap/rehearsal-system/rehearsal-license-public-keys',
      'NetworkPolicy/rehearsal-system/rehearsal-api-extra-egress',
    ]);
    const extraEgress = chart.get('NetworkPolicy/rehearsal-system/rehearsal-api-extra-egress') as K8sObject & {
      spec: { podSelector: unknown; policyTypes: string[]; egress: unknown[] };
    };
    expect(extraEgress.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'rehearsal' } },
      policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'TCP', port: 16443 }] }],
    });
    // Prometheus sends its token: /metrics answers only users allowed to get it (issue 26).
    const monitor = chart.get('ServiceMonitor/rehearsal-system/rehearsal-api') as K8sObject & {
      spec: { endpoints: { bearerTokenFile?: string }[] };
    };
    expect(monitor.spec.endpoints[0]!.bearerTokenFile).toBe('/var/run/secrets/kubernetes.io/serviceaccount/token');
    const deployment = chart.get('Deployment/rehearsal-system/rehearsal-api') as K8sObject & {
      spec: {
        replicas: number;
        template: { spec: { containers: { image: string; env: { name: string; value?: string }[] }[] } };
      };
    };
    expect(deployment.spec.replicas).toBe(3);
    const container = deployment.spec.template.spec.containers[0]!;
    expect(container.image).toBe('registry.example.com/platform/rehearsal:0.1.0-custom');
    expect(container.env.find((env) => env.name === 'REHEARSAL_LICENSE_PUBLIC_KEYS')?.value).toBe(
      '/app/license-keys/rehearsal-vendor.jwk.json,/etc/rehearsal/license-keys/reseller-2026.jwk.json',
    );
    console.log(`chart everything on: ${chartFull.length} objects`);
  });

  // Issue 30: one set of values (clusterDefaults) for the ConfigMap the server watches and the
  // PrometheusRule's RestoreBackupTooOld threshold, so the two cannot disagree.
  it('renders clusterDefaults into ConfigMap rehearsal-cluster-defaults and the RestoreBackupTooOld threshold', () => {
    const configMapKey = 'ConfigMap/rehearsal-system/rehearsal-cluster-defaults';
    const backupTooOld = (objects: K8sObject[]): { expr: string; annotations: { summary: string } } => {
      const rule = objects.find((object) => object.kind === 'PrometheusRule') as K8sObject & {
        spec: { groups: { rules: { alert?: string; expr: string; annotations: { summary: string } }[] }[] };
      };
      return rule.spec.groups.flatMap((group) => group.rules).find((entry) => entry.alert === 'RestoreBackupTooOld')!;
    };
    // Defaults: the built-in values, as deploy/base ships them, and the rule as the component has it.
    expect(byKey(chartDefault).get(configMapKey)).toMatchObject({
      data: { sandboxTtl: '1h', 'alerts.maxBackupAge': '48h', 'alerts.consecutiveFailures': '3' },
    });
    expect(backupTooOld(chartFull).expr.trim()).toBe('max by (namespace, test) (rehearsal_backup_age_seconds) > 172800');

    const custom = renderChart(
      [everythingOn],
      [
        '--set-string', 'clusterDefaults.sandboxQuota.cpu=4',
        '--set', 'clusterDefaults.sandboxQuota.memory=8Gi',
        '--set', 'clusterDefaults.sandboxQuota.pods=30',
        '--set', 'clusterDefaults.sandboxQuota.storage=50Gi',
        '--set', 'clusterDefaults.sandboxTtl=2h',
        '--set', 'clusterDefaults.rtoTarget=30m',
        '--set', 'clusterDefaults.rpoTarget=24h',
        '--set', 'clusterDefaults.alerts.maxBackupAge=26h30m',
        '--set', 'clusterDefaults.alerts.consecutiveFailures=5',
      ],
    );
    expect(byKey(custom).get(configMapKey)!['data']).toEqual({
      'sandboxQuota.cpu': '4',
      'sandboxQuota.memory': '8Gi',
      'sandboxQuota.pods': '30',
      'sandboxQuota.storage': '50Gi',
      sandboxTtl: '2h',
      rtoTarget: '30m',
      rpoTarget: '24h',
      'alerts.maxBackupAge': '26h30m',
      'alerts.consecutiveFailures': '5',
    });
    const rule = backupTooOld(custom);
    expect(rule.expr.trim()).toBe(`max by (namespace, test) (rehearsal_backup_age_seconds) > ${26 * 3600 + 30 * 60}`);
    expect(rule.annotations.summary).toContain('older than 26h30m');

    // The server may read and watch that one ConfigMap, by name.
    const role = byKey(chartDefault).get('Role/rehearsal-system/rehearsal') as K8sObject & {
      rules: { resources: string[]; resourceNames?: string[]; verbs: string[] }[];
    };
    expect(role.rules).toContainEqual({
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['rehearsal-cluster-defaults'],
      verbs: ['get', 'list', 'watch'],
    });

    expect(() => helm(['template', 'x', chartDir, '--set', 'clusterDefaults.alerts.maxBackupAge=2d'])).toThrow(/maxBackupAge/);
    expect(() => helm(['template', 'x', chartDir, '--set', 'clusterDefaults.alerts.maxBackupAge=0s'])).toThrow(/maxBackupAge/);
    expect(() => helm(['template', 'x', chartDir, '--set', 'clusterDefaults.sandboxQuota.cpu=lots'])).toThrow(/cpu/);
  });
});

describe('every rendered object is accepted by the real kube-apiserver (--dry-run=server)', () => {
  beforeAll(() => {
    // CRDs first (for real: a dry run of a CRD does not make its kind known), then the namespace.
    const thirdParty = execFileSync('bash', [path.join(repoRoot, 'deploy/tools/third-party-crds.sh')], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    for (const file of thirdParty) kubectl(['apply', '--server-side', '--force-conflicts', '-f', file]);
    kubectl(['apply', '--server-side', '--force-conflicts', '-k', path.join(repoRoot, 'crds')]);
    kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/servicemonitors.monitoring.coreos.com',
      'crd/prometheusrules.monitoring.coreos.com',
      'crd/certificates.cert-manager.io',
      'crd/issuers.cert-manager.io',
    ]);
    kubectl(['apply', '-f', path.join(repoRoot, 'deploy/base/namespace.yaml')]);
    // Velero is installed first (docs/install.md): its namespace holds Rehearsal's Velero RoleBinding.
    kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'velero' } }));
  }, 180_000);

  const cases: [string, () => K8sObject[]][] = [
    ['the chart with its defaults', () => chartDefault],
    ['the chart with everything on', () => chartFull],
    ['kubectl kustomize deploy/base', () => base],
    ['kubectl kustomize deploy/overlays/full', () => full],
  ];
  it.each(cases)('%s', (_name, objects) => {
    const rendered = objects();
    const output = dryRun(rendered);
    // One line per object, each "(server dry run)".
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(rendered.length);
    for (const line of lines) expect(line).toMatch(/\(server dry run\)$/);
  });
});
