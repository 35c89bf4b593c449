// Stops what global-setup.js started (never a cluster the user brought with KUBECONFIG).
// Set REHEARSAL_KEEP_CLUSTER=1 to keep the local control plane for debugging.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function globalTeardown() {
  const file = process.env.REHEARSAL_TEST_CLUSTER_FILE ?? path.join(repoRoot, 'test/.tmp/cluster.json');
  const info = JSON.parse(readFileSync(file, 'utf8'));
  if (info.source === 'local-binaries' && info.workDir && !process.env.REHEARSAL_KEEP_CLUSTER) {
    execFileSync('bash', [path.join(repoRoot, 'test/cluster/down.sh'), info.workDir], { stdio: 'inherit' });
  }
  if (globalThis.__k3s) await globalThis.__k3s.stop();
}
