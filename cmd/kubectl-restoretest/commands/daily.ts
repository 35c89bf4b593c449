import { printList } from '../output/print.js';
import { dailyPrinter } from '../output/printers.js';
import { checkInteger } from '../validate.js';
import { defineCommand } from './command.js';

export const dailyCommand = defineCommand({
  command: 'daily',
  describe: 'Runs, average score and failures per day (UTC), oldest first, cluster-wide',
  outputs: ['table', 'wide', 'json', 'yaml'],
  examples: [
    ['$0 daily', 'the last 30 days'],
    ['$0 daily --days 7 -o yaml', 'the last week as YAML'],
  ],
  options: (yargs) =>
    yargs.option('days', { type: 'string', requiresArg: true, describe: 'number of days, today included (server default 30)' }),
  async run(context, args) {
    const days = args.days === undefined ? undefined : checkInteger(args.days, '--days', 1, 3650);
    const session = await context.session();
    await printList(context, await session.api.daily(days), dailyPrinter, { allNamespaces: true });
    return 0;
  },
});
