import { renderDiagnosis } from '../output/diagnosis-printer.js';
import { printStructured } from '../output/print.js';
import { defineCommand } from './command.js';
import { nameArgument, testName } from './names.js';

export const diagnoseCommand = defineCommand({
  command: 'diagnose <name>',
  describe: 'Why a failed or partial run did not come up: hints, Pods not Ready, events, claims, last log lines',
  outputs: ['table', 'json', 'yaml'],
  examples: [
    ['$0 diagnose payments', 'the newest failed or partial run of "payments"'],
    ['$0 diagnose payments --run k3m9x2 -o yaml', 'one run, as the API\'s RunDiagnosis'],
  ],
  options: (yargs) =>
    nameArgument(yargs).option('run', { type: 'string', requiresArg: true, describe: 'run id (default: the newest run that did not pass)' }),
  async run(context, args) {
    const name = testName(context, args.name);
    const session = await context.session();
    const diagnosis = await session.api.diagnosis(name, session.requestNamespace, args.run);
    if (await printStructured(context, diagnosis)) return 0;
    context.io.stdout(renderDiagnosis(diagnosis, context.io.now()));
    return 0;
  },
});
