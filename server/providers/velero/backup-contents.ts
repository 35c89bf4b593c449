// The manifests of a Velero backup, for the pre-flight check (issue 32): Velero keeps each backup
// as a gzip'd tarball in its bucket (a DownloadRequest for BackupContents signs its URL, as
// `velero backup download` does), one JSON file per object:
//   resources/<resource>[.<group>]/namespaces/<namespace>/<name>.json
//   resources/<resource>[.<group>]/<version>-preferredversion/namespaces/<namespace>/<name>.json
// (layout from Velero v1.18 pkg/backup/item_backupper.go; the second with the EnableAPIGroupVersions
// feature, the same object at its preferred version). The tarball is read as it streams in and
// only the claims, pods and workloads of the test's source namespaces are kept: the rest of a
// large backup passes through without being held.
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { request } from 'undici';
import type { ManifestObject } from '../../domain/preflight/pod-templates.js';
import { parseBoundedJson } from '../../domain/common/bounded-json.js';
import { DownloadError, withDownloadUrl, type DownloadLimits } from './download-request.js';
import { TarError, TarReader } from './tar-reader.js';
import type { VeleroCustomObjectsApi } from './velero-types.js';

/** The resources the pre-flight reads, as Velero names their directories. */
export const PREFLIGHT_RESOURCES: ReadonlySet<string> = new Set([
  'persistentvolumeclaims',
  'pods',
  'deployments.apps',
  'statefulsets.apps',
  'daemonsets.apps',
  'replicasets.apps',
  'jobs.batch',
  'cronjobs.batch',
]);

export interface ContentsLimits {
  fetchTimeoutMs: number;
  /** Compressed bytes read at most. */
  maxBytes: number;
  /** One object's JSON at most (the apiserver's own limit on an object is about 1.5 MiB). */
  maxObjectBytes: number;
  /** Objects kept at most. */
  maxObjects: number;
}

export const DEFAULT_CONTENTS_LIMITS: ContentsLimits = {
  fetchTimeoutMs: 60_000,
  maxBytes: 256 * 1024 * 1024,
  maxObjectBytes: 2 * 1024 * 1024,
  maxObjects: 10_000,
};

/** A tarball path's resource, namespace and name; undefined for anything else (cluster-scoped, metadata). */
export function objectPath(path: string): { resource: string; namespace: string; name: string } | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'resources' || parts.length < 5) return undefined;
  const rest = parts[2]!.endsWith('-preferredversion') ? parts.slice(3) : parts.slice(2);
  if (rest.length !== 3 || rest[0] !== 'namespaces' || !rest[2]!.endsWith('.json')) return undefined;
  return { resource: parts[1]!, namespace: rest[1]!, name: rest[2]!.slice(0, -'.json'.length) };
}

function manifest(data: Buffer, where: string): ManifestObject {
  let object: unknown;
  try {
    object = parseBoundedJson(data.toString('utf8'), { maxLength: data.length, maxDepth: 64 });
  } catch (error) {
    throw new DownloadError(`${where} is not JSON: ${(error as Error).message}`);
  }
  const candidate = object as Partial<ManifestObject>;
  if (typeof candidate?.kind !== 'string' || typeof candidate.apiVersion !== 'string' || typeof candidate.metadata?.name !== 'string') {
    throw new DownloadError(`${where} is not a Kubernetes object`);
  }
  return candidate as ManifestObject;
}

/** The pre-flight's manifests of the source namespaces, read from the backup's tarball. */
export async function readBackupManifests(
  api: VeleroCustomObjectsApi,
  group: string,
  veleroNamespace: string,
  backupName: string,
  sourceNamespaces: readonly string[],
  answerLimits: DownloadLimits,
  limits: ContentsLimits = DEFAULT_CONTENTS_LIMITS,
): Promise<ManifestObject[]> {
  const sources = new Set(sourceNamespaces);
  return withDownloadUrl(api, group, veleroNamespace, { kind: 'BackupContents', name: backupName }, answerLimits, async (url) => {
    // One object may appear twice (its own directory and the preferred version's): kept once.
    const objects = new Map<string, ManifestObject>();
    const reader = new TarReader({
      maxFileBytes: limits.maxObjectBytes,
      wants: (path) => {
        const where = objectPath(path);
        return where !== undefined && PREFLIGHT_RESOURCES.has(where.resource) && sources.has(where.namespace);
      },
      onFile: (path, data) => {
        const where = objectPath(path)!;
        const key = `${where.resource}/${where.namespace}/${where.name}`;
        if (objects.has(key)) return;
        if (objects.size >= limits.maxObjects) throw new DownloadError(`the backup holds more than ${limits.maxObjects} workloads and claims`);
        objects.set(key, manifest(data, path.slice(0, 200)));
      },
    });
    const where = url.host;
    let response;
    try {
      response = await request(url, { method: 'GET', signal: AbortSignal.timeout(limits.fetchTimeoutMs) });
    } catch (error) {
      throw new DownloadError(`fetching the backup from the object store at ${where}: ${(error as Error).message}`);
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new DownloadError(`the object store at ${where} answered HTTP ${response.statusCode}`);
    }
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > limits.maxBytes ? new DownloadError(`the backup is larger than ${limits.maxBytes} bytes`) : null, chunk);
      },
    });
    const entries = new Writable({
      write(chunk: Buffer, _encoding, done) {
        try {
          reader.write(chunk);
          done();
        } catch (error) {
          done(error as Error);
        }
      },
      final(done) {
        try {
          reader.end();
          done();
        } catch (error) {
          done(error as Error);
        }
      },
    });
    try {
      await pipeline(response.body, counted, createGunzip(), entries);
    } catch (error) {
      if (error instanceof DownloadError) throw error;
      if (error instanceof TarError) throw new DownloadError(`the backup's tarball is unreadable: ${error.message}`);
      throw new DownloadError(`reading the backup from the object store at ${where}: ${(error as Error).message}`);
    }
    return [...objects.values()];
  });
}
