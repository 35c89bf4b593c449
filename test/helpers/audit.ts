// Reads the test apiserver's audit log (test/cluster/audit-policy.yaml records every write with its
// user at Metadata level), so tests can prove from the apiserver's own record what was — and was
// not — written. Only the local-binaries cluster has one; with another cluster the helpers say so
// (auditLogPath() is undefined) and tests skip the audit part of their assertions.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readClusterInfo } from './cluster-info.js';

export interface AuditEvent {
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    subresource?: string;
  };
  responseStatus?: { code?: number };
  stageTimestamp: string;
}

export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The audit log of the test cluster: the one recorded by the global setup, else an audit.log next
 * to the kubeconfig (test/cluster/up.sh writes both into its work directory).
 */
export function auditLogPath(): string | undefined {
  const info = readClusterInfo();
  if (info.auditLogPath && existsSync(info.auditLogPath)) return info.auditLogPath;
  const sibling = path.join(path.dirname(info.kubeconfigPath), 'audit.log');
  return existsSync(sibling) ? sibling : undefined;
}

/** Audit events whose stageTimestamp is within [since, until] (until default: now). */
export function readAuditEvents(logPath: string, since: Date, until: Date = new Date()): AuditEvent[] {
  const from = since.getTime();
  const to = until.getTime();
  const events: AuditEvent[] = [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (line === '') continue;
    let event: AuditEvent;
    try {
      event = JSON.parse(line) as AuditEvent;
    } catch {
      continue; // a line being written right now
    }
    const at = Date.parse(event.stageTimestamp);
    if (at >= from && at <= to) events.push(event);
  }
  return events;
}

/** Write requests (any outcome) among the events. */
export function writesIn(events: readonly AuditEvent[]): AuditEvent[] {
  return events.filter((event) => WRITE_VERBS.has(event.verb));
}

export interface SafetyScope {
  isSource(namespace: string): boolean;
  isSandbox(namespace: string): boolean;
  /** Rehearsal's own namespace (its Lease, signing-key Secret, public-key ConfigMap). */
  ownNamespace: string;
}

/**
 * The writes that break Rehearsal's safety rule. Other servers in a test run share its identity
 * and reconcile every RestoreTest in the cluster, so the rule is stated by kind and namespace:
 *  - never anything in a source namespace;
 *  - anywhere else: RestoreTests (the API writes them for its callers) and their status,
 *    RestoreReports, Events, Velero Restores;
 *  - in its own namespace: leases, secrets, configmaps (run diagnoses included: they live there);
 *  - in the Velero namespace: creating and deleting a run's resource modifiers (<restore>-transforms,
 *    beside its Restore);
 *  - in sandboxes: anything; cluster-scoped: sandbox namespaces only, and deleting PersistentVolumes
 *    and VolumeSnapshotContents (the janitor's, of sandboxes gone: the audit record does not say
 *    whose claim a PV was; admission policy rehearsal-server-sandbox-volumes decides that, and
 *    test/integration/sandbox-volumes.test.ts proves it refuses the others).
 */
const REVIEWS = new Set(['subjectaccessreviews', 'tokenreviews']);
const SANDBOX_VOLUME_KINDS = new Set(['persistentvolumes', 'volumesnapshotcontents']);

export function unsafeWrites(writes: readonly AuditEvent[], scope: SafetyScope): AuditEvent[] {
  // restores and downloadrequests: the backup tool's own request objects (in its namespace).
  const anywhere = new Set(['restoretests', 'restoretests/status', 'restorereports', 'events', 'restores', 'downloadrequests']);
  const ownKinds = new Set(['leases', 'secrets', 'configmaps']);
  return writes.filter((event) => {
    const ref = event.objectRef ?? {};
    const resource = ref.subresource ? `${ref.resource}/${ref.subresource}` : (ref.resource ?? '');
    // Questions to the apiserver, stored nowhere: who a token is, whether a user may (the API's
    // callers, and decision 0018's run-time re-check of a test's author).
    if (REVIEWS.has(resource)) return false;
    if (!ref.namespace && event.verb === 'delete' && SANDBOX_VOLUME_KINDS.has(resource)) return false;
    if (!ref.namespace) return !(ref.resource === 'namespaces' && !!ref.name && scope.isSandbox(ref.name));
    if (scope.isSource(ref.namespace)) return true;
    if (scope.isSandbox(ref.namespace) || anywhere.has(resource)) return false;
    // A run's restore transforms for Velero: created before its Restore, deleted with it.
    if ((event.verb === 'create' || event.verb === 'delete') && resource === 'configmaps' && ref.name?.endsWith('-transforms')) return false;
    return !(ref.namespace === scope.ownNamespace && ownKinds.has(resource));
  });
}

const READ_VERBS = new Set(['get', 'list', 'watch']);

/**
 * Reads of Secrets outside sandboxes (decision 0009: the server holds no cluster-wide Secret read).
 * Allowed: the sandboxes (checks read the restored database Secret through the per-sandbox
 * RoleBinding) and, in its own namespace, the two Secrets it owns (license, signing key). A list
 * or watch without a namespace (cluster-wide) is never allowed.
 */
export function secretReadsOutsideSandboxes(
  events: readonly AuditEvent[],
  scope: Pick<SafetyScope, 'isSandbox' | 'ownNamespace'>,
): AuditEvent[] {
  const ownSecrets = new Set(['rehearsal-license', 'rehearsal-signing-key']);
  return events.filter((event) => {
    const ref = event.objectRef ?? {};
    if (!READ_VERBS.has(event.verb) || ref.resource !== 'secrets' || ref.subresource) return false;
    if (!ref.namespace) return true;
    if (scope.isSandbox(ref.namespace)) return false;
    // A watch or list by name carries the name in a field selector, not in objectRef.name.
    const named = ref.name ?? /metadata\.name(?:%3D|=)([a-z0-9.-]+)/.exec(event.requestURI)?.[1];
    return !(ref.namespace === scope.ownNamespace && named !== undefined && ownSecrets.has(named));
  });
}
