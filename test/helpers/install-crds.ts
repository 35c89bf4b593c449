// Installs the CRDs the integration tests need (Rehearsal's own and, when present, Velero's)
// and waits until the apiserver serves them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './cluster-info.js';

export function kubectl(kubeconfigPath: string, args: string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfigPath, ...args], {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

export async function installTestCrds(kubeconfigPath: string): Promise<void> {
  const dirs = [path.join(repoRoot, 'crds'), path.join(repoRoot, 'test/fixtures/velero/crds')].filter((dir) =>
    existsSync(dir),
  );
  for (const dir of dirs) {
    kubectl(kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '-f', dir]);
  }
  kubectl(kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}
