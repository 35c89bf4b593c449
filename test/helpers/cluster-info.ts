import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * Written by the integration global setup; REHEARSAL_TEST_CLUSTER_FILE keeps concurrent runs apart
 * (and points the demo, deploy/local, at its own cluster). Read on each call: the demo sets it once
 * its cluster is up.
 */
export function clusterInfoFile(): string {
  return process.env.REHEARSAL_TEST_CLUSTER_FILE ?? path.join(repoRoot, 'test/.tmp/cluster.json');
}

export interface TestClusterInfo {
  source: 'kubeconfig' | 'k3s' | 'local-binaries';
  kubeconfigPath: string;
  /** Local binaries only: the up.sh work directory. */
  workDir?: string;
  /** Local binaries only: the apiserver's JSON audit log (every write, with its user). */
  auditLogPath?: string;
}

export function readClusterInfo(): TestClusterInfo {
  return JSON.parse(readFileSync(clusterInfoFile(), 'utf8')) as TestClusterInfo;
}
