import { printOne } from '../output/print.js';
import { testPrinter } from '../output/printers.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';
import { nameArgument, testName } from './names.js';

export const getCommand = defineCommand({
  command: 'get <name>',
  describe: 'Show one RestoreTest',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 get payments', 'the test "payments" in the current namespace'],
    ['$0 get payments -n team-a -o yaml', 'as YAML (the API\'s TestResponse)'],
  ],
  options: (yargs) => nameArgument(yargs),
  async run(context, args) {
    const name = testName(context, args.name);
    const session = await context.session();
    await printOne(context, await session.api.getTest(name, session.requestNamespace), testPrinter);
    return 0;
  },
});
