// Image references as a node reports them. A pod says "nginx:1.27" or "ghcr.io/a/b@sha256:…"; the
// kubelet lists the runtime's images fully qualified ("docker.io/library/nginx:1.27" and
// "docker.io/library/nginx@sha256:…"). Both sides are normalized the way the container runtimes
// do (docker.io for a name without a registry, library/ for a one-part name, :latest without a
// tag or digest), so the same image compares equal. Pure.

/** Whether the first path part names a registry (has a dot or a port, or is localhost). */
function hasRegistry(first: string): boolean {
  return first.includes('.') || first.includes(':') || first === 'localhost';
}

/**
 * The normalized names an image may be listed under: with its digest, and with its tag (an image
 * given by tag and digest is present under either).
 */
export function imageReference(image: string): string[] {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  let name = at >= 0 ? image.slice(0, at) : image;
  let tag: string | undefined;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = name.slice(colon + 1);
    name = name.slice(0, colon);
  }
  const parts = name.split('/');
  if (!hasRegistry(parts[0]!)) {
    name = parts.length === 1 ? `docker.io/library/${name}` : `docker.io/${name}`;
  }
  const names: string[] = [];
  if (digest) names.push(`${name}@${digest}`);
  if (tag) names.push(`${name}:${tag}`);
  if (!digest && !tag) names.push(`${name}:latest`);
  return names;
}

/** Every normalized name of the images a node lists (status.images[].names). */
export function nodeImageNames(images: readonly { names?: readonly string[] }[]): Set<string> {
  const names = new Set<string>();
  for (const image of images) for (const listed of image.names ?? []) for (const name of imageReference(listed)) names.add(name);
  return names;
}
