import { printList } from '../output/print.js';
import { schedulePrinter } from '../output/printers.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const schedulesCommand = defineCommand({
  command: 'schedules',
  describe: 'Velero backup Schedules: cron, namespaces, last backup',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 schedules', 'the backup schedules a RestoreTest can rehearse'],
    ['$0 schedules -o name', 'schedule.velero.io/NAME lines'],
  ],
  async run(context) {
    const session = await context.session();
    await printList(context, await session.api.schedules(), schedulePrinter, { allNamespaces: true });
    return 0;
  },
});
