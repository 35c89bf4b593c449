// Gives the integration project a real Kubernetes control plane, chosen in this order:
//   1. an explicit KUBECONFIG (a user's kind or other cluster),
//   2. a K3s container through testcontainers when a Docker engine answers,
//   3. the local binaries (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK)
//      built from Go modules by test/cluster/build-binaries.sh — what CI here uses.
// It prints which one it uses, installs the CRDs, and records the choice for the tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { clusterInfoFile, repoRoot, type TestClusterInfo } from '../helpers/cluster-info.js';
import { installTestCrds } from '../helpers/install-crds.js';

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startK3s(): Promise<TestClusterInfo> {
  const { K3sContainer } = await import('@testcontainers/k3s');
  const container = await new K3sContainer('rancher/k3s:v1.35.4-k3s1').start();
  const kubeconfigPath = path.join(repoRoot, 'test/.tmp/k3s.kubeconfig');
  writeFileSync(kubeconfigPath, container.getKubeConfig());
  (globalThis as { __k3s?: unknown }).__k3s = container;
  return { source: 'k3s', kubeconfigPath };
}

function startLocalBinaries(): TestClusterInfo {
  const workDir = path.join(repoRoot, 'test/.tmp/cluster');
  const kubeconfigPath = execFileSync('bash', [path.join(repoRoot, 'test/cluster/up.sh'), workDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return { source: 'local-binaries', kubeconfigPath, workDir, auditLogPath: path.join(workDir, 'audit.log') };
}

export default async function globalSetup(): Promise<void> {
  mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
  let info: TestClusterInfo;
  if (process.env.KUBECONFIG) {
    info = { source: 'kubeconfig', kubeconfigPath: process.env.KUBECONFIG };
  } else if (await dockerAnswers()) {
    info = await startK3s();
  } else {
    info = startLocalBinaries();
  }
  console.log(`\n[integration] Kubernetes control plane: ${info.source} (${info.kubeconfigPath})`);
  writeFileSync(clusterInfoFile, JSON.stringify(info));
  await installTestCrds(info.kubeconfigPath);
}
