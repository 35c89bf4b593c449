import { coveragePrinter } from '../output/coverage-printer.js';
import { printList, printStructured } from '../output/print.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const coverageCommand = defineCommand({
  command: 'coverage',
  describe: 'Backed-up namespaces and whether a passing restore test covers them (untested first)',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 coverage', 'every namespace the backup tool (Velero, Kasten or Trilio) backs up: tested, stale or untested'],
    ['$0 coverage --untested -o name', 'namespace/NAME of each one nobody restore-tests'],
  ],
  options: (yargs) =>
    yargs.option('untested', {
      type: 'boolean',
      default: false,
      describe: 'only namespaces without a passing test in their window',
    }),
  async run(context, args) {
    const session = await context.session();
    const coverage = await session.api.coverage();
    if (await printStructured(context, coverage)) return 0;
    const rows = args.untested ? coverage.namespaces.filter((entry) => entry.status !== 'tested') : coverage.namespaces;
    await printList(context, rows, coveragePrinter, { allNamespaces: true });
    return 0;
  },
});
