// How the server runs when installed, for the benchmarks to run it the same way: the V8 flags of the
// image's entrypoint (the Dockerfile's ENTRYPOINT, which deploy/image/write-oci-layout.mjs copies)
// and the Deployment's MALLOC_ARENA_MAX.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The node flags between the node binary and the server's script in the Dockerfile's ENTRYPOINT. */
export function imageNodeFlags(root = repoRoot): string[] {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error('no ENTRYPOINT in the Dockerfile');
  const words = JSON.parse(entrypoint) as string[];
  return words.slice(1, -1);
}

export function deployedRuntime(root = repoRoot): { nodeFlags: string[]; env: Record<string, string> } {
  const manifest = readFileSync(path.join(root, 'deploy/base/deployment.yaml'), 'utf8');
  const arenas = /name: MALLOC_ARENA_MAX, value: '([^']*)'/.exec(manifest)?.[1];
  return { nodeFlags: imageNodeFlags(root), env: arenas ? { MALLOC_ARENA_MAX: arenas } : {} };
}
