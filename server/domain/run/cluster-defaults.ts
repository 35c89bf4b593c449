// Cluster-wide defaults (issue 30): what a run uses where its RestoreTest says nothing, set by the
// admin in ConfigMap `rehearsal-cluster-defaults` (Rehearsal's namespace) and changed without a
// restart. This file is the pure part: the keys, their built-in defaults, the parsing of the
// ConfigMap's data and the precedence rules (the test's own value > cluster default > built-in).
//
// A bad value never stops anything: that key keeps its last good value (the built-in one until
// there was a good one), and the problem names the key, so the watch can log it and export it.
// One bad key does not throw away the good ones beside it: an admin fixing one key should not
// find the others reverted.
import { formatDuration, parseDuration } from '../common/duration.js';
import { isQuantity } from './storage-quota.js';

export const CLUSTER_DEFAULTS_CONFIGMAP_NAME = 'rehearsal-cluster-defaults';

/** The ConfigMap's data keys (flat, so `kubectl edit` and `--set` need no nesting). */
export const CLUSTER_DEFAULT_KEYS = {
  quotaCpu: 'sandboxQuota.cpu',
  quotaMemory: 'sandboxQuota.memory',
  quotaPods: 'sandboxQuota.pods',
  quotaStorage: 'sandboxQuota.storage',
  ttl: 'sandboxTtl',
  rtoTarget: 'rtoTarget',
  rpoTarget: 'rpoTarget',
  maxBackupAge: 'alerts.maxBackupAge',
  consecutiveFailures: 'alerts.consecutiveFailures',
} as const;

type Field = keyof typeof CLUSTER_DEFAULT_KEYS;

export interface ClusterDefaults {
  /** requests.cpu of every sandbox's rehearsal-sandbox quota; undefined = no CPU quota. */
  quotaCpu?: string;
  /** requests.memory of the same quota; undefined = none. */
  quotaMemory?: string;
  /** pods of the same quota; undefined = none. */
  quotaPods?: number;
  /** requests.storage of the storage quota (rehearsal-sandbox-storage); undefined = the installation's (REHEARSAL_SANDBOX_STORAGE_QUOTA). */
  quotaStorage?: string;
  /** The sandbox ttl of a test without one. */
  ttl: string;
  /** The RTO target (maxRTO) of a test without one; undefined = no SLA. */
  rtoTarget?: string;
  /** The RPO target (maxRPO) of a test without one; undefined = none. */
  rpoTarget?: string;
  /** A run that restored a backup older than this is an alert (and RestoreBackupTooOld). */
  maxBackupAge: string;
  /** A failed run that is the Nth (or later) failure in a row of its test says so in its alert. */
  consecutiveFailures: number;
}

/** What applies with no ConfigMap (or none of a key): today's behaviour. */
export const BUILT_IN_CLUSTER_DEFAULTS: Readonly<ClusterDefaults> = Object.freeze({
  ttl: '1h',
  maxBackupAge: '48h',
  consecutiveFailures: 3,
});

export interface ClusterDefaultsProblem {
  /** The ConfigMap data key. */
  key: string;
  message: string;
}

export interface ParsedClusterDefaults {
  defaults: Readonly<ClusterDefaults>;
  problems: ClusterDefaultsProblem[];
}

type Reader = (text: string) => { value: string | number } | { problem: string };

const positiveDuration: Reader = (text) => {
  const seconds = parseDuration(text);
  return seconds === null || seconds === 0
    ? { problem: `"${text}" is not a positive duration such as 30m, 1h or 2h30m (h, m, s only)` }
    : { value: formatDuration(seconds) };
};

const quantity: Reader = (text) =>
  isQuantity(text) ? { value: text } : { problem: `"${text}" is not a Kubernetes quantity such as 500m, 2, 4Gi` };

function wholeNumber(min: number, max: number): Reader {
  return (text) => {
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    return value >= min && value <= max ? { value } : { problem: `"${text}" is not a whole number from ${min} to ${max}` };
  };
}

const READERS: Record<Field, Reader> = {
  quotaCpu: quantity,
  quotaMemory: quantity,
  quotaPods: wholeNumber(1, 100_000),
  quotaStorage: quantity,
  ttl: positiveDuration,
  rtoTarget: positiveDuration,
  rpoTarget: positiveDuration,
  maxBackupAge: positiveDuration,
  consecutiveFailures: wholeNumber(1, 1000),
};

const KNOWN_KEYS = new Set<string>(Object.values(CLUSTER_DEFAULT_KEYS));

/**
 * The defaults in `data` (a ConfigMap's data; undefined = no ConfigMap). A key that is absent or
 * empty takes the built-in default (removing a key is how an admin returns to it); a key whose
 * value is bad keeps its value in `lastGood` and is reported. Unknown keys are reported too (a
 * typo such as `sandboxTTL` would otherwise be silently ignored) but change nothing.
 */
export function parseClusterDefaults(
  data: Readonly<Record<string, string>> | undefined,
  lastGood: Readonly<ClusterDefaults> = BUILT_IN_CLUSTER_DEFAULTS,
): ParsedClusterDefaults {
  const defaults: ClusterDefaults = { ...BUILT_IN_CLUSTER_DEFAULTS };
  const problems: ClusterDefaultsProblem[] = [];
  for (const field of Object.keys(CLUSTER_DEFAULT_KEYS) as Field[]) {
    const key = CLUSTER_DEFAULT_KEYS[field];
    const text = data?.[key]?.trim();
    if (text === undefined || text === '') continue;
    const read = READERS[field](text);
    if ('value' in read) {
      (defaults as unknown as Record<Field, unknown>)[field] = read.value;
      continue;
    }
    problems.push({ key, message: `${read.problem}; keeping ${describe(lastGood[field])}` });
    if (lastGood[field] === undefined) delete defaults[field];
    else (defaults as unknown as Record<Field, unknown>)[field] = lastGood[field];
  }
  for (const key of Object.keys(data ?? {}).sort()) {
    if (!KNOWN_KEYS.has(key)) problems.push({ key, message: `unknown key (known: ${[...KNOWN_KEYS].join(', ')}); ignored` });
  }
  return { defaults: Object.freeze(defaults), problems };
}

function describe(value: string | number | undefined): string {
  return value === undefined ? 'none' : `${value}`;
}

// ---------------------------------------------------------------- precedence

/** The sandbox ttl in seconds: the test's > the cluster default > 1h, never above the installation cap. */
export function effectiveTtlSeconds(testTtl: string | undefined, defaults: ClusterDefaults, maxSeconds: number): number {
  const seconds =
    (testTtl ? parseDuration(testTtl) : null) ??
    parseDuration(defaults.ttl) ??
    (parseDuration(BUILT_IN_CLUSTER_DEFAULTS.ttl) as number);
  return Math.min(seconds, maxSeconds);
}

/**
 * spec.hard of a sandbox's rehearsal-sandbox quota: the cluster's CPU, memory and pod limits with
 * the test's own resourceQuota.hard over them, key by key. Undefined when neither sets anything
 * (no quota object, as before issue 30).
 */
export function sandboxQuotaHard(
  testHard: Readonly<Record<string, string>> | undefined,
  defaults: ClusterDefaults,
): Record<string, string> | undefined {
  const hard: Record<string, string> = {
    ...(defaults.quotaCpu !== undefined ? { 'requests.cpu': defaults.quotaCpu } : {}),
    ...(defaults.quotaMemory !== undefined ? { 'requests.memory': defaults.quotaMemory } : {}),
    ...(defaults.quotaPods !== undefined ? { pods: String(defaults.quotaPods) } : {}),
    ...(testHard ?? {}),
  };
  return Object.keys(hard).length > 0 ? hard : undefined;
}

/**
 * requests.storage of the storage quota: the cluster default over the installation's. Not the
 * test's: that quota bounds what a (possibly crafted) backup may provision (issue 27), so a test
 * may only tighten it, through its own resourceQuota (both quotas are enforced).
 */
export function storageQuotaLimit(installation: string, defaults: ClusterDefaults): string {
  return defaults.quotaStorage ?? installation;
}

/** The RTO and RPO targets a run is measured against: the test's, else the cluster's. */
export function effectiveTargets(
  sla: { maxRTO?: string; maxRPO?: string } | undefined,
  defaults: ClusterDefaults,
): { maxRTO?: string; maxRPO?: string } {
  const maxRTO = sla?.maxRTO || defaults.rtoTarget;
  const maxRPO = sla?.maxRPO || defaults.rpoTarget;
  return { ...(maxRTO ? { maxRTO } : {}), ...(maxRPO ? { maxRPO } : {}) };
}

/** The alert thresholds of the API's alert list. */
export interface AlertThresholds {
  maxBackupAgeSeconds: number;
  consecutiveFailures: number;
}

export function alertThresholds(defaults: ClusterDefaults): AlertThresholds {
  return {
    maxBackupAgeSeconds: parseDuration(defaults.maxBackupAge) ?? (parseDuration(BUILT_IN_CLUSTER_DEFAULTS.maxBackupAge) as number),
    consecutiveFailures: defaults.consecutiveFailures,
  };
}
