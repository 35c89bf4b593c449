// How the plugin reaches the API: through the Kubernetes API server as the aggregated API
// api.rehearsal.dev/v1 with the kubeconfig's credentials (the fake plays the API server in front of
// the API), through its service proxy with --service-proxy, or directly with --server; and what it
// says when that fails.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { isLoopback } from '../../../cmd/kubectl-restoretest/connect.js';
import { FakeApi, problem } from './support/fake-api.js';
import { runPlugin, writeKubeconfig } from './support/run-plugin.js';

let fake: FakeApi;

beforeAll(async () => {
  fake = await FakeApi.start();
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  fake.proxy = { namespace: 'rehearsal-system', service: 'rehearsal-api', port: '8080' };
  fake.aggregated = {};
  fake.requests.length = 0;
  expect(fake.problems).toEqual([]);
});

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('through the aggregated API (default)', () => {
  it('sends the kubeconfig token to the API server and uses the context namespace', async () => {
    fake.aggregated.token = 'jane-token';
    const kubeconfig = writeKubeconfig(fake.url, { token: 'jane-token', namespace: 'team-a' });
    const result = await runPlugin(['list', '-o', 'name', '--kubeconfig', kubeconfig]);
    expect(result).toEqual({
      code: 0,
      stdout: 'restoretest.rehearsal.dev/legacy-crm\nrestoretest.rehearsal.dev/shop\n',
      stderr: '',
    });
    expect(fake.requests.map((request) => [request.path, request.via])).toEqual([['/api/v1/tests', 'aggregated']]);
  });

  it('reads KUBECONFIG, honours --context, and sends the namespace it knows', async () => {
    const kubeconfig = writeKubeconfig(fake.url, { extraContext: { name: 'team-a', namespace: 'team-a' } });
    await runPlugin(['get', 'payments'], { env: { KUBECONFIG: kubeconfig } });
    await runPlugin(['get', 'shop', '--context', 'team-a'], { env: { KUBECONFIG: kubeconfig } });
    await runPlugin(['get', 'shop', '--context', 'team-a', '-n', 'rehearsal-system'], { env: { KUBECONFIG: kubeconfig } });
    expect(fake.calls).toEqual([
      'GET /api/v1/tests/payments',
      'GET /api/v1/tests/shop?namespace=team-a',
      'GET /api/v1/tests/shop?namespace=rehearsal-system',
    ]);
  });

  it('runs exec credential plugins (through client-node) and reads token files', async () => {
    fake.aggregated.token = 'from-exec';
    const dir = mkdtempSync(path.join(tmpdir(), 'rh-plugin-exec-'));
    const plugin = path.join(dir, 'credential.sh');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`,
    );
    chmodSync(plugin, 0o755);
    const execConfig = path.join(dir, 'exec.kubeconfig');
    writeFileSync(
      execConfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'fake', cluster: { server: fake.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'exec', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } } }],
        contexts: [{ name: 'exec', context: { cluster: 'fake', user: 'exec', namespace: 'team-a' } }],
        'current-context': 'exec',
      }),
    );
    const viaExec = await runPlugin(['list', '-o', 'name', '--kubeconfig', execConfig]);
    expect(viaExec).toEqual({ code: 0, stdout: 'restoretest.rehearsal.dev/legacy-crm\nrestoretest.rehearsal.dev/shop\n', stderr: '' });
    // --server: the token the exec plugin produced goes to the API directly.
    await runPlugin(['summary', '--server', fake.url, '--kubeconfig', execConfig]);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer from-exec');

    fake.aggregated.token = 'from-file';
    writeFileSync(path.join(dir, 'token'), 'from-file');
    const fileConfig = path.join(dir, 'file.kubeconfig');
    writeFileSync(
      fileConfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'fake', cluster: { server: fake.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'file', user: { tokenFile: path.join(dir, 'token') } }],
        contexts: [{ name: 'file', context: { cluster: 'fake', user: 'file' } }],
        'current-context': 'file',
      }),
    );
    expect((await runPlugin(['get', 'payments', '-o', 'name', '--kubeconfig', fileConfig])).stdout).toBe('restoretest.rehearsal.dev/payments\n');
  });

  it('merges the files of KUBECONFIG like kubectl (first definition wins)', async () => {
    fake.aggregated.token = 'first';
    const first = writeKubeconfig(fake.url, { token: 'first', namespace: 'team-a' });
    const second = writeKubeconfig('https://127.0.0.1:1', { token: 'second', namespace: 'other' });
    const result = await runPlugin(['list', '-o', 'name'], { env: { KUBECONFIG: `${first}:/nonexistent/config:${second}` } });
    expect(result.stdout).toBe('restoretest.rehearsal.dev/legacy-crm\nrestoretest.rehearsal.dev/shop\n');
  });

  it('maps every API path onto /apis/api.rehearsal.dev/v1', async () => {
    const kubeconfig = writeKubeconfig(fake.url);
    await runPlugin(['get', 'shop', '--kubeconfig', kubeconfig]);
    await runPlugin(['summary', '--kubeconfig', kubeconfig]);
    await runPlugin(['version', '--kubeconfig', kubeconfig]);
    expect(fake.requests.map((request) => [request.via, request.path])).toEqual([
      ['aggregated', '/api/v1/tests/shop'],
      ['aggregated', '/api/v1/summary'],
      ['aggregated', '/openapi.json'],
    ]);
  });

  it('names the missing entrance permission when the API server forbids the path', async () => {
    fake.aggregated.forbid = true;
    const kubeconfig = writeKubeconfig(fake.url);
    const list = await runPlugin(['list', '--kubeconfig', kubeconfig]);
    expect(list.code).toBe(1);
    expect(list.stderr).toBe(
      'error: forbidden: you need "list" on tests.api.rehearsal.dev cluster-wide\n' +
        'hint: the Kubernetes API server refused the request before it reached Rehearsal (tests.api.rehearsal.dev is forbidden: User "jane" cannot list resource "tests" in API group "api.rehearsal.dev" at the cluster scope)\n' +
        'hint: the ClusterRoles rehearsal-viewer (read) and rehearsal-editor (write) grant what Rehearsal needs, bound with a ClusterRoleBinding (or in a namespace with a RoleBinding, for the rehearsal.dev part)\n',
    );
    const trigger = await runPlugin(['trigger', 'payments', '--kubeconfig', kubeconfig]);
    expect(trigger.stderr.split('\n')[0]).toBe('error: forbidden: you need "create" on tests.api.rehearsal.dev/trigger "payments" cluster-wide');
    const remove = await runPlugin(['delete', 'payments', '--kubeconfig', kubeconfig]);
    expect(remove.stderr.split('\n')[0]).toBe('error: forbidden: you need "delete" on tests.api.rehearsal.dev "payments" cluster-wide');
  });

  it('names the roles when Rehearsal itself refuses (403 problem)', async () => {
    fake.on(
      'POST',
      '/api/v1/tests',
      problem(403, 'forbidden', 'Forbidden', 'User "jane" cannot create restoretests.rehearsal.dev in namespace "team-a".', {
        missingPermissions: [{ verb: 'create', group: 'rehearsal.dev', resource: 'restoretests', namespace: 'team-a' }],
      }),
    );
    const kubeconfig = writeKubeconfig(fake.url);
    const result = await runPlugin(['create', 'x', '-n', 'team-a', '--provider', 'velero', '--source-namespace', 'shop', '--cron', '0 3 * * *', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: forbidden: User "jane" cannot create restoretests.rehearsal.dev in namespace "team-a".\n' +
        'hint: you need "create" on restoretests.rehearsal.dev in namespace team-a\n' +
        'hint: the ClusterRoles rehearsal-viewer (read) and rehearsal-editor (write) grant what Rehearsal needs, bound with a ClusterRoleBinding (or in a namespace with a RoleBinding, for the rehearsal.dev part)\n',
    );
  });

  it('says when the APIService is missing (exit 1)', async () => {
    fake.aggregated.missing = true;
    const result = await runPlugin(['list', '--kubeconfig', writeKubeconfig(fake.url)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: the Rehearsal API is not registered with the Kubernetes API server ${fake.url}: no APIService v1.api.rehearsal.dev\n` +
        'hint: is Rehearsal installed? kubectl get apiservice v1.api.rehearsal.dev; or reach the API through a port-forward: kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080, then --server http://localhost:8080\n',
    );
  });

  it('says why the APIService is unavailable, from its condition when readable', async () => {
    fake.aggregated.unavailable = true;
    const kubeconfig = writeKubeconfig(fake.url);
    const plain = await runPlugin(['list', '--kubeconfig', kubeconfig]);
    expect(plain.code).toBe(1);
    expect(plain.stderr.split('\n')[0]).toBe('error: the Kubernetes API server cannot reach the Rehearsal API (APIService v1.api.rehearsal.dev): service unavailable');
    expect(plain.stderr).toMatch(/^hint: is the rehearsal-api Deployment running and ready\? kubectl get pods -n rehearsal-system/m);
    fake.kubeObjects.set('/apis/apiregistration.k8s.io/v1/apiservices/v1.api.rehearsal.dev', () => ({
      status: 200,
      body: {
        kind: 'APIService',
        status: { conditions: [{ type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'failing or missing response from https://10.0.0.7:443/apis/api.rehearsal.dev/v1' }] },
      },
    }));
    const explained = await runPlugin(['list', '--kubeconfig', kubeconfig]);
    fake.kubeObjects.delete('/apis/apiregistration.k8s.io/v1/apiservices/v1.api.rehearsal.dev');
    expect(explained.stderr.split('\n')[0]).toBe(
      'error: the Kubernetes API server cannot reach the Rehearsal API (APIService v1.api.rehearsal.dev): FailedDiscoveryCheck: failing or missing response from https://10.0.0.7:443/apis/api.rehearsal.dev/v1',
    );
  });

  it('says when the API server rejects the credentials', async () => {
    fake.aggregated.token = 'the-right-one';
    const kubeconfig = writeKubeconfig(fake.url, { token: 'a-wrong-one' });
    const result = await runPlugin(['list', '--kubeconfig', kubeconfig, '--context', 'fake']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: unauthorized: the Kubernetes API server rejected the kubeconfig's credentials \(Unauthorized\)\nhint: check the context "fake"/);
  });

  it('exits 1 with a hint when the API server cannot be reached', async () => {
    const kubeconfig = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
    const result = await runPlugin(['list', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(1);
    const [error, hint, rest] = result.stderr.split('\n');
    expect(error).toMatch(/^error: cannot reach the Kubernetes API server https:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    expect(hint).toBe('hint: check the kubeconfig context "fake" (--context, --kubeconfig), or reach the API through a port-forward: kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080, then --server http://localhost:8080');
    expect(rest).toBe('');
  });

  it('needs a kubeconfig, and says so', async () => {
    const result = await runPlugin(['list']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: no kubeconfig found \(KUBECONFIG, --kubeconfig or ~\/\.kube\/config\)\nhint: /);
    const missing = await runPlugin(['list', '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(missing.stderr).toMatch(/^error: cannot load kubeconfig \/nonexistent\/kubeconfig: ENOENT/);
    const context = await runPlugin(['list', '--kubeconfig', writeKubeconfig(fake.url), '--context', 'prod']);
    expect(context.stderr).toBe('error: context "prod" not found in the kubeconfig\nhint: contexts: fake\n');
  });
});

describe('through the service proxy (--service-proxy)', () => {
  it('uses another Service with --service-namespace/--service/--service-port', async () => {
    fake.proxy = { namespace: 'dr', service: 'rehearsal', port: 'http' };
    const kubeconfig = writeKubeconfig(fake.url);
    const result = await runPlugin(['summary', '-o', 'json', '--kubeconfig', kubeconfig, '--service-proxy', '--service-namespace', 'dr', '--service', 'rehearsal', '--service-port', 'http']);
    expect(result.code).toBe(0);
    expect(fake.requests[0]?.viaProxy).toBe(true);
  });

  it('names the missing RBAC verb when the API server forbids services/proxy', async () => {
    fake.proxy.forbid = true;
    const kubeconfig = writeKubeconfig(fake.url);
    const list = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(list.code).toBe(1);
    expect(list.stderr.split('\n')[0]).toBe('error: forbidden: you need "get" on services/proxy "rehearsal-api" in namespace rehearsal-system');
    expect(list.stderr).toMatch(/^hint: the Kubernetes API server refused the service proxy \(services "rehearsal-api:8080" is forbidden: User "jane"/m);
    const trigger = await runPlugin(['trigger', 'payments', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(trigger.stderr.split('\n')[0]).toBe('error: forbidden: you need "create" on services/proxy "rehearsal-api" in namespace rehearsal-system');
    const remove = await runPlugin(['delete', 'payments', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(remove.stderr.split('\n')[0]).toBe('error: forbidden: you need "delete" on services/proxy "rehearsal-api" in namespace rehearsal-system');
  });

  it('says when the Service does not exist', async () => {
    const kubeconfig = writeKubeconfig(fake.url);
    const result = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy', '--service-namespace', 'elsewhere']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: service elsewhere\/rehearsal-api not found: is Rehearsal installed in elsewhere\?\nhint: .*--server http:\/\/localhost:8080\n$/);
  });

  it('tells a Service without endpoints (e.g. ExternalName) from a missing one', async () => {
    fake.proxy.noEndpoints = true;
    const servicePath = '/api/v1/namespaces/rehearsal-system/services/rehearsal-api';
    fake.kubeObjects.set(servicePath, () => ({
      status: 200,
      body: { kind: 'Service', apiVersion: 'v1', metadata: { name: 'rehearsal-api' }, spec: { type: 'ExternalName', externalName: 'localhost' } },
    }));
    const kubeconfig = writeKubeconfig(fake.url);
    const external = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(external.code).toBe(1);
    expect(external.stderr.split('\n')[0]).toBe(
      'error: the Kubernetes API server does not proxy to service rehearsal-system/rehearsal-api:8080: it is of type ExternalName (localhost) and has no endpoints',
    );
    fake.kubeObjects.set(servicePath, () => ({ status: 200, body: { kind: 'Service', spec: { type: 'ClusterIP' } } }));
    const plain = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(plain.stderr.split('\n')[0]).toBe('error: the Kubernetes API server cannot proxy to service rehearsal-system/rehearsal-api:8080: it has no endpoints object');
    fake.kubeObjects.delete(servicePath);
    const unknown = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(unknown.stderr.split('\n')[0]).toBe('error: service rehearsal-system/rehearsal-api not found: is Rehearsal installed in rehearsal-system?');
  });

  it('says when the API server rejects the credentials', async () => {
    fake.proxy.token = 'the-right-one';
    const kubeconfig = writeKubeconfig(fake.url, { token: 'a-wrong-one' });
    const result = await runPlugin(['list', '--kubeconfig', kubeconfig, '--service-proxy', '--context', 'fake']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: unauthorized: the Kubernetes API server rejected the kubeconfig's credentials \(Unauthorized\)\nhint: check the context "fake"/);
  });

  it('explains a 401 from the API behind the proxy (the proxy does not forward tokens)', async () => {
    fake.on('GET', '/api/v1/summary', problem(401, 'unauthenticated', 'Unauthenticated', 'No bearer token.'));
    const kubeconfig = writeKubeconfig(fake.url, { token: 'jane-token' });
    const result = await runPlugin(['summary', '--kubeconfig', kubeconfig, '--service-proxy']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: unauthorized: No bearer token\.\nhint: the Kubernetes API server authenticates you but does not pass your token on/);
    fake.on('GET', '/api/v1/summary', { status: 200, body: { averageScore: 0, totalTests: 0, testsLastNight: 0, totalFailures: 0, totalPartial: 0, averageRTO: '0s', namespacesCovered: 0 } });
  });
});

describe('directly with --server', () => {
  it('sends --token, else the kubeconfig user\'s bearer token, else nothing', async () => {
    await runPlugin(['summary', '--server', fake.url, '--token', 'flag-token']);
    await runPlugin(['summary', '--server', fake.url, '--kubeconfig', writeKubeconfig('https://127.0.0.1:1', { token: 'kube-token' })]);
    await runPlugin(['summary', '--server', fake.url]);
    expect(fake.requests.map((request) => [request.headers.authorization, request.viaProxy])).toEqual([
      ['Bearer flag-token', false],
      ['Bearer kube-token', false],
      [undefined, false],
    ]);
  });

  it('exits 1 with a port-forward hint when nothing listens', async () => {
    const port = await closedPort();
    const result = await runPlugin(['list', '--server', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: cannot reach the Rehearsal API at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n` +
        "hint: is the port-forward running? kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080; or drop --server to go through the Kubernetes API server (APIService v1.api.rehearsal.dev)\n",
    );
  });

  it('lists the missing permissions of a 403 from the API', async () => {
    fake.on(
      'POST',
      '/api/v1/tests/{name}/trigger',
      problem(403, 'forbidden', 'Forbidden', 'User "jane" may not trigger RestoreTest "payments" in namespace "rehearsal-system".', {
        missingPermissions: [
          { verb: 'create', group: 'rehearsal.dev', resource: 'restoretests', subresource: 'trigger', namespace: 'rehearsal-system', name: 'payments' },
          { verb: 'list', group: 'rehearsal.dev', resource: 'restorereports' },
        ],
      }),
    );
    const result = await runPlugin(['trigger', 'payments', '--server', fake.url, '--token', 't']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: forbidden: User "jane" may not trigger RestoreTest "payments" in namespace "rehearsal-system".\n' +
        'hint: you need "create" on restoretests.rehearsal.dev/trigger "payments" in namespace rehearsal-system\n' +
        'hint: you need "list" on restorereports.rehearsal.dev cluster-wide\n',
    );
  });

  it('reports a problem\'s detail, and every invalid field', async () => {
    const result = await runPlugin(['get', 'nope', '--server', fake.url]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: RestoreTest "nope" not found in namespace "rehearsal-system".\n' });
    fake.on(
      'POST',
      '/api/v1/tests',
      problem(400, 'invalid-request', 'Invalid request', '2 fields are invalid', {
        errors: [
          { field: 'sourceNamespaces[0]', message: 'namespace "ghost" does not exist' },
          { field: 'healthCheckPolicy', message: 'HealthCheckPolicy "nope" not found' },
        ],
      }),
    );
    const create = await runPlugin(['create', 'x', '--provider', 'velero', '--source-namespace', 'ghost', '--cron', '@daily', '--health-check-policy', 'nope', '--server', fake.url]);
    expect(create.code).toBe(1);
    expect(create.stderr).toBe(
      'error: 2 fields are invalid\nhint: sourceNamespaces[0]: namespace "ghost" does not exist\nhint: healthCheckPolicy: HealthCheckPolicy "nope" not found\n',
    );
  });

  it('says what answered when it is not the Rehearsal API', async () => {
    fake.on('GET', '/api/v1/upcoming', { status: 502, body: undefined });
    const result = await runPlugin(['upcoming', '--server', fake.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: unexpected answer from the Rehearsal API at ${fake.url}: HTTP 502\nhint: is --server the Rehearsal API (port 8080 of svc/rehearsal-api)?\n`,
    );
    fake.problems.length = 0; // 502 is not in the contract: that is the point of this case
  });

  it('prints the client version even when the server is unreachable, then fails', async () => {
    const port = await closedPort();
    const result = await runPlugin(['version', '--server', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Client Version: v0.1.0\n');
    expect(result.stderr).toMatch(/^error: cannot reach the Rehearsal API/);
    expect(await runPlugin(['version', '--client'])).toEqual({ code: 0, stdout: 'Client Version: v0.1.0\n', stderr: '' });
  });
});

describe('--server over plain http (decision 0009: tokens in cleartext)', () => {
  it('refuses to send a token to a host that is not loopback, and sends nothing', async () => {
    const result = await runPlugin(['list', '-A', '--server', 'http://rehearsal.example.com:8080', '--token', 'secret-token']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: refusing to send a bearer token over plain http to rehearsal.example.com:8080\n' +
        'hint: use https, or a loopback address (kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080 and --server http://localhost:8080)\n' +
        'hint: or pass --insecure-send-token if this network path is trusted\n',
    );
  });

  it('sends it with --insecure-send-token (0.0.0.0 reaches this machine but is not a loopback name)', async () => {
    const port = new URL(fake.url).port;
    const refused = await runPlugin(['summary', '--server', `http://0.0.0.0:${port}`, '--token', 'secret-token']);
    expect(refused.code).toBe(1);
    expect(fake.requests).toEqual([]);
    const sent = await runPlugin(['summary', '--server', `http://0.0.0.0:${port}`, '--token', 'secret-token', '--insecure-send-token']);
    expect(sent.code).toBe(0);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer secret-token');
  });

  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['[::1]', true],
    ['api.localhost', true],
    ['10.0.0.1', false],
    ['rehearsal-api.rehearsal-system.svc', false],
    ['127.0.0.1.example.com', false],
  ])('loopback %s: %s', (host, expected) => {
    expect(isLoopback(new URL(`http://${host}:8080`).hostname)).toBe(expected);
  });
});
