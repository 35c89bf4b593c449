// What a command is, and what it gets to work with. Commands are registered in registry.ts; the
// CLI (cli.ts) parses global flags once, and a command connects only when it needs the API.
import type { Argv } from 'yargs';
import { RehearsalApi } from '../api.js';
import { connect, type Connection } from '../connect.js';
import type { CliIo } from '../io.js';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The Service the API is reached through by default (decision 0001). */
export const DEFAULT_SERVICE_NAMESPACE = 'rehearsal-system';
export const DEFAULT_SERVICE = 'rehearsal-api';
export const DEFAULT_SERVICE_PORT = '8080';
/** The server's default namespace; used to scope lists when neither -n nor the context sets one. */
export const DEFAULT_NAMESPACE = 'rehearsal-system';

export interface GlobalArgs {
  namespace?: string;
  allNamespaces: boolean;
  output: OutputFormat;
  context?: string;
  kubeconfig?: string;
  server?: string;
  token?: string;
  serviceProxy: boolean;
  insecureSendToken: boolean;
  serviceNamespace: string;
  service: string;
  servicePort: string;
  requestTimeoutMs: number;
}

export interface Session {
  api: RehearsalApi;
  connection: Connection;
  /**
   * The namespace sent with operations on one test: -n, else the kubeconfig context's namespace,
   * else undefined so that the API applies its own default (the server's namespace).
   */
  requestNamespace?: string;
  /** The namespace lists are scoped to without -A (requestNamespace, else rehearsal-system). */
  namespace: string;
  allNamespaces: boolean;
}

export interface CommandContext {
  io: CliIo;
  global: GlobalArgs;
  /** Colour for result words on stdout. */
  color: boolean;
  /** Connects on first use (commands that fail on their input never touch the network). */
  session(): Promise<Session>;
  /** How often trigger --wait polls. */
  pollIntervalMs: number;
}

export interface CommandSpec<A> {
  /** yargs command syntax, e.g. 'get <name>'. */
  command: string;
  describe: string;
  /** The -o formats this command prints; the first is the default. */
  outputs: readonly OutputFormat[];
  examples: readonly (readonly [string, string])[];
  options?(yargs: Argv): Argv<A>;
  run(context: CommandContext, args: A): Promise<number>;
}

/** A registered command, its argument type erased for the registry. */
export interface PluginCommand {
  name: string;
  command: string;
  describe: string;
  outputs: readonly OutputFormat[];
  examples: readonly (readonly [string, string])[];
  options(yargs: Argv): Argv;
  run(context: CommandContext, args: Record<string, unknown>): Promise<number>;
}

export function defineCommand<A>(spec: CommandSpec<A>): PluginCommand {
  return {
    name: spec.command.split(' ')[0]!,
    command: spec.command,
    describe: spec.describe,
    outputs: spec.outputs,
    examples: spec.examples,
    options: (yargs) => (spec.options ? (spec.options(yargs) as unknown as Argv) : yargs),
    run: (context, args) => spec.run(context, args as unknown as A),
  };
}

export function createSession(io: CliIo, global: GlobalArgs): () => Promise<Session> {
  let pending: Promise<Session> | undefined;
  return () => {
    pending ??= (async () => {
      const connection = await connect({
        kubeconfig: global.kubeconfig,
        context: global.context,
        server: global.server,
        token: global.token,
        serviceProxy: global.serviceProxy,
        insecureSendToken: global.insecureSendToken,
        serviceNamespace: global.serviceNamespace,
        service: global.service,
        servicePort: global.servicePort,
        requestTimeoutMs: global.requestTimeoutMs,
        env: io.env,
        wantKubeconfig: global.token === undefined || global.namespace === undefined,
      });
      const requestNamespace = global.namespace ?? connection.contextNamespace;
      return {
        api: new RehearsalApi(connection, global.requestTimeoutMs),
        connection,
        requestNamespace,
        namespace: requestNamespace ?? DEFAULT_NAMESPACE,
        allNamespaces: global.allNamespaces,
      };
    })();
    return pending;
  };
}
