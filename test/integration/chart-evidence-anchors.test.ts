// The chart's evidence anchors (issue 33; values evidenceAnchors): what the server needs to write
// them (the REHEARSAL_ANCHOR_* / REHEARSAL_TSA_* variables server/config.ts reads, the anchor
// bucket's own credentials, the timestamp authority's CA as a file) and the egress to reach them.
// First values.schema.json as Ajv reads it (milliseconds), then the rendering and the refusals
// with Helm itself, which validates with another library and runs the templates' own checks.
// Helm comes from deploy/tools/build-go-tools.sh: cached, but built from its Go module on a machine
// that has never built it (minutes; hence beforeAll's timeout).
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chartDir, helm, helmBinary, keyOf, parseObjects, type K8sObject } from '../helpers/manifests.js';
import { chartYaml, mergeValues as merge, schemaProblems as problems, type Values } from '../helpers/chart-values.js';

const defaults = chartYaml('values.yaml');

/** Anchors on with a timestamp authority and egress: everything the chart renders for them. */
const anchorsOn: Values = {
  evidenceAnchors: {
    enabled: true,
    endpoint: 'https://s3.eu-central-1.amazonaws.com',
    bucket: 'acme-rehearsal-anchors',
    region: 'eu-central-1',
    prefix: 'prod-cluster/',
    credentialsSecret: 'rehearsal-anchor-credentials',
    retention: '17520h',
    intervalSeconds: 1800,
    timestampAuthority: { url: 'https://tsa.example.com/rfc3161', caConfigMap: 'rehearsal-tsa-ca', policy: '1.3.6.1.4.1.4146.2.3' },
    networkPolicyEgress: [{ to: [{ ipBlock: { cidr: '203.0.113.0/24' } }], ports: [{ protocol: 'TCP', port: 443 }] }],
  },
};
const withAnchors = (override: Values = {}): Values => merge(merge(defaults, anchorsOn), override);

describe('values.schema.json: evidenceAnchors', () => {
  it('accepts the defaults (off) and a complete configuration', () => {
    expect((defaults['evidenceAnchors'] as Values)['enabled']).toBe(false);
    expect(problems(defaults)).toEqual([]);
    expect(problems(withAnchors())).toEqual([]);
    // No authority (anchors without tokens) and no Secret of their own (the archive's) are allowed.
    expect(problems(withAnchors({ evidenceAnchors: { credentialsSecret: '', timestampAuthority: { url: '', caConfigMap: '', policy: '' } } }))).toEqual([]);
  });

  it('refuses anchors on without a bucket or an endpoint, as the server would', () => {
    expect(problems(withAnchors({ evidenceAnchors: { bucket: '' } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors\.bucket: /));
    expect(problems(withAnchors({ evidenceAnchors: { endpoint: '' } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors\.endpoint: /));
    // Off, the same empty values are the defaults.
    expect(problems(withAnchors({ evidenceAnchors: { enabled: false, bucket: '', endpoint: '' } }))).toEqual([]);
  });

  it("refuses an authority without its CA (tokens are verified before they are stored), and what the server's config would refuse", () => {
    expect(problems(withAnchors({ evidenceAnchors: { timestampAuthority: { caConfigMap: '' } } }))).toContainEqual(
      expect.stringMatching(/^evidenceAnchors\.timestampAuthority\.caConfigMap: /),
    );
    expect(problems(withAnchors({ evidenceAnchors: { timestampAuthority: { policy: 'tsa-policy-1' } } }))).toContainEqual(
      expect.stringMatching(/^evidenceAnchors\.timestampAuthority\.policy: /),
    );
    expect(problems(withAnchors({ evidenceAnchors: { retention: '400d' } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors\.retention: /));
    expect(problems(withAnchors({ evidenceAnchors: { intervalSeconds: 0 } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors\.intervalSeconds: /));
    // The key is <prefix>anchors/...: a prefix without its slash would glue itself to "anchors".
    expect(problems(withAnchors({ evidenceAnchors: { prefix: 'rehearsal' } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors\.prefix: /));
    expect(problems(withAnchors({ evidenceAnchors: { objectLock: true } }))).toContainEqual(expect.stringMatching(/^evidenceAnchors: /));
  });
});

interface Container {
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
type Deployment = K8sObject & { spec: { template: { spec: { containers: Container[]; volumes: Record<string, unknown>[] } } } };

const ANCHOR_ENV = /^(REHEARSAL_ANCHOR_|REHEARSAL_TSA_)/;

let work = '';
/** `helm template` with these values (written to a file: JSON is YAML), parsed. */
function render(values: Values, extraArgs: string[] = []): Map<string, K8sObject> {
  const file = path.join(work, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  const objects = parseObjects(helm(['template', 'rehearsal', chartDir, '--namespace', 'rehearsal-system', '--values', file, ...extraArgs]));
  return new Map(objects.map((object) => [keyOf(object), object]));
}

/** Helm's error text for values it must refuse (the test fails if it renders). */
function refusal(values: Values): string {
  try {
    render(values);
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error(`helm rendered ${JSON.stringify(values)}; it should have refused`);
}

const api = (objects: Map<string, K8sObject>): Container => (objects.get('Deployment/rehearsal-system/rehearsal-api') as Deployment).spec.template.spec.containers[0]!;
const volumes = (objects: Map<string, K8sObject>): Record<string, unknown>[] => (objects.get('Deployment/rehearsal-system/rehearsal-api') as Deployment).spec.template.spec.volumes;

describe('chart rendering: evidenceAnchors (helm template)', () => {
  beforeAll(() => {
    helmBinary();
    work = mkdtempSync(path.join(tmpdir(), 'chart-anchors-'));
  }, 900_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('on with a timestamp authority: the variables server/config.ts reads, the CA mounted read-only, the egress policy', () => {
    const objects = render(anchorsOn);
    const container = api(objects);
    expect(container.env.filter((env) => ANCHOR_ENV.test(env.name))).toEqual([
      { name: 'REHEARSAL_ANCHOR_S3_ENDPOINT', value: 'https://s3.eu-central-1.amazonaws.com' },
      { name: 'REHEARSAL_ANCHOR_S3_BUCKET', value: 'acme-rehearsal-anchors' },
      { name: 'REHEARSAL_ANCHOR_S3_REGION', value: 'eu-central-1' },
      { name: 'REHEARSAL_ANCHOR_PREFIX', value: 'prod-cluster/' },
      { name: 'REHEARSAL_ANCHOR_RETENTION', value: '17520h' },
      { name: 'REHEARSAL_ANCHOR_INTERVAL_SECONDS', value: '1800' },
      // The Secret's keys are the usual AWS names; the variables are the anchors' own.
      { name: 'REHEARSAL_ANCHOR_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: 'rehearsal-anchor-credentials', key: 'AWS_ACCESS_KEY_ID' } } },
      { name: 'REHEARSAL_ANCHOR_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 'rehearsal-anchor-credentials', key: 'AWS_SECRET_ACCESS_KEY' } } },
      { name: 'REHEARSAL_ANCHOR_SESSION_TOKEN', valueFrom: { secretKeyRef: { name: 'rehearsal-anchor-credentials', key: 'AWS_SESSION_TOKEN', optional: true } } },
      { name: 'REHEARSAL_TSA_URL', value: 'https://tsa.example.com/rfc3161' },
      { name: 'REHEARSAL_TSA_CA_FILE', value: '/etc/rehearsal/tsa/ca.crt' },
      { name: 'REHEARSAL_TSA_POLICY', value: '1.3.6.1.4.1.4146.2.3' },
    ]);
    // The anchors' credentials never reach the archive's variables (the archive is off).
    expect(container.env.map((env) => env.name)).not.toContain('AWS_ACCESS_KEY_ID');
    expect(container.volumeMounts).toContainEqual({ name: 'timestamp-authority-ca', mountPath: '/etc/rehearsal/tsa', readOnly: true });
    expect(volumes(objects)).toContainEqual({
      name: 'timestamp-authority-ca',
      configMap: { name: 'rehearsal-tsa-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
    });
    const policy = objects.get('NetworkPolicy/rehearsal-system/rehearsal-evidence-anchors') as K8sObject & { spec: unknown };
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'rehearsal' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ ipBlock: { cidr: '203.0.113.0/24' } }], ports: [{ protocol: 'TCP', port: 443 }] }],
    });
  });

  it('off (the default): no variable, no CA volume, no policy, even with the rest of the block filled in', () => {
    for (const values of [{}, merge(anchorsOn, { evidenceAnchors: { enabled: false } })]) {
      const objects = render(values);
      expect(api(objects).env.filter((env) => ANCHOR_ENV.test(env.name))).toEqual([]);
      expect(api(objects).volumeMounts.map((mount) => mount.name)).not.toContain('timestamp-authority-ca');
      expect(volumes(objects).map((volume) => volume['name'])).not.toContain('timestamp-authority-ca');
      expect([...objects.keys()]).not.toContain('NetworkPolicy/rehearsal-system/rehearsal-evidence-anchors');
    }
  });

  it('on without an authority: no TSA variable or volume; without egress rules or with networkPolicy off: no policy', () => {
    const objects = render(merge(anchorsOn, { evidenceAnchors: { timestampAuthority: { url: '', caConfigMap: '', policy: '' }, networkPolicyEgress: [] } }));
    const names = api(objects).env.map((env) => env.name);
    expect(names).toContain('REHEARSAL_ANCHOR_S3_BUCKET');
    expect(names.filter((name) => name.startsWith('REHEARSAL_TSA_'))).toEqual([]);
    expect(volumes(objects).map((volume) => volume['name'])).not.toContain('timestamp-authority-ca');
    expect([...objects.keys()]).not.toContain('NetworkPolicy/rehearsal-system/rehearsal-evidence-anchors');
    expect([...render(merge(anchorsOn, { networkPolicy: { enabled: false } })).keys()]).not.toContain(
      'NetworkPolicy/rehearsal-system/rehearsal-evidence-anchors',
    );
  });

  it("without a Secret of their own the anchors use the evidence archive's credentials, and refuse to render when the archive is off", () => {
    const archive = { enabled: true, endpoint: 'https://s3.eu-central-1.amazonaws.com', bucket: 'acme-rehearsal-evidence', credentialsSecret: 'rehearsal-archive-credentials' };
    const shared = api(render(merge(anchorsOn, { evidenceAnchors: { credentialsSecret: '' }, evidenceArchive: archive })));
    const names = shared.env.map((env) => env.name);
    expect(names).toEqual(expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'REHEARSAL_ANCHOR_S3_BUCKET']));
    expect(names.filter((name) => /^REHEARSAL_ANCHOR_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)$/.test(name))).toEqual([]);
    expect(refusal(merge(anchorsOn, { evidenceAnchors: { credentialsSecret: '' } }))).toMatch(/evidenceAnchors\.credentialsSecret: name a Secret/);
  });

  it('helm refuses anchors on without a bucket, and an authority without its CA, naming the value', () => {
    expect(refusal(merge(anchorsOn, { evidenceAnchors: { bucket: '' } }))).toMatch(/evidenceAnchors\/bucket/);
    expect(refusal(merge(anchorsOn, { evidenceAnchors: { timestampAuthority: { caConfigMap: '' } } }))).toMatch(
      /evidenceAnchors\/timestampAuthority\/caConfigMap/,
    );
  });

  it('renders with values from a chart without evidenceAnchors (helm upgrade --reuse-values), and passes helm lint --strict', () => {
    const objects = render({ evidenceAnchors: null });
    expect(api(objects).env.filter((env) => ANCHOR_ENV.test(env.name))).toEqual([]);
    const file = path.join(work, 'lint-values.json');
    writeFileSync(file, JSON.stringify(anchorsOn));
    expect(helm(['lint', '--strict', chartDir, '--values', file])).toContain('0 chart(s) failed');
  });

  it('signingKeyFile: the key from a volume (REHEARSAL_SIGNING_KEY_FILE), mounted read-only; refused without a volume', () => {
    const csi = { driver: 'secrets-store.csi.k8s.io', readOnly: true, volumeAttributes: { secretProviderClass: 'rehearsal-evidence-key' } };
    const objects = render({ signingKeyFile: { enabled: true, volume: { csi } } });
    const container = api(objects);
    expect(container.env.filter((env) => env.name === 'REHEARSAL_SIGNING_KEY_FILE')).toEqual([{ name: 'REHEARSAL_SIGNING_KEY_FILE', value: '/etc/rehearsal/signing-key/evidence-key.pem' }]);
    expect((container as unknown as { volumeMounts: unknown[] }).volumeMounts).toContainEqual({ name: 'signing-key', mountPath: '/etc/rehearsal/signing-key', readOnly: true });
    expect(volumes(objects)).toContainEqual({ name: 'signing-key', csi });
    expect(api(render({})).env.some((env) => env.name === 'REHEARSAL_SIGNING_KEY_FILE')).toBe(false);
    expect(refusal({ signingKeyFile: { enabled: true } })).toMatch(/signingKeyFile\.volume: a volume source holding the key/);
  });
});
