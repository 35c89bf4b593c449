import { omittedNote } from '../output/omitted.js';
import { printList } from '../output/print.js';
import { testPrinter } from '../output/printers.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const listCommand = defineCommand({
  command: 'list',
  describe: 'List RestoreTests: schedule, phase, last score and result, last and next run',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 list', 'RestoreTests in the current namespace'],
    ['$0 list -A -o wide', 'in every namespace, with source namespaces and RTO targets'],
    ['$0 list -n team-a -o name', 'names only, for scripts'],
  ],
  async run(context) {
    const session = await context.session();
    // The server filters to the namespace (403 when the caller may not list there); with -A it
    // answers with the namespaces the caller may list and says how many it left out (issue 30).
    const tests = await session.api.listTests(session.allNamespaces ? undefined : session.namespace, (omitted) =>
      context.io.stderr(omittedNote(omitted, 'restoretests')),
    );
    // Filtered here too: a server older than issue 30 answers every namespace.
    const shown = session.allNamespaces ? tests : tests.filter((test) => test.namespace === session.namespace);
    await printList(context, shown, testPrinter, { allNamespaces: session.allNamespaces, namespace: session.namespace });
    return 0;
  },
});
