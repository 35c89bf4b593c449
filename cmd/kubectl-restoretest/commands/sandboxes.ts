// `kubectl restoretest sandboxes`: the sandbox namespaces and what the server makes of each, for
// administrators (issue 26). --remove-orphans removes the sandboxes of deleted tests at once
// instead of at their expiry: each by the UID just listed, so a namespace created again under the
// same name in between is left alone (the server refuses it with 409 and says so).
import { EXIT_ERROR } from '../errors.js';
import { printList, printStructured } from '../output/print.js';
import { sandboxPrinter } from '../output/sandbox-printer.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const sandboxesCommand = defineCommand({
  command: 'sandboxes',
  describe: 'Sandbox namespaces and their state; --remove-orphans removes those of deleted tests (administer)',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 sandboxes', 'every sandbox namespace: in-use, kept, expired, orphaned, ...'],
    ['$0 sandboxes --orphaned -o wide', 'only the sandboxes of deleted tests, with why'],
    ['$0 sandboxes --remove-orphans', 'remove them now rather than at their expiry'],
  ],
  options: (yargs) =>
    yargs
      .option('orphaned', { type: 'boolean', default: false, describe: 'only sandboxes whose RestoreTest was deleted' })
      .option('remove-orphans', { type: 'boolean', default: false, describe: 'remove every orphaned sandbox listed' }),
  async run(context, args) {
    const session = await context.session();
    const removing = args['remove-orphans'];
    const sandboxes = await session.api.sandboxes(args.orphaned || removing);
    if (!removing) {
      if (await printStructured(context, sandboxes)) return 0;
      await printList(context, sandboxes, sandboxPrinter, { allNamespaces: true });
      return 0;
    }
    if (sandboxes.length === 0) {
      context.io.stderr('No orphaned sandboxes found\n');
      return 0;
    }
    const structured = ['json', 'yaml'].includes(context.global.output);
    const removed: typeof sandboxes = [];
    let failed = false;
    for (const sandbox of sandboxes) {
      try {
        await session.api.removeOrphanedSandbox(sandbox.name, sandbox.uid);
        removed.push(sandbox);
        if (structured) continue;
        context.io.stdout(
          context.global.output === 'name' ? `namespace/${sandbox.name}\n` : `namespace/${sandbox.name} removed (${sandbox.message})\n`,
        );
      } catch (error) {
        // One refusal (e.g. re-created since the list) does not stop the others.
        failed = true;
        context.io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    // -o json|yaml: the sandboxes removed, as the API listed them.
    if (structured) await printStructured(context, removed);
    return failed ? EXIT_ERROR : 0;
  },
});
