import { UsageError } from '../errors.js';
import { omittedNote } from '../output/omitted.js';
import { printList, tableOptions } from '../output/print.js';
import { reportPrinter, volumePrinter } from '../output/printers.js';
import { renderTable } from '../output/table.js';
import { checkInteger, checkName } from '../validate.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';

export const reportsCommand = defineCommand({
  command: 'reports [name]',
  describe: 'List RestoreReports (the evidence of each run), newest first',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 reports', 'reports of the last 30 days in the current namespace'],
    ['$0 reports payments --latest', 'the most recent report of "payments", with its restored volumes'],
    ['$0 reports -A --latest -o wide', 'the latest report of every test, with backup, checks and SLA'],
    ['$0 reports payments --days 90 -o yaml', 'full RestoreReport resources as YAML'],
  ],
  options: (yargs) =>
    yargs
      .positional('name', { type: 'string', describe: 'only the reports of this RestoreTest' })
      .option('days', { type: 'string', requiresArg: true, describe: 'look-back in days (server default 30)' })
      .option('latest', { type: 'boolean', describe: 'only the most recent report per test' }),
  async run(context, args) {
    const name = args.name === undefined ? undefined : checkName(String(args.name), 'NAME');
    if (name && context.global.allNamespaces) {
      throw new UsageError('reports of one RestoreTest cannot be listed across all namespaces (-A); use -n NAMESPACE');
    }
    const days = args.days === undefined ? undefined : checkInteger(args.days, '--days', 1, 3650);
    const session = await context.session();
    const reports = await session.api.listReports({
      test: name,
      // One test: its namespace (server default when unknown); otherwise this namespace or all.
      namespace: name ? session.requestNamespace : session.allNamespaces ? undefined : session.namespace,
      days,
      latest: args.latest ? true : undefined,
    }, (omitted) => context.io.stderr(omittedNote(omitted, 'restorereports')));
    await printList(context, reports, reportPrinter, {
      allNamespaces: session.allNamespaces,
      namespace: name ? (session.requestNamespace ?? session.namespace) : session.namespace,
    });
    // One test's latest report as a table: the volumes whose data it restored, one row each.
    const volumes = reports.length === 1 && name && args.latest ? (reports[0]!.spec.volumes ?? []) : [];
    if (volumes.length > 0 && (context.global.output === 'table' || context.global.output === 'wide')) {
      const table = tableOptions(context);
      context.io.stdout(`\nVolumes restored (${reports[0]!.metadata.name}):\n`);
      context.io.stdout(renderTable(volumePrinter.headers(table), volumes.map((volume) => volumePrinter.row(volume, table))));
    }
    return 0;
  },
});
