// The plugin's version and the server's (info.version of GET /openapi.json: the API has no version
// endpoint yet). Like kubectl version: the client line is printed even when the server is away.
import { CliError } from '../errors.js';
import { printStructured } from '../output/print.js';
import { PLUGIN_VERSION } from '../version.js';
import { defineCommand } from './command.js';

export const versionCommand = defineCommand({
  command: 'version',
  describe: 'Print the plugin version and the Rehearsal server version',
  outputs: ['table', 'json', 'yaml'],
  examples: [
    ['$0 version', 'client and server versions'],
    ['$0 version --client', 'the plugin only, without contacting the cluster'],
  ],
  options: (yargs) => yargs.option('client', { type: 'boolean', describe: 'print the plugin version only' }),
  async run(context, args) {
    let serverVersion: string | undefined;
    let failure: CliError | undefined;
    if (!args.client) {
      try {
        serverVersion = await (await context.session()).api.serverVersion();
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        failure = error;
      }
    }
    const versions = { clientVersion: PLUGIN_VERSION, ...(serverVersion ? { serverVersion } : {}) };
    if (!(await printStructured(context, versions))) {
      context.io.stdout(`Client Version: v${PLUGIN_VERSION}\n${serverVersion ? `Server Version: v${serverVersion}\n` : ''}`);
    }
    if (failure) throw failure;
    return 0;
  },
});
