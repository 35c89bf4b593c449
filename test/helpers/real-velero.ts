// Starts and stops the REAL Velero server (built from its Go module by test/cluster/build-velero.sh)
// next to the test cluster: s3s-fs (a real S3 server, from crates.io) on 127.0.0.1 keeps the backups
// in a local directory, and a BackupStorageLocation points at that store. By default `velero server`
// runs out of cluster with the AWS object-store plugin from a local plugin directory, with no node
// agent and no volume data: Velero backs up and restores resource manifests through the Kubernetes
// API. With `nodeAgent` (the real node only) it also runs Velero's node agent as a DaemonSet, so
// file-system backups (kopia) carry the volumes' data; with `inCluster` the server itself runs as
// the Deployment `velero` on the real node, as a user's cluster runs it (velero-in-cluster.ts).
//
// Every listener of an out-of-cluster `velero server` is on 127.0.0.1: --metrics-address and
// --profiler-address below (free loopback ports), its plugins talk gRPC over unix sockets, and the
// controller-runtime manager's own metrics listener (":8080" on all interfaces in upstream Velero, no
// flag for it) is switched off in our build (see patch_velero_metrics in build-velero.sh).
// real-velero.test.ts checks it.
//
// Velero runs under its own identity, the ServiceAccount `velero` of its namespace bound to
// cluster-admin (what `velero install` grants), so the apiserver's audit log tells its writes apart
// from the test harness's and Rehearsal's (velero.user).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import { repoRoot } from './cluster-info.js';
import { kubectl } from './install-crds.js';
import { testKubeconfigPath, waitFor } from './kube.js';
import {
  ensure,
  ensureCloudCredentials,
  inClusterServerLog,
  pinnedVersion,
  startNodeAgent,
  veleroDeployment,
  veleroNodeImage,
  type NodeAgentOptions,
} from './velero-in-cluster.js';

export type { NodeAgentOptions } from './velero-in-cluster.js';

export interface VeleroBinaries {
  velero: string;
  awsPlugin: string;
  s3Server: string;
  restoreHelper: string;
}

/** The cached binaries (built on first use; test/setup.sh builds them ahead of the tests). */
export function veleroBinaries(): VeleroBinaries {
  const out = execFileSync('bash', [path.join(repoRoot, 'test/cluster/build-velero.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const value = (key: string): string => {
    const line = out.split('\n').find((entry) => entry.startsWith(`${key}=`));
    if (!line) throw new Error(`build-velero.sh printed no ${key}`);
    return line.slice(key.length + 1);
  };
  return {
    velero: value('VELERO_BIN'),
    awsPlugin: value('VELERO_AWS_PLUGIN'),
    s3Server: value('S3_SERVER_BIN'),
    restoreHelper: value('VELERO_RESTORE_HELPER'),
  };
}

export interface RealVelero {
  namespace: string;
  /** The audit-log user Velero writes as. */
  user: string;
  /** The S3 endpoint (http://127.0.0.1:PORT), bucket and the directory s3s-fs keeps it in. */
  s3Url: string;
  bucket: string;
  /** Where the object store keeps the bucket's objects (backups/<name>/...). */
  bucketDir: string;
  /**
   * Velero's last log lines (for failure messages). Out of cluster all of them are in velero.log of
   * the work directory; in the cluster, `kubectl logs deploy/velero`.
   */
  log(): string[];
  workDir: string;
  /** Out of cluster: the `velero server` process, and the loopback ports of its metrics and profiler listeners. */
  hostProcess?: { pid: number; metricsPort: number; profilerPort: number };
  stop(): Promise<void>;
}

export interface StartRealVeleroOptions {
  namespace: string;
  /** Scratch directory (object store data, credentials, plugin dir, logs). */
  workDir?: string;
  /** Extra `velero server` flags. */
  serverArgs?: string[];
  /** The admin kubeconfig file (default: the integration tests' cluster). */
  kubeconfigPath?: string;
  /** Run Velero's node agent on this real node (file-system backups of volume data). */
  nodeAgent?: NodeAgentOptions;
  /** Run the server too as pods on that node (the Deployment `velero`), not as a process of this host. */
  inCluster?: boolean;
}

const ACCESS_KEY = 'rehearsal-test';
const SECRET_KEY = 'rehearsal-test-secret-key';
const BUCKET = 'velero';
const LOG_LINES = 200;

export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Starts a process; keeps its last lines in `lines` and all of its output in `logFile`. */
function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  lines: string[],
  logFile: string,
): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    appendFileSync(logFile, chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      lines.push(line);
      if (lines.length > LOG_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return child;
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Velero's CRDs exactly as this Velero binary installs them (v1 and v2alpha1), applied server-side. */
function installVeleroCrds(velero: string, kubeconfigPath: string): void {
  const yaml = execFileSync(velero, ['install', '--crds-only', '--dry-run', '-o', 'yaml'], {
    encoding: 'utf8',
  });
  kubectl(kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-f', '-'], yaml);
  kubectl(kubeconfigPath, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    '-l',
    'component=velero',
  ]);
}

/** A kubeconfig for the velero ServiceAccount (a bound token), as Velero has in a cluster. */
async function veleroKubeconfig(admin: KubeConfig, namespace: string, file: string): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await ensure(() =>
    core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'velero' } } }),
  );
  await ensure(() =>
    rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `velero-${namespace}`, labels: { 'rehearsal.dev/test-velero': namespace } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'velero', namespace }],
      },
    }),
  );
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name: 'velero',
    body: { spec: { audiences: [], expirationSeconds: 24 * 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error('TokenRequest returned no token');
  const cluster = admin.getCurrentCluster();
  if (!cluster?.caData) throw new Error('the test cluster kubeconfig has no inline CA data');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } },
      ],
      users: [{ name: 'velero', user: { token } }],
      contexts: [{ name: 'velero', context: { cluster: 'test', user: 'velero', namespace } }],
      'current-context': 'velero',
    }),
    { mode: 0o600 },
  );
  return file;
}

async function nodeInternalIp(admin: KubeConfig, nodeName: string): Promise<string> {
  const node = await admin.makeApiClient(CoreV1Api).readNode({ name: nodeName });
  const address = node.status?.addresses?.find((entry) => entry.type === 'InternalIP')?.address;
  if (!address) throw new Error(`node ${nodeName} has no InternalIP`);
  return address;
}

export async function startRealVelero(
  admin: KubeConfig,
  options: StartRealVeleroOptions,
): Promise<RealVelero> {
  const { namespace } = options;
  const bins = veleroBinaries();
  const work = options.workDir ?? path.join(repoRoot, 'test/.tmp/velero', namespace);
  rmSync(work, { recursive: true, force: true });
  const dataDir = path.join(work, 's3');
  const bucketDir = path.join(dataDir, BUCKET);
  const pluginDir = path.join(work, 'plugins');
  mkdirSync(bucketDir, { recursive: true }); // s3s-fs: a bucket is a directory under its root
  mkdirSync(pluginDir, { recursive: true });
  const plugin = path.join(pluginDir, 'velero-plugin-for-aws');
  try {
    linkSync(bins.awsPlugin, plugin);
  } catch {
    copyFileSync(bins.awsPlugin, plugin);
  }
  const credentials = path.join(work, 'credentials');
  writeFileSync(
    credentials,
    `[default]\naws_access_key_id=${ACCESS_KEY}\naws_secret_access_key=${SECRET_KEY}\n`,
    {
      mode: 0o600,
    },
  );

  const s3Lines: string[] = [];
  const veleroLines: string[] = [];
  let s3: ChildProcess | undefined;
  let relay: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    await stopProcess(server);
    if (options.inCluster) {
      await admin
        .makeApiClient(AppsV1Api)
        .deleteNamespacedDeployment({ namespace, name: 'velero' })
        .catch(() => undefined);
    }
    if (options.nodeAgent) {
      await admin
        .makeApiClient(AppsV1Api)
        .deleteNamespacedDaemonSet({ namespace, name: 'node-agent' })
        .catch(() => undefined);
    }
    await stopProcess(relay);
    await stopProcess(s3);
    await admin
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteClusterRoleBinding({ name: `velero-${namespace}` })
      .catch(() => undefined);
  };
  try {
    const s3Port = await freeLoopbackPort();
    const s3Url = `http://127.0.0.1:${s3Port}`;
    s3 = startProcess(
      bins.s3Server,
      [
        '--host',
        '127.0.0.1',
        '--port',
        String(s3Port),
        '--access-key',
        ACCESS_KEY,
        '--secret-key',
        SECRET_KEY,
        dataDir,
      ],
      { PATH: process.env.PATH, RUST_LOG: 'warn' },
      s3Lines,
      path.join(work, 's3s-fs.log'),
    );
    await waitFor(
      async () => {
        const response = await fetch(`${s3Url}/`).catch(() => undefined);
        return response !== undefined; // any answer (403 without a signature) means it listens
      },
      { timeoutMs: 20_000, description: `s3s-fs on ${s3Url}` },
    );
    // Pods cannot reach the host's loopback: with a node agent the store is reached through a
    // relay on the node's address (as node-up.sh relays the apiserver), by Velero's server too,
    // since the BackupStorageLocation has one URL for all of them.
    let storeUrl = s3Url;
    if (options.nodeAgent) {
      const nodeIp = await nodeInternalIp(admin, options.nodeAgent.nodeName);
      const relayPort = await freeLoopbackPort(nodeIp);
      relay = startProcess(
        'socat',
        [`TCP-LISTEN:${relayPort},bind=${nodeIp},fork,reuseaddr`, `TCP:127.0.0.1:${s3Port}`],
        { PATH: process.env.PATH },
        s3Lines,
        path.join(work, 's3-relay.log'),
      );
      storeUrl = `http://${nodeIp}:${relayPort}`;
      await waitFor(async () => (await fetch(`${storeUrl}/`).catch(() => undefined)) !== undefined, {
        timeoutMs: 20_000,
        description: `the object store's relay on ${storeUrl}`,
      });
    }

    const adminPath = options.kubeconfigPath ?? testKubeconfigPath();
    installVeleroCrds(bins.velero, adminPath);
    const core = admin.makeApiClient(CoreV1Api);
    await ensure(() => core.createNamespace({ body: { metadata: { name: namespace } } }));
    const kubeconfig = await veleroKubeconfig(admin, namespace, path.join(work, 'velero.kubeconfig'));
    // A location left by an earlier Velero in this namespace names that one's store (its port is
    // gone): this store replaces it.
    await admin
      .makeApiClient(CustomObjectsApi)
      .deleteNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace, plural: 'backupstoragelocations', name: 'default' })
      .catch(() => undefined);
    await ensure(() =>
      admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        group: 'velero.io',
        version: 'v1',
        namespace,
        plural: 'backupstoragelocations',
        body: {
          apiVersion: 'velero.io/v1',
          kind: 'BackupStorageLocation',
          metadata: { name: 'default', namespace },
          spec: {
            provider: 'aws',
            default: true,
            objectStorage: { bucket: BUCKET },
            // checksumAlgorithm "": no CRC32 trailer on uploads, as Velero's docs advise for S3-compatible
            // stores (not every one accepts the AWS SDK's streaming-trailer uploads).
            config: { region: 'us-east-1', s3ForcePathStyle: 'true', s3Url: storeUrl, checksumAlgorithm: '' },
          },
        },
      }),
    );

    if (options.inCluster && !options.nodeAgent) throw new Error('an in-cluster Velero runs on the real node: give nodeAgent');
    const nodeImage = options.nodeAgent ? veleroNodeImage() : undefined;
    if (options.nodeAgent) {
      await ensureCloudCredentials(admin, namespace, readFileSync(credentials, 'utf8'));
      await startNodeAgent(admin, namespace, options.nodeAgent, nodeImage!);
    }
    // The Deployment `velero`, replaced: one left by an earlier start may run a server (or name
    // another image). Out of cluster it has no replicas and exists only because Velero's restore
    // reads it; with a node agent its image is the node's own Velero image, so the restore helper
    // Velero adds to restored pods can start.
    const apps = admin.makeApiClient(AppsV1Api);
    await apps.deleteNamespacedDeployment({ namespace, name: 'velero' }).catch(() => undefined);
    await waitFor(async () => !(await apps.readNamespacedDeployment({ namespace, name: 'velero' }).catch(() => undefined)), {
      timeoutMs: 30_000,
      description: 'an earlier Deployment velero to go',
    });
    const commonArgs = ['--log-level', 'info', '--store-validation-frequency', '10s', ...(options.serverArgs ?? [])];
    await apps.createNamespacedDeployment({
      namespace,
      body: veleroDeployment(nodeImage ?? `velero/velero:${pinnedVersion('VELERO_VERSION')}`, options.inCluster ? commonArgs : undefined),
    });

    let hostProcess: RealVelero['hostProcess'];
    if (!options.inCluster) {
      const metricsPort = await freeLoopbackPort();
      const profilerPort = await freeLoopbackPort();
      server = startProcess(
        bins.velero,
        [
          'server',
          '--kubeconfig',
          kubeconfig,
          '--namespace',
          namespace,
          '--plugin-dir',
          pluginDir,
          '--metrics-address',
          `127.0.0.1:${metricsPort}`,
          '--profiler-address',
          `127.0.0.1:${profilerPort}`,
          ...commonArgs,
        ],
        {
          PATH: process.env.PATH,
          HOME: work,
          AWS_SHARED_CREDENTIALS_FILE: credentials,
          // The AWS SDK's default adds checksums to every request; only where S3 requires them.
          AWS_REQUEST_CHECKSUM_CALCULATION: 'when_required',
          AWS_RESPONSE_CHECKSUM_VALIDATION: 'when_required',
          VELERO_NAMESPACE: namespace,
        },
        veleroLines,
        path.join(work, 'velero.log'),
      );
      hostProcess = { pid: server.pid!, metricsPort, profilerPort };
    }
    const custom = admin.makeApiClient(CustomObjectsApi);
    const ready = await waitFor(
      async () => {
        if (server && server.exitCode !== null) return 'exited';
        if (options.inCluster) {
          const deployment = await apps.readNamespacedDeployment({ namespace, name: 'velero' });
          if ((deployment.status?.readyReplicas ?? 0) < 1) return false;
        }
        const bsl = (await custom.getNamespacedCustomObject({
          group: 'velero.io',
          version: 'v1',
          namespace,
          plural: 'backupstoragelocations',
          name: 'default',
        })) as { status?: { phase?: string } };
        return bsl.status?.phase === 'Available' && 'available';
      },
      { timeoutMs: 120_000, intervalMs: 500, description: 'Velero up and the BackupStorageLocation Available' },
    );
    if (ready === 'exited') throw new Error(`velero server exited with ${server?.exitCode}`);
    return {
      namespace,
      user: `system:serviceaccount:${namespace}:velero`,
      s3Url,
      bucket: BUCKET,
      bucketDir,
      log: () => (options.inCluster ? inClusterServerLog(namespace, LOG_LINES) : [...veleroLines]),
      workDir: work,
      ...(hostProcess ? { hostProcess } : {}),
      stop,
    };
  } catch (error) {
    const serverLines = options.inCluster ? inClusterServerLog(namespace, 15) : veleroLines.slice(-15);
    const tail = [...serverLines, ...s3Lines.slice(-5)].join('\n');
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`);
  }
}
