// Reads one file Velero keeps in its object store, the way the velero CLI does it: a
// velero.io/v1 DownloadRequest names the file (target kind + backup name), Velero answers with a
// pre-signed URL in status.downloadURL, and the file (gzip'd) is fetched from there. Rehearsal
// holds no object-store credentials. The DownloadRequest is deleted after use; one left behind (a
// crash in between) is deleted by Velero itself once its URL expires (status.expiration, 10 min).
//
// Bounded everywhere: Velero's answer, the HTTP request and the body (compressed and inflated)
// each have a cap, because this runs inside the leader's reconcile.
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { request } from 'undici';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../../domain/resources/resources.js';
import { DOWNLOAD_REQUESTS, VELERO_VERSION, type VeleroCustomObjectsApi, type VeleroDownloadRequest } from './velero-types.js';

const inflate = promisify(gunzip);

export interface DownloadLimits {
  /** How long Velero may take to sign the URL. */
  answerTimeoutMs: number;
  /** The whole HTTP fetch. */
  fetchTimeoutMs: number;
  /** Compressed bytes read at most. */
  maxBytes: number;
  /** Inflated bytes at most. */
  maxInflatedBytes: number;
  pollIntervalMs: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  answerTimeoutMs: 15_000,
  fetchTimeoutMs: 15_000,
  maxBytes: 4 * 1024 * 1024,
  maxInflatedBytes: 32 * 1024 * 1024,
  pollIntervalMs: 200,
};

export class DownloadError extends Error {}

export interface DownloadTarget {
  kind: 'BackupResourceList' | 'RestoreVolumeInfo' | 'BackupContents';
  name: string;
}

export async function downloadVeleroFile(
  api: VeleroCustomObjectsApi,
  group: string,
  namespace: string,
  target: DownloadTarget,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
): Promise<Buffer> {
  return withDownloadUrl(api, group, namespace, target, limits, (url) => fetchGzip(url, limits));
}

/**
 * Asks Velero for the file's signed URL and hands it to `use` (a checked http(s) URL); the
 * DownloadRequest is deleted afterwards, whatever `use` did.
 */
export async function withDownloadUrl<T>(
  api: VeleroCustomObjectsApi,
  group: string,
  namespace: string,
  target: DownloadTarget,
  limits: DownloadLimits,
  use: (url: URL) => Promise<T>,
): Promise<T> {
  const resource = { group, version: VELERO_VERSION, namespace, plural: DOWNLOAD_REQUESTS };
  const created = (await api.createNamespacedCustomObject({
    ...resource,
    body: {
      apiVersion: `${group}/${VELERO_VERSION}`,
      kind: 'DownloadRequest',
      metadata: { generateName: 'rehearsal-', labels: { [LABEL_MANAGED_BY]: MANAGED_BY_VALUE } },
      spec: { target },
    },
  })) as VeleroDownloadRequest;
  const name = created.metadata.name;
  try {
    return await use(checkedUrl(await signedUrl(api, resource, name, limits)));
  } finally {
    await api.deleteNamespacedCustomObject({ ...resource, name }).catch(() => undefined);
  }
}

async function signedUrl(
  api: VeleroCustomObjectsApi,
  resource: { group: string; version: string; namespace: string; plural: string },
  name: string,
  limits: DownloadLimits,
): Promise<string> {
  const deadline = Date.now() + limits.answerTimeoutMs;
  for (;;) {
    const current = (await api.getNamespacedCustomObject({ ...resource, name })) as VeleroDownloadRequest;
    const url = current.status?.downloadURL;
    if (current.status?.phase === 'Processed' && url) return url;
    if (Date.now() >= deadline) {
      throw new DownloadError(`Velero did not answer DownloadRequest ${resource.namespace}/${name} within ${limits.answerTimeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, limits.pollIntervalMs));
  }
}

function checkedUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DownloadError("Velero's download URL is not a URL");
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DownloadError(`Velero's download URL has scheme ${parsed.protocol}`);
  }
  return parsed;
}

async function fetchGzip(parsed: URL, limits: DownloadLimits): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.fetchTimeoutMs);
  // The host is named only (never the query: it carries the signature).
  const where = parsed.host;
  let response;
  try {
    response = await request(parsed, { method: 'GET', signal });
  } catch (error) {
    throw new DownloadError(`fetching from the object store at ${where}: ${(error as Error).message}`);
  }
  if (response.statusCode !== 200) {
    await response.body.dump().catch(() => undefined);
    throw new DownloadError(`the object store at ${where} answered HTTP ${response.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > limits.maxBytes) {
        response.body.destroy();
        throw new DownloadError(`the file is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    throw new DownloadError(`reading from the object store at ${where}: ${(error as Error).message}`);
  }
  try {
    return await inflate(Buffer.concat(chunks), { maxOutputLength: limits.maxInflatedBytes });
  } catch (error) {
    throw new DownloadError(`the file is not gzip within ${limits.maxInflatedBytes} bytes: ${(error as Error).message}`);
  }
}
