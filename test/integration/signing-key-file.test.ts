// The evidence signing key kept out of the cluster's Secrets (issue 33): with
// REHEARSAL_SIGNING_KEY_FILE the server signs with the key in a file (what a secret store outside
// the cluster mounts), never reads or writes the Secret rehearsal-signing-key, and publishes the
// file key's public half. Replacing the file rotates the key live: reports signed before and after
// verify with the published keys (the old one retired), through `kubectl restoretest verify`.
import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { exportPrivateKeyPem, generateSigningKey, type SigningKey } from '../../server/evidence/signing-key.js';
import { repoRoot } from '../helpers/cluster-info.js';
import { createEngineFixture, createRestoreTest, restoreTestBody, trigger, uniqueTestName, waitForReports, type EngineFixture } from '../helpers/engine-fixture.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

jest.setTimeout(200_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let core: CoreV1Api;
const testName = uniqueTestName('keyfile');
const dir = path.join(repoRoot, 'test/.tmp/signing-key-file');
const keyFile = path.join(dir, 'evidence-key.pem');
const binDir = path.join(repoRoot, 'cmd/kubectl-restoretest/bin');
const first = generateSigningKey();
const second = generateSigningKey();
let secretBefore: string | undefined;

/** Replaces the file as a secret store's agent does: the new content appears at once, whole. */
function writeKeyFile(key: SigningKey): void {
  writeFileSync(`${keyFile}.new`, exportPrivateKeyPem(key), { mode: 0o600 });
  renameSync(`${keyFile}.new`, keyFile);
}

/** The Secret's resourceVersion, or undefined when there is none. */
async function signingSecretVersion(): Promise<string | undefined> {
  try {
    return (await core.readNamespacedSecret({ name: 'rehearsal-signing-key', namespace: REHEARSAL_NAMESPACE })).metadata?.resourceVersion;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeKeyFile(first);
  fixture = await createEngineFixture('keyfile');
  core = fixture.admin.makeApiClient(CoreV1Api);
  secretBefore = await signingSecretVersion();
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('signing-key-file.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_SIGNING_KEY_FILE: keyFile, REHEARSAL_SIGNING_KEY_FILE_POLL_SECONDS: '1' },
  });
  await createRestoreTest(fixture, restoreTestBody(fixture, testName, {}));
}, 150_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  rmSync(dir, { recursive: true, force: true });
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

function verify(): Promise<{ code: number; stdout: string }> {
  const args = ['restoretest', 'verify', testName, '-n', fixture.testNamespace, '--server', `http://127.0.0.1:${rehearsal.port()}`];
  return new Promise((resolve) => {
    execFile('kubectl', args, { env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, KUBECONFIG: testKubeconfigPath(), NO_COLOR: '1' }, timeout: 120_000 }, (error, stdout) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout });
    });
  });
}

async function publishedKeys(): Promise<Array<{ keyId: string; status: string }>> {
  return (await (await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/evidence/keys`)).json()) as Array<{ keyId: string; status: string }>;
}

describe('a signing key from a file outside the cluster', () => {
  it('signs with the file key, publishes it, and leaves the Secret alone', async () => {
    expect(rehearsal.evidenceKeys.signingKey()?.key.keyId).toBe(first.keyId);
    expect((await publishedKeys())[0]).toMatchObject({ keyId: first.keyId, status: 'current' });
    await trigger(fixture, testName);
    const [report] = await waitForReports(fixture, testName, 1, 120_000);
    expect(report!.spec.evidence?.keyId).toBe(first.keyId);
    expect(await signingSecretVersion()).toBe(secretBefore);
  });

  it('rotates when the file is replaced: reports of both keys verify, the old key retired', async () => {
    writeKeyFile(second);
    await waitFor(async () => rehearsal.evidenceKeys.signingKey()?.key.keyId === second.keyId, { timeoutMs: 30_000, description: 'the server to sign with the new file key' });
    await waitFor(async () => (await publishedKeys()).some((key) => key.keyId === first.keyId && key.status === 'retired'), { timeoutMs: 30_000, description: 'the first key to be retired' });
    await trigger(fixture, testName);
    const reports = await waitForReports(fixture, testName, 2, 120_000);
    expect(reports.map((report) => report.spec.evidence?.keyId).sort()).toEqual([first.keyId, second.keyId].sort());
    const result = await verify();
    expect(result.stdout).toContain('2/2 reports verified');
    expect(result.code).toBe(0);
    expect(await signingSecretVersion()).toBe(secretBefore);
  });

  it('keeps signing with the key it has when the file turns unreadable or holds no key', async () => {
    writeFileSync(keyFile, 'not a key');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(rehearsal.evidenceKeys.signingKey()?.key.keyId).toBe(second.keyId);
  });
});
