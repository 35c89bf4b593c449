// kubectl against the test cluster, for tests that check what a user sees (CRD installation itself
// lives in test/integration/global-setup.js, which Jest loads untransformed).
import { execFileSync } from 'node:child_process';

export function kubectl(kubeconfigPath: string, args: string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfigPath, ...args], {
    encoding: 'utf8',
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}
