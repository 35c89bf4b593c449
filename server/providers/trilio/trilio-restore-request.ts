// The Trilio Restore Rehearsal creates, and whether one found under its name asks for the same
// thing (PerNamespaceTool.restoreBody, sameRequest). At the vendor CRD's paths (trilio-types.ts):
// TVK restores into the namespace a Restore is created in, so the Restore is created in the
// sandbox and names no target (the CRD has no field for one: a `restoreNamespace` would be
// dropped by the apiserver, and adoption, which reads the Restore back, would never match);
// "skip what already exists" is spec.restoreFlags.skipIfAlreadyExists. Pure.
import canonicalize from 'canonicalize';
import type { RestoreTransforms } from '../../domain/run/restore-transforms.js';
import type { RestoreSubset } from '../../domain/run/restore-subset.js';
import { ProviderError } from '../provider.js';
import { TRILIO_RESTORES, type TrilioRestore } from './trilio-types.js';
import { trilioTransforms } from './trilio-transforms.js';

export function trilioRestoreBody(request: {
  name: string;
  labels: Record<string, string>;
  backup: string;
  source: string;
  sandbox: string;
  transforms: RestoreTransforms;
  subset?: RestoreSubset;
}): TrilioRestore & { metadata: { name: string } } {
  const resourceSelector = trilioResourceSelector(request.subset);
  return {
    apiVersion: `${TRILIO_RESTORES.group}/${TRILIO_RESTORES.version}`,
    kind: 'Restore',
    metadata: { name: request.name, namespace: request.sandbox, labels: { ...request.labels } },
    spec: {
      source: { type: 'Backup', backup: { name: request.backup, namespace: request.source } },
      // The sandbox starts empty but for what Rehearsal put there (its NetworkPolicy, quota):
      // those stay as they are rather than failing the restore.
      restoreFlags: { skipIfAlreadyExists: true },
      ...(resourceSelector ? { resourceSelector } : {}),
      ...trilioTransforms(request.transforms),
    },
  };
}

/**
 * Whether `existing` (as the apiserver gives it back) restores the same backup of the same source
 * into the same namespace, with the same transforms. The transforms are compared canonically: the
 * apiserver returns an object's keys in its own order, not Rehearsal's.
 */
export function sameTrilioRequest(existing: TrilioRestore, wanted: TrilioRestore): boolean {
  const transforms = (restore: TrilioRestore) =>
    canonicalize([
      restore.spec?.excludeResourceSelector ?? null,
      restore.spec?.transformComponents ?? null,
      restore.spec?.resourceSelector ?? null,
    ]);
  return (
    existing.metadata.namespace === wanted.metadata.namespace &&
    existing.spec?.source?.backup?.name === wanted.spec?.source?.backup?.name &&
    existing.spec?.source?.backup?.namespace === wanted.spec?.source?.backup?.namespace &&
    transforms(existing) === transforms(wanted)
  );
}

/**
 * A subset (issue 32) as spec.resourceSelector: the label selector as its one labelSelector, or
 * the included types as gvkSelector entries. TVK takes the objects either selects, so both at once
 * would restore more than the subset: the API refuses that combination at create time
 * (domain/test-spec/backup-subset-input.ts), and a RestoreTest written with kubectl that asks for
 * it fails here, before anything is restored.
 */
export function trilioResourceSelector(subset: RestoreSubset | undefined): NonNullable<TrilioRestore['spec']>['resourceSelector'] {
  if (!subset) return undefined;
  if (subset.labelSelector && subset.includedResources.length > 0) {
    throw new ProviderError(
      'RestoreRejected',
      'spec.backupSource.labelSelector and includedResources cannot be combined for Trilio: its resourceSelector restores the objects matching either; use one of them',
    );
  }
  if (subset.labelSelector) {
    const selector = subset.labelSelector;
    return {
      labelSelector: [
        {
          ...(selector.matchLabels && Object.keys(selector.matchLabels).length > 0 ? { matchLabels: { ...selector.matchLabels } } : {}),
          ...(selector.matchExpressions && selector.matchExpressions.length > 0
            ? { matchExpressions: selector.matchExpressions.map((requirement) => ({ ...requirement, ...(requirement.values ? { values: [...requirement.values] } : {}) })) }
            : {}),
        },
      ],
    };
  }
  return {
    gvkSelector: subset.includedResources.map((type) => ({ groupVersionKind: { group: type.group, version: type.version, kind: type.kind } })),
  };
}
