// write-image.mjs LAYOUT REF CONFIG_JSON LAYER_BLOB... — writes an OCI image layout (oci-layout,
// index.json, blobs/sha256/...) for one linux/amd64 image from gzip layer blobs (files named
// <digest>.tar.gz beside a <digest>.diffid file holding the uncompressed digest).
// CONFIG_JSON is the image config's `config` object (Entrypoint, Cmd, Env, User, WorkingDir,
// ExposedPorts). The index names the image twice: `io.containerd.image.name` (the full reference,
// which `ctr images import` uses) and `org.opencontainers.image.ref.name` (the tag, per the OCI spec).
// Timestamps are the epoch, so the same inputs give the same digests.
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const [layout, ref, configJson, ...layerFiles] = process.argv.slice(2);
const dir = join(layout, 'blobs', 'sha256');
mkdirSync(dir, { recursive: true });
const layers = layerFiles.map((file) => {
  const digest = basename(file).replace(/\.tar\.gz$/, '');
  copyFileSync(file, join(dir, digest));
  const diffId = readFileSync(file.replace(/\.tar\.gz$/, '.diffid'), 'utf8').trim();
  return { digest, diffId, size: statSync(file).size };
});

function writeBlob(value) {
  const bytes = Buffer.from(JSON.stringify(value));
  const digest = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(dir, digest), bytes);
  return { digest: `sha256:${digest}`, size: bytes.length };
}

const created = '1970-01-01T00:00:00Z';
const config = writeBlob({
  created,
  architecture: 'amd64',
  os: 'linux',
  config: { ...JSON.parse(configJson), Labels: { 'org.opencontainers.image.ref.name': ref } },
  rootfs: { type: 'layers', diff_ids: layers.map((l) => `sha256:${l.diffId}`) },
  history: layers.map(() => ({ created, created_by: 'rehearsal test/cluster/images/build-images.sh' })),
});
const manifest = writeBlob({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
  layers: layers.map((l) => ({
    mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
    digest: `sha256:${l.digest}`,
    size: l.size,
  })),
});
writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
writeFileSync(
  join(layout, 'index.json'),
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        ...manifest,
        platform: { architecture: 'amd64', os: 'linux' },
        annotations: {
          'io.containerd.image.name': ref,
          'org.opencontainers.image.ref.name': ref.split(':').pop(),
        },
      },
    ],
  }),
);
