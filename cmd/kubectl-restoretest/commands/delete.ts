import { RESTORETEST } from '../output/printers.js';
import { defineCommand } from './command.js';
import { nameArgument, testName } from './names.js';

export const deleteCommand = defineCommand({
  command: 'delete <name>',
  describe: 'Delete a RestoreTest (its RestoreReports are garbage-collected with it)',
  outputs: ['table', 'name'],
  examples: [
    ['$0 delete payments', 'delete "payments" in the current namespace'],
    ['$0 delete payments -n team-a -o name', 'print restoretest.rehearsal.dev/payments when done'],
  ],
  options: (yargs) => nameArgument(yargs),
  async run(context, args) {
    const name = testName(context, args.name);
    const session = await context.session();
    await session.api.deleteTest(name, session.requestNamespace);
    context.io.stdout(context.global.output === 'name' ? `${RESTORETEST}/${name}\n` : `${RESTORETEST} "${name}" deleted\n`);
    return 0;
  },
});
