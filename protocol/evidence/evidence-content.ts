// What the evidence digest covers (C in report-digest.ts), built from a report whose spec is
// already expanded. No Node modules here: the dashboard imports this file into the browser, where
// it hashes C with WebCrypto, so the server, the plugin and the page build C from one definition.

/** A reference from a report to its RestoreTest (reports written before issue 17's fourth cut). */
export interface OwnerReference {
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

/** The part of a report the digest covers (C in report-digest.ts, before canonicalization). */
export interface EvidenceContent {
  metadata: { name: string; namespace: string | null };
  owner: { name: string; uid: string } | null;
  spec: Record<string, unknown>;
  sequence?: number;
}

/**
 * The RestoreTest a report's chain belongs to ("owner" in report-digest.ts): its ownerReference, else
 * spec.testRef of the expanded spec when it carries a uid.
 */
export function evidenceOwner(
  metadata: { ownerReferences?: readonly OwnerReference[] },
  testRef: unknown,
): { name: string; uid: string } | null {
  const owners = (metadata.ownerReferences ?? []).filter((o) => o.kind === 'RestoreTest');
  const owner = owners.find((o) => o.controller === true) ?? owners[0];
  if (owner) return { name: owner.name, uid: owner.uid };
  if (typeof testRef !== 'object' || testRef === null) return null;
  const { name, uid } = testRef as { name?: unknown; uid?: unknown };
  return typeof name === 'string' && name && typeof uid === 'string' && uid ? { name, uid } : null;
}

/**
 * C for a report whose spec is expanded (not stored as spec.details); spec.evidence is left out and
 * the sequence defaults to the report's own.
 */
export function contentOfExpanded(
  report: {
    metadata: { name: string; namespace?: string | null; ownerReferences?: readonly OwnerReference[] };
    spec: Record<string, unknown> & { evidence?: { sequence?: number } };
  },
  sequence?: number,
): EvidenceContent {
  const { evidence, ...spec } = report.spec;
  sequence ??= evidence?.sequence;
  return {
    metadata: { name: report.metadata.name, namespace: report.metadata.namespace ?? null },
    owner: evidenceOwner(report.metadata, spec.testRef),
    spec,
    ...(sequence !== undefined ? { sequence } : {}),
  };
}
