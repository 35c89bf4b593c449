// Names of the objects a run creates. All are deterministic functions of (test, run id): a server
// that restarts mid-run recomputes the same names and finds its own objects (or hits AlreadyExists)
// instead of creating duplicates. The run id is the only random part, drawn once per run.

/** Kubernetes namespace names and label values are RFC 1123 labels of at most this many characters. */
export const MAX_LABEL_LENGTH = 63;
export const RUN_ID_LENGTH = 5;
/** Longest namespacePrefix: the CRD's maxLength (test-input accepts no more than the apiserver stores). */
export const MAX_NAMESPACE_PREFIX_LENGTH = 20;
/** Most source namespaces per test (the CRD's maxItems): the admission policy checks each one with a CEL authorizer call, and kube-apiserver allows about 28 per evaluation (restore-admission-policy.ts). */
export const MAX_SOURCE_NAMESPACES = 20;

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isRfc1123Label(value: string): boolean {
  return typeof value === 'string' && value.length <= MAX_LABEL_LENGTH && RFC1123_LABEL.test(value);
}

// Cut to at most `length` characters without leaving a trailing dash (which would double up with
// the separator that follows).
function truncate(value: string, length: number): string {
  return value.slice(0, Math.max(0, length)).replace(/-+$/, '');
}

/**
 * `<prefix>-<test>-<runId>` for the first source namespace and `<prefix>-<test>-<runId>-<index>` for
 * the others (index >= 1), at most 63 characters. Only the test part is shortened, by plain
 * truncation: the prefix is what operators filter on, the run id is what makes the name unique,
 * and the full test name is on the namespace's labels. With the prefix limit of 20 and at most 20
 * sources the test part keeps at least 33 characters; if the arguments leave no room, this throws
 * (a programming error: test-input rejects such prefixes).
 */
export function sandboxNamespaceName(
  prefix: string,
  testName: string,
  runId: string,
  sourceIndex = 0,
): string {
  const suffix = sourceIndex > 0 ? `-${sourceIndex}` : '';
  const budget = MAX_LABEL_LENGTH - prefix.length - 1 - 1 - runId.length - suffix.length;
  const testPart = truncate(testName, budget);
  if (testPart.length === 0) {
    throw new Error(`sandbox name for prefix "${prefix}" and run ${runId} leaves no room for the test name`);
  }
  return `${prefix}-${testPart}-${runId}${suffix}`;
}

/**
 * Whether `name` is a sandbox name of run `runId` of test `testName` for SOME prefix (the test may
 * be gone, and its prefix with it): `sandboxNamespaceName(prefix, testName, runId, index)` for a
 * valid prefix of at most MAX_NAMESPACE_PREFIX_LENGTH characters and an index below
 * MAX_SOURCE_NAMESPACES. The test part is cut exactly as sandboxNamespaceName cuts it.
 */
export function isSandboxNameOfRun(name: string, testName: string, runId: string): boolean {
  if (!isRfc1123Label(name) || !isRfc1123Label(testName) || !/^[0-9a-z]{5}$/.test(runId)) return false;
  const match = new RegExp(`^(.+)-${runId}(?:-([1-9][0-9]?))?$`).exec(name);
  if (!match) return false;
  const index = match[2] ? Number(match[2]) : 0;
  if (index >= MAX_SOURCE_NAMESPACES) return false;
  const head = match[1]!;
  for (let length = 1; length <= Math.min(MAX_NAMESPACE_PREFIX_LENGTH, head.length - 2); length += 1) {
    if (head[length] !== '-') continue;
    const prefix = head.slice(0, length);
    if (!isRfc1123Label(prefix)) continue;
    if (sandboxNamespaceName(prefix, testName, runId, index) === name) return true;
  }
  return false;
}

/**
 * The provider's restore object (e.g. a Velero Restore in the velero namespace). Velero copies the
 * restore name into a label on every restored object, so it must stay a valid label (<= 63).
 */
export function restoreObjectName(testName: string, runId: string): string {
  return `${truncate(testName, MAX_LABEL_LENGTH - 1 - runId.length)}-${runId}`;
}

/**
 * Velero's resource-modifier ConfigMap of a run's Restore (in Velero's namespace, beside it):
 * `<restore>-transforms`, so the Restore's name gives it and the admission policy can pin it.
 */
export function transformsConfigMapName(restoreName: string): string {
  return `${restoreName}${TRANSFORMS_CONFIGMAP_SUFFIX}`;
}
export const TRANSFORMS_CONFIGMAP_SUFFIX = '-transforms';

/**
 * The RestoreReport of a run: `<test>-<runId>` (<= 69 characters, a valid object name). Creating it
 * twice fails with AlreadyExists, which is how a restarted server avoids duplicate evidence.
 */
export function reportName(testName: string, runId: string): string {
  return `${testName}-${runId}`;
}

/** Source of random bytes, e.g. `(size) => crypto.getRandomValues(new Uint8Array(size))`. */
export type RandomSource = (size: number) => Uint8Array;

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
// 252 = 7 * 36: bytes at or above it are discarded so every character is equally likely.
const UNBIASED_LIMIT = 252;

/** A 5-character base36 run id (36^5 = 60 million values; unique per test in practice). */
export function newRunId(randomSource: RandomSource): string {
  let id = '';
  // A real source almost never needs a second round; a broken one must not loop forever.
  for (let round = 0; round < 100 && id.length < RUN_ID_LENGTH; round += 1) {
    for (const byte of randomSource(RUN_ID_LENGTH * 2)) {
      if (byte < UNBIASED_LIMIT && id.length < RUN_ID_LENGTH) id += BASE36[byte % 36];
    }
  }
  if (id.length < RUN_ID_LENGTH) throw new Error('the random source returned no usable bytes');
  return id;
}
