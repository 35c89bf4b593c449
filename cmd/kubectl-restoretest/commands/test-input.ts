// The flags of create and update: one per CreateTestInput field, or -f with the same fields as
// YAML/JSON (flags override the file). The restore transforms (restore: exclude, patches,
// removeDefaults, podSecurity) come from -f; --pod-security sets the one a flag expresses well.
// A subset (issue 32): --selector in kubectl's syntax (app=web,tier in (a,b),!legacy) becomes
// labelSelector; --include-resource deployments.apps (repeatable) becomes includedResources for
// the built-in types this file knows (other types: -f with group, version, kind and resource).
// --on-backup runs the test after each new backup of its source (issue 32), with --cron or
// instead of it; --every-nth-backup N only every Nth.
// The log collection of a failed run's diagnosis (issue 30): --log-lines, --log-containers and
// --[no-]log-init-containers, --[no-]log-previous, --[no-]log-events, merged into the file's
// logCollection.
// Everything is checked before the API is called, so bad
// input exits 2 with one line. update has PUT semantics: the body replaces the test, an omitted
// optional field returns to its default, so required fields must be given again. The fields, the
// choices, the range and the defaults are the server's (protocol/test-input.ts).
import { readFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import {
  BACKUP_SELECT_WITHIN_RANGE,
  EVERY_NTH_BACKUP_RANGE,
  HISTORY_LIMIT_RANGE,
  LOG_COLLECTION_DEFAULTS,
  LOG_COLLECTION_LINES_RANGE,
  LOG_CONTAINERS,
  NETWORK_ISOLATION_MODES,
  POD_SECURITY_LEVELS,
  PROVIDERS,
  TEST_INPUT_DEFAULTS as DEFAULTS,
  TEST_INPUT_FIELDS as FIELDS,
  type LogContainers,
  type NetworkIsolation,
  type PodSecurityLevel,
  type Provider,
} from '../../../protocol/test-input.js';
import type { CreateTestInput } from '../api.js';
import { UsageError } from '../errors.js';
import { checkCron, checkDuration, checkInteger, checkName, checkTimeZone, parseDuration } from '../validate.js';
import type { CommandContext } from './command.js';
import { parseResourceType, parseSelector } from './subset-flags.js';

const { min: HISTORY_MIN, max: HISTORY_MAX } = HISTORY_LIMIT_RANGE;
const { min: LOG_LINES_MIN, max: LOG_LINES_MAX } = LOG_COLLECTION_LINES_RANGE;

export function testInputOptions<T>(yargs: Argv<T>) {
  const group = 'RestoreTest fields (CreateTestInput):';
  return yargs
    .positional('name', { type: 'string', describe: 'name of the RestoreTest (or "name" in the -f file)' })
    .option('filename', {
      alias: 'f',
      type: 'string',
      requiresArg: true,
      describe: 'CreateTestInput as YAML or JSON ("-" for stdin); flags override its fields',
    })
    .option('provider', { choices: PROVIDERS, requiresArg: true, group, describe: 'backup provider (required)' })
    .option('backup', {
      type: 'string',
      requiresArg: true,
      group,
      describe: `backup to restore (default "${DEFAULTS.backupName}": the newest completed backup of the sources)`,
    })
    .option('random-within', {
      type: 'string',
      requiresArg: true,
      group,
      describe: 'restore a seeded random backup of this window before each run, e.g. 720h (default: the newest)',
    })
    .option('source-namespace', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      group,
      describe: 'namespace to restore; repeat or separate with commas (required)',
    })
    .option('cron', { type: 'string', requiresArg: true, group, describe: '5-field cron expression or @daily, @hourly, ... (required unless --on-backup)' })
    .option('on-backup', { type: 'boolean', group, describe: 'also run after each new backup of the sources; without --cron, only then (default false)' })
    .option('every-nth-backup', {
      type: 'string',
      requiresArg: true,
      group,
      describe: `with --on-backup: run on every Nth new backup, ${EVERY_NTH_BACKUP_RANGE.min}-${EVERY_NTH_BACKUP_RANGE.max} (default 1)`,
    })
    .option('timezone', { type: 'string', requiresArg: true, group, describe: `IANA time zone of the schedule (default ${DEFAULTS.timezone})` })
    .option('namespace-prefix', { type: 'string', requiresArg: true, group, describe: `prefix of sandbox namespaces (default ${DEFAULTS.namespacePrefix})` })
    .option('ttl', { type: 'string', requiresArg: true, group, describe: `longest life of a sandbox, e.g. 1h (default ${DEFAULTS.ttl})` })
    .option('network-isolation', {
      choices: NETWORK_ISOLATION_MODES,
      requiresArg: true,
      group,
      describe: `sandbox network policy (default ${DEFAULTS.networkIsolation})`,
    })
    .option('health-check-policy', {
      type: 'string',
      requiresArg: true,
      group,
      describe: 'HealthCheckPolicy in the test\'s namespace (default: built-in checks)',
    })
    .option('max-rto', { type: 'string', requiresArg: true, group, describe: 'RTO target, e.g. 15m (default: no SLA)' })
    .option('max-rpo', { type: 'string', requiresArg: true, group, describe: 'RPO target, e.g. 24h (default: none)' })
    .option('alert-on-exceed', { type: 'boolean', group, describe: `alert when the RTO exceeds --max-rto (default ${String(DEFAULTS.alertOnExceed)})` })
    .option('history-limit', { type: 'string', requiresArg: true, group, describe: `reports to keep, ${HISTORY_MIN}-${HISTORY_MAX} (default ${DEFAULTS.historyLimit})` })
    .option('selector', {
      type: 'string',
      requiresArg: true,
      group,
      describe: 'restore only objects whose labels match, e.g. app=web,tier in (a,b),!legacy (default: every object)',
    })
    .option('include-resource', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      group,
      describe: 'restore only this resource type, e.g. deployments.apps; repeat or separate with commas (default: every type)',
    })
    .option('log-lines', {
      type: 'string',
      requiresArg: true,
      group,
      describe: `log lines a failed run's diagnosis keeps per container, ${LOG_LINES_MIN}-${LOG_LINES_MAX} (default ${LOG_COLLECTION_DEFAULTS.lines})`,
    })
    .option('log-containers', {
      choices: LOG_CONTAINERS,
      requiresArg: true,
      group,
      describe: `whose logs: failing = not-Ready containers, all = every container (default ${LOG_COLLECTION_DEFAULTS.containers})`,
    })
    .option('log-init-containers', { type: 'boolean', group, describe: 'also the init containers\' logs (default true)' })
    .option('log-previous', { type: 'boolean', group, describe: 'also the previous instance of a restarted container (default true)' })
    .option('log-events', { type: 'boolean', group, describe: 'keep the sandbox\'s Warning events (default true)' })
    .option('pod-security', {
      choices: POD_SECURITY_LEVELS,
      requiresArg: true,
      group,
      describe: 'Pod Security floor of the sandboxes (default: the installation\'s; lower needs administer)',
    });
}

export type TestInputArgs = {
  name?: string;
  filename?: string;
  provider?: Provider;
  backup?: string;
  'random-within'?: string;
  'source-namespace'?: string[];
  cron?: string;
  'on-backup'?: boolean;
  'every-nth-backup'?: string;
  timezone?: string;
  'namespace-prefix'?: string;
  ttl?: string;
  'network-isolation'?: NetworkIsolation;
  'health-check-policy'?: string;
  'max-rto'?: string;
  'max-rpo'?: string;
  'alert-on-exceed'?: boolean;
  'history-limit'?: string;
  'log-lines'?: string;
  'log-containers'?: LogContainers;
  'log-init-containers'?: boolean;
  'log-previous'?: boolean;
  'log-events'?: boolean;
  'pod-security'?: PodSecurityLevel;
  selector?: string;
  'include-resource'?: string[];
};

async function readInputFile(context: CommandContext, file: string): Promise<Partial<CreateTestInput>> {
  let text: string;
  try {
    text = file === '-' ? await context.io.readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read -f ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { parse } = await import('yaml');
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new UsageError(`-f ${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`-f ${file} must hold one object with CreateTestInput fields (name, provider, sourceNamespaces, cron, ...)`);
  }
  const record = value as Record<string, unknown>;
  if ('apiVersion' in record || 'kind' in record || 'spec' in record) {
    throw new UsageError(
      `-f ${file} is a Kubernetes manifest; give CreateTestInput fields (name, provider, sourceNamespaces, cron, ...) or apply the manifest with kubectl apply -f`,
    );
  }
  const unknown = Object.keys(record).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new UsageError(`-f ${file}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${FIELDS.join(', ')})`);
  }
  return record as Partial<CreateTestInput>;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new UsageError(`invalid ${field}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The request body, checked. The namespace is -n, else the file's; the caller fills in the
 * context's namespace once connected (undefined = the server's default).
 */
export async function buildTestInput(
  context: CommandContext,
  args: TestInputArgs,
  verb: 'create' | 'update',
): Promise<CreateTestInput> {
  const file = args.filename === undefined ? {} : await readInputFile(context, args.filename);
  const input: Partial<CreateTestInput> = { ...file };
  const set = <K extends keyof CreateTestInput>(key: K, value: CreateTestInput[K] | undefined) => {
    if (value !== undefined) input[key] = value;
  };
  set('provider', args.provider);
  set('backupName', args.backup);
  if (args['random-within'] !== undefined) input.backupSelect = { strategy: 'randomWithin', within: args['random-within'] };
  if (args['source-namespace'] !== undefined) {
    input.sourceNamespaces = args['source-namespace'].flatMap((entry) => String(entry).split(',')).map((entry) => entry.trim()).filter(Boolean);
  }
  set('cron', args.cron);
  set('onBackup', args['on-backup']);
  if (args['every-nth-backup'] !== undefined) {
    input.everyNthBackup = checkInteger(args['every-nth-backup'], '--every-nth-backup', EVERY_NTH_BACKUP_RANGE.min, EVERY_NTH_BACKUP_RANGE.max);
  }
  set('timezone', args.timezone);
  set('namespacePrefix', args['namespace-prefix']);
  set('ttl', args.ttl);
  set('networkIsolation', args['network-isolation']);
  set('healthCheckPolicy', args['health-check-policy']);
  set('maxRTO', args['max-rto']);
  set('maxRPO', args['max-rpo']);
  set('alertOnExceed', args['alert-on-exceed']);
  if (args.selector !== undefined) input.labelSelector = parseSelector(args.selector);
  if (args['include-resource'] !== undefined) {
    input.includedResources = args['include-resource']
      .flatMap((entry) => String(entry).split(','))
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map(parseResourceType);
  }
  if (args['history-limit'] !== undefined) input.historyLimit = checkInteger(args['history-limit'], '--history-limit', HISTORY_MIN, HISTORY_MAX);
  const logFlags: NonNullable<CreateTestInput['logCollection']> = {};
  if (args['log-lines'] !== undefined) logFlags.lines = checkInteger(args['log-lines'], '--log-lines', LOG_LINES_MIN, LOG_LINES_MAX);
  if (args['log-containers'] !== undefined) logFlags.containers = args['log-containers'];
  if (args['log-init-containers'] !== undefined) logFlags.initContainers = args['log-init-containers'];
  if (args['log-previous'] !== undefined) logFlags.previous = args['log-previous'];
  if (args['log-events'] !== undefined) logFlags.events = args['log-events'];
  if (Object.keys(logFlags).length > 0) {
    const fromFile = input.logCollection as unknown;
    if (fromFile !== undefined && (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile))) {
      throw new UsageError('invalid logCollection: expected an object (lines, containers, initContainers, previous, events)');
    }
    input.logCollection = { ...(input.logCollection ?? {}), ...logFlags };
  }
  if (args['pod-security'] !== undefined) {
    if (input.restore !== undefined && (typeof input.restore !== 'object' || input.restore === null || Array.isArray(input.restore))) {
      throw new UsageError('invalid restore: expected an object (exclude, patches, removeDefaults, podSecurity)');
    }
    input.restore = { ...(input.restore ?? {}), podSecurity: args['pod-security'] };
  }

  if (context.global.allNamespaces) throw new UsageError(`cannot ${verb} a RestoreTest across all namespaces (-A); use -n NAMESPACE`);
  if (args.name !== undefined && input.name !== undefined && args.name !== input.name) {
    throw new UsageError(`NAME "${args.name}" differs from the name "${input.name}" in -f ${args.filename}`);
  }
  const name = args.name ?? input.name;
  if (name === undefined) {
    throw new UsageError(`a NAME is required: kubectl restoretest ${verb} NAME --provider P --source-namespace NS --cron CRON (or -f FILE with a name)`);
  }
  input.name = checkName(text(name, 'name'), 'NAME');
  const flagNamespace = context.global.namespace;
  if (flagNamespace !== undefined && input.namespace !== undefined && flagNamespace !== input.namespace) {
    throw new UsageError(`the namespace "${input.namespace}" in -f ${args.filename} differs from -n ${flagNamespace}`);
  }
  if (flagNamespace !== undefined) input.namespace = flagNamespace;
  if (input.namespace !== undefined) checkName(text(input.namespace, 'namespace'), 'namespace');

  const missing = [
    input.provider === undefined ? '--provider' : undefined,
    input.sourceNamespaces === undefined || input.sourceNamespaces.length === 0 ? '--source-namespace' : undefined,
    (input.cron === undefined || input.cron === null) && input.onBackup !== true ? '--cron (or --on-backup)' : undefined,
  ].filter((flag): flag is string => flag !== undefined);
  if (missing.length > 0) {
    const why = verb === 'update' ? ' (update replaces the whole test: give every field you want to keep)' : '';
    throw new UsageError(`missing required flag${missing.length > 1 ? 's' : ''} ${missing.join(', ')}${why}`);
  }
  if (!PROVIDERS.includes(input.provider as Provider)) {
    throw new UsageError(`invalid provider "${String(input.provider)}": use one of ${PROVIDERS.join(', ')}`);
  }
  if (!Array.isArray(input.sourceNamespaces)) throw new UsageError('invalid sourceNamespaces: expected a list of namespaces');
  for (const source of input.sourceNamespaces) checkName(text(source, 'source namespace'), 'source namespace');
  if (input.cron !== undefined && input.cron !== null) input.cron = await checkCron(text(input.cron, '--cron'));
  checkOnBackup(input);
  if (input.timezone !== undefined) checkTimeZone(text(input.timezone, '--timezone'));
  if (input.namespacePrefix !== undefined) checkName(text(input.namespacePrefix, '--namespace-prefix'), '--namespace-prefix');
  if (input.ttl !== undefined) checkDuration(text(input.ttl, '--ttl'), '--ttl');
  if (input.maxRTO !== undefined) checkDuration(text(input.maxRTO, '--max-rto'), '--max-rto');
  if (input.maxRPO !== undefined) checkDuration(text(input.maxRPO, '--max-rpo'), '--max-rpo');
  if (input.networkIsolation !== undefined && !NETWORK_ISOLATION_MODES.includes(input.networkIsolation as NetworkIsolation)) {
    throw new UsageError(`invalid network isolation "${String(input.networkIsolation)}": use one of ${NETWORK_ISOLATION_MODES.join(', ')}`);
  }
  if (input.healthCheckPolicy !== undefined) checkName(text(input.healthCheckPolicy, '--health-check-policy'), '--health-check-policy');
  if (input.backupName !== undefined && text(input.backupName, '--backup').trim() === '') throw new UsageError('invalid --backup "": give a backup name or "latest"');
  if (input.backupSelect !== undefined && input.backupSelect !== null) checkBackupSelect(input.backupSelect, input.backupName);
  if (input.alertOnExceed !== undefined && typeof input.alertOnExceed !== 'boolean') throw new UsageError('invalid alertOnExceed: expected true or false');
  if (input.historyLimit !== undefined) input.historyLimit = checkInteger(input.historyLimit, 'historyLimit', HISTORY_MIN, HISTORY_MAX);
  return input as CreateTestInput;
}

/** onBackup and everyNthBackup (issue 32), as the server checks them. */
function checkOnBackup(input: Partial<CreateTestInput>): void {
  const { onBackup, everyNthBackup, backupName } = input;
  if (onBackup !== undefined && onBackup !== null && typeof onBackup !== 'boolean') throw new UsageError('invalid onBackup: expected true or false');
  if (everyNthBackup !== undefined && everyNthBackup !== null) {
    input.everyNthBackup = checkInteger(everyNthBackup, '--every-nth-backup', EVERY_NTH_BACKUP_RANGE.min, EVERY_NTH_BACKUP_RANGE.max);
    if (onBackup !== true) throw new UsageError('--every-nth-backup needs --on-backup');
  }
  if (onBackup === true && backupName !== undefined && backupName !== null && backupName !== DEFAULTS.backupName) {
    throw new UsageError(`--on-backup runs on each new backup: drop --backup ${String(backupName)} or use latest`);
  }
}

/** backupSelect (issue 32), as the server checks it: randomWithin needs a window of 1h to 8784h and backup latest. */
function checkBackupSelect(select: unknown, backupName: unknown): void {
  if (typeof select !== 'object' || select === null || Array.isArray(select)) {
    throw new UsageError('invalid backupSelect: expected an object (strategy, within)');
  }
  const { strategy, within } = select as { strategy?: unknown; within?: unknown };
  if (strategy === 'latest' && (within === undefined || within === null || within === '')) return;
  if (strategy !== 'randomWithin') throw new UsageError(`invalid backupSelect.strategy ${JSON.stringify(strategy)}: use latest or randomWithin (with within)`);
  const window = checkDuration(text(within, '--random-within'), '--random-within');
  const seconds = parseDuration(window) ?? 0;
  if (seconds < BACKUP_SELECT_WITHIN_RANGE.min || seconds > BACKUP_SELECT_WITHIN_RANGE.max) {
    throw new UsageError(`invalid --random-within "${window}": expected a window from 1h to 8784h (366 days), e.g. 720h`);
  }
  if (backupName !== undefined && backupName !== DEFAULTS.backupName) {
    throw new UsageError(`--random-within draws among the backups latest would choose from: drop --backup ${String(backupName)} or use latest`);
  }
}
