// Completeness per kind (decision 0004: "restored vs. backed-up objects per kind"): what the backup
// holds of each kind in each source namespace against what its sandbox holds now. Pure: the
// engine reads both sides (the tool's resource list, the sandbox through the sandbox reader).
// A PersistentVolumeClaim counts only with its data (issue 27, claim-data.ts).
import type { KindCompleteness } from '../resources/resources.js';
import { claimKey } from './claim-data.js';

export interface ExpectedObjects {
  apiVersion: string;
  kind: string;
  /** The sandbox the source namespace was restored into (the namespace mapping applied). */
  sandbox: string;
  /** Names in the backup. */
  names: readonly string[];
}

export interface PresentObjects {
  apiVersion: string;
  kind: string;
  sandbox: string;
  names: readonly string[];
}

/**
 * Kinds whose objects controllers replace under new names after a restore: a restored Pod of a
 * ReplicaSet may be deleted and recreated as another, EndpointSlices are rewritten by their
 * controller. For these the number of objects counts; for every other kind the same name must be
 * there (so one extra ConfigMap cannot hide a missing one).
 */
const REPLACED_BY_CONTROLLERS = new Set(['v1/Pod', 'discovery.k8s.io/v1/EndpointSlice']);

const CLAIM = 'v1/PersistentVolumeClaim';

function typeKey(entry: { apiVersion: string; kind: string }): string {
  return `${entry.apiVersion}/${entry.kind}`;
}

/** The report's label of a kind: its Kind, with the API group only when two groups share it. */
function labels(kinds: readonly { apiVersion: string; kind: string }[]): Map<string, string> {
  const groupsOf = new Map<string, Set<string>>();
  for (const entry of kinds) {
    const groups = groupsOf.get(entry.kind) ?? new Set<string>();
    groups.add(entry.apiVersion.includes('/') ? entry.apiVersion.split('/')[0]! : '');
    groupsOf.set(entry.kind, groups);
  }
  const result = new Map<string, string>();
  for (const entry of kinds) {
    const group = entry.apiVersion.includes('/') ? entry.apiVersion.split('/')[0]! : '';
    const ambiguous = (groupsOf.get(entry.kind)?.size ?? 0) > 1;
    result.set(typeKey(entry), ambiguous && group ? `${entry.kind}.${group}` : entry.kind);
  }
  return result;
}

/**
 * Restored against backed-up objects per kind. `claimsWithoutData` ("sandbox/claim", from
 * claim-data.ts): claims that are there but whose volume data the tool did not restore; they do
 * not count as restored.
 */
export function compareKinds(
  expected: readonly ExpectedObjects[],
  present: readonly PresentObjects[],
  claimsWithoutData: ReadonlySet<string> = new Set(),
): KindCompleteness[] {
  const presentBy = new Map(present.map((entry) => [`${typeKey(entry)} ${entry.sandbox}`, entry.names]));
  const totals = new Map<string, { backedUp: number; restored: number }>();
  for (const entry of expected) {
    const backedUp = new Set(entry.names);
    const isClaim = typeKey(entry) === CLAIM;
    const there = (presentBy.get(`${typeKey(entry)} ${entry.sandbox}`) ?? []).filter(
      (name) => !isClaim || !claimsWithoutData.has(claimKey(entry.sandbox, name)),
    );
    const restored = REPLACED_BY_CONTROLLERS.has(typeKey(entry))
      ? Math.min(backedUp.size, new Set(there).size)
      : new Set(there.filter((name) => backedUp.has(name))).size;
    const total = totals.get(typeKey(entry)) ?? { backedUp: 0, restored: 0 };
    total.backedUp += backedUp.size;
    total.restored += restored;
    totals.set(typeKey(entry), total);
  }
  const named = labels(expected);
  return [...totals.entries()]
    .map(([key, total]) => ({ kind: named.get(key) ?? key, ...total }))
    .sort((left, right) => (left.kind < right.kind ? -1 : left.kind > right.kind ? 1 : 0));
}
