// kubectl restoretest: the command line. yargs parses; commands run outside yargs so that every
// failure ends here and maps onto the house exit codes: 0 ok, 1 error, 2 usage, 3 a run completed
// but did not pass. Errors go to stderr as `error: ...` (+ `hint: ...` lines); a usage error is
// exactly one line. Help, examples and the completion script go to stdout.
import yargs, { type Argv } from 'yargs';
import { OUTPUT_FORMATS, createSession, DEFAULT_SERVICE, DEFAULT_SERVICE_NAMESPACE, DEFAULT_SERVICE_PORT, type GlobalArgs, type OutputFormat, type PluginCommand } from './commands/command.js';
import { COMMANDS } from './commands/registry.js';
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError } from './errors.js';
import { colorEnabled, type CliIo } from './io.js';
import { terminalSafe } from './output/terminal-text.js';
import { checkName, parseDuration } from './validate.js';

export const PROGRAM = 'kubectl restoretest';
const EXECUTABLE = 'kubectl-restoretest';
const COMPLETION_COMMAND = 'completion';

const EPILOG = `The API is reached through the Kubernetes API server, as the aggregated API api.rehearsal.dev/v1 (APIService v1.api.rehearsal.dev), with the kubeconfig's credentials: no port-forward needed; RBAC: the ClusterRoles rehearsal-viewer (read) and rehearsal-editor (write). With --server URL it is called directly (e.g. through kubectl port-forward -n rehearsal-system svc/rehearsal-api 8080:8080) with a bearer token.

Exit codes: 0 ok, 1 error, 2 usage, 3 the run completed but did not pass (trigger --wait).`;

interface Selected {
  command: PluginCommand;
  args: Record<string, unknown>;
}

export interface CliOptions {
  /** trigger --wait poll interval (tests shorten it). */
  pollIntervalMs?: number;
}

function buildParser(io: CliIo, scriptName: string, onSelect: (selected: Selected) => void): Argv {
  let parser = yargs()
    .scriptName(scriptName)
    .usage(`${PROGRAM} <command> [flags]\n\nRehearsal restore tests: create, trigger and inspect them and their evidence.`)
    .option('namespace', { alias: 'n', type: 'string', requiresArg: true, global: true, describe: 'namespace (default: the kubeconfig context\'s, else rehearsal-system)' })
    .option('all-namespaces', { alias: 'A', type: 'boolean', default: false, global: true, describe: 'across all namespaces' })
    .option('output', { alias: 'o', choices: OUTPUT_FORMATS, default: 'table', requiresArg: true, global: true, describe: 'output format' })
    .option('context', { type: 'string', requiresArg: true, global: true, describe: 'kubeconfig context to use' })
    .option('kubeconfig', { type: 'string', requiresArg: true, global: true, describe: 'path to the kubeconfig (default: KUBECONFIG, ~/.kube/config)' })
    .option('server', { type: 'string', requiresArg: true, global: true, describe: 'call the Rehearsal API at this URL instead of through the Kubernetes API server' })
    .option('token', { type: 'string', requiresArg: true, global: true, describe: 'bearer token for --server (default: the kubeconfig user\'s token)' })
    .option('insecure-send-token', { type: 'boolean', default: false, global: true, describe: 'allow the token over plain http to a non-loopback --server' })
    .option('service-proxy', { type: 'boolean', default: false, global: true, describe: 'go through the API server\'s service proxy to the Service below instead of the aggregated API (passes no credentials on)' })
    .option('service-namespace', { type: 'string', default: DEFAULT_SERVICE_NAMESPACE, requiresArg: true, global: true, describe: 'namespace of the API Service' })
    .option('service', { type: 'string', default: DEFAULT_SERVICE, requiresArg: true, global: true, describe: 'name of the API Service' })
    .option('service-port', { type: 'string', default: DEFAULT_SERVICE_PORT, requiresArg: true, global: true, describe: 'port (number or name) of the API Service' })
    .option('request-timeout', { type: 'string', default: '30s', requiresArg: true, global: true, describe: 'give up on a request after this long (0 = never)' })
    .group(['namespace', 'all-namespaces', 'output'], 'Flags:')
    .group(['context', 'kubeconfig', 'server', 'token', 'insecure-send-token', 'service-proxy', 'service-namespace', 'service', 'service-port', 'request-timeout'], 'Connection flags:')
    .parserConfiguration({ 'strip-aliased': false })
    .env(false);
  for (const command of COMMANDS) {
    parser = parser.command(
      command.command,
      command.describe,
      (inner) => {
        let built = command.options(inner);
        for (const [example, description] of command.examples) built = built.example(example, description);
        return built.epilog(`Output formats (-o): ${command.outputs.join(', ')}.`);
      },
      (args) => onSelect({ command, args: args as Record<string, unknown> }),
    );
  }
  return parser
    .completion(COMPLETION_COMMAND, 'print a bash/zsh completion script (source <(kubectl-restoretest completion))')
    .demandCommand(1, 'a command is required')
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    .exitProcess(false)
    .wrap(Math.min(120, io.stdoutIsTTY ? Number(io.env.COLUMNS) || 120 : 120))
    .epilog(EPILOG);
}

async function parse(parser: Argv, argv: readonly string[]): Promise<{ error?: Error; args: Record<string, unknown>; output: string }> {
  // yargs may call back more than once (completion: first with no output, then with the
  // candidates), so keep the first error and the last output.
  let error: Error | undefined;
  let args: Record<string, unknown> = {};
  let output = '';
  await parser.parse([...argv], {}, (failure, parsed, text) => {
    error ??= failure ?? undefined;
    args = parsed as Record<string, unknown>;
    if (text) output = text;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { error, args, output };
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

function flagName(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** yargs' validation messages, rewritten as one kubectl-style line. */
function usageMessage(error: Error, args: Record<string, unknown>): string {
  const message = error.message;
  const positionals = ((args?._ as unknown[]) ?? []).map(String);
  const first = positionals[0];
  const known = [...COMMANDS.map((command) => command.name), COMPLETION_COMMAND];
  const help = `see '${PROGRAM} --help'`;
  if (first !== undefined && !known.includes(first)) {
    const suggestion = known.filter((name) => editDistance(name, first) <= 2 || name.startsWith(first));
    return `unknown command "${first}" for "${PROGRAM}"${suggestion.length ? `; did you mean "${suggestion[0]}"?` : `; ${help}`}`;
  }
  const command = COMMANDS.find((entry) => entry.name === first);
  const usage = command ? `${PROGRAM} ${command.command.replace(/<name>/, 'NAME').replace(/\[name\]/, '[NAME]')}` : PROGRAM;
  if (message === 'a command is required') return `a command is required; ${help}`;
  let match = /^Unknown arguments?: (.*)$/.exec(message);
  if (match) {
    const names = match[1]!.split(', ');
    const unknownPositional = names.find((name) => positionals.includes(name));
    if (unknownPositional !== undefined) return `unexpected argument "${unknownPositional}"; usage: ${usage}`;
    return `unknown flag: ${names.map(flagName).join(', ')}; see '${usage.split(' [')[0]!.split(' NAME')[0]} --help'`;
  }
  if (/^Not enough non-option arguments/.test(message)) return `NAME is required; usage: ${usage}`;
  match = /^Not enough arguments following: (.*)$/.exec(message);
  if (match) return `flag needs an argument: ${flagName(match[1]!)}`;
  match = /Argument: (\S+), Given: (.*), Choices: (.*)$/m.exec(message);
  if (match) return `invalid ${flagName(match[1]!)} ${match[2]}: use one of ${match[3]!.replace(/"/g, '')}`;
  match = /^Missing required arguments?: (.*)$/.exec(message);
  if (match) return `required flag${match[1]!.includes(',') ? 's' : ''} ${match[1]!.split(', ').map(flagName).join(', ')} not set; usage: ${usage}`;
  return message.split('\n')[0]!;
}

function globalArgs(args: Record<string, unknown>): GlobalArgs {
  const optional = (key: string): string | undefined => (args[key] === undefined ? undefined : String(args[key]));
  const namespace = optional('namespace');
  if (namespace !== undefined) checkName(namespace, '--namespace');
  const timeout = String(args['request-timeout']);
  const timeoutSeconds = timeout === '0' ? 0 : parseDuration(timeout);
  if (timeoutSeconds === undefined) throw new UsageError(`invalid --request-timeout "${timeout}": expected a duration such as 30s or 1m, or 0`);
  return {
    namespace,
    allNamespaces: args['all-namespaces'] === true,
    output: args.output as OutputFormat,
    context: optional('context'),
    kubeconfig: optional('kubeconfig'),
    server: optional('server'),
    token: optional('token'),
    serviceProxy: args['service-proxy'] === true,
    insecureSendToken: args['insecure-send-token'] === true,
    serviceNamespace: checkName(String(args['service-namespace']), '--service-namespace'),
    service: checkName(String(args.service), '--service'),
    servicePort: String(args['service-port']),
    requestTimeoutMs: timeoutSeconds * 1000,
  };
}

function report(io: CliIo, error: unknown): number {
  if (error instanceof CliError) {
    io.stderr(`error: ${error.message}\n`);
    for (const hint of error.hints) io.stderr(`hint: ${hint}\n`);
    return error.exitCode;
  }
  io.stderr(`error: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT_ERROR;
}

export async function runCli(argv: readonly string[], rawIo: CliIo, options: CliOptions = {}): Promise<number> {
  // Nothing reaches the terminal with control sequences the plugin did not write itself (issue 26).
  const io: CliIo = {
    ...rawIo,
    stdout: (text) => rawIo.stdout(terminalSafe(text)),
    stderr: (text) => rawIo.stderr(terminalSafe(text)),
  };
  // The completion script must call the executable itself; help shows the kubectl form.
  const completing = argv[0] === COMPLETION_COMMAND || argv.includes('--get-yargs-completions');
  let selected: Selected | undefined;
  const parser = buildParser(io, completing ? EXECUTABLE : PROGRAM, (choice) => {
    selected = choice;
  });
  const { error, args, output } = await parse(parser, argv);
  if (error) return report(io, new UsageError(usageMessage(error, args)));
  if (!selected) {
    if (output) io.stdout(output.endsWith('\n') ? output : `${output}\n`);
    return EXIT_OK;
  }
  try {
    const global = globalArgs(selected.args);
    if (!selected.command.outputs.includes(global.output)) {
      throw new UsageError(`-o ${global.output} is not supported by ${selected.command.name}; use one of ${selected.command.outputs.join(', ')}`);
    }
    return await selected.command.run(
      {
        io,
        global,
        color: colorEnabled(io.stdoutIsTTY, io.env),
        session: createSession(io, global),
        pollIntervalMs: options.pollIntervalMs ?? 1000,
      },
      selected.args,
    );
  } catch (failure) {
    return report(io, failure);
  }
}

export { EXIT_USAGE };
