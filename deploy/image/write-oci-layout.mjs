// write-oci-layout.mjs BLOBS LAYOUT REF name:digest:diffid:size... — writes an OCI image layout
// (image-spec v1.0: oci-layout, index.json, blobs/sha256/...) from gzip layer blobs already named by
// their digest. The image config names the entrypoint, the non-root user and the layers' diff IDs.
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [blobs, layout, ref, ...layerArgs] = process.argv.slice(2);
const dir = join(layout, 'blobs', 'sha256');
mkdirSync(dir, { recursive: true });
const layers = layerArgs.map((arg) => {
  const [name, spec] = arg.split(/:(.*)/s);
  const [digest, diffId, size] = spec.trim().split(/\s+/);
  renameSync(join(blobs, digest), join(dir, digest));
  return { name, digest, diffId, size: Number(size) };
});

function writeBlob(value) {
  const bytes = Buffer.from(JSON.stringify(value));
  const digest = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(dir, digest), bytes);
  return { digest: `sha256:${digest}`, size: bytes.length };
}

/** The Dockerfile's ENTRYPOINT (node, its V8 flags, the server), with this image's node path. */
function entrypoint() {
  const dockerfile = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../Dockerfile'), 'utf8');
  const [node, ...rest] = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)[1]);
  if (!node.endsWith('/node')) throw new Error(`unexpected ENTRYPOINT in the Dockerfile: ${node}`);
  return ['/usr/local/bin/node', ...rest];
}

const created = '1970-01-01T00:00:00Z'; // reproducible: the same inputs give the same digests
const config = writeBlob({
  created,
  architecture: 'amd64',
  os: 'linux',
  config: {
    User: '65532:65532',
    Env: [
      'PATH=/usr/local/bin:/usr/bin:/bin',
      'NODE_ENV=production',
      'HOME=/tmp',
    ],
    Entrypoint: entrypoint(),
    WorkingDir: '/app',
    ExposedPorts: { '8080/tcp': {}, '8081/tcp': {}, '8443/tcp': {} },
    Labels: {
      'org.opencontainers.image.title': 'rehearsal',
      'org.opencontainers.image.ref.name': ref,
      'org.opencontainers.image.licenses': 'Apache-2.0',
    },
  },
  rootfs: { type: 'layers', diff_ids: layers.map((l) => `sha256:${l.diffId}`) },
  history: layers.map((l) => ({ created, created_by: `rehearsal deploy/image/build-oci.sh: ${l.name}` })),
});
const manifest = writeBlob({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
  layers: layers.map((l) => ({
    mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
    digest: `sha256:${l.digest}`,
    size: l.size,
    annotations: { 'org.opencontainers.image.title': l.name },
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
        // The full reference under containerd's own key (what `ctr images import` and `kind load
        // image-archive` name the image by); the OCI key holds only the tag, as the spec asks.
        annotations: {
          'io.containerd.image.name': ref,
          'org.opencontainers.image.ref.name': ref.split(':').pop(),
        },
      },
    ],
  }),
);
for (const l of layers) console.log(`layer ${l.name}: sha256:${l.digest} ${(l.size / 1e6).toFixed(1)} MB compressed`);
console.log(`manifest ${manifest.digest}`);
