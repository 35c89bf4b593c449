// The reads the cross-namespace dependency level needs (server/domain/run/dependencies.ts decides):
// the text of the restored objects in a sandbox, the namespaces of the cluster, and whether a
// referenced Service exists with ready endpoints. Read-only, and nothing is ever dialled: a
// Service outside the sandboxes may be production.
import type { ScannedObject, ServiceState } from '../domain/run/dependencies.js';

export interface DependencyReader {
  /** Objects in a sandbox whose text may name Services elsewhere (see dependency-reader.kube.ts). */
  scanSandbox(sandbox: string): Promise<ScannedObject[]>;
  namespaceNames(): Promise<Set<string>>;
  /** Never throws: a failed read is `unknown` with the reason. */
  serviceState(namespace: string, service: string): Promise<ServiceState>;
}
