// CSI volume snapshots on the real node, for the tests that restore volume data through them
// (issue 27): the upstream external-provisioner, external-snapshotter (csi-snapshotter sidecar and
// snapshot-controller) and the VolumeSnapshot CRDs, with the minimal driver of test/cluster/csi
// (the upstream hostpath driver is not served by the module proxy here). All of them run as host
// processes beside the kubelet, as the node's other host pieces do: the driver must share the
// kubelet's mount namespace to bind-mount volumes into pods, and it registers itself with the
// kubelet through its plugins_registry directory. Built by test/cluster/build-csi.sh (cached).
//
// What the tests get: a StorageClass whose claims are CSI volumes, and a VolumeSnapshotClass Velero
// picks (label velero.io/csi-volumesnapshot-class). It is test infrastructure, never part of
// Rehearsal: Rehearsal sees only the claims, snapshots and contents any CSI driver leaves.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import { readClusterInfo, repoRoot } from './cluster-info.js';
import { kubectl } from './install-crds.js';
import { testKubeconfigPath, waitFor } from './kube.js';

export const CSI_DRIVER = 'hostpath.csi.rehearsal.dev';

export interface CsiHostpath {
  driver: string;
  storageClass: string;
  snapshotClass: string;
  /** The snapshots the driver holds now (their IDs): what deleting API objects must not remove. */
  storedSnapshots(): string[];
  /** The driver's and the sidecars' last log lines, for failure messages. */
  log(): string[];
  stop(): Promise<void>;
}

export interface CsiHostpathOptions {
  nodeName: string;
  storageClass?: string;
  snapshotClass?: string;
}

const LOG_LINES = 300;

/** The cached binaries and CRDs (built on first use). */
export function csiBinaries(): string {
  return execFileSync('bash', [path.join(repoRoot, 'test/cluster/build-csi.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

export async function startCsiHostpath(admin: KubeConfig, options: CsiHostpathOptions): Promise<CsiHostpath> {
  const bin = csiBinaries();
  const storageClass = options.storageClass ?? 'rehearsal-csi';
  const snapshotClass = options.snapshotClass ?? 'rehearsal-csi';
  const clusterDir = readClusterInfo().workDir;
  if (!clusterDir) throw new Error('the CSI driver needs the local test cluster (its kubelet root directory)');
  const kubeletRoot = path.join(clusterDir, 'node/kubelet');
  const work = path.join(repoRoot, 'test/.tmp/csi-hostpath');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const adminPath = testKubeconfigPath();

  for (const crd of readdirSync(path.join(bin, 'crd'))) {
    kubectl(adminPath, ['apply', '--server-side', '--force-conflicts', '-f', path.join(bin, 'crd', crd)]);
  }
  kubectl(adminPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/volumesnapshots.snapshot.storage.k8s.io', 'crd/volumesnapshotcontents.snapshot.storage.k8s.io', 'crd/volumesnapshotclasses.snapshot.storage.k8s.io']);
  const storage = admin.makeApiClient(StorageV1Api);
  await ensure(() =>
    storage.createCSIDriver({
      body: {
        metadata: { name: CSI_DRIVER },
        // No attach step (a directory on this node), persistent volumes only, and the kubelet applies
        // a pod's fsGroup to the files (as the upstream hostpath driver asks).
        spec: { attachRequired: false, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'], fsGroupPolicy: 'File' },
      },
    }),
  );
  await ensure(() =>
    storage.createStorageClass({
      body: { metadata: { name: storageClass }, provisioner: CSI_DRIVER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' },
    }),
  );
  await ensure(() =>
    admin.makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      plural: 'volumesnapshotclasses',
      body: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotClass',
        metadata: { name: snapshotClass, labels: { 'velero.io/csi-volumesnapshot-class': 'true' } },
        driver: CSI_DRIVER,
        deletionPolicy: 'Delete',
      },
    }),
  );

  const lines: string[] = [];
  const children: ChildProcess[] = [];
  const start = (name: string, command: string, args: string[]) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      appendFileSync(path.join(work, `${name}.log`), chunk);
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        lines.push(`${name}: ${line}`);
        if (lines.length > LOG_LINES) lines.shift();
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.push(child);
  };
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };

  const csiSocket = path.join(kubeletRoot, 'plugins', CSI_DRIVER, 'csi.sock');
  try {
    start('driver', path.join(bin, 'rehearsal-csi-hostpath'), [
      `--driver-name=${CSI_DRIVER}`,
      `--endpoint=${csiSocket}`,
      `--registration-socket=${path.join(kubeletRoot, 'plugins_registry', `${CSI_DRIVER}-reg.sock`)}`,
      `--node-id=${options.nodeName}`,
      `--state-dir=${path.join(work, 'state')}`,
    ]);
    // No leader election (one of each) and no HTTP listeners: the sidecars' metrics endpoints are
    // off unless asked for.
    const common = [`--kubeconfig=${adminPath}`, '--leader-election=false', '--v=2'];
    start('csi-provisioner', path.join(bin, 'csi-provisioner'), [...common, `--csi-address=${csiSocket}`, '--timeout=120s']);
    start('csi-snapshotter', path.join(bin, 'csi-snapshotter'), [...common, `--csi-address=${csiSocket}`, '--timeout=120s']);
    start('snapshot-controller', path.join(bin, 'snapshot-controller'), common);
    // The kubelet lists a registered driver in the node's CSINode.
    await waitFor(
      async () => {
        if (children.some((child) => child.exitCode !== null)) throw new Error(`a CSI process exited:\n${lines.slice(-30).join('\n')}`);
        const csiNode = await storage.readCSINode({ name: options.nodeName }).catch(() => undefined);
        return (csiNode?.spec.drivers ?? []).some((driver) => driver.name === CSI_DRIVER);
      },
      { timeoutMs: 60_000, intervalMs: 500, description: `the kubelet to register ${CSI_DRIVER}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const storedSnapshots = () =>
    readdirSync(path.join(work, 'state/snapshots')).filter((entry) => entry.startsWith('snap-') && !entry.endsWith('.partial'));
  return { driver: CSI_DRIVER, storageClass, snapshotClass, storedSnapshots, log: () => [...lines], stop };
}
