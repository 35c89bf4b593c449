// What the restore transforms did, for the report (domain/run/restore-transforms.ts decides the
// wording): the objects a transform kept out (from the backup's resource list, which the
// completeness step already read) and the restored objects the tool marked as changed
// (transforms.rehearsal.dev/<transform> annotations, read from the sandboxes). A tool that does not
// mark (Kasten, Trilio) or a read that fails makes those entries "every object of the kind"
// instead: the report never claims more than Rehearsal saw.
import type { CurrentRun, RestoreTransformsReport } from '../../domain/resources/resources.js';
import {
  apiVersionOf,
  resourceType,
  TRANSFORM_ANNOTATION_PREFIX,
  type ResourceType,
  type RestoreTransforms,
} from '../../domain/run/restore-transforms.js';
import { reportTransforms, type ExcludedObject, type MarkedObject } from '../../domain/run/transforms-report.js';
import type { BackupProvider } from '../../providers/provider.js';
import type { KindLister } from './kind-completeness.js';

/** The types a transform may have changed: the defaults' and the test's patches' targets. */
function changedTypes(transforms: RestoreTransforms): ResourceType[] {
  const all = [...transforms.defaults.flatMap((entry) => entry.changes ?? []), ...transforms.patches.map((patch) => resourceType(patch.target))];
  const seen = new Set<string>();
  return all.filter((entry) => {
    const key = `${apiVersionOf(entry)}/${entry.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function readMarkers(reader: KindLister, run: CurrentRun, transforms: RestoreTransforms): Promise<MarkedObject[] | undefined> {
  const marked: MarkedObject[] = [];
  try {
    for (const { source, sandbox } of run.sandboxNamespaces ?? []) {
      for (const changed of changedTypes(transforms)) {
        // Sequential on purpose: a few kinds per sandbox, and the apiserver is shared.
        const objects = await reader.listAnnotated(apiVersionOf(changed), changed.kind, sandbox, TRANSFORM_ANNOTATION_PREFIX);
        for (const object of objects) marked.push({ kind: changed.kind, namespace: source, name: object.name, annotations: object.annotations });
      }
    }
  } catch {
    return undefined;
  }
  return marked;
}

export async function observeTransforms(
  provider: BackupProvider,
  reader: KindLister,
  run: CurrentRun,
  transforms: RestoreTransforms,
  /** From the completeness step; undefined when the backup's resource list could not be read. */
  excluded: readonly ExcludedObject[] | undefined,
): Promise<RestoreTransformsReport> {
  const marked = provider.marksTransformedObjects ? await readMarkers(reader, run, transforms) : undefined;
  return reportTransforms({
    transforms,
    ...(excluded ? { excluded } : {}),
    ...(marked ? { marked } : {}),
    ...(provider.transformsNotDone ? { notDone: provider.transformsNotDone } : {}),
  });
}
