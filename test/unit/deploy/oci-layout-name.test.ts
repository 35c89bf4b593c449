// The server image's OCI layout names the image the way each loader reads it: containerd (`ctr
// images import`, `kind load image-archive`) by `io.containerd.image.name`, which must be the full
// reference the chart's Deployment asks for, or the kubelet finds no image under that name on a
// registry-less node; OCI tools (umoci, skopeo) by `org.opencontainers.image.ref.name`, the tag.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function indexAnnotations(ref: string): Record<string, string> {
  const work = mkdtempSync(path.join(tmpdir(), 'oci-name-'));
  try {
    const layout = path.join(work, 'layout');
    execFileSync(process.execPath, [path.join(repoRoot, 'deploy/image/write-oci-layout.mjs'), work, layout, ref], {
      stdio: 'pipe',
    });
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as {
      manifests: { annotations?: Record<string, string> }[];
    };
    expect(index.manifests).toHaveLength(1);
    return index.manifests[0]!.annotations ?? {};
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('the OCI layout of the server image', () => {
  it('carries the full reference for containerd and the tag for OCI tools', () => {
    expect(indexAnnotations('ghcr.io/rehearsal-dev/rehearsal:0.1.0')).toEqual({
      'io.containerd.image.name': 'ghcr.io/rehearsal-dev/rehearsal:0.1.0',
      'org.opencontainers.image.ref.name': '0.1.0',
    });
  });

  it('keeps a registry port in the name and takes only the tag after it', () => {
    expect(indexAnnotations('registry.local:5000/team/rehearsal:1.2.3')).toEqual({
      'io.containerd.image.name': 'registry.local:5000/team/rehearsal:1.2.3',
      'org.opencontainers.image.ref.name': '1.2.3',
    });
  });
});
