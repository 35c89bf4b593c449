// The request body of POST/PUT /api/v1/tests (CreateTestInput) → a RestoreTestSpec, decision 0003.
// Validation reports every offending field at once (a 400 that names one problem at a time makes
// users guess), rejects unknown fields (a typo such as "maxRto" must not silently mean "no SLA"),
// and applies the documented defaults explicitly so `kubectl get -o yaml` shows what will happen.
import type { RestoreTestSpec } from '../resources/resources.js';
import {
  BACKUP_SELECT_STRATEGIES,
  BACKUP_SELECT_WITHIN_RANGE,
  HISTORY_LIMIT_RANGE,
  NETWORK_ISOLATION_MODES,
  PROVIDERS,
  TEST_INPUT_DEFAULTS,
  TEST_INPUT_FIELDS,
  type BackupSelectStrategy,
  type CreateTestInput,
  type NetworkIsolation,
  type Provider,
} from '../../../protocol/test-input.js';
import type { RestoreSpec } from '../resources/resources.js';
import { validateRestoreInput } from './restore-input.js';
import { subsetUnsupported, validateSubsetInput } from './backup-subset-input.js';
import type { LabelSelector, ResourceTypeRef } from '../resources/resources.js';
import type { LogCollectionSpec } from '../resources/restore-test.resource.js';
import { validateLogCollectionInput } from './log-collection-input.js';
import { parseDuration } from '../common/duration.js';
import { isValidTimeZone } from '../run/schedule.js';
import { validateScheduleInput } from './schedule-input.js';
import { MAX_NAMESPACE_PREFIX_LENGTH, MAX_SOURCE_NAMESPACES, isRfc1123Label } from '../run/sandbox-names.js';

/** The server's own namespace (decision 0001); the API passes its configured value. */
export const DEFAULT_TEST_NAMESPACE = 'rehearsal-system';

// The cron's syntax and length moved with the schedule's other fields (issue 32).
export { CRON_SYNTAX, MAX_CRON_LENGTH } from './schedule-input.js';
export const MAX_TIMEZONE_LENGTH = 64;
export const MAX_BACKUP_NAME_LENGTH = 253;

export interface FieldError {
  field: string;
  message: string;
}

/** A validated CreateTestInput with every default applied (assignable to CreateTestInput). */
export interface ValidTestInput {
  name: string;
  namespace: string;
  provider: Provider;
  backupName: string;
  /** Absent = latest (spec.backupSource.select is not written). */
  backupSelect?: { strategy: BackupSelectStrategy; within?: string };
  sourceNamespaces: string[];
  /** Absent = runs on new backups only (onBackup is then present). */
  cron?: string;
  /** Present when the test also runs after new backups (issue 32). */
  onBackup?: { everyNth: number };
  timezone: string;
  namespacePrefix: string;
  ttl: string;
  networkIsolation: NetworkIsolation;
  /** Absent = the built-in default checks. */
  healthCheckPolicy?: string;
  /** Absent = no SLA. */
  maxRTO?: string;
  /** Absent = no RPO target. */
  maxRPO?: string;
  alertOnExceed: boolean;
  historyLimit: number;
  /** Absent = every object (spec.backupSource.labelSelector). */
  labelSelector?: LabelSelector;
  /** Absent = every resource type (spec.backupSource.includedResources). */
  includedResources?: ResourceTypeRef[];
  /** Absent = the default restore transforms only. */
  restore?: RestoreSpec;
  /** Absent = every default (spec.logCollection is not written). */
  logCollection?: LogCollectionSpec;
}

export type TestInputValidation = { ok: true; value: ValidTestInput } | { ok: false; errors: FieldError[] };

const LABEL_RULE =
  'must be an RFC 1123 label: at most 63 lower-case letters, digits or "-", starting and ending with a letter or digit';
const DURATION_RULE = 'must be a duration such as 1h, 15m or 11m35s (units h, m, s)';
// Backup names are Kubernetes object names (DNS-1123 subdomains) for every provider.
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a parsed JSON body. For optional fields, null and "" mean "omitted" (the default
 * applies): TestResponse reports an absent SLA as rtoTarget "", so a client may send back what it
 * read. Required fields: name, provider, sourceNamespaces, and cron unless onBackup is true.
 */
export function validateTestInput(
  body: unknown,
  options: { defaultNamespace?: string } = {},
): TestInputValidation {
  if (!isPlainObject(body))
    return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const fail = (field: string, message: string): void => {
    errors.push({ field, message });
  };
  const present = (field: string): boolean => body[field] !== undefined && body[field] !== null;
  const optionalString = (field: keyof CreateTestInput): string | undefined => {
    if (!present(field)) return undefined;
    const value = body[field];
    if (typeof value !== 'string') {
      fail(field, 'must be a string');
      return undefined;
    }
    return value === '' ? undefined : value;
  };
  const requiredString = (field: keyof CreateTestInput): string | undefined => {
    if (!present(field)) {
      fail(field, 'is required');
      return undefined;
    }
    const value = body[field];
    if (typeof value !== 'string') {
      fail(field, 'must be a string');
      return undefined;
    }
    if (value.trim() === '') {
      fail(field, 'is required');
      return undefined;
    }
    return value;
  };
  const label = (field: string, value: string | undefined): void => {
    if (value !== undefined && !isRfc1123Label(value)) fail(field, LABEL_RULE);
  };
  const duration = (field: string, value: string | undefined): void => {
    if (value === undefined) return;
    const seconds = parseDuration(value);
    if (seconds === null) fail(field, DURATION_RULE);
    else if (seconds === 0) fail(field, 'must be longer than 0s');
  };

  const name = requiredString('name');
  label('name', name);

  const namespace = optionalString('namespace');
  label('namespace', namespace);

  const provider = requiredString('provider');
  if (provider !== undefined && !(PROVIDERS as readonly string[]).includes(provider)) {
    fail('provider', `must be one of ${PROVIDERS.join(', ')}`);
  }

  const backupName = optionalString('backupName');
  if (backupName !== undefined && (backupName.length > MAX_BACKUP_NAME_LENGTH || !SUBDOMAIN.test(backupName))) {
    fail('backupName', 'must be "latest" or a backup name (a Kubernetes object name)');
  }

  const backupSelect = validateBackupSelect(body.backupSelect, backupName, fail);

  const sourceNamespaces: string[] = [];
  if (!present('sourceNamespaces')) {
    fail('sourceNamespaces', 'is required');
  } else if (!Array.isArray(body.sourceNamespaces)) {
    fail('sourceNamespaces', 'must be an array of namespace names');
  } else if (body.sourceNamespaces.length === 0) {
    fail('sourceNamespaces', 'must list at least one namespace');
  } else if (body.sourceNamespaces.length > MAX_SOURCE_NAMESPACES) {
    fail('sourceNamespaces', `must list at most ${MAX_SOURCE_NAMESPACES} namespaces`);
  } else {
    const seen = new Map<string, number>();
    body.sourceNamespaces.forEach((value: unknown, position: number) => {
      const field = `sourceNamespaces[${position}]`;
      if (typeof value !== 'string') return fail(field, 'must be a string');
      if (!isRfc1123Label(value)) return fail(field, LABEL_RULE);
      const first = seen.get(value);
      if (first !== undefined) return fail(field, `duplicates sourceNamespaces[${first}]`);
      seen.set(value, position);
      sourceNamespaces.push(value);
    });
  }

  const schedule = validateScheduleInput(body, backupName, fail);

  const timezone = optionalString('timezone');
  if (timezone !== undefined && (timezone.length > MAX_TIMEZONE_LENGTH || !isValidTimeZone(timezone))) {
    fail('timezone', 'must be an IANA time zone such as UTC or Europe/Berlin');
  }

  const namespacePrefix = optionalString('namespacePrefix');
  label('namespacePrefix', namespacePrefix);
  if (namespacePrefix !== undefined && namespacePrefix.length > MAX_NAMESPACE_PREFIX_LENGTH) {
    fail(
      'namespacePrefix',
      `must be at most ${MAX_NAMESPACE_PREFIX_LENGTH} characters so sandbox names fit in 63 characters`,
    );
  }

  const ttl = optionalString('ttl');
  duration('ttl', ttl);

  const networkIsolation = optionalString('networkIsolation');
  if (
    networkIsolation !== undefined &&
    !(NETWORK_ISOLATION_MODES as readonly string[]).includes(networkIsolation)
  ) {
    fail('networkIsolation', `must be one of ${NETWORK_ISOLATION_MODES.join(', ')}`);
  }

  const healthCheckPolicy = optionalString('healthCheckPolicy');
  label('healthCheckPolicy', healthCheckPolicy);

  const maxRTO = optionalString('maxRTO');
  duration('maxRTO', maxRTO);

  const maxRPO = optionalString('maxRPO');
  duration('maxRPO', maxRPO);

  let alertOnExceed: boolean = TEST_INPUT_DEFAULTS.alertOnExceed;
  if (present('alertOnExceed')) {
    if (typeof body.alertOnExceed !== 'boolean') fail('alertOnExceed', 'must be a boolean');
    else alertOnExceed = body.alertOnExceed;
  }
  // Without a target there is nothing to exceed; accepting it would promise alerts that never come.
  if (alertOnExceed && maxRTO === undefined && !errors.some((error) => error.field === 'maxRTO')) {
    fail('alertOnExceed', 'requires maxRTO');
  }

  let historyLimit: number = TEST_INPUT_DEFAULTS.historyLimit;
  if (present('historyLimit')) {
    const value = body.historyLimit;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      fail('historyLimit', 'must be an integer');
    } else if (value < HISTORY_LIMIT_RANGE.min || value > HISTORY_LIMIT_RANGE.max) {
      fail('historyLimit', `must be between ${HISTORY_LIMIT_RANGE.min} and ${HISTORY_LIMIT_RANGE.max}`);
    } else {
      historyLimit = value;
    }
  }

  const subset = validateSubsetInput(body.labelSelector, body.includedResources);
  errors.push(...subset.errors);
  // A subset the provider's tool cannot express exactly is refused, never restored whole.
  const unsupported =
    provider !== undefined && (PROVIDERS as readonly string[]).includes(provider)
      ? subsetUnsupported(provider as Provider, subset.subset)
      : undefined;
  if (unsupported) fail(unsupported.field, unsupported.message);

  const restore = validateRestoreInput(body.restore);
  errors.push(...restore.errors);

  const logCollection = validateLogCollectionInput(body.logCollection);
  errors.push(...logCollection.errors);

  for (const field of Object.keys(body)) {
    if (!(TEST_INPUT_FIELDS as readonly string[]).includes(field)) fail(field, 'is not a known field');
  }

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: name!,
      namespace: namespace ?? options.defaultNamespace ?? DEFAULT_TEST_NAMESPACE,
      provider: provider as Provider,
      backupName: backupName ?? TEST_INPUT_DEFAULTS.backupName,
      ...(backupSelect ? { backupSelect } : {}),
      sourceNamespaces,
      ...schedule,
      timezone: timezone ?? TEST_INPUT_DEFAULTS.timezone,
      namespacePrefix: namespacePrefix ?? TEST_INPUT_DEFAULTS.namespacePrefix,
      ttl: ttl ?? TEST_INPUT_DEFAULTS.ttl,
      networkIsolation:
        (networkIsolation as NetworkIsolation | undefined) ?? TEST_INPUT_DEFAULTS.networkIsolation,
      ...(healthCheckPolicy !== undefined ? { healthCheckPolicy } : {}),
      ...(maxRTO !== undefined ? { maxRTO } : {}),
      ...(maxRPO !== undefined ? { maxRPO } : {}),
      alertOnExceed,
      historyLimit,
      ...(subset.subset.labelSelector ? { labelSelector: subset.subset.labelSelector } : {}),
      ...(subset.subset.includedResources ? { includedResources: subset.subset.includedResources } : {}),
      ...(restore.spec ? { restore: restore.spec } : {}),
      ...(logCollection.spec ? { logCollection: logCollection.spec } : {}),
    },
  };
}

/**
 * backupSelect (issue 32): strategy latest or randomWithin; within is required with randomWithin
 * (a duration between 1h and 8784h) and refused with latest; randomWithin needs backupName latest
 * (drawing among one named backup means nothing). Null means omitted (latest).
 */
function validateBackupSelect(
  value: unknown,
  backupName: string | undefined,
  fail: (field: string, message: string) => void,
): { strategy: BackupSelectStrategy; within?: string } | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    fail('backupSelect', 'must be an object with strategy and, for randomWithin, within');
    return undefined;
  }
  let ok = true;
  for (const field of Object.keys(value)) {
    if (field !== 'strategy' && field !== 'within') {
      fail(`backupSelect.${field}`, 'is not a known field');
      ok = false;
    }
  }
  const strategy = value.strategy;
  if (typeof strategy !== 'string' || !(BACKUP_SELECT_STRATEGIES as readonly string[]).includes(strategy)) {
    fail('backupSelect.strategy', `must be one of ${BACKUP_SELECT_STRATEGIES.join(', ')}`);
    return undefined;
  }
  const within = value.within === null || value.within === '' ? undefined : value.within;
  if (strategy === 'latest') {
    if (within !== undefined) {
      fail('backupSelect.within', 'is only for strategy randomWithin');
      return undefined;
    }
    return ok ? { strategy: 'latest' } : undefined;
  }
  if (within === undefined) {
    fail('backupSelect.within', 'is required with strategy randomWithin (e.g. 720h for 30 days)');
    return undefined;
  }
  const seconds = typeof within === 'string' ? parseDuration(within) : null;
  if (seconds === null) {
    fail('backupSelect.within', `${DURATION_RULE}, e.g. 720h for 30 days`);
    return undefined;
  }
  if (seconds < BACKUP_SELECT_WITHIN_RANGE.min || seconds > BACKUP_SELECT_WITHIN_RANGE.max) {
    fail('backupSelect.within', 'must be between 1h and 8784h (366 days)');
    return undefined;
  }
  if (backupName !== undefined && backupName !== TEST_INPUT_DEFAULTS.backupName) {
    fail('backupSelect.strategy', 'randomWithin needs backupName latest');
    return undefined;
  }
  return ok ? { strategy: 'randomWithin', within: within as string } : undefined;
}

/** The spec of a new RestoreTest (name and namespace go to metadata). Defaults are written out. */
export function inputToSpec(input: ValidTestInput): RestoreTestSpec {
  const spec: RestoreTestSpec = {
    provider: input.provider,
    backupSource: {
      backupName: input.backupName,
      namespaces: input.sourceNamespaces.map((name) => ({ name })),
      ...(input.labelSelector ? { labelSelector: input.labelSelector } : {}),
      ...(input.includedResources ? { includedResources: input.includedResources } : {}),
      ...(input.backupSelect ? { select: { ...input.backupSelect } } : {}),
    },
    schedule: {
      ...(input.cron !== undefined ? { cron: input.cron } : {}),
      timezone: input.timezone,
      ...(input.onBackup ? { onBackup: { everyNth: input.onBackup.everyNth } } : {}),
    },
    sandbox: {
      namespacePrefix: input.namespacePrefix,
      ttl: input.ttl,
      networkIsolation: input.networkIsolation,
    },
    historyLimit: input.historyLimit,
  };
  // alertOnExceed is about the RTO (it requires maxRTO); it is written out whenever there is an SLA.
  if (input.maxRTO !== undefined || input.maxRPO !== undefined) {
    spec.sla = {
      ...(input.maxRTO !== undefined ? { maxRTO: input.maxRTO } : {}),
      ...(input.maxRPO !== undefined ? { maxRPO: input.maxRPO } : {}),
      alertOnExceed: input.alertOnExceed,
    };
  }
  if (input.healthCheckPolicy !== undefined) spec.healthCheckPolicy = input.healthCheckPolicy;
  if (input.restore !== undefined) spec.restore = input.restore;
  if (input.logCollection !== undefined) spec.logCollection = { ...input.logCollection };
  return spec;
}

/**
 * PUT semantics (decision 0003): every field CreateTestInput can express is replaced, an omitted
 * optional field returning to its default (an omitted maxRPO, like maxRTO, removes the target);
 * what it cannot express is kept from the existing spec (inline health checks, notifications,
 * sandbox quota and limit range, schedule.suspend, the provider namespace), so a PUT from the
 * dashboard never erases settings made with kubectl.
 */
export function specForUpdate(existing: RestoreTestSpec, input: ValidTestInput): RestoreTestSpec {
  const spec = inputToSpec(input);
  if (existing.backupSource?.providerNamespace !== undefined) {
    spec.backupSource.providerNamespace = existing.backupSource.providerNamespace;
  }
  if (existing.schedule?.suspend !== undefined) spec.schedule.suspend = existing.schedule.suspend;
  if (existing.sandbox?.resourceQuota !== undefined)
    spec.sandbox!.resourceQuota = existing.sandbox.resourceQuota;
  if (existing.sandbox?.limitRange !== undefined) spec.sandbox!.limitRange = existing.sandbox.limitRange;
  if (existing.healthChecks !== undefined) spec.healthChecks = existing.healthChecks;
  if (existing.notifications !== undefined) spec.notifications = existing.notifications;
  return spec;
}
