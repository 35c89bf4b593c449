import { printList } from '../output/print.js';
import { alertPrinter } from '../output/printers.js';
import { checkInteger } from '../validate.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const alertsCommand = defineCommand({
  command: 'alerts',
  describe: 'Failed runs, score regressions and SLA breaches, newest first',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 alerts -A', 'alerts of the last 48 hours in every namespace'],
    ['$0 alerts --hours 168 -o wide', 'the last week in the current namespace, with timestamps'],
  ],
  options: (yargs) =>
    yargs.option('hours', { type: 'string', requiresArg: true, describe: 'look-back in hours (server default 48)' }),
  async run(context, args) {
    const hours = args.hours === undefined ? undefined : checkInteger(args.hours, '--hours', 1, 87600);
    const session = await context.session();
    const alerts = await session.api.alerts(hours);
    const shown = session.allNamespaces ? alerts : alerts.filter((alert) => alert.namespace === session.namespace);
    await printList(context, shown, alertPrinter, { allNamespaces: session.allNamespaces, namespace: session.namespace });
    return 0;
  },
});
