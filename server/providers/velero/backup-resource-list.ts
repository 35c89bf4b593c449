// Velero's BackupResourceList (the <backup>-resource-list.json.gz file Velero writes beside every
// backup in the object store): a JSON object mapping "<group/version>/<Kind>" ("v1/Secret",
// "apps/v1/Deployment") to the sorted "namespace/name" entries of what the backup holds
// (cluster-scoped objects are plain "name"). Shape from Velero v1.18.3: pkg/backup/
// backed_up_items_map.go ResourceMap() with keys from item_backupper.go resourceKey(). Pure.
import { parseBoundedJson } from '../../domain/common/bounded-json.js';
import type { BackedUpKind } from '../provider.js';

/**
 * Velero's restore never writes these into a sandbox, so they cannot count against it:
 * - Events (core and events.k8s.io): in Velero's nonRestorableResources (restore_controller.go);
 * - cluster-scoped objects, the source Namespace object first of all: Rehearsal restores with
 *   includeClusterResources false, and Velero creates the sandbox namespace from the mapping.
 */
const NEVER_RESTORED = new Set(['v1/Event', 'events.k8s.io/v1/Event', 'events.k8s.io/v1beta1/Event']);

export class ResourceListError extends Error {}

/** "apps/v1/Deployment" → apps/v1 + Deployment; "v1/Secret" → v1 + Secret. */
function splitKey(key: string): { apiVersion: string; kind: string } | undefined {
  const slash = key.lastIndexOf('/');
  if (slash <= 0 || slash === key.length - 1) return undefined;
  return { apiVersion: key.slice(0, slash), kind: key.slice(slash + 1) };
}

/** Most characters of the inflated file (download-request.ts inflates to at most 32 MiB bytes). */
const MAX_RESOURCE_LIST_LENGTH = 32 * 1024 * 1024;

/**
 * backedUpKinds of the inflated file's text: whoever can write to Velero's bucket writes it, so it
 * is parsed with a length and depth bound (the shape is two levels deep: object → array of names).
 */
export function parseResourceList(text: string, sourceNamespaces: readonly string[]): BackedUpKind[] {
  let document: unknown;
  try {
    document = parseBoundedJson(text, { maxLength: MAX_RESOURCE_LIST_LENGTH, maxDepth: 2 });
  } catch (error) {
    throw new ResourceListError(`the resource list is unreadable: ${(error as Error).message}`);
  }
  return backedUpKinds(document, sourceNamespaces);
}

/**
 * The namespaced objects of the given source namespaces, per kind, that a Velero restore sets out
 * to restore. Throws ResourceListError when the document is not Velero's shape.
 */
export function backedUpKinds(document: unknown, sourceNamespaces: readonly string[]): BackedUpKind[] {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ResourceListError('the resource list is not a JSON object');
  }
  const sources = new Set(sourceNamespaces);
  const kinds: BackedUpKind[] = [];
  for (const [key, entries] of Object.entries(document as Record<string, unknown>)) {
    const type = splitKey(key);
    if (!type || !Array.isArray(entries)) throw new ResourceListError(`unexpected entry "${key.slice(0, 80)}"`);
    if (NEVER_RESTORED.has(key)) continue;
    const bySource = new Map<string, string[]>();
    for (const entry of entries) {
      if (typeof entry !== 'string') throw new ResourceListError(`unexpected item under "${key.slice(0, 80)}"`);
      const slash = entry.indexOf('/');
      if (slash < 0) continue; // cluster-scoped (see NEVER_RESTORED)
      const namespace = entry.slice(0, slash);
      if (!sources.has(namespace)) continue;
      const names = bySource.get(namespace) ?? [];
      names.push(entry.slice(slash + 1));
      bySource.set(namespace, names);
    }
    for (const [sourceNamespace, names] of bySource) kinds.push({ ...type, sourceNamespace, names });
  }
  return kinds.sort((left, right) =>
    `${left.kind} ${left.apiVersion} ${left.sourceNamespace}`.localeCompare(
      `${right.kind} ${right.apiVersion} ${right.sourceNamespace}`,
    ),
  );
}
