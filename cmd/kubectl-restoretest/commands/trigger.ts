import { EXIT_NOT_PASSED, UsageError } from '../errors.js';
import { printStructured, tableOptions } from '../output/print.js';
import { RESTORETEST, RESTOREREPORT } from '../output/printers.js';
import { renderRunResult } from '../output/run-result.js';
import { parseDuration } from '../validate.js';
import { defineCommand, OUTPUT_FORMATS } from './command.js';
import { followRun } from './follow-run.js';
import { nameArgument, testName } from './names.js';

export const triggerCommand = defineCommand({
  command: 'trigger <name>',
  describe: 'Start a run now; with --wait, follow it and exit 0 on pass, 3 on partial or fail',
  outputs: OUTPUT_FORMATS,
  examples: [
    ['$0 trigger payments', 'start a run of "payments" now, whatever its schedule'],
    ['$0 trigger payments --wait', 'follow it (restore, pods ready, checks, score) and print score, result and RTO'],
    ['$0 trigger payments --wait --timeout 30m -o json', 'wait up to 30 minutes and print the RestoreReport as JSON'],
  ],
  options: (yargs) =>
    nameArgument(yargs)
      .option('wait', { type: 'boolean', default: false, describe: 'follow the run to its report; exit 3 unless it passes' })
      .option('timeout', { type: 'string', default: '10m', requiresArg: true, describe: 'give up waiting after this long (exit 1)' }),
  async run(context, args) {
    const name = testName(context, args.name);
    const timeoutSeconds = parseDuration(args.timeout);
    if (timeoutSeconds === undefined || timeoutSeconds === 0) {
      throw new UsageError(`invalid --timeout "${args.timeout}": expected a duration such as 90s, 10m or 1h`);
    }
    const session = await context.session();
    const outcome = await session.api.triggerTest(name, session.requestNamespace);
    if (!args.wait) {
      if (await printStructured(context, outcome.test)) return 0;
      const pending = outcome.state === 'pending' ? ' (pending: the engine has not picked it up yet; it runs when it does)' : '';
      context.io.stdout(context.global.output === 'name' ? `${RESTORETEST}/${name}\n` : `${RESTORETEST}/${name} triggered${pending}\n`);
      return 0;
    }
    const report = await followRun(context, session, outcome, timeoutSeconds * 1000);
    if (!(await printStructured(context, report))) {
      context.io.stdout(
        context.global.output === 'name'
          ? `${RESTOREREPORT}/${report.metadata.name}\n`
          : renderRunResult(report, tableOptions(context)),
      );
    }
    return report.spec.result === 'pass' ? 0 : EXIT_NOT_PASSED;
  },
});
