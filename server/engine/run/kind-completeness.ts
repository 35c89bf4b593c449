// Gathers completeness per kind for a finished restore: the tool's list of what the backup holds
// per kind and source namespace (only Velero keeps one), against what each sandbox holds now (the
// namespace mapping applied). Anything that goes wrong degrades to the tool's totals with a reason
// in the report, never a failed run: completeness is one level of the score, not the restore.
// Objects of a type a restore transform excludes are left out of it (they are not restored on
// purpose) and handed back, for the report's list of what the transforms did. A claim whose volume
// data the tool did not restore is not counted (issue 27): the Pods of the sandboxes whose
// file-system volume restores lack data are read to learn which claim each such volume is.
// A subset restore (issue 32): objects of a type outside spec.backupSource.includedResources are
// not expected; with a labelSelector the tool's list (names only, no labels) cannot say which
// objects were selected, so the per-kind list is unavailable with that reason and the restore's own
// count of what it set out to restore (the subset) stands in.
import { claimsWithoutData, needsPodClaims, type PodClaims } from '../../domain/run/claim-data.js';
import { compareKinds, type ExpectedObjects, type PresentObjects } from '../../domain/run/completeness.js';
import { exclusionOf, type RestoreTransforms } from '../../domain/run/restore-transforms.js';
import { describeSubset, resolveSubset, subsetIncludesType } from '../../domain/run/restore-subset.js';
import type { ExcludedObject } from '../../domain/run/transforms-report.js';
import type { RunObservations } from '../../domain/run/report-builder.js';
import type { CurrentRun, RestoreTest, VolumeRestoreReport } from '../../domain/resources/resources.js';
import type { BackupProvider } from '../../providers/provider.js';
import type { SandboxReader } from '../../checks/sandbox-reader.js';

export interface KindLister {
  listNames(apiVersion: string, kind: string, namespace: string): Promise<string[]>;
  /** The annotations starting with `prefix` of each object of a kind that has any. */
  listAnnotated(
    apiVersion: string,
    kind: string,
    namespace: string,
    prefix: string,
  ): Promise<{ name: string; annotations: Record<string, string> }[]>;
}

export interface KindObservation {
  kinds: RunObservations['kinds'];
  /** Objects of the backup that a transform kept out of the sandbox; undefined when the list was not read. */
  excluded?: ExcludedObject[];
}

/** The reason text in a report stays short (reports live in etcd). */
const MAX_REASON = 160;

function shortReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

/** Which claim each volume of the Pods of these sandboxes mounts. */
async function readPodClaims(reader: Pick<SandboxReader, 'listPods'>, sandboxes: Iterable<string>): Promise<PodClaims> {
  const claims = new Map<string, Map<string, string>>();
  for (const sandbox of sandboxes) {
    for (const pod of await reader.listPods(sandbox)) {
      if (pod.claims) claims.set(`${sandbox}/${pod.name}`, new Map(Object.entries(pod.claims)));
    }
  }
  return claims;
}

export async function observeKinds(
  provider: BackupProvider,
  reader: KindLister & Pick<SandboxReader, 'listPods'>,
  test: RestoreTest,
  run: CurrentRun,
  transforms: RestoreTransforms,
  volumes: readonly VolumeRestoreReport[] = [],
): Promise<KindObservation> {
  if (!provider.backedUpObjects || !run.backup?.name) return { kinds: undefined };
  const subset = resolveSubset(test.spec.backupSource);
  if (subset?.labelSelector) {
    return { kinds: { unavailable: shortReason(`a subset was restored (${describeSubset(subset)}); the backup's object list has no labels to compare with`) } };
  }
  const sandboxOf = new Map((run.sandboxNamespaces ?? []).map((entry) => [entry.source, entry.sandbox]));
  try {
    const backedUp = await provider.backedUpObjects(
      run.backup.name,
      [...sandboxOf.keys()],
      test.spec.backupSource.providerNamespace,
    );
    const excluded: ExcludedObject[] = [];
    const expected: ExpectedObjects[] = backedUp.flatMap((entry) => {
      const sandbox = sandboxOf.get(entry.sourceNamespace);
      if (!sandbox) return [];
      if (!subsetIncludesType(subset, entry.apiVersion, entry.kind)) return [];
      if (exclusionOf(transforms, entry.apiVersion, entry.kind)) {
        for (const name of entry.names) excluded.push({ apiVersion: entry.apiVersion, kind: entry.kind, namespace: entry.sourceNamespace, name });
        return [];
      }
      return [{ apiVersion: entry.apiVersion, kind: entry.kind, sandbox, names: entry.names }];
    });
    const present: PresentObjects[] = [];
    for (const entry of expected) {
      // Sequential on purpose: a handful of kinds per sandbox, and the apiserver is shared.
      const names = await reader.listNames(entry.apiVersion, entry.kind, entry.sandbox);
      present.push({ apiVersion: entry.apiVersion, kind: entry.kind, sandbox: entry.sandbox, names });
    }
    const podClaims = await readPodClaims(reader, new Set(volumes.filter(needsPodClaims).map((volume) => volume.namespace)));
    return { kinds: { completeness: compareKinds(expected, present, claimsWithoutData(volumes, podClaims)) }, excluded };
  } catch (error) {
    return { kinds: { unavailable: shortReason(error) } };
  }
}
