import { printList } from '../output/print.js';
import { upcomingPrinter } from '../output/printers.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const upcomingCommand = defineCommand({
  command: 'upcoming',
  describe: 'Scheduled runs, soonest first',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 upcoming', 'the next runs in the current namespace'],
    ['$0 upcoming -A -o wide', 'in every namespace, with the exact times'],
  ],
  async run(context) {
    const session = await context.session();
    const upcoming = await session.api.upcoming();
    const shown = session.allNamespaces ? upcoming : upcoming.filter((test) => test.namespace === session.namespace);
    await printList(context, shown, upcomingPrinter, { allNamespaces: session.allNamespaces, namespace: session.namespace });
    return 0;
  },
});
