// The container image, built without a container engine (deploy/image/build-oci.sh), is a valid
// OCI image layout (umoci unpacks it into a runtime bundle, every blob matches its digest) and runs:
// its own entrypoint, as its own non-root user, in its own root filesystem (chroot), against the
// test control plane until GET /api/v1/health answers ok.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { repoRoot } from '../helpers/cluster-info.js';
import { createNamespace, deleteNamespaces, testKubeConfig, testKubeconfigPath, uniqueName, waitFor } from '../helpers/kube.js';

const work = path.join(repoRoot, 'test/.tmp/image');
const kubeConfig = testKubeConfig();
let namespace = '';
let server: ChildProcess | undefined;
let serverLog = '';

interface Descriptor {
  digest: string;
  size: number;
  mediaType: string;
}
interface RuntimeSpec {
  process: { args: string[]; env: string[]; cwd: string; user: { uid: number; gid: number } };
  root: { path: string };
}

function blobPath(layout: string, digest: string): string {
  return path.join(layout, 'blobs', 'sha256', digest.replace(/^sha256:/, ''));
}
function readJsonBlob<T>(layout: string, descriptor: Descriptor): T {
  return JSON.parse(readFileSync(blobPath(layout, descriptor.digest), 'utf8')) as T;
}
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const layout = path.join(work, 'layout');
const bundle = path.join(work, 'bundle');
let tarball = '';

beforeAll(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(layout, { recursive: true });
  // Built once per content (the script caches by a hash of its inputs), so a re-run is a copy.
  tarball = execFileSync('bash', ['deploy/image/build-oci.sh', path.join(work, 'rehearsal-oci.tar')], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  execFileSync('tar', ['-xf', tarball, '-C', layout]);
}, 900_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  if (namespace) await deleteNamespaces(kubeConfig, [namespace]);
});

describe('OCI image built without a container engine', () => {
  it('is an OCI image layout whose blobs match their digests, with a non-root user and four layers', () => {
    expect(JSON.parse(readFileSync(path.join(layout, 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
    expect(index.manifests).toHaveLength(1);
    const manifest = readJsonBlob<{ config: Descriptor; layers: Descriptor[] }>(layout, index.manifests[0]!);
    const config = readJsonBlob<{ config: { User: string; Entrypoint: string[] }; rootfs: { diff_ids: string[] } }>(
      layout,
      manifest.config,
    );
    for (const descriptor of [index.manifests[0]!, manifest.config, ...manifest.layers]) {
      const bytes = readFileSync(blobPath(layout, descriptor.digest));
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(descriptor.digest);
      expect(bytes.length).toBe(descriptor.size);
    }
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual(
      Array(4).fill('application/vnd.oci.image.layer.v1.tar+gzip'),
    );
    expect(config.rootfs.diff_ids).toHaveLength(4);
    expect(config.config.User).toBe('65532:65532');
    expect(config.config.Entrypoint).toEqual(['/usr/local/bin/node', '/app/dist/server/main.js']);
    const total = manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
    console.log(
      `image: ${(statSync(tarball).size / 1e6).toFixed(1)} MB tarball, layers ${manifest.layers
        .map((layer) => `${(layer.size / 1e6).toFixed(1)} MB`)
        .join(' + ')} = ${(total / 1e6).toFixed(1)} MB compressed`,
    );
  });

  it("starts its own entrypoint as its own user against the control plane and answers /api/v1/health", async () => {
    // umoci (Debian) unpacks the layout into an OCI runtime bundle: rootfs/ plus a runtime config
    // whose process (args, env, cwd, user) comes from the image config.
    execFileSync('umoci', ['unpack', '--image', `${layout}:0.1.0`, bundle], { stdio: 'pipe' });
    const spec = JSON.parse(readFileSync(path.join(bundle, 'config.json'), 'utf8')) as RuntimeSpec;
    const rootfs = path.join(bundle, spec.root.path);
    expect(spec.process.user).toEqual({ uid: 65532, gid: 65532 });
    expect(existsSync(path.join(rootfs, 'bin/sh'))).toBe(false); // no shell inside

    namespace = await createNamespace(kubeConfig, uniqueName('image-smoke'));
    copyFileSync(testKubeconfigPath(), path.join(rootfs, 'tmp/kubeconfig'));
    chmodSync(path.join(rootfs, 'tmp/kubeconfig'), 0o644);
    const port = await freePort();
    const env = [
      ...spec.process.env,
      'KUBECONFIG=/tmp/kubeconfig',
      `REHEARSAL_NAMESPACE=${namespace}`,
      `REHEARSAL_PORT=${port}`,
      'REHEARSAL_HOST=127.0.0.1',
      'REHEARSAL_CONTROLLER=false',
    ];
    // chroot into the image's root filesystem as the image's user: the entrypoint runs on the
    // image's own glibc, Node and node_modules, none of the host's.
    const chroot = execFileSync('bash', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();
    server = spawn(
      chroot,
      [`--userspec=${spec.process.user.uid}:${spec.process.user.gid}`, rootfs, ...spec.process.args],
      // Only the image's environment (plus the test's settings): chroot passes it on unchanged.
      { cwd: '/', env: Object.fromEntries(env.map((entry) => entry.split(/=(.*)/s).slice(0, 2))), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    await waitFor(
      async () => {
        if (server?.exitCode !== null) throw new Error(`image entrypoint exited ${server?.exitCode}: ${serverLog}`);
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => undefined);
        return response?.ok === true && ((await response.json()) as { status: string }).status === 'ok';
      },
      { timeoutMs: 90_000, intervalMs: 500, description: 'the image to answer /api/v1/health' },
    );
    expect(serverLog).toContain('rehearsal started');
  }, 180_000);
});
