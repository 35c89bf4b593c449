// The health checks of a RestoreTest, and the HealthCheckPolicy that holds a reusable set of them
// (crds/rehearsal.dev_healthcheckpolicies.yaml). A check is one object with exactly one kind's
// field set, mirroring the CRD, so the schema can require that field with CEL. Pure types only.
import type { API_VERSION, ObjectMeta } from './resource-common.js';

export interface PodsReadyCheck {
  /** Label selector (matchLabels) within the sandbox; empty = every pod. */
  selector?: Record<string, string>;
  /** Minimum number of Ready pods; default: every selected pod must be Ready. */
  minReady?: number;
}

export interface HttpGetCheck {
  service: string;
  port: number;
  path?: string; // default "/"
  scheme?: 'http' | 'https'; // default http
  expectedStatus?: number; // default 200
  /** Regular expression the response body must match. */
  bodyMatch?: string;
}

export interface TcpSocketCheck {
  service: string;
  port: number;
}

export interface SqlQueryCheck {
  engine: 'postgres' | 'mysql';
  service: string;
  port?: number; // default 5432 / 3306
  database: string;
  /** Credentials come from a Secret restored into the sandbox. */
  credentialsSecret: { name: string; usernameKey?: string; passwordKey?: string };
  query: string;
  /** At least this many rows (default 1). */
  expectedMinRows?: number;
  /** The first column of the first row, as a string, must equal this. */
  expectedValue?: string;
  /**
   * The first column of the first row is the time of the newest data in the restored copy
   * (timestamp, or Unix seconds): the run's measured RPO comes from it (issue 27).
   */
  freshness?: boolean;
}

export interface ResourceExistsCheck {
  apiVersion: string;
  kind: string;
  name: string;
  /** Which source namespace's sandbox to look in; default: the first. */
  sourceNamespace?: string;
}

export interface ExecCheck {
  selector?: Record<string, string>;
  container?: string;
  command: string[];
  expectedExitCode?: number; // default 0
  /**
   * The command's standard output is the time of the newest data in the restored copy
   * (timestamp, or Unix seconds): the run's measured RPO comes from it (issue 27).
   */
  freshness?: boolean;
}

/** Where a file check's freshness reads the time of the newest data (issue 27). */
export type FileFreshnessSource = 'modificationTime' | 'content';
export const FILE_FRESHNESS_SOURCES: readonly FileFreshnessSource[] = ['modificationTime', 'content'];

/**
 * A file on a restored claim, read by a short-lived read-only pod in the sandbox (decision 0020):
 * it exists (or, with `exists: false`, does not), and has the size, SHA-256 and sentinel given.
 */
export interface FileCheck {
  /** The PersistentVolumeClaim (its name in the source namespace, the same in the sandbox). */
  claim: string;
  /** Absolute path inside the volume ("/" is the volume's root), without "..". */
  path: string;
  /** Default true; false: the check passes when the path does not exist. */
  exists?: boolean;
  /** The file's size in bytes. */
  size?: number;
  /** The file's SHA-256, 64 lowercase hex digits. */
  sha256?: string;
  /** A string the file contains (a sentinel written before the backup). */
  contains?: string;
  /**
   * The file holds the newest data of the restored copy: its modification time (default), or
   * its content (a timestamp or Unix seconds), is the newest-data time the RPO is measured from.
   */
  freshness?: boolean;
  freshnessSource?: FileFreshnessSource;
}

/** The image of the file checks' pods unless the server names another (REHEARSAL_FILE_CHECK_IMAGE). */
export const DEFAULT_FILE_CHECK_IMAGE = 'docker.io/library/busybox:1.37.0';

export type CheckKind = 'podsReady' | 'httpGet' | 'tcpSocket' | 'sqlQuery' | 'resourceExists' | 'exec' | 'file';
export const CHECK_KINDS: readonly CheckKind[] = [
  'podsReady',
  'httpGet',
  'tcpSocket',
  'sqlQuery',
  'resourceExists',
  'exec',
  'file',
];

export interface HealthCheck {
  name: string;
  kind: CheckKind;
  /** Duration string, default 30s. */
  timeout?: string;
  /** Which source namespace's sandbox the check targets; default: the first. */
  sourceNamespace?: string;
  /** A failing critical check makes the run fail; any other failing check caps it at partial. */
  critical?: boolean;
  podsReady?: PodsReadyCheck;
  httpGet?: HttpGetCheck;
  tcpSocket?: TcpSocketCheck;
  sqlQuery?: SqlQueryCheck;
  resourceExists?: ResourceExistsCheck;
  exec?: ExecCheck;
  file?: FileCheck;
}

export interface HealthCheckPolicySpec {
  description?: string;
  /** The source namespaces whose restored copies these checks may read (decision 0018). */
  sourceNamespaces?: string[];
  checks: HealthCheck[];
}

export interface HealthCheckPolicy {
  apiVersion: typeof API_VERSION;
  kind: 'HealthCheckPolicy';
  metadata: ObjectMeta;
  spec: HealthCheckPolicySpec;
}
