import { printStructured } from '../output/print.js';
import { RESTORETEST } from '../output/printers.js';
import { defineCommand } from './command.js';
import { buildTestInput, testInputOptions, type TestInputArgs } from './test-input.js';

export const updateCommand = defineCommand({
  command: 'update [name]',
  describe: 'Replace a RestoreTest (PUT: omitted optional fields return to their defaults)',
  outputs: ['table', 'json', 'yaml', 'name'],
  examples: [
    [
      '$0 update payments --provider velero --source-namespace payments --cron "30 3 * * *" --max-rto 20m',
      'move the schedule to 03:30 and relax the RTO target (every field is given again)',
    ],
    ['$0 update -f payments-test.yaml', 'replace it with the fields in the file'],
  ],
  options: (yargs) => testInputOptions(yargs),
  async run(context, args) {
    const input = await buildTestInput(context, args as TestInputArgs, 'update');
    const session = await context.session();
    input.namespace ??= session.requestNamespace;
    const updated = await session.api.replaceTest(input.name, input.namespace, input);
    if (!(await printStructured(context, updated))) {
      context.io.stdout(context.global.output === 'name' ? `${RESTORETEST}/${updated.name}\n` : `${RESTORETEST}/${updated.name} updated\n`);
    }
    return 0;
  },
});
