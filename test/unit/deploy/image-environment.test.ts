// Where the server listens in every shipped artifact (issue 26): the image's own environment
// (both the Dockerfile and the engine-less OCI build, deploy/image/write-oci-layout.mjs, whose
// image config is written here exactly as build-oci.sh writes it) sets no REHEARSAL_HOST, so the
// server's loopback default holds; the manifests say 127.0.0.1 for the API and open only the
// probe and aggregated ports. test/integration/image.test.ts runs the built image with its own
// environment and checks the address it binds.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../../server/config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function ociImageEnv(): string[] {
  const work = mkdtempSync(path.join(tmpdir(), 'oci-env-'));
  try {
    const layout = path.join(work, 'layout');
    execFileSync(process.execPath, [path.join(repoRoot, 'deploy/image/write-oci-layout.mjs'), work, layout, 'rehearsal:test'], { stdio: 'pipe' });
    const blob = (digest: string) => JSON.parse(readFileSync(path.join(layout, 'blobs/sha256', digest.replace('sha256:', '')), 'utf8'));
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
    const manifest = blob(index.manifests[0]!.digest) as { config: { digest: string } };
    return (blob(manifest.config.digest) as { config: { Env: string[] } }).config.Env;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The ENV of the Dockerfile's final stage, as NAME=value pairs. */
function dockerfileEnv(): string[] {
  const text = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const finalStage = text.slice(text.lastIndexOf('\nFROM '));
  return [...finalStage.matchAll(/^ENV (.+)$/gm)].flatMap((match) => match[1]!.trim().split(/\s+/));
}

describe('the image environment', () => {
  it('sets no REHEARSAL_HOST (OCI image config and Dockerfile), so the server binds loopback', () => {
    const env = ociImageEnv();
    expect(env).toContain('NODE_ENV=production');
    expect(env.filter((entry) => entry.startsWith('REHEARSAL_HOST='))).toEqual([]);
    expect(dockerfileEnv().filter((entry) => entry.startsWith('REHEARSAL_HOST='))).toEqual([]);
    const asTheImageRuns = Object.fromEntries(env.map((entry) => entry.split(/=(.*)/s).slice(0, 2)));
    expect(loadConfig(asTheImageRuns).host).toBe('127.0.0.1');
  });

  it('the kustomize Deployment names 127.0.0.1 for the API and the pod network for probes and aggregation only', () => {
    const documents = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy/base/deployment.yaml'), 'utf8')).map((doc) => doc.toJS());
    const deployment = documents.find((doc) => doc?.kind === 'Deployment') as {
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
    };
    const env = Object.fromEntries(deployment.spec.template.spec.containers[0]!.env.map((entry) => [entry.name, entry.value]));
    expect(env).toMatchObject({ REHEARSAL_HOST: '127.0.0.1', REHEARSAL_PROBE_HOST: '0.0.0.0', REHEARSAL_AGGREGATION_HOST: '0.0.0.0' });
  });
});
