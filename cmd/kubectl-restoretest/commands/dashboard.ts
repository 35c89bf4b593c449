// dashboard: serves the web dashboard on 127.0.0.1 through a local proxy with the kubeconfig's
// credentials (dashboard-proxy.ts), opens the browser, and runs until Ctrl-C.
import { spawn } from 'node:child_process';
import { CliError } from '../errors.js';
import { startDashboardProxy } from '../dashboard-proxy.js';
import type { Env } from '../io.js';
import { defineCommand } from './command.js';

interface DashboardArgs {
  port: number;
  browser: boolean;
}

/** The command that opens a URL here: $BROWSER, else the platform's opener. */
export function browserCommand(env: Env, platform: NodeJS.Platform = process.platform): [string, string[]] | undefined {
  if (env.BROWSER) return [env.BROWSER, []];
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    return env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open', []] : undefined;
  }
  return undefined;
}

function openBrowser(env: Env, url: string): Promise<boolean> {
  const command = browserCommand(env);
  if (!command) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(command[0], [...command[1], url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const dashboardCommand = defineCommand<DashboardArgs>({
  command: 'dashboard',
  describe: 'Open the web dashboard through a local proxy with your kubeconfig credentials (Ctrl-C stops it)',
  outputs: ['table'],
  examples: [
    ['$0 dashboard', 'serve the dashboard on a free local port and open the browser'],
    ['$0 dashboard --port 8001 --no-browser', 'a fixed port; print the URL only'],
  ],
  options: (yargs) =>
    yargs
      .option('port', { type: 'number', default: 0, describe: 'local port on 127.0.0.1 (0: any free port)' })
      .option('browser', { type: 'boolean', default: true, describe: 'open the browser (--no-browser: print the URL only)' }) as never,
  async run(context, args) {
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new CliError(`invalid --port ${args.port}: expected 0-65535`, [], 2);
    const session = await context.session();
    let proxy;
    try {
      proxy = await startDashboardProxy(session.connection, { port: args.port });
    } catch (error) {
      throw new CliError(`cannot listen on 127.0.0.1:${args.port}: ${(error as Error).message}`);
    }
    context.io.stdout(`Dashboard: ${proxy.url}\nServing ${session.connection.target} with your credentials; press Ctrl-C to stop.\n`);
    if (args.browser && !(await openBrowser(context.io.env, proxy.url))) {
      context.io.stderr('No browser to open here: open the URL above yourself.\n');
    }
    await (context.io.untilInterrupted ?? untilInterrupted)();
    await proxy.close();
    return 0;
  },
});
