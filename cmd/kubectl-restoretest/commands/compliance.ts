// compliance --framework F --period N; with --pdf FILE the signed PDF (GET /api/v1/compliance/pdf,
// enterprise licenses with pdfExport) is written to FILE instead of printing the table.
import { FRAMEWORKS } from '../api.js';
import { printStructured, tableOptions } from '../output/print.js';
import { complianceSummaryPrinter, controlPrinter } from '../output/printers.js';
import { renderTable } from '../output/table.js';
import { checkInteger } from '../validate.js';
import { defineCommand } from './command.js';
import { downloadPdf } from './pdf-download.js';

export const complianceCommand = defineCommand({
  command: 'compliance',
  describe: 'Compliance evidence for a framework over a period: pass rate, SLA compliance, control status',
  outputs: ['table', 'wide', 'json', 'yaml'],
  examples: [
    ['$0 compliance --framework soc2', 'SOC 2 over the last 90 days'],
    ['$0 compliance --framework dora --period 30 -o wide', 'DORA over 30 days, with the evidence of each control'],
    ['$0 compliance --framework iso27001 --period 365 -o json', 'the API\'s ComplianceResponse'],
    ['$0 compliance --framework soc2 --period 90 --pdf soc2.pdf', 'the signed PDF (enterprise license)'],
  ],
  options: (yargs) =>
    yargs
      .option('framework', { choices: FRAMEWORKS, demandOption: true, requiresArg: true, describe: 'compliance framework' })
      .option('period', { type: 'string', default: '90', requiresArg: true, describe: 'period in days (1-3650)' })
      .option('pdf', { type: 'string', requiresArg: true, describe: 'write the signed PDF to this file instead of printing' }),
  async run(context, args) {
    const period = checkInteger(args.period, '--period', 1, 3650);
    const session = await context.session();
    if (args.pdf !== undefined) {
      return downloadPdf(
        context,
        session.api,
        { path: '/api/v1/compliance/pdf', query: { framework: args.framework, period } },
        args.pdf,
        'PDF export',
      );
    }
    const compliance = await session.api.compliance(args.framework, period);
    if (await printStructured(context, compliance)) return 0;
    const table = tableOptions(context);
    context.io.stdout(
      renderTable(complianceSummaryPrinter.headers(table), [complianceSummaryPrinter.row(compliance, table)]) +
        '\n' +
        renderTable(
          controlPrinter.headers(table),
          compliance.controls.map((control) => controlPrinter.row(control, table)),
        ),
    );
    return 0;
  },
});
