// In-cluster access to the dashboard and API (issue 30): the chart's Ingress and Gateway API
// HTTPRoute, rendered with deploy/helm/rehearsal/ci/ingress-route-values.yaml (Helm built by
// deploy/tools/build-go-tools.sh):
//  - their shape: TLS on the Ingress (cert-manager's annotation), the HTTPRoute on a named HTTPS
//    listener, both to the Service's port http (8080), the pods bound on the pod network for them
//    and NetworkPolicy rehearsal-api-route letting only the named controller/Gateway pods in;
//  - the refusals: auth mode none (or unreadable), no TLS without allowPlainHTTP, no peers, no
//    host, no parent; and, with the cluster to look at (helm template --dry-run=server), a parent
//    listener that is HTTP or missing;
//  - the real kube-apiserver accepts the whole rendering (kubectl apply --dry-run=server) with the
//    Gateway API CRDs installed from their Go module (deploy/tools/gateway-api-crds.sh);
//  - a request to the backend the routes name, served as the rendered Deployment configures it
//    (its auth mode, read from its environment), is refused without a valid token and answered with one.
// No ingress controller or Gateway implementation runs here: the request goes straight to the
// server that port 8080 of the Service reaches, not through a controller.
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { loadConfig } from '../../server/config.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName } from '../helpers/kube.js';
import { chartDir, helm, helmBinary, keyOf, renderChart, type K8sObject } from '../helpers/manifests.js';
import { rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const routeValues = path.join(chartDir, 'ci/ingress-route-values.yaml');
const kubeconfig = testKubeconfigPath();
const gatewayCrds = path.join(repoRoot, 'deploy/tools/gateway-api-crds.sh');

function kubectl(args: string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

/** Helm's error text for a rendering that must fail (the test fails if it renders). */
function refusal(args: string[]): string {
  try {
    helm(['template', 'rehearsal', chartDir, '--namespace', 'rehearsal-system', ...args]);
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error(`helm rendered with ${args.join(' ')}; it should have refused`);
}

const withRoutes = (...args: string[]): string[] => ['--values', routeValues, ...args];

type Spec<T> = K8sObject & { spec: T };
interface IngressSpec {
  ingressClassName?: string;
  tls?: { hosts: string[]; secretName: string }[];
  rules: { host: string; http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[] } }[];
}
interface RouteSpec {
  parentRefs: { name: string; namespace?: string; sectionName: string }[];
  hostnames: string[];
  rules: { matches: unknown[]; backendRefs: { name: string; port: number }[] }[];
}
interface ServiceSpec {
  ports: { name: string; port: number; targetPort: string | number }[];
}
interface DeploymentSpec {
  template: {
    spec: {
      containers: {
        ports: { name: string; containerPort: number }[];
        env: { name: string; value?: string; valueFrom?: unknown }[];
      }[];
    };
  };
}

let rendered: Map<string, K8sObject>;
const get = <T>(key: string): Spec<T> => {
  const object = rendered.get(key);
  if (!object) throw new Error(`the rendering has no ${key}`);
  return object as Spec<T>;
};

beforeAll(() => {
  helmBinary();
  rendered = new Map(renderChart([routeValues]).map((object) => [keyOf(object), object]));
}, 900_000);

describe('chart options ingress and httpRoute (issue 30)', () => {
  it('renders an Ingress with TLS and an HTTPRoute on an HTTPS listener, both to port http (8080)', () => {
    const ingress = get<IngressSpec>('Ingress/rehearsal-system/rehearsal-api');
    expect(ingress.metadata.annotations?.['cert-manager.io/cluster-issuer']).toBe('letsencrypt');
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/whitelist-source-range']).toBe('10.0.0.0/8');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.tls).toEqual([{ hosts: ['rehearsal.example.com'], secretName: 'rehearsal-ingress-tls' }]);
    expect(ingress.spec.rules).toEqual([
      {
        host: 'rehearsal.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'rehearsal-api', port: { name: 'http' } } } }] },
      },
    ]);

    const route = get<RouteSpec>('HTTPRoute/rehearsal-system/rehearsal-api');
    expect(route.apiVersion).toBe('gateway.networking.k8s.io/v1');
    expect(route.spec.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'shared-gateway', namespace: 'gateway-system', sectionName: 'https' },
    ]);
    expect(route.spec.hostnames).toEqual(['rehearsal.example.com']);
    expect(route.spec.rules).toEqual([
      { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'rehearsal-api', port: 8080 }] },
    ]);

    // Both name the Service port that reaches the container's 8080, the bearer-token port.
    const service = get<ServiceSpec>('Service/rehearsal-system/rehearsal-api');
    const http = service.spec.ports.find((port) => port.name === 'http')!;
    expect(http.port).toBe(8080);
    const container = get<DeploymentSpec>('Deployment/rehearsal-system/rehearsal-api').spec.template.spec.containers[0]!;
    expect(container.ports.find((port) => port.name === http.targetPort)?.containerPort).toBe(8080);
  });

  it('binds 8080 on the pod network only with a route, and lets only routeFrom reach it', () => {
    const hostOf = (objects: K8sObject[]): string | undefined =>
      (objects.find((object) => object.kind === 'Deployment') as Spec<DeploymentSpec>).spec.template.spec.containers[0]!.env.find(
        (env) => env.name === 'REHEARSAL_HOST',
      )?.value;
    expect(hostOf([...rendered.values()])).toBe('0.0.0.0');
    const withoutRoutes = renderChart([], []);
    expect(hostOf(withoutRoutes)).toBe('127.0.0.1');
    expect(withoutRoutes.some((object) => object.metadata.name === 'rehearsal-api-route')).toBe(false);

    const policy = get<{ podSelector: unknown; policyTypes: string[]; ingress: unknown[] }>(
      'NetworkPolicy/rehearsal-system/rehearsal-api-route',
    );
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'rehearsal' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
            },
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gateway-system' } } },
          ],
          ports: [{ protocol: 'TCP', port: 8080 }],
        },
      ],
    });
    // The shipped policy (8081 and 8443 only) is unchanged.
    const base = get<{ ingress: { ports: { port: number }[] }[] }>('NetworkPolicy/rehearsal-system/rehearsal-api');
    expect(base.spec.ingress.flatMap((rule) => rule.ports.map((port) => port.port))).toEqual([8081, 8443]);
  });

  it('refuses to route to a server that accepts anonymous requests, naming the setting', () => {
    const none = JSON.stringify([{ name: 'REHEARSAL_AUTH_MODE', value: 'none' }]);
    expect(refusal(withRoutes('--set-json', `extraEnv=${none}`))).toMatch(/REHEARSAL_AUTH_MODE to "none".*never to a server that accepts anonymous/);
    const unreadable = JSON.stringify([{ name: 'REHEARSAL_AUTH_MODE', valueFrom: { configMapKeyRef: { name: 'x', key: 'mode' } } }]);
    expect(refusal(withRoutes('--set-json', `extraEnv=${unreadable}`))).toMatch(/REHEARSAL_AUTH_MODE from a valueFrom/);
    // Only the Ingress, or only the HTTPRoute: each is guarded on its own.
    expect(refusal(withRoutes('--set', 'httpRoute.enabled=false', '--set-json', `extraEnv=${none}`))).toMatch(/REHEARSAL_AUTH_MODE/);
    expect(refusal(withRoutes('--set', 'ingress.enabled=false', '--set-json', `extraEnv=${none}`))).toMatch(/REHEARSAL_AUTH_MODE/);
    const host = JSON.stringify([{ name: 'REHEARSAL_HOST', value: '10.0.0.1' }]);
    expect(refusal(withRoutes('--set-json', `extraEnv=${host}`))).toMatch(/extraEnv sets REHEARSAL_HOST/);
    // Auth mode none without routes still renders (local demos keep working).
    expect(() => helm(['template', 'x', chartDir, '--set-json', `extraEnv=${none}`])).not.toThrow();
    // Naming kubernetes explicitly is fine.
    const kubernetes = JSON.stringify([{ name: 'REHEARSAL_AUTH_MODE', value: 'kubernetes' }]);
    expect(() => helm(['template', 'x', chartDir, ...withRoutes('--set-json', `extraEnv=${kubernetes}`)])).not.toThrow();
  });

  it('refuses an Ingress without TLS unless allowPlainHTTP, and other incomplete routes, naming the value', () => {
    const noTls = ['--set', 'ingress.tls.secretName=', '--set', 'ingress.tls.certManagerIssuer.kind=', '--set', 'ingress.tls.certManagerIssuer.name='];
    expect(refusal(withRoutes(...noTls))).toMatch(/ingress\.tls\.secretName: the Ingress carries bearer tokens and must use TLS/);
    const plain = helm(['template', 'x', chartDir, ...withRoutes(...noTls, '--set', 'ingress.allowPlainHTTP=true')]);
    expect(plain).toContain('kind: Ingress');
    expect(plain).not.toMatch(/^\s+tls:/m);
    expect(refusal(withRoutes('--set', 'ingress.tls.secretName=', '--set', 'ingress.allowPlainHTTP=true'))).toMatch(
      /certManagerIssuer: cert-manager needs ingress.tls.secretName/,
    );
    expect(refusal(withRoutes('--set', 'ingress.tls.certManagerIssuer.kind='))).toMatch(/set both kind .* and name/);
    expect(refusal(withRoutes('--set-json', 'networkPolicy.routeFrom=[]'))).toMatch(/networkPolicy\.routeFrom is empty/);
    expect(refusal(withRoutes('--set-json', 'ingress.hosts=[]'))).toMatch(/ingress\.hosts: name at least one host/);
    expect(refusal(withRoutes('--set-json', 'httpRoute.parentRefs=[]'))).toMatch(/httpRoute\.parentRefs: name the Gateway/);
    // The schema: a parent without its listener, a host that is not one, an unknown key.
    expect(refusal(withRoutes('--set-json', 'httpRoute.parentRefs=[{"name":"g"}]'))).toMatch(/sectionName/);
    expect(refusal(withRoutes('--set-json', 'ingress.hosts=["Not_A_Host"]'))).toMatch(/hosts/);
    expect(refusal(withRoutes('--set', 'ingress.tls.certManagerIssuer.kind=Vault'))).toMatch(/kind/);
    expect(refusal(withRoutes('--set', 'ingress.tlsSecret=x'))).toMatch(/tlsSecret/);
  });
});

describe('against the real kube-apiserver (Gateway API CRDs from their Go module)', () => {
  let admin: KubeConfig;
  let gatewayNamespace: string;
  let userNamespace: string;
  let rehearsal: Rehearsal | undefined;
  const bindingName = uniqueName('ingress-route-viewer');

  beforeAll(async () => {
    admin = testKubeConfig();
    execFileSync('bash', [gatewayCrds, '--install', kubeconfig], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    kubectl(['apply', '--server-side', '--force-conflicts', '-k', path.join(repoRoot, 'crds')]);
    kubectl(['apply', '-f', path.join(repoRoot, 'deploy/base/namespace.yaml')]);
    kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'velero' } }));
    gatewayNamespace = uniqueName('gateway', 30);
    userNamespace = uniqueName('route-user', 30);
    await createNamespace(admin, gatewayNamespace);
    await createNamespace(admin, userNamespace);
    // A Gateway with a plain and a TLS listener (no implementation programs it: only looked up).
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'shared-gateway', namespace: gatewayNamespace },
        spec: {
          gatewayClassName: 'example',
          listeners: [
            { name: 'http', protocol: 'HTTP', port: 80 },
            { name: 'https', protocol: 'HTTPS', port: 443, tls: { mode: 'Terminate', certificateRefs: [{ name: 'gateway-tls' }] } },
          ],
        },
      }),
    );
  }, 300_000);

  afterAll(async () => {
    await rehearsal?.stop();
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.deleteClusterRoleBinding({ name: bindingName }).catch(() => undefined);
    await deleteNamespaces(admin, [gatewayNamespace, userNamespace].filter(Boolean));
  });

  it('accepts the Ingress, the HTTPRoute and the rest of the rendering with --dry-run=server', () => {
    const objects = [...rendered.values()];
    const output = kubectl(
      ['apply', '--dry-run=server', '--server-side', '--force-conflicts', '--field-manager=dry-run-test', '-f', '-'],
      objects.map((object) => JSON.stringify(object)).join('\n'),
    );
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(objects.length);
    for (const line of lines) expect(line).toMatch(/\(server dry run\)$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ingress\.networking\.k8s\.io\/rehearsal-api serverside-applied/));
    expect(lines).toContainEqual(expect.stringMatching(/^httproute\.gateway\.networking\.k8s\.io\/rehearsal-api serverside-applied/));
    expect(lines).toContainEqual(expect.stringMatching(/^networkpolicy\.networking\.k8s\.io\/rehearsal-api-route serverside-applied/));
  });

  it('looks the Gateway up at install: refuses an HTTP or missing listener, accepts the HTTPS one', () => {
    const parent = (sectionName: string) =>
      JSON.stringify([{ name: 'shared-gateway', namespace: gatewayNamespace, sectionName }]);
    const lookingUp = (sectionName: string, ...extra: string[]) =>
      withRoutes('--dry-run=server', '--kubeconfig', kubeconfig, '--set-json', `httpRoute.parentRefs=${parent(sectionName)}`, ...extra);
    expect(refusal(lookingUp('http'))).toMatch(new RegExp(`listener "http" of Gateway ${gatewayNamespace}/shared-gateway is HTTP, not HTTPS`));
    expect(refusal(lookingUp('nope'))).toMatch(/has no listener "nope"/);
    const https = helm(['template', 'rehearsal', chartDir, '--namespace', 'rehearsal-system', ...lookingUp('https')]);
    expect(https).toContain('kind: HTTPRoute');
    const plainAllowed = helm(['template', 'rehearsal', chartDir, '--namespace', 'rehearsal-system', ...lookingUp('http', '--set', 'httpRoute.allowPlainHTTP=true')]);
    expect(plainAllowed).toContain('sectionName: "http"');
  });

  it('a request to the routes\' backend without a valid token is refused; with one it is answered', async () => {
    // The server as the rendered Deployment configures it: its literal environment, parsed by the
    // server's own loadConfig (fieldRef/configMap values are not needed for the auth decision).
    const container = get<DeploymentSpec>('Deployment/rehearsal-system/rehearsal-api').spec.template.spec.containers[0]!;
    const environment = Object.fromEntries(
      container.env.filter((env) => env.value !== undefined).map((env) => [env.name, env.value!]),
    );
    const deployed = loadConfig(environment);
    expect(deployed.authMode).toBe('kubernetes');
    expect(deployed.port).toBe(8080);
    expect(deployed.host).toBe('0.0.0.0');
    rehearsal = await startInProcess({
      kubeconfigPath: await rehearsalKubeconfig('ingress-route.kubeconfig'),
      extra: { REHEARSAL_AUTH_MODE: deployed.authMode, REHEARSAL_CONTROLLER: 'false' },
    });
    const backend = `http://127.0.0.1:${rehearsal.port()}`;
    // What a controller forwards after ending TLS.
    const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'rehearsal.example.com', 'X-Forwarded-For': '203.0.113.7' };

    const anonymous = await fetch(`${backend}/api/v1/tests`, { headers: forwarded });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="rehearsal"/);
    const garbage = await fetch(`${backend}/api/v1/tests`, { headers: { ...forwarded, Authorization: 'Bearer not-a-token' } });
    expect(garbage.status).toBe(401);

    // A viewer's tokens: one for kube-apiserver only (a stolen cluster token), one for rehearsal.dev.
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: userNamespace, body: { metadata: { name: 'viewer' } } });
    kubectl(['apply', '-f', path.join(repoRoot, 'deploy/base/user-roles.yaml')]);
    await admin.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
      body: {
        metadata: { name: bindingName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rehearsal-viewer' },
        subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: userNamespace }],
      },
    });
    const clusterOnly = await serviceAccountTokenFor(admin, userNamespace, 'viewer', { rehearsalToo: false });
    const wrongAudience = await fetch(`${backend}/api/v1/tests`, { headers: { ...forwarded, Authorization: `Bearer ${clusterOnly}` } });
    expect(wrongAudience.status).toBe(401);
    const token = await serviceAccountTokenFor(admin, userNamespace, 'viewer', { clusterToo: false });
    const answered = await fetch(`${backend}/api/v1/tests`, { headers: { ...forwarded, Authorization: `Bearer ${token}` } });
    expect(answered.status).toBe(200);

    // The dashboard's files are public (no data; served when web/dist is built); the data is not.
    if (existsSync(path.join(repoRoot, 'web/dist/index.html'))) {
      const page = await fetch(`${backend}/`, { headers: forwarded });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
    }
    const summary = await fetch(`${backend}/api/v1/summary`, { headers: forwarded });
    expect(summary.status).toBe(401);
  }, 120_000);
});
