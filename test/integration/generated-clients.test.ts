// Clients in other languages, generated from the committed openapi/openapi.json (oapi-codegen for
// Go, openapi-python-client for Python), each driven by its smoke program against the real server
// process (API only, auth none) on the test cluster. openapi/clients/clients.sh does the work; see
// openapi/clients/README.md. The first run on a machine fetches the generators (PyPI, Go module
// proxy) unless test/setup.sh did already; later runs reuse the cached venv and Go caches.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  closedLoopbackPort,
  createNamespace,
  deleteNamespaces,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
} from '../helpers/kube.js';
import { startProcess, type ServerProcess } from '../helpers/rehearsal-server.js';

const run = promisify(execFile);
const clientsScript = path.join(repoRoot, 'openapi/clients/clients.sh');
const tmp = path.join(repoRoot, 'test/.tmp');
// Cold first run: pip install of the generator and a build of oapi-codegen (minutes on 2 cores).
const SETUP_TIMEOUT_MS = 15 * 60_000;

const kubeConfig = testKubeConfig();
const custom = kubeConfig.makeApiClient(CustomObjectsApi);

let namespace: string;
let outDir: string;
let server: ServerProcess | undefined;
let baseUrl: string;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function clients(args: string[], timeoutMs: number): Promise<RunResult> {
  try {
    const { stdout, stderr } = await run('bash', [clientsScript, ...args], {
      cwd: repoRoot,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? failed.message,
    };
  }
}

function describeRun(result: RunResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

async function readRestoreTest(name: string): Promise<{ spec: Record<string, unknown> }> {
  return (await custom.getNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'restoretests',
    name,
  })) as { spec: Record<string, unknown> };
}

let generation: RunResult;

beforeAll(async () => {
  mkdirSync(tmp, { recursive: true });
  outDir = mkdtempSync(path.join(tmp, 'clients-'));
  namespace = await createNamespace(kubeConfig, uniqueName('clients'));
  const port = await closedLoopbackPort();
  baseUrl = `http://127.0.0.1:${port}`;
  // Generation (toolchains included) and server start-up are independent: overlap them.
  const [generated, started] = await Promise.allSettled([
    clients(['generate', outDir], SETUP_TIMEOUT_MS - 30_000),
    startProcess({
      kubeconfigPath: testKubeconfigPath(),
      port,
      logFile: path.join(tmp, `generated-clients-server-${port}.log`),
      extra: { REHEARSAL_CONTROLLER: 'false', REHEARSAL_NAMESPACE: namespace },
    }),
  ]);
  if (started.status === 'fulfilled') server = started.value;
  else throw started.reason;
  if (generated.status === 'rejected') throw generated.reason;
  generation = generated.value;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  if (namespace) await deleteNamespaces(kubeConfig, [namespace]);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('clients generated from openapi/openapi.json', () => {
  it('generates a Go client (oapi-codegen) and a Python client (openapi-python-client) without warnings', () => {
    if (generation.code !== 0) throw new Error(`clients.sh generate failed: ${describeRun(generation)}`);
    const goClient = readFileSync(path.join(outDir, 'go/rehearsalapi/client.gen.go'), 'utf8');
    expect(goClient).toContain('func NewClientWithResponses(');
    expect(goClient).toContain('func (c *ClientWithResponses) CreateTestWithResponse(');
    expect(existsSync(path.join(outDir, 'go/bin/smoke'))).toBe(true);
    const pythonPackage = path.join(outDir, 'python/rehearsal_api_client');
    expect(existsSync(path.join(pythonPackage, 'api/tests/create_test.py'))).toBe(true);
    expect(existsSync(path.join(pythonPackage, 'models/summary.py'))).toBe(true);
  });

  it.each([
    ['go', 'Go', 'smoke-go'],
    ['python', 'Python', 'smoke-py'],
  ])('the %s smoke program passes against the running server', async (lang, label, prefix) => {
    expect(generation.code).toBe(0);
    const name = uniqueName(prefix);
    const result = await clients(['smoke', lang, outDir, baseUrl, name], 120_000);
    if (result.code !== 0) throw new Error(`${label} smoke failed: ${describeRun(result)}`);
    for (const step of [
      // The seed's int fields have integer types in the generated client (decision 0011).
      `types: 20 int fields of the seed are ${lang === 'go' ? 'Go integers' : 'Python int'}`,
      // Fields added since (UpcomingTest.overdue) are optional in the generated types.
      lang === 'go' ? 'types: UpcomingTest.Overdue is *bool' : 'types: UpcomingTest.overdue is bool | Unset',
      'getHealth: 200',
      'listTests: 200',
      'createTest: 201',
      'createTest (again): 409',
      'getSummary: 200',
    ])
      expect(result.stdout).toContain(step);
    expect(result.stdout).toContain(`${lang} smoke: ok`);

    // What the generated client sent is what the cluster stored.
    const stored = await readRestoreTest(name);
    expect(stored.spec).toMatchObject({
      provider: 'velero',
      schedule: { cron: '0 3 * * *' },
      backupSource: { namespaces: [{ name: 'payments' }, { name: 'payments-db' }] },
    });
  });

  it('a smoke program fails (exit 1) when an expectation is not met', async () => {
    expect(generation.code).toBe(0);
    // The test exists already (created by the Go smoke above or just now): the smoke must refuse.
    const name = uniqueName('smoke-dup');
    const first = await clients(['smoke', 'go', outDir, baseUrl, name], 120_000);
    expect(first.code).toBe(0);
    const again = await clients(['smoke', 'python', outDir, baseUrl, name], 120_000);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`error: listTests: ${name} exists already`);
  });
});
