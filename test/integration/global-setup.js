// Gives the integration project a real Kubernetes control plane, chosen in this order:
//   1. an explicit KUBECONFIG (a user's kind or other cluster),
//   2. a K3s container through testcontainers when a Docker engine answers,
//   3. the local binaries (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK)
//      built from Go modules by test/cluster/build-binaries.sh — what CI here uses.
// It prints which one it uses, installs the CRDs, and records the choice in test/.tmp/cluster.json
// (read by test/helpers/cluster-info.ts). Plain JavaScript: Jest loads global setup untransformed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = path.join(repoRoot, 'test/.tmp');

async function dockerAnswers() {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startK3s() {
  const { K3sContainer } = await import('@testcontainers/k3s');
  const container = await new K3sContainer('rancher/k3s:v1.35.4-k3s1').start();
  const kubeconfigPath = path.join(tmp, 'k3s.kubeconfig');
  writeFileSync(kubeconfigPath, container.getKubeConfig());
  globalThis.__k3s = container;
  return { source: 'k3s', kubeconfigPath };
}

// With the local binaries comes a real node (kubelet, containerd, kube-proxy, CoreDNS, kube-router:
// test/cluster/node-up.sh) unless REHEARSAL_REAL_NODE=0. Where this host cannot run one, or it
// failed to start, up.sh still starts the control plane and node-status says why; `node` in
// cluster.json carries that to test/helpers/real-node.ts, which skips (loudly) or fails the tests
// that need it.
function startLocalBinaries() {
  // REHEARSAL_TEST_CLUSTER_DIR: test/run-all.sh runs two lanes, each with its own cluster.
  const workDir = path.resolve(repoRoot, process.env.REHEARSAL_TEST_CLUSTER_DIR ?? path.join(tmp, 'cluster'));
  const withNode = process.env.REHEARSAL_REAL_NODE !== '0';
  const kubeconfigPath = execFileSync(
    'bash',
    [path.join(repoRoot, 'test/cluster/up.sh'), workDir, ...(withNode ? ['--with-node'] : [])],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ).trim();
  const info = { source: 'local-binaries', kubeconfigPath, workDir, auditLogPath: path.join(workDir, 'audit.log') };
  if (!withNode) {
    return { ...info, node: { status: 'unavailable', reason: 'REHEARSAL_REAL_NODE=0 (no real node was started)' } };
  }
  const statusFile = path.join(workDir, 'node-status');
  const lines = existsSync(statusFile) ? readFileSync(statusFile, 'utf8').trim().split('\n') : [];
  const [status, ...reason] = (lines[0] ?? 'failed: up.sh wrote no node-status').split(': ');
  return { ...info, node: { status, reason: [reason.join(': '), ...lines.slice(1)].join('\n').trim() } };
}

function installCrds(kubeconfigPath) {
  const kubectl = (args) =>
    execFileSync('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Kasten's CRDs are ours, written from its documentation; Trilio's are TVK's own without their
  // descriptions (test/trilio/crds-gen), so the apiserver prunes a Restore as TVK's would.
  const dirs = ['crds', 'test/fixtures/velero/crds', 'test/kasten/crds', 'test/trilio/crds'];
  for (const dir of dirs.map((entry) => path.join(repoRoot, entry))) {
    // crds/ is a kustomization (deploy/ builds on it); Velero's CRDs are plain files.
    const source = existsSync(path.join(dir, 'kustomization.yaml')) ? ['-k', dir] : ['-f', dir];
    if (existsSync(dir)) kubectl(['apply', '--server-side', '--force-conflicts', ...source]);
  }
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}

// Every suite runs with the installation's admission policies (decision 0009) and the user roles,
// as a cluster with Rehearsal installed would.
function installPolicies(kubeconfigPath) {
  const base = path.join(repoRoot, 'deploy/base');
  const files = ['namespace.yaml', 'admission-params.yaml', 'restoretest-admission.yaml', 'server-admission.yaml', 'sandbox-label-admission.yaml', 'user-roles.yaml'];
  execFileSync('kubectl', ['--kubeconfig', kubeconfigPath, 'apply', ...files.flatMap((file) => ['-f', path.join(base, file)])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export default async function globalSetup() {
  mkdirSync(tmp, { recursive: true });
  let info;
  if (process.env.KUBECONFIG) info = { source: 'kubeconfig', kubeconfigPath: process.env.KUBECONFIG };
  else if (await dockerAnswers()) info = await startK3s();
  else info = startLocalBinaries();
  console.log(`\n[integration] Kubernetes control plane: ${info.source} (${info.kubeconfigPath})`);
  if (info.node) console.log(`[integration] real node: ${info.node.status} (${info.node.reason})`);
  // REHEARSAL_TEST_CLUSTER_FILE lets concurrent runs (each with its own KUBECONFIG) keep apart.
  writeFileSync(process.env.REHEARSAL_TEST_CLUSTER_FILE ?? path.join(tmp, 'cluster.json'), JSON.stringify(info));
  installCrds(info.kubeconfigPath);
  installPolicies(info.kubeconfigPath);
}
