// The container image, built without a container engine (deploy/image/build-oci.sh), is a valid
// OCI image layout (umoci unpacks it into a runtime bundle, every blob matches its digest) and runs:
// its own entrypoint, as its own non-root user, in its own root filesystem (chroot), against the
// test control plane until GET /api/v1/health answers ok. It trusts exactly the shipped vendor license
// key by default, and a key added through the chart value licensePublicKeys.extra.
// Lane: node (creates no pods: test/run-all.sh runs it beside the real node's suites)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { repoRoot } from '../helpers/cluster-info.js';
import { imageNodeFlags } from '../bench/deployed-runtime.js';
import { CoreV1Api } from '@kubernetes/client-node';
import { jwkOf, sign, vendorKey } from '../fixtures/evidence/licenses.js';
import {
  createNamespace,
  deleteNamespaces,
  testKubeConfig,
  testKubeconfigPath,
  uniqueName,
  waitFor,
} from '../helpers/kube.js';
import { renderChart, type K8sObject } from '../helpers/manifests.js';

const work = path.join(repoRoot, 'test/.tmp/image');
const kubeConfig = testKubeConfig();
const core = kubeConfig.makeApiClient(CoreV1Api);
let namespace = '';
let server: ChildProcess | undefined;

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
    expect(JSON.parse(readFileSync(path.join(layout, 'oci-layout'), 'utf8'))).toEqual({
      imageLayoutVersion: '1.0.0',
    });
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as {
      manifests: Descriptor[];
    };
    expect(index.manifests).toHaveLength(1);
    const manifest = readJsonBlob<{ config: Descriptor; layers: Descriptor[] }>(layout, index.manifests[0]!);
    const config = readJsonBlob<{
      config: { User: string; Entrypoint: string[] };
      rootfs: { diff_ids: string[] };
    }>(layout, manifest.config);
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
    // The Dockerfile's entrypoint and V8 flags (runImage below starts it, flags and all).
    expect(config.config.Entrypoint).toEqual([
      '/usr/local/bin/node',
      ...imageNodeFlags(),
      '/app/dist/server/main.js',
    ]);
    const total = manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
    console.log(
      `image: ${(statSync(tarball).size / 1e6).toFixed(1)} MB tarball, layers ${manifest.layers
        .map((layer) => `${(layer.size / 1e6).toFixed(1)} MB`)
        .join(' + ')} = ${(total / 1e6).toFixed(1)} MB compressed`,
    );
  });

  it('starts its own entrypoint as its own user against the control plane and answers /api/v1/health', async () => {
    // umoci (Debian) unpacks the layout into an OCI runtime bundle: rootfs/ plus a runtime config
    // whose process (args, env, cwd, user) comes from the image config.
    execFileSync('umoci', ['unpack', '--image', `${layout}:0.1.0`, bundle], { stdio: 'pipe' });
    spec = JSON.parse(readFileSync(path.join(bundle, 'config.json'), 'utf8')) as RuntimeSpec;
    rootfs = path.join(bundle, spec.root.path);
    expect(spec.process.user).toEqual({ uid: 65532, gid: 65532 });
    expect(existsSync(path.join(rootfs, 'bin/sh'))).toBe(false); // no shell inside

    namespace = await createNamespace(kubeConfig, uniqueName('image-smoke'));
    copyFileSync(testKubeconfigPath(), path.join(rootfs, 'tmp/kubeconfig'));
    chmodSync(path.join(rootfs, 'tmp/kubeconfig'), 0o644);
    const image = await runImage({});
    expect(image.log()).toContain('rehearsal started');
    // Its own environment binds the token-carrying API port to loopback (issue 26): nothing in the
    // image says otherwise, and runImage passes no REHEARSAL_HOST.
    expect(spec.process.env.filter((entry) => entry.startsWith('REHEARSAL_HOST='))).toEqual([]);
    const listening = image
      .log()
      .split('\n')
      .filter((line) => line.includes('"HTTP API listening"'))
      .map((line) => JSON.parse(line) as { host: string; port: number });
    expect(listening).toEqual([expect.objectContaining({ host: '127.0.0.1', port: image.port })]);
    // The dashboard ships in the image and is served at /.
    const dashboard = await fetch(`http://127.0.0.1:${image.port}/`);
    expect(dashboard.status).toBe(200);
    const html = await dashboard.text();
    expect(html).toContain('<div id="app"></div>');
    const script = /src="\.\/(app-[\w-]+\.js)"/.exec(html)?.[1];
    expect((await fetch(`http://127.0.0.1:${image.port}/${script}`)).status).toBe(200);
    // With no license configuration, exactly the shipped vendor key is trusted: a license signed by
    // any other key is refused, naming the trusted key.
    await installLicense(await sign(throwaway, { tier: 'pro', sub: 'image-test' }));
    const refused = await complianceAnswer(image.port, 402, 'signed with unknown key');
    expect(refused.detail).toContain(`signed with unknown key "throwaway-2026" (trusted: ${shippedKid})`);
    await image.stop();
  }, 180_000);

  it('is told where to listen by the chart: the API on loopback, only the probe and aggregated ports on the pod network', () => {
    const deployment = renderChart().find((o) => o.kind === 'Deployment') as K8sObject & {
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
    };
    const env = Object.fromEntries(deployment.spec.template.spec.containers[0]!.env.map((entry) => [entry.name, entry.value]));
    expect(env).toMatchObject({ REHEARSAL_HOST: '127.0.0.1', REHEARSAL_PROBE_HOST: '0.0.0.0', REHEARSAL_AGGREGATION_HOST: '0.0.0.0' });
    const wider = renderChart([], ['--set', 'listen.apiHost=0.0.0.0']).find((o) => o.kind === 'Deployment') as typeof deployment;
    expect(wider.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'REHEARSAL_HOST', value: '0.0.0.0' });
  });

  it('trusts a key added through the chart value licensePublicKeys.extra, and refuses an unknown one with the reason', async () => {
    expect(rootfs).not.toBe('');
    // The chart's ConfigMap and Deployment environment, rendered with the throwaway public key.
    const extra = [{ name: 'throwaway-2026.jwk.json', key: JSON.stringify(await jwkOf(throwaway)) }];
    const rendered = renderChart([], ['--set-json', `licensePublicKeys.extra=${JSON.stringify(extra)}`]);
    const configMap = rendered.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === 'rehearsal-license-public-keys',
    ) as (K8sObject & { data: Record<string, string> }) | undefined;
    const deployment = rendered.find((o) => o.kind === 'Deployment') as K8sObject & {
      spec: {
        template: {
          spec: {
            containers: {
              env: { name: string; value?: string }[];
              volumeMounts: { name: string; mountPath: string }[];
            }[];
          };
        };
      };
    };
    const container = deployment.spec.template.spec.containers[0]!;
    const mountPath = container.volumeMounts.find((mount) => mount.name === 'license-public-keys')!.mountPath;
    const keyFiles = container.env.find((env) => env.name === 'REHEARSAL_LICENSE_PUBLIC_KEYS')!.value!;
    // What the kubelet would do: the ConfigMap's keys as files at the mount path, in the image's root.
    mkdirSync(path.join(rootfs, mountPath), { recursive: true });
    for (const [file, text] of Object.entries(configMap!.data))
      writeFileSync(path.join(rootfs, mountPath, file), text);

    const image = await runImage({ REHEARSAL_LICENSE_PUBLIC_KEYS: keyFiles });
    await installLicense(await sign(throwaway, { tier: 'pro', sub: 'image-test' }));
    await complianceAnswer(image.port, 200);
    // A license from a key nobody configured: refused (402), and the problem says why.
    await installLicense(await sign(unknown, { tier: 'enterprise', sub: 'image-test' }));
    const refused = await complianceAnswer(image.port, 402, 'signed with unknown key');
    expect(refused.detail).toContain('signed with unknown key "unknown-2026"');
    expect(refused.detail).toContain(`trusted: ${shippedKid}, throwaway-2026`);
    await image.stop();
  }, 180_000);
});

const throwaway = vendorKey('throwaway-2026');
const unknown = vendorKey('unknown-2026');
const shippedKid = (
  JSON.parse(readFileSync(path.join(repoRoot, 'license-keys/rehearsal-vendor.jwk.json'), 'utf8')) as {
    kid: string;
  }
).kid;
let spec: RuntimeSpec | undefined;
let rootfs = '';

/** Runs the image's entrypoint as its user in its root filesystem (chroot) until /api/v1/health is ok. */
async function runImage(
  extraEnv: Record<string, string>,
): Promise<{ port: number; log(): string; stop(): Promise<void> }> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...Object.fromEntries(spec!.process.env.map((entry) => entry.split(/=(.*)/s).slice(0, 2))),
    KUBECONFIG: '/tmp/kubeconfig',
    REHEARSAL_NAMESPACE: namespace,
    REHEARSAL_PORT: String(port),
    REHEARSAL_CONTROLLER: 'false',
    REHEARSAL_AUTH_MODE: 'none',
    ...extraEnv,
  };
  // The entrypoint runs on the image's own glibc, Node and node_modules, none of the host's; only
  // the image's environment plus the settings above (chroot passes its environment on unchanged).
  const chroot = execFileSync('bash', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();
  let log = '';
  const child = spawn(
    chroot,
    [`--userspec=${spec!.process.user.uid}:${spec!.process.user.gid}`, rootfs, ...spec!.process.args],
    {
      cwd: '/',
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  server = child;
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`image entrypoint exited ${child.exitCode}: ${log}`);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => undefined);
      return response?.ok === true && ((await response.json()) as { status: string }).status === 'ok';
    },
    { timeoutMs: 90_000, intervalMs: 500, description: 'the image to answer /api/v1/health' },
  );
  return {
    port,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function installLicense(token: string): Promise<void> {
  const body = { metadata: { name: 'rehearsal-license', namespace }, stringData: { license: token } };
  await core.deleteNamespacedSecret({ name: 'rehearsal-license', namespace }).catch(() => undefined);
  await core.createNamespacedSecret({ namespace, body });
}

/**
 * Waits until GET /api/compliance answers `status` (the license watch picks up a new Secret) and,
 * when given, a detail containing `reason`: installLicense deletes the old Secret before creating
 * the new one, and in between the answer is a 402 for "no license installed".
 */
async function complianceAnswer(port: number, status: number, reason?: string): Promise<{ detail?: string }> {
  let body: { detail?: string } = {};
  await waitFor(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/compliance?period=30`);
      body = (await response.json()) as { detail?: string };
      return response.status === status && (reason === undefined || (body.detail ?? '').includes(reason));
    },
    {
      timeoutMs: 30_000,
      intervalMs: 300,
      description: `GET /api/compliance to answer ${status} ${reason ?? ''}`,
    },
  );
  return body;
}
