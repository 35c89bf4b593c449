import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readClusterInfo, repoRoot } from '../helpers/cluster-info.js';

export default async function globalTeardown(): Promise<void> {
  const info = readClusterInfo();
  if (info.source === 'local-binaries' && info.workDir && !process.env.REHEARSAL_KEEP_CLUSTER) {
    execFileSync('bash', [path.join(repoRoot, 'test/cluster/down.sh'), info.workDir], { stdio: 'inherit' });
  }
  const k3s = (globalThis as { __k3s?: { stop(): Promise<unknown> } }).__k3s;
  if (k3s) await k3s.stop();
}
