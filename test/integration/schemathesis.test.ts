// schemathesis (property-based fuzzing from openapi/openapi.json, every check on) against the real
// server on the test cluster, in both auth modes (decisions 0008, 0011):
//   - REHEARSAL_AUTH_MODE=none: the server publishes its document without security requirements
//     (nothing asks for a token), and every operation is fuzzed;
//   - REHEARSAL_AUTH_MODE=kubernetes, with a valid token (a ServiceAccount bound to cluster-admin,
//     checked by the real TokenReview and SubjectAccessReview; schemathesis' ignored_auth check also
//     retries each operation without the token and with a made-up one), with an invalid token, and
//     with none.
// A run fails on any failure: a server error, a schema-valid request rejected, a schema-violating
// one accepted, an undeclared status, media type, header or body, an auth bypass, a method without
// 405. The seed and the example count are fixed so a run is reproducible and fits CI.
// test/schemathesis/ holds the pinned version, its cached venv (schemathesis.sh), the only config
// change (402 counts as accepting a valid request, like 403) and the hooks that keep positive cases
// within the rules JSON Schema cannot state (listed in CreateTestInput's description).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { testKubeConfig, uniqueName, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

const run = promisify(execFile);
const script = path.join(repoRoot, 'test/schemathesis/schemathesis.sh');
const tmp = path.join(repoRoot, 'test/.tmp');
const SEED = '20261125';
// Cold first run: pip install of schemathesis (about a minute).
const SETUP_TIMEOUT_MS = 10 * 60_000;

const admin = testKubeConfig();
const core = admin.makeApiClient(CoreV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const custom = admin.makeApiClient(CustomObjectsApi);
const fuzzer = uniqueName('schemathesis', 40);

let open: Rehearsal;
let guarded: Rehearsal;
let token: string;
let testsBefore: Set<string>;

interface Outcome {
  code: number;
  summary: string;
  log: string;
}

async function listTestNames(): Promise<string[]> {
  const list = (await custom.listNamespacedCustomObject({
    group: 'rehearsal.dev',
    version: 'v1alpha1',
    namespace: REHEARSAL_NAMESPACE,
    plural: 'restoretests',
  })) as { items: { metadata: { name: string } }[] };
  return list.items.map((item) => item.metadata.name);
}

/** One schemathesis run; its whole output goes to test/.tmp/schemathesis-<name>.log. */
async function schemathesis(name: string, baseUrl: string, examples: number, extra: string[] = []): Promise<Outcome> {
  const args = [
    script, 'run', `${baseUrl}/openapi.json`, '--url', baseUrl,
    '--checks', 'all', '--mode', 'all', '--phases', 'examples,coverage,fuzzing',
    '--max-examples', String(examples), '--seed', SEED, '--generation-database', 'none',
    '--suppress-health-check', 'all', '--workers', '1', '--request-timeout', '20', '--no-color',
    ...extra,
  ];
  let code = 0;
  let stdout = '';
  let stderr = '';
  try {
    // Run in test/.tmp: schemathesis keeps a .schemathesis/ directory in its working directory.
    ({ stdout, stderr } = await run('bash', args, { cwd: tmp, maxBuffer: 64 * 1024 * 1024, timeout: 8 * 60_000 }));
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    code = typeof failed.code === 'number' ? failed.code : 1;
    stdout = failed.stdout ?? '';
    stderr = failed.stderr ?? String(error);
  }
  const log = `${stdout}\n${stderr}`.replaceAll(token ?? '\u0000', '<token>');
  writeFileSync(path.join(tmp, `schemathesis-${name}.log`), log);
  const summary = /^ {2}\d+ generated, .+$/m.exec(stdout)?.[0]?.trim() ?? 'no summary';
  console.log(`schemathesis ${name}: ${summary} (exit ${code})`);
  return { code, summary, log };
}

function expectClean(outcome: Outcome): void {
  // On failure, the failures themselves are the message (the full log is in test/.tmp).
  const failures = outcome.log.slice(Math.max(0, outcome.log.indexOf('=== FAILURES ===')), outcome.log.indexOf('=== SUMMARY ==='));
  expect([outcome.code, outcome.summary, outcome.code === 0 ? '' : failures]).toEqual([
    0,
    expect.stringMatching(/^\d+ generated, \d+ passed(, \d+ skipped)?$/),
    '',
  ]);
}

beforeAll(async () => {
  await run('bash', [script, 'setup'], { timeout: SETUP_TIMEOUT_MS });
  const kubeconfigPath = await rehearsalKubeconfig('schemathesis.kubeconfig');
  // Right after the CRDs are installed their storage may still answer 429 for a moment.
  testsBefore = new Set(await waitFor(listTestNames, { timeoutMs: 60_000, description: 'the RestoreTest list' }));
  const apiOnly = { REHEARSAL_CONTROLLER: 'false' };
  open = await startInProcess({ kubeconfigPath, extra: { ...apiOnly, REHEARSAL_AUTH_MODE: 'none' } });
  guarded = await startInProcess({ kubeconfigPath, extra: { ...apiOnly, REHEARSAL_AUTH_MODE: 'kubernetes' } });
  // A caller allowed everything (cluster-admin), so every operation can succeed for the fuzzer.
  await core.createNamespacedServiceAccount({ namespace: REHEARSAL_NAMESPACE, body: { metadata: { name: fuzzer } } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: fuzzer },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: fuzzer, namespace: REHEARSAL_NAMESPACE }],
    },
  });
  const request = await core.createNamespacedServiceAccountToken({
    namespace: REHEARSAL_NAMESPACE,
    name: fuzzer,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  token = request.status!.token!;
}, SETUP_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await open?.stop();
  await guarded?.stop();
  await rbac.deleteClusterRoleBinding({ name: fuzzer }).catch(() => undefined);
  await core.deleteNamespacedServiceAccount({ namespace: REHEARSAL_NAMESPACE, name: fuzzer }).catch(() => undefined);
  // The RestoreTests the fuzzer created (the server's namespace is shared with later suites).
  for (const name of await listTestNames()) {
    if (testsBefore.has(name)) continue;
    await custom
      .deleteNamespacedCustomObject({
        group: 'rehearsal.dev',
        version: 'v1alpha1',
        namespace: REHEARSAL_NAMESPACE,
        plural: 'restoretests',
        name,
      })
      .catch(() => undefined);
  }
}, 120_000);

describe('schemathesis against the real server', () => {
  it('auth none: every operation, every check, no failure', async () => {
    expectClean(await schemathesis('auth-none', `http://127.0.0.1:${open.port()}`, 25));
  }, 9 * 60_000);

  it('auth kubernetes with a valid token: every check (auth bypass probes included), no failure', async () => {
    expectClean(
      await schemathesis('auth-kubernetes-valid', `http://127.0.0.1:${guarded.port()}`, 25, [
        '--header', `Authorization: Bearer ${token}`,
      ]),
    );
  }, 9 * 60_000);

  it('auth kubernetes with an invalid token: every operation answers as declared (401), no failure', async () => {
    expectClean(
      await schemathesis('auth-kubernetes-invalid', `http://127.0.0.1:${guarded.port()}`, 5, [
        '--header', 'Authorization: Bearer not-a-token-the-cluster-issued',
      ]),
    );
  }, 9 * 60_000);

  it('auth kubernetes without a token: every operation answers as declared (401), no failure', async () => {
    expectClean(await schemathesis('auth-kubernetes-none', `http://127.0.0.1:${guarded.port()}`, 5));
  }, 9 * 60_000);
});
