// The request body of POST and PUT /api/v1/tests, as the API documents it: what the plugin's
// create and update build (its flags, -f files and help) and what the server validates. tsoa reads
// these interfaces (their JSDoc tags become the OpenAPI schema);
// server/domain/test-spec/test-input.ts validates a body against the same rules and maps it to a
// RestoreTestSpec. The lists below are what the schema's types cannot carry at run time: the field
// names, the choices, the range of historyLimit and the defaults.

// A backup provider Rehearsal can restore from (RestoreTest spec.provider, the API, --provider);
// a line comment, not JSDoc: tsoa would publish it as the schema's description.
export type Provider = 'velero' | 'kasten' | 'trilio';
export const PROVIDERS: readonly Provider[] = ['velero', 'kasten', 'trilio'];
// How a sandbox's network is isolated: strict = a deny-all NetworkPolicy, none = no isolation.
export type NetworkIsolation = 'strict' | 'none';
export const NETWORK_ISOLATION_MODES: readonly NetworkIsolation[] = ['strict', 'none'];
/** Pod Security Standards profiles, least to most strict (pod-security.kubernetes.io/enforce values). */
export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';
export const POD_SECURITY_LEVELS: readonly PodSecurityLevel[] = ['privileged', 'baseline', 'restricted'];
/** The default restore transforms (server/domain/run/restore-transforms.ts; docs/restore-transforms.md). */
export type DefaultTransformId =
  | 'suspend-cronjobs'
  | 'hold-jobs'
  | 'services-cluster-ip'
  | 'drop-external-dns-annotations'
  | 'unbind-claims'
  | 'exclude-host-routes'
  | 'exclude-external-callers'
  | 'exclude-gitops'
  | 'exclude-network-policies';

/**
 * Request body of POST /api/v1/tests and PUT /api/v1/tests/{name}. An optional field that is
 * absent, null or "" takes its default. Rules JSON Schema cannot state (the server answers 400
 * naming the field): cron must be a valid schedule (no reversed ranges such as 5-3, no repeated
 * values, a day that exists in the month), timezone a zone the server knows, alertOnExceed true
 * requires maxRTO, restore patch names are unique, `from` is given for copy and move (only), a
 * `when` value is not null, labelSelector's In and NotIn have values and Exists and DoesNotExist
 * none, an included resource type is listed once, provider trilio does not take labelSelector and
 * includedResources together, cron is required unless onBackup is true, everyNthBackup needs
 * onBackup true, onBackup needs backupName latest, and on PUT a name or namespace in the body must
 * equal the request's.
 */
export interface CreateTestInput {
  /**
   * Name of the RestoreTest: an RFC 1123 label.
   * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
   * @maxLength 63
   */
  name: string;
  /**
   * Namespace of the RestoreTest (an RFC 1123 label); default: the server's namespace
   * (rehearsal-system).
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 63
   */
  namespace?: string | null;
  /** The backup provider whose backups are restored. */
  provider: Provider;
  /**
   * Backup to restore (a Kubernetes object name); "latest" picks the newest completed backup of
   * the sources.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$
   * @maxLength 253
   * @default "latest"
   */
  backupName?: string | null;
  /**
   * How the backup is chosen when backupName is latest (issue 32): strategy latest (default) or
   * randomWithin, a backup drawn from those completed within `within` before the run started,
   * seeded by the test uid and run id; the report names the choice and why. randomWithin needs
   * backupName latest. Absent or null: latest.
   */
  backupSelect?: BackupSelectInput;
  /**
   * Source namespaces to restore: RFC 1123 labels, each at most once.
   * @minItems 1
   * @maxItems 20
   * @uniqueItems must not list a namespace twice
   */
  sourceNamespaces: NamespaceName[];
  /**
   * A 5-field cron expression (minute hour day-of-month month day-of-week; numbers, names such
   * as mon or jan, *, ranges, lists and steps) or one of the macros `@yearly`, `@annually`,
   * `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`. Spaces around it are ignored.
   * Required unless onBackup is true (then absent or null = runs on new backups only).
   * @pattern ^\x20*(\x40(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/-]+(\x20+[0-9A-Za-z*,/-]+){4})\x20*$
   * @minLength 1
   * @maxLength 128
   */
  cron?: string | null;
  /**
   * Also run when the backup source completes a new restorable backup (issue 32), in addition to
   * cron or, without cron, instead of it; the run restores exactly that backup and its report's
   * trigger is `backup`. Several new backups seen at once (after downtime, or during a run) start
   * one run, of the newest. Needs backupName latest.
   * @default false
   */
  onBackup?: boolean | null;
  /**
   * With onBackup: run on every Nth new backup (1 = each, the default); the others are counted,
   * not run. (No schema default: the server would fill it into bodies without onBackup, where
   * everyNthBackup is refused.)
   * @isInt
   * @minimum 1
   * @maximum 1000
   */
  everyNthBackup?: number | null;
  /**
   * IANA time zone of the schedule, such as UTC or Europe/Berlin.
   * @pattern ^([A-Z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*)?$
   * @maxLength 64
   * @default "UTC"
   */
  timezone?: string | null;
  /**
   * Prefix of the sandbox namespaces: an RFC 1123 label of at most 20 characters (the
   * RestoreTest CRD's limit), so that sandbox names fit in 63.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 20
   * @default "rehearsal"
   */
  namespacePrefix?: string | null;
  /**
   * Longest life of a sandbox: a duration of whole hours, minutes and seconds in that order
   * (1h, 15m, 11m35s), longer than 0s, and at most the installation's cap (168h unless the
   * administrator sets REHEARSAL_MAX_SANDBOX_TTL; decision 0009).
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   * @default "1h"
   */
  ttl?: string | null;
  /** strict: the sandbox gets a deny-all NetworkPolicy; none: no isolation (admin only). */
  networkIsolation?: 'strict' | 'none' | '' | null;
  /**
   * Name of a HealthCheckPolicy in the test's namespace (an RFC 1123 label); default: the
   * built-in checks.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$
   * @maxLength 63
   */
  healthCheckPolicy?: string | null;
  /**
   * RTO target, a duration like ttl (e.g. 15m); default: no SLA.
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   */
  maxRTO?: string | null;
  /**
   * RPO target, a duration like ttl (e.g. 24h): the most data a restore may lose, measured by a
   * freshness check as the restore request time minus the newest restored data; alert
   * RestoreTestRPOOverSLA fires above it. Default: no RPO target. On PUT, like maxRTO, an omitted
   * maxRPO removes the target.
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   */
  maxRPO?: string | null;
  /**
   * Alert when the measured RTO exceeds maxRTO (true requires maxRTO).
   * @default false
   */
  alertOnExceed?: boolean | null;
  /**
   * Reports to keep.
   * @isInt
   * @minimum 1
   * @maximum 1000
   * @default 90
   */
  historyLimit?: number | null;
  /**
   * Restore only the objects whose labels match (spec.backupSource.labelSelector): for large
   * namespaces where the test needs one application. Absent: every object. Each provider passes
   * it to its tool (docs/decisions/0003-restore-test-input-and-defaults.md); a combination a tool
   * cannot express is refused (400 naming the field), never widened to everything.
   */
  labelSelector?: LabelSelectorInput;
  /**
   * Restore only objects of these resource types (spec.backupSource.includedResources), e.g.
   * deployments.apps; absent: every type.
   * @maxItems 32
   */
  includedResources?: ResourceTypeInput[];
  /**
   * Restore transforms beyond the defaults (docs/restore-transforms.md), as spec.restore of the
   * RestoreTest: exclusions and patches anyone may add; removeDefaults, a podSecurity below the
   * installation floor, or a patch on CronJobs, Services, Pods or RBAC objects need the
   * administer verb (else 403 naming it). Absent: the defaults only.
   */
  restore?: RestoreInput;
  /**
   * Which container logs a failed or partial run's diagnosis keeps (spec.logCollection, issue 30).
   * Absent: every default (100 lines of the failing containers, their init containers and
   * previous instances, and the Warning events).
   */
  logCollection?: LogCollectionInput;
}

// Whose logs a diagnosis keeps: failing = the containers that are not Ready (default), all =
// every container of every Pod in the sandboxes.
export type LogContainers = 'failing' | 'all';
export const LOG_CONTAINERS: readonly LogContainers[] = ['failing', 'all'];

/**
 * spec.logCollection of a RestoreTest: what a failed or partial run's diagnosis keeps of its
 * sandbox (issue 30). Every field is optional; every line kept is scrubbed of secrets and the
 * whole is bounded in bytes (a truncated log says so).
 */
export interface LogCollectionInput {
  /**
   * Last lines kept per container log.
   * @isInt
   * @minimum 1
   * @maximum 1000
   * @default 100
   */
  lines?: number | null;
  /** failing: the containers that are not Ready (default); all: every container of the sandboxes. */
  containers?: 'failing' | 'all' | null;
  /**
   * Also the init containers of the chosen Pods.
   * @default true
   */
  initContainers?: boolean | null;
  /**
   * Also the previous instance's log of a container that restarted (a crash-looping container's
   * last words are there).
   * @default true
   */
  previous?: boolean | null;
  /**
   * Keep the sandboxes' Warning events.
   * @default true
   */
  events?: boolean | null;
}

/** The fields of LogCollectionInput; any other is an error. */
export const LOG_COLLECTION_FIELDS = ['lines', 'containers', 'initContainers', 'previous', 'events'] as const satisfies readonly (keyof LogCollectionInput)[];
export const LOG_COLLECTION_LINES_RANGE = { min: 1, max: 1000 } as const;
/** What an omitted logCollection field becomes. */
export const LOG_COLLECTION_DEFAULTS = {
  lines: 100,
  containers: 'failing' as LogContainers,
  initContainers: true,
  previous: true,
  events: true,
} as const;

/** spec.backupSource.select of a RestoreTest. */
export interface BackupSelectInput {
  /** latest: the newest restorable backup; randomWithin: a seeded draw from the window. */
  strategy: BackupSelectStrategy;
  /**
   * The window before the run's start (randomWithin only, required there): a duration of h, m
   * and s between 1h and 8784h (366 days), e.g. 720h for 30 days.
   * @pattern ^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$
   * @maxLength 32
   */
  within?: string | null;
}

export type BackupSelectStrategy = 'latest' | 'randomWithin';
export const BACKUP_SELECT_STRATEGIES: readonly BackupSelectStrategy[] = ['latest', 'randomWithin'];
/** Bounds of backupSelect.within, in seconds: 1h to 366 days. */
export const BACKUP_SELECT_WITHIN_RANGE = { min: 3600, max: 8784 * 3600 } as const;

/** spec.restore of a RestoreTest. */
export interface RestoreInput {
  /**
   * More resource types not to restore.
   * @maxItems 32
   */
  exclude?: ResourceTypeInput[];
  /**
   * JSON patches on restored objects, applied before the defaults; names unique.
   * @maxItems 16
   */
  patches?: RestorePatchInput[];
  /**
   * Default transforms to do without (administer); a repeat counts once.
   * @maxItems 8
   */
  removeDefaults?: DefaultTransformId[];
  /** The least strict Pod Security profile of the sandboxes (below the installation floor: administer). */
  podSecurity?: PodSecurityLevel;
}

/** A Kubernetes label selector: every label and every requirement must hold. */
export interface LabelSelectorInput {
  /**
   * Label key = value pairs an object must all carry (at most 16).
   */
  matchLabels?: { [key: string]: LabelValue };
  /**
   * Label requirements an object must all meet.
   * @maxItems 16
   */
  matchExpressions?: LabelSelectorRequirementInput[];
}

/** One requirement: In and NotIn need values, Exists and DoesNotExist take none. */
export interface LabelSelectorRequirementInput {
  /**
   * Label key: an optional DNS-subdomain prefix and "/", then a name of at most 63 characters.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$
   * @maxLength 317
   */
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /**
   * @maxItems 16
   */
  values?: LabelValue[];
}

/**
 * A label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit (or empty).
 * @pattern ^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$
 * @maxLength 63
 */
export type LabelValue = string;

/** A resource type as the backup tools select it. */
export interface ResourceTypeInput {
  /**
   * API group; empty or absent for the core group.
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$
   * @maxLength 253
   */
  group?: string;
  /**
   * API version, e.g. v1.
   * @pattern ^v[0-9]+((alpha|beta)[0-9]+)?$
   * @maxLength 20
   */
  version: string;
  /**
   * Kind, e.g. Ingress.
   * @pattern ^[A-Z][A-Za-z0-9]*$
   * @maxLength 63
   */
  kind: string;
  /**
   * Plural resource name, e.g. ingresses.
   * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
   * @maxLength 63
   */
  resource: string;
}

/** The kind a patch applies to, and optionally the one object. */
export interface RestorePatchTarget extends ResourceTypeInput {
  /**
   * Only the object of this name.
   * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
   * @maxLength 253
   */
  name?: string;
}

/** JSON patches on the restored objects of one kind. */
export interface RestorePatchInput {
  /**
   * Unique in the test.
   * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
   * @maxLength 50
   */
  name: string;
  target: RestorePatchTarget;
  /**
   * Only objects where each path holds exactly its value.
   * @maxItems 8
   */
  when?: RestorePatchCondition[];
  /**
   * @minItems 1
   * @maxItems 16
   */
  operations: RestorePatchOperationInput[];
}

export interface RestorePatchCondition {
  /**
   * JSON Pointer.
   * @pattern ^/
   * @maxLength 256
   */
  path: string;
  /** Any JSON value but null. */
  value: unknown;
}

export interface RestorePatchOperationInput {
  op: 'add' | 'replace' | 'remove' | 'copy' | 'move';
  /**
   * JSON Pointer.
   * @pattern ^/
   * @maxLength 256
   */
  path: string;
  /**
   * Source of copy and move (required for them, only for them).
   * @pattern ^/
   * @maxLength 256
   */
  from?: string;
  /** Any JSON value (add, replace; absent = null). */
  value?: unknown;
}

/**
 * A namespace name: an RFC 1123 label.
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
 * @maxLength 63 must be at most 63 characters
 */
export type NamespaceName = string;

/** Every field of CreateTestInput, in the order the API documents them; any other field is an error. */
export const TEST_INPUT_FIELDS = [
  'name',
  'namespace',
  'provider',
  'backupName',
  'backupSelect',
  'sourceNamespaces',
  'cron',
  'onBackup',
  'everyNthBackup',
  'timezone',
  'namespacePrefix',
  'ttl',
  'networkIsolation',
  'healthCheckPolicy',
  'maxRTO',
  'maxRPO',
  'alertOnExceed',
  'historyLimit',
  'labelSelector',
  'includedResources',
  'restore',
  'logCollection',
] as const satisfies readonly (keyof CreateTestInput)[];
// A field added to CreateTestInput without being listed above fails to compile here.
const everyFieldListed: Exclude<keyof CreateTestInput, (typeof TEST_INPUT_FIELDS)[number]> extends never ? true : never = true;
void everyFieldListed;

/** What an omitted optional field becomes (the server writes them into the spec). */
export const TEST_INPUT_DEFAULTS = {
  backupName: 'latest',
  timezone: 'UTC',
  namespacePrefix: 'rehearsal',
  ttl: '1h',
  networkIsolation: 'strict' as NetworkIsolation,
  alertOnExceed: false,
  historyLimit: 90,
} as const;

export const HISTORY_LIMIT_RANGE = { min: 1, max: 1000 } as const;

/** everyNthBackup (issue 32): as the CRD's spec.schedule.onBackup.everyNth. */
export const EVERY_NTH_BACKUP_RANGE = { min: 1, max: 1000 } as const;
