// report NAME --pdf FILE: the signed per-test PDF (GET /api/restore-tests/{name}/report.pdf,
// enterprise licenses with pdfReports). `reports` lists reports; this one writes the document.
import { checkInteger } from '../validate.js';
import { defineCommand } from './command.js';
import { nameArgument, testName } from './names.js';
import { downloadPdf } from './pdf-download.js';

export const reportCommand = defineCommand({
  command: 'report <name>',
  describe: 'Download the signed PDF report of one RestoreTest',
  outputs: ['table'],
  examples: [
    ['$0 report payments --pdf payments.pdf', 'the last 90 days of "payments" as a signed PDF'],
    ['$0 report payments -n team-a --pdf q1.pdf --period 30', 'the last 30 days'],
    ['$0 verify --pdf payments.pdf', 'check the PDF\'s signed attestation offline'],
  ],
  options: (yargs) =>
    nameArgument(yargs)
      .option('pdf', { type: 'string', demandOption: true, requiresArg: true, describe: 'file to write the PDF to' })
      .option('period', { type: 'string', default: '90', requiresArg: true, describe: 'period in days (1-3650)' }),
  async run(context, args) {
    const name = testName(context, args.name);
    const period = checkInteger(args.period, '--period', 1, 3650);
    const session = await context.session();
    return downloadPdf(
      context,
      session.api,
      { path: `/api/restore-tests/${encodeURIComponent(name)}/report.pdf`, query: { period, namespace: session.requestNamespace } },
      args.pdf,
      'PDF reports',
    );
  },
});
