// The server's V8 flags must reach Node: the image's entrypoint carries them (the Dockerfile's
// ENTRYPOINT, copied into the OCI image by deploy/image/write-oci-layout.mjs), because Node refuses
// --optimize-for-size and --heap-growing-percent in NODE_OPTIONS: a manifest setting them there
// made every pod exit at start ("is not allowed in NODE_OPTIONS").
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageNodeFlags } from '../../bench/deployed-runtime.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MANIFESTS = ['deploy/base/deployment.yaml', 'deploy/helm/rehearsal/templates/deployment.yaml'];

/**
 * The server container's environment as a manifest writes it: one `- { name: NAME, ... }` line per
 * entry, upper-case names only (volumes and mounts are lower-case; the Helm template's other lines are
 * template directives), name → the rest.
 */
function containerEnv(text: string): Map<string, string> {
  const entries = text.matchAll(/^\s*- \{ name: ([A-Z_][A-Z0-9_]*), (.*) \}\s*$/gm);
  return new Map([...entries].map(([, name, rest]) => [name!, rest!]));
}

function nodeStarts(args: string[], env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [...args, '-e', 'process.exit(0)'], {
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr };
}

describe('the server runtime flags', () => {
  it('are on the image entrypoint, and Node accepts them there', () => {
    const flags = imageNodeFlags();
    expect(flags).toEqual(expect.arrayContaining(['--optimize-for-size', '--no-memory-reducer', '--heap-growing-percent=20']));
    expect(nodeStarts(flags)).toEqual({ status: 0, stderr: '' });
  });

  it('are refused by Node in NODE_OPTIONS (why they are not in the manifests)', () => {
    const refused = nodeStarts([], { NODE_OPTIONS: imageNodeFlags().join(' ') });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('is not allowed in NODE_OPTIONS');
  });

  it.each(MANIFESTS)('%s keeps the V8 flags out of the environment and sets MALLOC_ARENA_MAX', (manifest) => {
    const env = containerEnv(readFileSync(path.join(repoRoot, manifest), 'utf8'));
    // The entries were read (a changed layout fails here instead of passing on nothing).
    expect([...env.keys()]).toEqual(expect.arrayContaining(['REHEARSAL_NAMESPACE', 'REHEARSAL_IDENTITY', 'MALLOC_ARENA_MAX']));
    // No NODE_OPTIONS (nor any other NODE_* variable): the flags are on the entrypoint.
    expect([...env.keys()].filter((name) => name.startsWith('NODE_'))).toEqual([]);
    // The container's other runtime setting stays in the manifest.
    expect(env.get('MALLOC_ARENA_MAX')).toBe("value: '2'");
  });
});
