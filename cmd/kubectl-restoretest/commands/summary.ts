import { printOne } from '../output/print.js';
import { summaryPrinter } from '../output/printers.js';
import { defineCommand } from './command.js';

export const summaryCommand = defineCommand({
  command: 'summary',
  describe: 'Cluster-wide summary of the last 24 hours: runs, average score and RTO, failures, coverage',
  outputs: ['table', 'wide', 'json', 'yaml'],
  examples: [
    ['$0 summary', 'the numbers of the dashboard\'s front page'],
    ['$0 summary -o json', 'the API\'s Summary object'],
  ],
  async run(context) {
    const session = await context.session();
    await printOne(context, await session.api.summary(), summaryPrinter);
    return 0;
  },
});
